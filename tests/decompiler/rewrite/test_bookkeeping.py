"""rewrite.bookkeeping: the declarations read from what a function binds and reads."""
import types

import pytest

import depyf
from depyf.decompiler import Decompiler

from equivalence.asm import PY, assemble


def test_a_dict_constant_among_the_operands_is_no_name():
    """Dynamo's code loads dict constants (no source makes one): the scan for names an
    inlined comprehension hides passes over them (it raised TypeError, unhashable)."""
    def f(x):
        return x + "replaced"
    co = f.__code__
    consts = tuple({"a": 1} if c == "replaced" else c for c in co.co_consts)
    g = type(f)(co.replace(co_consts=consts), {})
    text = depyf.decompile(g)
    assert "__depyf_const_0" in text


def _outer():
    w = "cell"

    def f(s):
        return s

    def g():
        return w
    return f, g


def _free_w(varnames, ops, consts=(None,)):
    """``f(s)`` with the free variable ``w`` (3.11+: copied into the frame first)."""
    f, _ = _outer()
    start = [("COPY_FREE_VARS", 1)] if PY >= (3, 11) else []
    code = assemble(f.__code__, start + ops, varnames=varnames, consts=consts)
    return code.replace(co_freevars=("w",))


def _deref_w(varnames):
    """LOAD_DEREF of ``w``: up to 3.10 an index into cells and free variables, then
    into all the frame's variables."""
    return ("LOAD_DEREF", len(varnames) if PY >= (3, 11) else 0)


FREE_W = {
    # Dynamo before torch 2.4: the resume function keeps the frame's variables (a local
    # `w` among them) and constants (the lambda that captured `w`) and takes `w` free
    "a local of the same name": lambda: _free_w(
        ("s", "w"), [("LOAD_FAST", 0), ("RETURN_VALUE", 0)], consts=(None, _outer()[1].__code__)),
    # ... and the frame's original code after a jump over it, which reads `w`
    "read only by dead code": lambda: _free_w(
        ("s",), [("LOAD_FAST", 0), ("JUMP_FORWARD", "end"), _deref_w(("s",)), ("POP_TOP", 0),
                 ("LABEL", "end"), ("RETURN_VALUE", 0)]),
}


@pytest.mark.parametrize("name", list(FREE_W))
def test_a_free_variable_the_text_does_not_read_is_declared_nonlocal(name):
    code = FREE_W[name]()
    fn = types.FunctionType(code, {}, closure=(types.CellType("cell"),))
    decompiler = Decompiler(fn)
    text = decompiler.decompile()
    assert decompiler.verdict and text == "def f(s):\n    nonlocal w\n    return s\n", text
    assert fn(7) == 7
