"""Handlers for generators and await, the exception and with bookkeeping, and 3.8's block
stack (SETUP_*/POP_BLOCK/END_FINALLY), whose control flow belongs to structure."""
import ast

from ..mismatch import Mismatch
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from .markers import (NULL, EnterResult, FinallyMarker, FinallyPlaceholder, ForItem, GenStart, GetIter,
                      PopExceptStmt, PrevExc, WithExit, WithExitCall, WithExitStmt, YieldFromIter)
from .exprs import is_none, yield_from_expr
from .stackops import pop


class FlowOps:
    """A mixin of ``Executor`` (``executor.py``); see the module docstring."""

    # -- generators and coroutines --------------------------------------------------------
    def op_RETURN_GENERATOR(self, ins, stack, out):
        stack.append(GenStart())

    def op_YIELD_VALUE(self, ins, stack, out):
        value = pop(stack)
        if isinstance(value, YieldFromIter):
            stack.append(value)
            return
        stack.append(ast.Yield(value=None if is_none(value) and False else value))

    def op_GET_ITER(self, ins, stack, out):
        value = pop(stack)
        stack.append(GetIter(value))

    def op_GET_YIELD_FROM_ITER(self, ins, stack, out):
        value = pop(stack)
        stack.append(YieldFromIter(value, "yield_from"))

    def op_GET_AWAITABLE(self, ins, stack, out):
        value = pop(stack)
        if facts.get(value, Fact.AWAITED_BY_CALLER, False):
            stack.append(YieldFromIter(value, "comprehension"))
            return
        stack.append(YieldFromIter(value, "await"))

    def op_GET_ANEXT(self, ins, stack, out):
        stack.append(YieldFromIter(ForItem(), "anext"))

    def op_ASYNC_GEN_WRAP(self, ins, stack, out):
        pass  # 3.11: wraps the value an async generator yields

    def op_END_ASYNC_FOR(self, ins, stack, out):
        raise Mismatch("END_ASYNC_FOR outside an async for")

    def op_GET_AITER(self, ins, stack, out):
        value = pop(stack)
        stack.append(GetIter(value, is_async=True))

    def op_YIELD_FROM(self, ins, stack, out):  # up to 3.10
        pop(stack)  # the None sent in
        it = pop(stack)
        stack.append(yield_from_expr(it))

    def op_END_SEND(self, ins, stack, out):
        value = pop(stack)
        pop(stack)
        stack.append(value)

    def op_PRINT_EXPR(self, ins, stack, out):
        self._only_outside_functions(ins)
        out.append(ast.Expr(value=pop(stack)))

    def op_POP_EXCEPT(self, ins, stack, out):
        # 3.11+ saved one value (PUSH_EXC_INFO); up to 3.10 the handler block saved three
        for _ in range(1 if V.HAS_EXCEPTION_TABLE else 3):
            prev = pop(stack)
            if not isinstance(prev, PrevExc):
                raise Mismatch("POP_EXCEPT without a saved exception")
        if stack and isinstance(stack[-1], ast.expr):
            self.returning[id(stack[-1])] = stack[-1]
        out.append(PopExceptStmt())

    def op_PUSH_EXC_INFO(self, ins, stack, out):
        exc = pop(stack)
        stack.append(PrevExc())
        stack.append(exc)

    def op_BEFORE_WITH(self, ins, stack, out, is_async=False):
        mgr = pop(stack)
        ex = WithExit(mgr, is_async=is_async)
        stack.append(ex)
        if ins.extra == "self":  # 3.14: the manager stays, the exit is called as a method
            stack.append(NULL)
        stack.append(EnterResult(ex))

    def op_BEFORE_ASYNC_WITH(self, ins, stack, out):
        self.op_BEFORE_WITH(ins, stack, out, is_async=True)

    # -- up to 3.10: the block stack (already turned into exception entries) -------------
    def op_SETUP_FINALLY(self, ins, stack, out):
        pass

    op_POP_BLOCK = op_SETUP_FINALLY
    op_SETUP_ASYNC_WITH = op_SETUP_FINALLY

    def op_SETUP_WITH(self, ins, stack, out):
        self.op_BEFORE_WITH(ins, stack, out)

    # 3.8's finally machinery: on the paths we emit, these only move markers around
    def op_PUSH_FINALLY_PLACEHOLDER(self, ins, stack, out):
        stack.append(FinallyPlaceholder())

    def op_BEGIN_FINALLY(self, ins, stack, out):
        stack.append(FinallyMarker())

    def op_CALL_FINALLY(self, ins, stack, out):
        pass  # 3.8: run the finally body before a return/break; the try statement implies it

    def op_POP_FINALLY(self, ins, stack, out):
        if ins.arg and len(stack) >= 2 and isinstance(stack[-2], FinallyMarker):
            del stack[-2]
        elif stack and isinstance(stack[-1], FinallyMarker):
            pop(stack)

    def op_WITH_CLEANUP_START(self, ins, stack, out):
        if stack and isinstance(stack[-1], FinallyMarker):
            pop(stack)
        for k in range(len(stack) - 1, -1, -1):
            if isinstance(stack[k], WithExit):
                ex = stack.pop(k)
                if ex.is_async:  # awaited next, then WITH_CLEANUP_FINISH
                    stack.append(WithExitCall(ex))
                else:
                    out.append(WithExitStmt(exit=ex))
                return
        raise Mismatch("with cleanup without a context manager")

    def op_WITH_CLEANUP_FINISH(self, ins, stack, out):
        if stack and isinstance(stack[-1], WithExitCall):
            out.append(WithExitStmt(exit=pop(stack).exit))

    def op_END_FINALLY(self, ins, stack, out):
        if stack and isinstance(stack[-1], FinallyMarker):
            pop(stack)
