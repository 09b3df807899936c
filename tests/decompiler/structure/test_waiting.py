"""depyf.decompiler.structure.waiting: if statements run while values wait on the stack
below them. No source compiles to them outside a finally body's copy (the corpus covers
those): Dynamo 2.15+ runs `if tmp_3: tmp_1 = record_enter()` between loading its graph
function and the arguments, each arm pushing a constant that the join pops. The code
objects here are assembled by hand in that shape (``tests/equivalence/asm.py``)."""
import dis
import re
import types

import pytest

import depyf
from depyf.decompiler import Decompiler

from equivalence.asm import PY, assemble  # (tests/ is on sys.path: the packages' root)

JUMP_IF_FALSE = "POP_JUMP_FORWARD_IF_FALSE" if "POP_JUMP_FORWARD_IF_FALSE" in dis.opmap \
    else "POP_JUMP_IF_FALSE"
VARNAMES = ("g", "c", "h", "a", "t")
NONE, ONE, ZERO = 0, 1, 2  # indexes into CONSTS
CONSTS = (None, 1, 0)


def _template(g, c, h, a):
    t = None
    return t


def _callee(load):
    """The ops loading a callable before its arguments, in this version's protocol."""
    if PY < (3, 11):
        return [load]
    if PY < (3, 13):
        return [("PUSH_NULL", 0), load]
    return [load, ("PUSH_NULL", 0)]


def _call(n):
    if PY < (3, 11):
        return [("CALL_FUNCTION", n)]
    if PY < (3, 12):
        return [("PRECALL", n), ("CALL", n)]
    return [("CALL", n)]


def _global(index):
    return ("LOAD_GLOBAL", index * 2 if PY >= (3, 11) else index)


def _store_h(slot):
    """`<slot> = h()`"""
    return _callee(("LOAD_FAST", 2)) + _call(0) + [("STORE_FAST", slot)]


def _waiting_if(waiting, arm, consts=(NONE, NONE), join=(("NOP", 0), ("POP_TOP", 0)), nargs=1):
    """`return <waiting>(a)` with `if c: <arm>` run between loading the callable
    ``waiting`` and ``a``, each arm pushing one of ``consts``, which ``join`` pops (else
    it is the first of ``nargs`` arguments)."""
    test = [("LOAD_FAST", 1)] + ([("TO_BOOL", 0)] if "TO_BOOL" in dis.opmap else [])
    ops = _callee(waiting) + test + [(JUMP_IF_FALSE, "else")] + list(arm)
    ops += [("LOAD_CONST", consts[0]), ("JUMP_FORWARD", "join"),
            ("LABEL", "else"), ("LOAD_CONST", consts[1]), ("LABEL", "join")] + list(join)
    ops += [("LOAD_FAST", 3)] + _call(nargs) + [("RETURN_VALUE", 0)]
    return assemble(_template.__code__, ops, names=("G",), varnames=VARNAMES, consts=CONSTS)


def _temps(text):
    return re.sub(r"__temp_\d+", "__temp_N", text)


def _body(*lines):
    return "def _template(g, c, h, a):\n" + "".join("    %s\n" % line for line in lines)


READ = {
    # a local read before the if: the proof checks it reads the same after it
    "local callee": (_waiting_if(("LOAD_FAST", 0), _store_h(4)), (),
                     _body("if c:", "    t = h()", "return g(a)")),
    # the arms push different constants: dropped all the same
    "different constants": (_waiting_if(("LOAD_FAST", 0), _store_h(4), (ONE, ZERO)), (),
                            _body("if c:", "    t = h()", "return g(a)")),
    # `a` is loaded after the if: rebinding it there is the source's order
    "rebinds a later value": (_waiting_if(("LOAD_FAST", 0), _store_h(3)), (),
                              _body("if c:", "    a = h()", "return g(a)")),
    # a global could be rebound by h(): read first into a temporary
    "global callee": (_waiting_if(_global(0), _store_h(4)), (),
                      _body("__temp_N = G", "if c:", "    t = h()", "return __temp_N(a)")),
    # ... unless the caller vouches that nothing rebinds it (Dynamo's own globals)
    "fixed global callee": (_waiting_if(_global(0), _store_h(4)), ("G",),
                            _body("if c:", "    t = h()", "return G(a)")),
    # the waiting local itself rebound in an arm: read first into a temporary
    "rebinds the waiting value": (_waiting_if(("LOAD_FAST", 0), _store_h(0)), (),
                                  _body("__temp_N = g", "if c:", "    g = h()",
                                        "return __temp_N(a)")),
    # an arm that calls for nothing but the effect (`h()`, its value popped)
    "expression statement": (_waiting_if(("LOAD_FAST", 0),
                                         _callee(("LOAD_FAST", 2)) + _call(0) + [("POP_TOP", 0)]),
                             (), _body("if c:", "    h()", "return g(a)")),
}


def _behaviour(fn, c):
    """What ``fn(g, c, h, 5)`` returns and calls (``G`` is the global callee)."""
    calls = []

    def g(x):
        calls.append(("g", x))
        return "g", x

    def h():
        calls.append("h")
        return "made by h"
    fn.__globals__["G"] = lambda x: ("G", x)
    return fn(g, c, h, 5), calls


@pytest.mark.parametrize("name", list(READ))
def test_statement_run_while_values_wait_is_read_before_their_use(name):
    code, fixed, expected = READ[name]
    decompiler = Decompiler(code, fixed_globals=fixed)
    text = decompiler.decompile()
    assert decompiler.verdict
    assert _temps(text) == expected
    ns = {}
    exec(text, ns)
    for c in (True, False):  # (the assembled code runs as the text does)
        assert _behaviour(types.FunctionType(code, {}), c) == _behaviour(ns["_template"], c)


def test_constants_the_join_uses_are_no_statement():
    """The arms' constant is the callee's first argument, not dropped: statements inside
    a conditional expression, which no reading fits."""
    code = _waiting_if(("LOAD_FAST", 0), _store_h(4), join=(("NOP", 0),), nargs=2)
    with pytest.raises(depyf.DecompilationError, match="conditional expression|waits"):
        Decompiler(code).decompile()
