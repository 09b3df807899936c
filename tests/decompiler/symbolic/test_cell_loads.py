"""depyf.decompiler.symbolic.loads_stores: from 3.11 on, cells live among the fast
locals, and LOAD_FAST of a cell or free variable pushes the cell itself, not its value
(3.13 compiles LOAD_CLOSURE to it; Dynamo with torch 2.15 on 3.13 passes a function's
cells to its resume function so). The code objects here are assembled by hand
(``tests/equivalence/asm.py``)."""
import types

import pytest

import depyf
from depyf.bytecode import versions as V

from equivalence.asm import PY, assemble

pytestmark = pytest.mark.skipif(not V.LOAD_FAST_OF_A_CELL_IS_THE_CELL,
                                reason="cells are among the fast locals from 3.11 on")


def _outer():
    v = [1]

    def f():
        return v

    return f


def _returns_its_cell():
    """``f`` with its body replaced by `return (<the cell of v>,)`."""
    f = _outer()
    ops = [("COPY_FREE_VARS", 1), ("LOAD_FAST", 0), ("BUILD_TUPLE", 1), ("RETURN_VALUE", 0)]
    return f, assemble(f.__code__, ops)


def test_a_cell_loaded_with_load_fast_is_the_cell():
    f, code = _returns_its_cell()
    cell = types.FunctionType(code, {}, "f", None, f.__closure__)()[0]
    assert cell is f.__closure__[0]  # (the assembled code does what the test says)
    text = depyf.decompile(code)
    assert "__closure__" in text, text
    ns = {}
    exec("def _make():\n    v = None\n" + "".join("    " + line + "\n" for line in text.splitlines())
         + "    return f\n", ns)
    made = ns["_make"]()
    got = made()
    assert type(got[0]) is type(made.__closure__[0]) and got[0] is made.__closure__[0]
