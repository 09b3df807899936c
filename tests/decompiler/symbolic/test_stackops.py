"""A take below the bottom of the symbolic stack is a Mismatch named after the instruction;
any other exception in a handler leaves ``Executor.run`` as itself (a bug, not a reading
that does not fit)."""
import pytest

from depyf.decompiler.flow.instructions import Instr
from depyf.decompiler.mismatch import Mismatch
from depyf.decompiler.session import DecompileSession
from depyf.decompiler.symbolic.executor import Executor


def _executor():
    def f():
        pass
    return Executor(f.__code__, DecompileSession({}, "__temp_"), {}, "__temp_")


def test_pop_from_empty_stack_is_a_mismatch_naming_the_instruction():
    with pytest.raises(Mismatch) as info:
        _executor().run([Instr("POP_TOP")], [], [])
    assert info.value.opname == "POP_TOP"


def test_other_handler_errors_are_not_hidden(monkeypatch):
    ex = _executor()

    def broken(ins, stack, out):
        raise KeyError("a bug")

    monkeypatch.setattr(ex, "op_POP_TOP", broken)
    with pytest.raises(KeyError):
        ex.run([Instr("POP_TOP")], [object()], [])
