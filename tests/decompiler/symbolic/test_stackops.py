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


def test_other_handler_errors_are_not_hidden():
    class Broken(Executor):
        def op_POP_TOP(self, ins, stack, out):
            raise KeyError("a bug")

    def f():
        pass
    ex = Broken(f.__code__, DecompileSession({}, "__temp_"), {}, "__temp_")
    with pytest.raises(KeyError):
        ex.run([Instr("POP_TOP")], [object()], [])


def test_handlers_are_found_per_class():
    # the handler cache is keyed by class: a subclass's own handler wins over the
    # base class's, before and after the base class's was looked up
    class Other(Executor):
        def op_NOP(self, ins, stack, out):
            stack.append("mine")

    def f():
        pass
    base = _executor()
    base.run([Instr("NOP")], [], [])
    stack = []
    Other(f.__code__, DecompileSession({}, "__temp_"), {}, "__temp_").run([Instr("NOP")], stack, [])
    assert stack == ["mine"]
