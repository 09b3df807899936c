"""depyf.decompiler.flow.exits: which exit blocks are copies of one (``exit_key``) and
where the code after a try statement was pasted after an except clause."""
import pytest

from depyf.bytecode import versions as V
from depyf.decompiler.flow import exits

from .test_cfg import _instrs

# `if a and b: f()` (lines 1, 2) at the end of a function, 3.10+: the implicit return
# copied to the end of the body and to each test, on the test's line
AND_AT_END = [("LOAD_FAST", "a", None, 1), ("POP_JUMP_IF_FALSE", None, 7, 1),
              ("LOAD_FAST", "b", None, 1), ("POP_JUMP_IF_FALSE", None, 9, 1),
              ("CALL", 0, None, 2), ("LOAD_CONST", None, None, 2), ("RETURN_VALUE", None, None, 2),
              ("LOAD_CONST", None, None, 1), ("RETURN_VALUE", None, None, 1),
              ("LOAD_CONST", None, None, 1), ("RETURN_VALUE", None, None, 1)]


def _key(instrs, start):
    into = exits.jump_lines(instrs)
    return exits.exit_key(instrs[start:start + 2], instrs[start - 1], into.get(start, ()))


@pytest.mark.skipif(not V.EXIT_BLOCKS_COPIED, reason="3.10+ copies exit blocks")
def test_returns_copied_to_tests_on_one_line_are_one():
    instrs = _instrs(AND_AT_END)
    assert _key(instrs, 7) == _key(instrs, 9)


@pytest.mark.skipif(not V.EXIT_BLOCKS_COPIED, reason="3.10+ copies exit blocks")
def test_returns_copied_to_tests_on_two_lines_are_two():
    ops = list(AND_AT_END)
    ops[2], ops[3] = ("LOAD_FAST", "b", None, 3), ("POP_JUMP_IF_FALSE", None, 9, 3)
    ops[9], ops[10] = ("LOAD_CONST", None, None, 3), ("RETURN_VALUE", None, None, 3)
    instrs = _instrs(ops)
    assert _key(instrs, 7) != _key(instrs, 9)


# `try: return f()` `except E as e: pass` `return a.g()`: the return after the try
# pasted after the clause's end (its only way there)
PASTED = [("PUSH_EXC_INFO", None, None, 4), ("STORE_FAST", "e", None, 4), ("POP_EXCEPT", None, None, 5),
          ("LOAD_CONST", None, None, 5), ("STORE_FAST", "e", None, 5), ("DELETE_FAST", "e", None, 5),
          ("LOAD_FAST", "a", None, 6), ("LOAD_METHOD", "g", None, 6), ("CALL", 0, None, 6),
          ("RETURN_VALUE", None, None, 6)]


@pytest.mark.parametrize("tail, starts", [
    (PASTED[6:], [6]),
    # a `return <constant>` reads as the clause's own
    ([("LOAD_CONST", 1, None, 6), ("RETURN_VALUE", None, None, 6)], []),
    # the way out of a loop: the iterator dropped first
    ([("POP_TOP", None, None, 6)] + PASTED[6:], []),
    # (3.8-3.10) `return (a, b)` in this clause nested in an except clause: its value
    # moved under the outer clause's exception, which is dropped next
    ([("ROT_FOUR", None, None, 6), ("POP_EXCEPT", None, None, 6), ("RETURN_VALUE", None, None, 6)], []),
], ids=["return after the try", "constant return", "out of a loop", "out of the outer clause"])
def test_clause_tail_starts(tail, starts):
    expected = starts if V.EXIT_BLOCKS_COPIED else []
    assert exits.clause_tail_starts(_instrs(PASTED[:6] + tail), {0}) == expected
