"""Guards as Python that runs.

Each cache entry's guard becomes a function ``__guard_<i>_for_<fn>(L, G, **___kwargs_ignored)``
of the frame's locals ``L`` and globals ``G``. Its result agrees with torch's own
``entry.guard_manager.check(L)`` (``adapter.entry_guard``: ``check_fn`` before torch 2.6).
One line per guard, with the user's source line (from torch's guard description) as a
comment, in the order torch checks them.

torch describes its guards with text, and some of those texts are not Python. They are
translated (``translate``):

* ``check_tensor(L['a'], Tensor, DispatchKeySet(...), torch.float32, device=None,
  requires_grad=False, size=[4], stride=[1])`` -> ``___check_tensor(...)`` (below) with the
  class name and the dispatch key set as strings;
* ``check_no_aliasing(L['a'], L['b'])`` -> ``___check_no_aliasing(...)``;
* ``___check_global_state() against {...}`` -> ``___check_global_state()`` (torch's own);
* ``___check_obj_id(x, 123), type=<class 'module'>`` -> ``___check_obj_id(x, 123)``;
* ``...top_saved_tensors_hooks ids == X`` -> ``___saved_tensors_hooks_ids() == X``;
* anything else that parses as a Python expression whose names are all known is used as is.

A guard with no such translation is not pasted as pseudo-code: the function then ends by
calling the real guard object, bound as ``___real_guard`` (``entry.guard_manager``), and the
untranslated descriptions are listed as comments above that call.

The names a guard function uses (``___check_obj_id``, ``utils_device``, ``torch`` ...) are
torch's guard closure variables (``guard_manager.closure_vars``) plus the helpers defined
here; ``guard_namespace(entry)`` returns them all and ``load_guard_function`` builds the
callable from its source.
"""
import ast
import builtins
import re

import torch

from . import adapter
from .readable.facts import walk

_SUFFIX_TYPE = re.compile(r",\s*type=<class '[^']*'>\s*$")
_TENSOR = re.compile(r"^check_tensor\((?P<src>.+?), (?P<cls>\w+), (?P<keys>DispatchKeySet\([^)]*\)), (?P<rest>.*)\)$")


def ___check_tensor(value, cls_name, dispatch_keys, dtype, device=None, requires_grad=None,
                    size=None, stride=None):
    """Python form of torch's TENSOR_MATCH guard: exact class, dispatch keys (with the
    thread-local include/exclude sets applied), dtype, device index, requires_grad, and
    sizes/strides (``None`` entries are dynamic and not checked)."""
    if not isinstance(value, torch.Tensor) or type(value).__name__ != cls_name:
        return False
    if str(adapter.dispatch_keys_for_guard(value)) != dispatch_keys:
        return False
    if value.dtype != dtype:
        return False
    if value.device.index != device:
        return False
    if requires_grad is not None and value.requires_grad != requires_grad:
        return False
    if size is not None:
        if value.dim() != len(size):
            return False
        if any(s is not None and s != v for s, v in zip(size, value.size())):
            return False
    if stride is not None:
        if any(s is not None and s != v for s, v in zip(stride, value.stride())):
            return False
    return True


def ___check_no_aliasing(*tensors):
    """Python form of NO_TENSOR_ALIASING: no tensor object is passed twice."""
    return len({id(t) for t in tensors}) == len(tensors)


def ___saved_tensors_hooks_ids():
    """What the AUTOGRAD_SAVED_TENSORS_HOOKS guard compares (ids of inlineable hooks)."""
    return adapter.saved_tensors_hooks_ids()


HELPERS = {
    "___check_tensor": ___check_tensor,
    "___check_no_aliasing": ___check_no_aliasing,
    "___saved_tensors_hooks_ids": ___saved_tensors_hooks_ids,
}


def split_description(text):
    """torch's verbose guard text -> (guard code, user source comment or '')."""
    code, _, comment = text.partition("  # ")
    comment = comment.strip()
    return code.strip(), comment


def translate(code, known_names):
    """Python expression for one guard description, or None when there is none."""
    code = code.strip()
    if code.startswith("___check_global_state()"):
        code = "___check_global_state()"
    code = _SUFFIX_TYPE.sub("", code)
    m = re.match(r"^torch\._functorch\.aot_autograd\.utils\.top_saved_tensors_hooks ids == (.*)$", code)
    if m:
        code = "___saved_tensors_hooks_ids() == %s" % m.group(1)
    m = _TENSOR.match(code)
    if m:
        code = "___check_tensor(%s, %r, %r, %s)" % (m.group("src"), m.group("cls"), m.group("keys"), m.group("rest"))
    elif code.startswith("check_no_aliasing("):
        code = "___" + code
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        return None
    for node in walk(tree):  # (readable's walk: ast.walk's nodes, faster; BERT has 300 guards)
        if isinstance(node, ast.Name) and node.id not in known_names:
            return None
    return code


def guard_namespace(entry):
    """Every name a generated guard function of ``entry`` may refer to."""
    manager = adapter.entry_guard(entry)
    ns = dict(adapter.guard_closure_vars(manager))
    ns.update(HELPERS)
    ns["___real_guard"] = manager
    ns.setdefault("torch", torch)
    return ns


def guard_lines(entry):
    """[(description, user comment)] for every guard of ``entry``, in check order."""
    out = []
    manager = adapter.entry_guard(entry)
    for _source, _kind, parts in adapter.guard_tree(manager) or ():
        for part in parts:
            out.append(split_description(part))
    if not out:
        out = [split_description(p) for p in getattr(manager, "code_parts", ()) or ()]
    return out


def guard_function_source(entry, func_name):
    """Source of the guard function of one cache entry. Returns (source, uses_real_guard)."""
    known = set(guard_namespace(entry)) | {"L", "G"} | set(dir(builtins))
    body, untranslated = [], []
    seen = set()
    for code, comment in guard_lines(entry):
        py = translate(code, known)
        if py is None:
            untranslated.append((code, comment))
            continue
        if py in seen:  # e.g. a relational guard listed under each of its tensors
            continue
        seen.add(py)
        line = "        if not (%s): return False" % py
        if comment:
            line += "  # " + comment.replace("\n", " ")
        body.append(line)
    cid = adapter.compile_id_of_entry(entry)
    lines = [
        "def %s(L, G, **___kwargs_ignored):" % func_name,
        "    # Guards of cache entry compiled as %s; torch checks them in this order, and the"
        % ("%s/%s" % cid if cid else "?"),
        "    # entry is used only if all pass. L: the frame's locals, G: its globals.",
        "    try:",
    ]
    lines.extend(body)
    if untranslated:
        lines.append("        # Guards with no Python form; the real guard object checks them:")
        for code, comment in untranslated:
            text = code.replace("\n", " ")
            if len(text) > 160:
                text = text[:157] + "..."
            lines.append("        #   %s%s" % (text, ("  # " + comment) if comment else ""))
        lines.append("        return ___real_guard.check(L)")
    else:
        lines.append("        return True")
    lines.append("    except Exception:  # a value a guard reads is missing: the guard fails")
    lines.append("        return False")
    return "\n".join(lines) + "\n", bool(untranslated)


def load_guard_function(entry, source, func_name):
    """Build the guard function from its ``source`` in ``guard_namespace(entry)``."""
    ns = guard_namespace(entry)
    exec(compile(source, "<depyf guard %s>" % func_name, "exec"), ns)
    return ns[func_name]
