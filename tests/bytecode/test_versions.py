"""depyf.bytecode.versions: each per-version fact checked against the running
interpreter's own compiler and opcode table, so a new Python version (or a wrong range)
fails here first, not as a strange decompilation."""
import ast
import dis
import sys

import pytest

from depyf.bytecode import versions as V


def _code(src, name="f"):
    ns = {}
    exec(compile(src, "<case>", "exec"), ns)
    return ns[name].__code__


def _opnames(code):
    return [i.opname for i in dis.get_instructions(code)]


OP = dis.opmap


def _after_end_for():
    """The opname after a for loop's END_FOR (None before 3.13: no END_FOR or nothing after)."""
    ops = _opnames(_code("def f(a):\n    for x in a:\n        pass\n    return a\n"))
    k = ops.index("END_FOR") if "END_FOR" in ops else None
    return ops[k + 1] if k is not None and ops[k + 1] in ("POP_TOP", "POP_ITER") else None
# loops whose test jumps back to the head on 3.8-3.9 (the first) or 3.10-3.11 (the second)
BACKWARD_TESTS = ["def f(a):\n    for x in a:\n        if x:\n            g()\n",
                  "def f(a, b):\n    while a:\n        if b:\n            continue\n        g()\n"]
FACTS = [
    # name, the fact as the table says it, the same fact asked of the interpreter
    ("PY", lambda: V.PY, lambda: sys.version_info[:2]),
    ("HAS_EXCEPTION_TABLE", lambda: V.HAS_EXCEPTION_TABLE,
     lambda: hasattr(_code("def f(): pass"), "co_exceptiontable")),
    ("RETURN_CONST_FUSED", lambda: V.RETURN_CONST_FUSED, lambda: "RETURN_CONST" in OP),
    ("LOAD_ATTR_METHOD_BIT", lambda: V.LOAD_ATTR_METHOD_BIT,
     lambda: "LOAD_METHOD" not in _opnames(_code("def f(o):\n    return o.m()\n"))),
    ("LOAD_GLOBAL_NULL_BIT", lambda: V.LOAD_GLOBAL_NULL_BIT,
     lambda: "PUSH_NULL" in OP and "CALL_FUNCTION" not in OP),
    ("CALL_PUSHES_NULL", lambda: V.CALL_PUSHES_NULL, lambda: "PUSH_NULL" in OP),
    ("QUALNAME_ON_STACK", lambda: V.QUALNAME_ON_STACK,
     lambda: "LOAD_CONST" in _opnames(_code("def f():\n    def g(): pass\n"))[-5:]
     and any(isinstance(c, str) and c.endswith("<locals>.g")
             for c in _code("def f():\n    def g(): pass\n").co_consts)),
    ("MAKE_FUNCTION_TAKES_FLAGS", lambda: V.MAKE_FUNCTION_TAKES_FLAGS,
     lambda: "SET_FUNCTION_ATTRIBUTE" not in OP),
    ("HAS_MATCH", lambda: V.HAS_MATCH, lambda: "MATCH_CLASS" in OP),
    ("INLINED_COMPREHENSIONS", lambda: V.INLINED_COMPREHENSIONS,
     lambda: not any(hasattr(c, "co_code") for c in _code("def f(a):\n    return [x for x in a]\n").co_consts)),
    ("FOLD_BACKWARD_COND_JUMPS (no backward conditional jump)", lambda: V.FOLD_BACKWARD_COND_JUMPS,
     lambda: not any("IF" in i.opname and i.argval < i.offset for src in BACKWARD_TESTS
                     for i in dis.get_instructions(_code(src)))),
    ("END_FOR_THEN_POP_TOP", lambda: V.END_FOR_THEN_POP_TOP,
     lambda: _after_end_for() in ("POP_TOP", "POP_ITER")),
    ("ITER_POP", lambda: V.ITER_POP, lambda: _after_end_for() or "POP_TOP"),
    ("HAS_AST_UNPARSE", lambda: V.HAS_AST_UNPARSE, lambda: hasattr(ast, "unparse")),
    ("LOAD_FAST_CHECKS (no LOAD_FAST_CHECK opcode)", lambda: V.LOAD_FAST_CHECKS,
     lambda: "LOAD_FAST_CHECK" not in OP),
    ("WHILE_TESTS_AT_HEAD", lambda: V.WHILE_TESTS_AT_HEAD,
     lambda: _opnames(_code("def f(a):\n    while a:\n        a = a - 1\n")).count("LOAD_FAST") == 2),
    ("JUMP_ARG_UNIT", lambda: V.JUMP_ARG_UNIT,
     lambda: next(i.argval // i.arg for i in dis.get_instructions(_code(
         "def f(a):\n    if a:\n        a = 1\n        a = 2\n    return a\n"))
         if "JUMP" in i.opname and i.arg and "BACKWARD" not in i.opname) if sys.version_info < (3, 11)
     else 2),
]


@pytest.mark.parametrize("name, table, interpreter", FACTS, ids=[f[0] for f in FACTS])
def test_fact_matches_the_interpreter(name, table, interpreter):
    assert table() == interpreter()


def test_opcode_tables_name_real_opcodes_of_their_versions():
    if V.PY <= (3, 10):
        assert all("BINARY_" + k in OP and "INPLACE_" + k in OP for k in V.OLD_BINARY_OPS)
    else:
        assert "BINARY_OP" in OP and not any("INPLACE_" + k in OP for k in V.OLD_BINARY_OPS)
    aliases = set(V.COND_JUMP_ALIASES)
    assert aliases <= set(OP) if V.PY == (3, 11) else not aliases & set(OP)
    assert all(op in OP for op in V.JUMP_OR_POP) == (V.PY <= (3, 11))
    for super_op, parts in V.SUPER_INSTRUCTIONS.items():
        assert (super_op in OP) == (V.PY >= (3, 13))
        assert all(p in OP for p in parts)


def test_inverse_conditions_pair_up():
    assert all(V.INVERSE_COND[V.INVERSE_COND[k]] == k and V.INVERSE_COND[k] != k
               for k in V.INVERSE_COND)


@pytest.mark.parametrize("argval, argrepr, expected", [
    ("<", "<", "<"), (None, "bool(==)", "=="), (None, ">=", ">="), ("in", "in", "in"),
])
def test_compare_op_name(argval, argrepr, expected):
    assert V.compare_op_name(argval, argrepr) == expected


def test_compare_op_name_on_the_running_version():
    code = _code("def f(a, b):\n    return a <= b\n")
    ins = next(i for i in dis.get_instructions(code) if i.opname == "COMPARE_OP")
    assert V.compare_op_name(ins.argval, ins.argrepr) == "<="
