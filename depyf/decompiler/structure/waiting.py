"""Statements run while values wait on the stack below them: a branch between the
evaluation of a statement's first values and the rest of it. No source writes that but
a finally body copied between `return x` and its RETURN_VALUE (3.9+; the copy is stripped
by ``rewrite.copies``, one left elsewhere refused), and Dynamo: 2.15+ wraps the call of
its graph in profiler hooks, `if tmp_3: tmp_1 = record_enter()` run between loading the
graph function and its arguments, with arms that push a constant the join drops. Such a
statement of its own is written before the statement that uses the waiting values; the
proof checks that they read the same there (else the temporaries reading binds them
first, in the bytecode's order)."""
import ast

from ..mismatch import Mismatch
from .. import facts
from ..facts import Fact


class Waiting:
    """Mixin of ``Emitter``: branches run while values of the source wait on the stack."""

    def _branch_under_waiting(self, blk, test, t_true, t_false, ctx, stack, folded):
        """The if statement on ``test`` run while values of ``stack`` wait below it:
        (statements, block to go on from, stack)."""
        first = self._bind_rebound_waiting(test, t_true, t_false, ctx, stack)
        stmts, nxt, st = self._statement_branch(blk, test, t_true, t_false, ctx, stack, folded)
        if self._statement_of_its_own(stack, nxt, st):
            return first + self._before_waiting_values(stmts, st), nxt, st
        for node in stmts:
            facts.note(node, Fact.UNDER_PENDING_VALUE, True)  # (a finally body's copy)
        return first + stmts, nxt, st

    def _constants_dropped(self, merge, stack, then_stack, else_stack):
        """Whether both arms leave ``stack`` as it was plus only constants, which the block
        ``merge`` where they meet pops first thing: the if is a statement whose arms push
        a value that counts for nothing (Dynamo 2.15+ wraps its profiler calls so; no
        source does). Each arm's constant is dropped, whatever it is."""
        base = len(stack)
        if merge not in self.cfg.blocks or len(then_stack) != len(else_stack) or \
                any(x is not v or y is not v for x, y, v in zip(then_stack, else_stack, stack)) or \
                not all(isinstance(v, ast.Constant) for v in then_stack[base:] + else_stack[base:]):
            return False
        ops = [i.opname for i in self.cfg[merge].instrs if i.opname != "NOP"]
        return ops[:len(then_stack) - base] == ["POP_TOP"] * (len(then_stack) - base)

    def _statement_of_its_own(self, stack, merge, end_stack):
        """Whether the if statement run while the values of ``stack`` wait below it (no
        source writes that) is a statement of its own: its arms meet at ``merge`` with
        ``end_stack``, ``stack`` plus only constants that are dropped there. Its statements
        then run before the waiting values are used (``_before_waiting_values``); the
        proof checks that the values read there are the same."""
        return merge is not None and end_stack is not None and len(end_stack) > len(stack) and \
            self._constants_dropped(merge, stack, end_stack, end_stack)

    def _before_waiting_values(self, stmts, stack):
        """``stmts``, which the text runs before the statement that uses the waiting values
        of ``stack``; a local variable waiting there that they rebind would be read after
        its new binding: the reading does not fit (``_bind_rebound_waiting`` binds it to
        a temporary first in the temporaries reading)."""
        waiting = _waiting_locals(stack)
        rebound = {n.id for s in stmts for n in (ast.walk(s) if isinstance(s, ast.AST) else ())
                   if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        if any(not isinstance(s, ast.AST) for s in stmts):
            rebound = waiting  # a pseudo statement: what it binds is not known yet
        if waiting & rebound:
            raise Mismatch("a branch rebinds a value waiting on the stack", function=self.code.co_name)
        return stmts

    def _bind_rebound_waiting(self, test, t_true, t_false, ctx, stack):
        """Temporaries reading, a branch run while values of ``stack`` wait: the local
        variables waiting there that the arms store or delete, bound to temporaries (the
        assignments, to run first; ``stack`` holds the temporaries then). Else []."""
        waiting = _waiting_locals(stack)
        if not self.ex.temps or not waiting:
            return []
        merge = self._branch_merge(test, t_true, t_false, ctx)
        stops = ctx.sinks() | ({merge} if merge is not None else set())
        arms = set()
        for t in (t_true, t_false):
            if t in self.cfg.blocks and t not in stops:
                arms |= self.cfg.reachable(t, stops, ctx.region)
        stored = {i.argval for b in arms for i in self.cfg[b].instrs
                  if i.opname in ("STORE_FAST", "DELETE_FAST")}
        first = []
        if waiting & stored:
            self.ex.flush(stack, first, rebound=waiting & stored)
        return first


def _waiting_locals(stack):
    """The names of the variables read onto ``stack`` (temporaries aside)."""
    return {v.id for v in stack if isinstance(v, ast.Name) and not facts.get(v, Fact.TEMP, False)}
