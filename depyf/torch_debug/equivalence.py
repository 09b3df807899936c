"""Is a recompiled (decompiled, then compiled) code object safe to run instead of Dynamo's?

Byte-for-byte equality is impossible: Dynamo emits stack shuffles, temporaries and
bookkeeping that no compiler would produce from source. The check is therefore structural;
``differences()`` returns a list of human-readable reasons (empty = equivalent):

* frame shape: argument counts and names, flags (varargs, generator, ...), free and cell
  variables, and the original frame's local variables as a prefix of ``co_varnames``
  (Dynamo copies the caller's locals into the new frame by position);
* the same global names loaded, stored and deleted (after mapping names that were renamed on
  purpose, e.g. ``__compiled_fn_1_<uuid>`` -> ``__compiled_fn_1``, and ignoring names bound
  for non-literal constants);
* the same attribute names read, written and deleted, and the same imports;
* the same number of references to each compiled graph (``__compiled_fn_*``) and resume
  function (``__resume_*``): each graph is called exactly as often;
* every string and number constant of Dynamo's code still present, and exception handling
  present in both or in neither.

A per-basic-block stack-effect comparison is not done: Dynamo keeps values on the stack
across jumps where source-level code uses variables, so the block structure differs by
design; the checks above catch the failure modes seen in practice (lost calls, wrong
globals, closure shape errors).
"""
import dis
import inspect
import sys

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
    for ins in dis.get_instructions(code):
        op = ins.opname
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
        "constants": _constants(code),
    }


def _constants(code):
    out = set()

    def add(value):
        if isinstance(value, tuple):
            for v in value:
                add(v)
        elif isinstance(value, frozenset):
            for v in value:
                add(v)
        elif isinstance(value, (str, bytes, int, float, complex)) and not isinstance(value, bool):
            out.add((type(value).__name__, value))

    for c in code.co_consts:
        add(c)
    return out


def _nargs(code):
    return (
        code.co_argcount
        + code.co_kwonlyargcount
        + bool(code.co_flags & inspect.CO_VARARGS)
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )


def differences(candidate, reference, required_varnames=(), name_map=None, bound_names=()):
    """Reasons why ``candidate`` may not replace ``reference`` (Dynamo's code); [] if none.

    ``required_varnames``: the original frame's ``co_varnames`` (must be a prefix).
    ``name_map``: renames applied on purpose (reference name -> candidate name).
    ``bound_names``: globals the candidate uses for non-literal constants.
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
    n = _nargs(reference)
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

    ref = summarize(reference, name_map=name_map)
    cand = summarize(candidate, ignore_globals=set(bound_names))
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
    lost = ref["constants"] - cand["constants"]
    if lost:
        reasons.append(
            "constants of Dynamo's code missing: %s" % ", ".join(sorted(repr(v) for _, v in lost))
        )
    return reasons
