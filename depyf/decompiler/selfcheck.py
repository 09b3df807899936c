"""Last stage: recompile the output and refuse it when it plainly does something else.

Exact bytecode equality is too strict a test (several sources compile to the same
behaviour with different bytecode), so the check compares what the code *touches*: the
global and attribute names it reads, writes and deletes, the locals it assigns, the
constants it uses, the operators, calls, imports, raises and yields it performs, in this
code object and every nested one. A statement lost or invented by the decompiler changes
that set; when it does, ``DecompilationError`` is raised rather than wrong code returned.
"""
import dis
import types

from ..errors import DecompilationError
from . import versions as V

_NAME_OPS = {
    "LOAD_GLOBAL": "global", "LOAD_NAME": "global", "STORE_GLOBAL": "store-global",
    "STORE_NAME": "store", "STORE_FAST": "store", "STORE_DEREF": "store",
    "DELETE_FAST": "delete", "DELETE_NAME": "delete", "DELETE_GLOBAL": "delete",
    "DELETE_DEREF": "delete", "LOAD_ATTR": "attr", "LOAD_METHOD": "attr", "STORE_ATTR": "store-attr",
    "DELETE_ATTR": "delete-attr", "IMPORT_NAME": "import", "IMPORT_FROM": "import-from",
    "LOAD_SUPER_ATTR": "attr",
}
_KIND_OPS = {
    "BINARY_OP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "UNARY_NEGATIVE", "UNARY_INVERT",
    "UNARY_POSITIVE", "RAISE_VARARGS", "YIELD_VALUE", "YIELD_FROM", "GET_AWAITABLE",
    "FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE", "BUILD_SLICE",
    "BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR", "BINARY_SLICE", "STORE_SLICE",
    "GET_ITER", "GET_AITER", "BEFORE_WITH", "SETUP_WITH", "BEFORE_ASYNC_WITH", "LIST_APPEND",
    "SET_ADD", "MAP_ADD", "IMPORT_STAR", "LOAD_BUILD_CLASS", "MAKE_FUNCTION",
} | {op for op in dis.opmap if op.startswith(("BINARY_", "INPLACE_"))}
_CALL_OPS = {"CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX",
             "CALL_KW", "PRECALL"}


def effects(code, skip=()):
    """The set of things ``code`` (and the code nested in it) reads, writes and does.

    ``skip``: nested code objects passed around as plain values (bound by name in the
    output, not compiled from it)."""
    found = set()
    _collect(code, "", found, {id(c) for c in skip})
    return found


def _const_key(value):
    if isinstance(value, types.CodeType):
        return None
    if isinstance(value, (tuple, frozenset)):
        return None  # folded displays: the same elements may be built or loaded whole
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None  # written as float('inf') / an overflowing literal
    if value is None or isinstance(value, bool):
        return None  # implicit `return None` and folded tests come and go with layout
    if not isinstance(value, (int, float, complex, str, bytes)):
        return None  # objects without a source form are bound by name instead
    return (type(value).__name__, repr(value))


def _collect(code, path, found, skip=frozenset()):
    prev = None
    loaded = set()  # nested code objects this code uses (Dynamo leaves unused ones behind)
    recent = []
    # `await` expressions are counted, not just noted: one await more or less has the same
    # set of effects (`await [x async for ...]` awaits the list as well as the
    # comprehension) but is another program. The awaits of `async with` are not counted:
    # their number follows how many exits the with statement has.
    awaits = 0
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op == "GET_AWAITABLE" and V.is_await_expression(ins, recent):
            awaits += 1
        recent = (recent + [op])[-3:]
        if prev is not None and prev.opname == "LOAD_CONST" and (
                op == "MAKE_FUNCTION" and isinstance(prev.argval, str) or
                op == "STORE_NAME" and ins.argval in ("__firstlineno__", "__qualname__")):
            # up to 3.10 a function's qualified name, and 3.13 class bodies' first line:
            # both describe where the code sits, not what it does
            found.discard((path, "const", _const_key(prev.argval)))
        prev = ins
        if op in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"):
            for part, name in zip(op.split("_FAST_"), ins.argval):
                if part.startswith("STORE"):
                    found.add((path, "store", name))
            continue
        kind = _NAME_OPS.get(op)
        if kind is not None:
            found.add((path, kind, ins.argval))
        elif op in _KIND_OPS:
            found.add((path, "op", op.replace("INPLACE_", "BINARY_"), ins.argrepr.replace("=", "")
                       if op == "BINARY_OP" else ""))
        elif op in _CALL_OPS:
            found.add((path, "call"))
        elif op.startswith("POP_JUMP") and op.endswith("_NONE"):
            # 3.11+ folds `x is None` into the jump when it is a condition, and not when
            # it is a value: `return (x is None and y) or z` may come back as
            # `... if x is None else ...`
            found.add((path, "op", "IS_OP", ""))
        elif op in ("LOAD_CONST", "RETURN_CONST"):
            if isinstance(ins.argval, types.CodeType):
                loaded.add(id(ins.argval))
            values = ins.argval if isinstance(ins.argval, (tuple, frozenset)) else (ins.argval,)
            for value in values:  # a folded tuple (dict keys, `in (...)`) counts by element
                key = _const_key(value)
                if key is not None:
                    found.add((path, "const", key))
    if awaits:
        found.add((path, "awaits", awaits))
    # which names are cells (shared with nested code): a lost `nonlocal x` turns the
    # outer `x` into a plain local, and closures see nothing
    found.update((path, "cell", n) for n in code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and id(const) not in skip and id(const) in loaded:
            _collect(const, path + "/" + const.co_name, found, skip)


def _wrap(source, code):
    """Recompile ``source`` in a shape that keeps free variables free (not global)."""
    free = [n for n in code.co_freevars if n != "__class__"]
    lines = source.splitlines()
    if "__class__" in code.co_freevars:
        lines = ["class __depyf_check__:"] + ["    " + l if l.strip() else l for l in lines]
    if free:
        lines = (["def __depyf_outer__():", "    %s = None" % " = ".join(free)] +
                 ["    " + l if l.strip() else l for l in lines])
    return "\n".join(lines) + "\n"


def _find(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_flags & 0x1:
                return const
            found = _find(const, name)
            if found is not None:
                return found
    return None


# How temporaries mode spells the in-place operations LIST_EXTEND & co.
_MUTATORS = {"extend", "append", "add", "update"}


def check(code, source, name, temp_prefix=None, bindings=None):
    """Raise DecompilationError when ``source`` (a def of ``name``) differs from ``code``.

    ``temp_prefix``: temporaries were introduced; their stores, and the method calls that
    spell in-place list/set/dict operations, are not differences."""
    text = _wrap(source, code)
    try:
        module = compile(text, "<depyf-check>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise DecompilationError("the decompiled source does not compile (%s)" % exc.msg,
                                 function=code.co_name) from None
    recompiled = _find(module, name)
    if recompiled is None:
        raise DecompilationError("the decompiled source has no function %r" % name,
                                 function=code.co_name)
    bound_codes = [v for v in (bindings or {}).values() if isinstance(v, types.CodeType)]
    want, got = effects(code, bound_codes), effects(recompiled)
    got = {e for e in got if not (e[1] == "global" and str(e[2]).startswith("__depyf_const_"))}
    # a cell handed over as a value is spelled `(lambda: x).__closure__[0]`
    if ("", "attr", "__closure__") in got and ("", "attr", "__closure__") not in want:
        got.discard(("", "op", "MAKE_FUNCTION", "")) if ("", "op", "MAKE_FUNCTION", "") not in want else None
    got = {e for e in got if not (e[0].endswith("/<lambda>") and not any(
        w[0].endswith("/<lambda>") for w in want)) and not (e[1:] == ("attr", "__closure__")
                                                          and e not in want)}
    if temp_prefix:
        got = {e for e in got if not (e[1] in ("store", "delete") and str(e[2]).startswith(temp_prefix))
               and not (e[1] == "attr" and e[2] in _MUTATORS and e not in want)
               and not (e[1:] == ("op", "BINARY_OP", "+") and e not in want)}
    if want != got:
        missing = sorted(map(repr, want - got))[:3]
        extra = sorted(map(repr, got - want))[:3]
        raise DecompilationError(
            "self-check failed: the decompiled source would behave differently "
            "(missing %s; extra %s)" % (", ".join(missing) or "nothing", ", ".join(extra) or "nothing"),
            function=code.co_name)

