"""Is a recompiled (decompiled, then compiled) code object safe to run instead of Dynamo's?

Byte-for-byte equality is impossible: Dynamo emits stack shuffles, temporaries and
bookkeeping that no compiler would produce from source. ``differences()`` returns a list of
human-readable reasons (empty = equivalent), from these checks:

* frame shape: argument counts and names, flags (varargs, generator, ...), free and cell
  variables, and the original frame's local variables as a prefix of ``co_varnames``
  (Dynamo copies the caller's locals into the new frame by position);
* the same global names loaded, stored and deleted (after mapping names that were renamed on
  purpose, e.g. ``__compiled_fn_1_<uuid>`` -> ``__compiled_fn_1``, and ignoring names bound
  for non-literal constants), the same attribute names and imports, and the same number of
  references to each compiled graph (``__compiled_fn_*``) and resume function;
* exception handling present in both or in neither;
* no local variable read before it is assigned on every path (a forward "definitely
  assigned" analysis over the candidate's control-flow graph): a wrong statement order in
  the decompiled text shows up here before it can raise ``UnboundLocalError`` at run time;
* no statement that mutates an object no variable refers to (``[x][0][0:0] = ...``,
  ``del [y][-1]``): Dynamo keeps such objects on the stack and reaches them again through
  ``COPY``; a decompilation that rebuilds them as fresh displays lost that aliasing
  (``mutations_of_temporaries``);
* then, the same behaviour when both are run on recording proxies (``proxy_run``): the same
  operations on arguments, globals and constants, in the same order, with the same
  (aliased) arguments, on every explored combination of branches.

Calls are compared by running the code, not by counting CALL instructions: a ``finally``
body is compiled twice (normal and exceptional exit), so static counts differ between
equivalent codes. Nor is a per-basic-block stack effect compared: Dynamo keeps values on the
stack across jumps where source-level code uses variables, so the block structure differs by
design.
"""
import ast
import dis
import inspect
import sys

from . import proxy_run

_GLOBAL_OPS = {"LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME", "STORE_NAME"}
_ATTR_OPS = {"LOAD_ATTR", "STORE_ATTR", "DELETE_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR"}
_IMPORT_OPS = {"IMPORT_NAME", "IMPORT_FROM"}
_FLAG_MASK = (
    inspect.CO_VARARGS
    | inspect.CO_VARKEYWORDS
    | inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)
_SPECIAL_PREFIXES = ("__compiled_fn_", "__resume_at_", "__resume_")


def _argval_name(ins):
    name = ins.argval
    if isinstance(name, tuple):  # LOAD_SUPER_ATTR etc. on some versions
        name = name[-1]
    if not isinstance(name, str):
        return None
    # 3.11+ LOAD_GLOBAL shows "NULL + name"; 3.12 LOAD_ATTR shows "NULL|self + name"
    return name.split(" + ")[-1]


def summarize(code, name_map=None, ignore_globals=()):
    """The facts the comparison uses, for one code object (nested code objects are not
    descended into: their behaviour is checked when they are compiled themselves)."""
    name_map = name_map or {}
    globals_used, attrs, imports, specials = set(), set(), set(), {}
    has_handlers = False
    prev = None
    for ins in dis.get_instructions(code):
        op = ins.opname
        made_cell = prev is not None and prev.opname in ("MAKE_FUNCTION", "SET_FUNCTION_ATTRIBUTE") \
            and op == "LOAD_ATTR" and _argval_name(ins) == "__closure__"
        prev = ins
        if made_cell:
            continue  # `(lambda: x).__closure__[0]`: how the decompiler writes a cell as a value
        if op in _GLOBAL_OPS:
            name = name_map.get(_argval_name(ins), _argval_name(ins))
            if name in ignore_globals:
                continue
            globals_used.add((op.split("_")[0], name))
            if name and name.startswith(_SPECIAL_PREFIXES):
                specials[name] = specials.get(name, 0) + 1
        elif op in _ATTR_OPS:
            verb = "LOAD" if op in ("LOAD_METHOD", "LOAD_SUPER_ATTR") else op.split("_")[0]
            attrs.add((verb, _argval_name(ins)))
        elif op in _IMPORT_OPS:
            imports.add((op, _argval_name(ins)))
        elif op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "PUSH_EXC_INFO"):
            has_handlers = True
    if sys.version_info >= (3, 11) and getattr(code, "co_exceptiontable", b""):
        has_handlers = True
    return {
        "globals": globals_used,
        "attrs": attrs,
        "imports": imports,
        "specials": specials,
        "handlers": has_handlers,
    }


_STORE_LOCAL = {"STORE_FAST", "STORE_FAST_MAYBE_NULL"}
_LOAD_LOCAL = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR"}
_TERMINAL = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
             "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_NO_INTERRUPT"}


def _exception_targets(code):
    """[(start, end, target)] offsets of the 3.11+ exception table; [] before 3.11."""
    parse = getattr(dis, "_parse_exception_table", None)
    if parse is None:
        return []
    try:
        return [(e.start, e.end, e.target) for e in parse(code)]
    except Exception:
        return []


def reads_before_assignment(code):
    """Locals read where they may not have been assigned yet (sorted names)."""
    instrs = list(dis.get_instructions(code))
    if not instrs:
        return []
    index = {ins.offset: i for i, ins in enumerate(instrs)}
    nargs = argument_count(code)
    params = frozenset(code.co_varnames[:nargs]) | frozenset(code.co_cellvars) | frozenset(code.co_freevars)
    handlers = _exception_targets(code)
    succ = {}
    for i, ins in enumerate(instrs):
        nxt = []
        if ins.opname not in _TERMINAL and i + 1 < len(instrs):
            nxt.append(i + 1)
        target = getattr(ins, "jump_target", None)
        if target is None and ins.opcode in dis.hasjabs + dis.hasjrel:
            target = ins.argval
        if isinstance(target, int) and target in index:
            nxt.append(index[target])
        for start, end, handler in handlers:
            if start <= ins.offset < end and handler in index:
                nxt.append(index[handler])
        succ[i] = nxt
    full = frozenset(code.co_varnames)
    state = {0: params}
    work = [0]
    while work:
        i = work.pop()
        assigned = set(state[i])
        for kind, name in _local_accesses(instrs[i]):
            if kind == "store":
                assigned.add(name)
            elif kind == "delete":
                assigned.discard(name)
        assigned = frozenset(assigned)
        for j in succ[i]:
            old = state.get(j)
            new = assigned if old is None else (old & assigned)
            if new != old:
                state[j] = new
                work.append(j)
    bad = set()
    for i, ins in enumerate(instrs):
        if i not in state:
            continue
        assigned = set(state[i])
        for kind, name in _local_accesses(ins):
            if kind == "load" and name not in assigned and name in full:
                bad.add(name)
            elif kind == "store":
                assigned.add(name)
    return sorted(bad)


def _local_accesses(ins):
    """[(load|store|delete, name)] of one instruction, in order; handles the 3.13
    super-instructions (LOAD_FAST_LOAD_FAST, STORE_FAST_LOAD_FAST, STORE_FAST_STORE_FAST)."""
    op, arg = ins.opname, ins.argval
    if op in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"):
        kinds = [part.lower() for part in op.split("_FAST")[:2]]
        kinds = [k.strip("_") for k in kinds]
        names = arg if isinstance(arg, tuple) else (arg,)
        return list(zip(kinds, names))
    if op in _STORE_LOCAL:
        return [("store", arg)]
    if op == "DELETE_FAST":
        return [("delete", arg)]
    if op in _LOAD_LOCAL and op != "LOAD_FAST_AND_CLEAR":  # that one may read unbound by design
        return [("load", arg)]
    return []


def argument_count(code):
    """Number of arguments, counting *args and **kwargs."""
    return (
        code.co_argcount
        + code.co_kwonlyargcount
        + bool(code.co_flags & inspect.CO_VARARGS)
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )


_DISPLAYS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _base(node):
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node


def mutations_of_temporaries(source):
    """Lines of ``source`` that store into, or delete from, an object built right there by
    a display (so no variable refers to it): the mutation is lost."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        else:
            continue
        flat = []
        for t in targets:
            flat.extend(t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
        for t in flat:
            if isinstance(t, (ast.Subscript, ast.Attribute)) and isinstance(_base(t), _DISPLAYS):
                bad.append(node.lineno)
                break
    return bad


def differences(candidate, reference, required_varnames=(), name_map=None, bindings=None, source=None):
    """Reasons why ``candidate`` may not replace ``reference`` (Dynamo's code); [] if none.

    ``required_varnames``: the original frame's ``co_varnames`` (must be a prefix).
    ``name_map``: renames applied on purpose (reference name -> candidate name).
    ``bindings``: globals the candidate uses for non-literal constants (name -> object).
    ``source``: the decompiled text the candidate was compiled from.
    """
    reasons = []
    for attr in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount"):
        if getattr(candidate, attr, 0) != getattr(reference, attr, 0):
            reasons.append(
                "%s differs: %s vs Dynamo's %s"
                % (attr, getattr(candidate, attr, 0), getattr(reference, attr, 0))
            )
    if (candidate.co_flags & _FLAG_MASK) != (reference.co_flags & _FLAG_MASK):
        reasons.append("code flags differ (varargs/generator/coroutine kind)")
    n = argument_count(reference)
    if candidate.co_varnames[:n] != reference.co_varnames[:n]:
        reasons.append(
            "argument names differ: %s vs Dynamo's %s"
            % (candidate.co_varnames[:n], reference.co_varnames[:n])
        )
    required = tuple(required_varnames)
    if candidate.co_varnames[: len(required)] != required:
        reasons.append(
            "local variables do not start with the original frame's %s (got %s)"
            % (required, candidate.co_varnames[: len(required)])
        )
    if candidate.co_freevars != reference.co_freevars:
        reasons.append(
            "free variables differ: %s vs Dynamo's %s"
            % (candidate.co_freevars, reference.co_freevars)
        )
    if candidate.co_cellvars != reference.co_cellvars:
        reasons.append(
            "cell variables differ: %s vs Dynamo's %s"
            % (candidate.co_cellvars, reference.co_cellvars)
        )

    if source is not None:
        lost = mutations_of_temporaries(source)
        if lost:
            reasons.append(
                "mutates objects no variable refers to (line %s of the decompiled function): "
                "values Dynamo keeps on the stack were rebuilt instead of shared"
                % ", ".join(map(str, lost))
            )
    unbound = reads_before_assignment(candidate)
    if unbound:
        reasons.append("reads local variables before they are assigned: %s" % ", ".join(unbound))

    ref = summarize(reference, name_map=name_map)
    bindings = dict(bindings or {})
    cand = summarize(candidate, ignore_globals=set(bindings))
    for key, label in (
        ("globals", "global names used"),
        ("attrs", "attribute names used"),
        ("imports", "imports"),
    ):
        if ref[key] != cand[key]:
            missing = sorted(map(str, ref[key] - cand[key]))
            extra = sorted(map(str, cand[key] - ref[key]))
            reasons.append(
                "%s differ (missing: %s; extra: %s)"
                % (label, ", ".join(missing) or "-", ", ".join(extra) or "-")
            )
    if ref["specials"] != cand["specials"]:
        reasons.append(
            "calls of compiled graphs / resume functions differ: %s vs Dynamo's %s"
            % (cand["specials"], ref["specials"])
        )
    if ref["handlers"] != cand["handlers"]:
        reasons.append("exception handling present in only one of the two")
    if not reasons:  # the structure agrees: compare what the two codes do, on proxies
        behaviour = proxy_run.compare(candidate, reference, name_map or {}, bindings)
        if behaviour:
            reasons.append(behaviour)
    return reasons
