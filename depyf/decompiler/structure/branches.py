"""If statements: where the two arms of a branch meet, which arm is the body, and what
the layout tells about an `else:` (up to 3.9 dead jumps stay in place)."""
import ast

from ..mismatch import Mismatch
from ..symbolic import markers as M
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS, EXPLICIT_BACK, IMPLICIT_BACK
from .. import facts
from ..facts import Fact
from .helpers import cancels_and_goes_on, same_entry
from .values import ifexp, merge_stacks


class Branches:
    """Mixin of ``Emitter``: if statements and where branches merge."""

    def _statement_branch(self, blk, test, t_true, t_false, ctx, stack, folded=frozenset()):
        """An if statement on ``test`` (already folded from the blocks ``folded``), its
        arms run from ``stack``."""
        merge = self._branch_merge(test, t_true, t_false, ctx, blk)
        then_first, else_first, cond = self._arm_order(blk, test, t_true, t_false, folded)
        dead_jump = self._dead_else_jump(then_first, else_first) if V.KEEPS_DEAD_JUMPS else None
        if dead_jump is not None and merge == ctx.stop:
            merge = self._dead_jump_end(dead_jump, else_first, ctx)
        elif merge == ctx.stop and V.KEEPS_DEAD_JUMPS and not isinstance(test, M.ExcMatch):
            merge = self._else_jump_end(then_first, else_first, ctx)
        merge, then_stmts, then_stack, else_stmts, else_stack, merged = \
            self._if_arms(then_first, else_first, cond, merge, ctx, stack)
        if merged is not None:
            return [], merge, merged
        if merge is not None and else_first == merge and (
                cancels_and_goes_on(then_stmts) or self._finally_leaves_to(then_first, merge, ctx)):
            # a path of the body drops the value of a `return` (or, 3.8, leaves a finally
            # body) and goes on after the if: only a `break` in a finally body does that,
            # of a `while` that never loops
            loop = self._while_without_back_edge(blk, cond, then_first, merge, ctx, stack)
            if loop is not None:
                return [loop], merge, list(stack)
        node = ast.If(test=cond, body=then_stmts or [ast.Pass()], orelse=else_stmts)
        if self._skips_through_jump(then_first, ctx) or self._skips_through_jump(else_first, ctx):
            facts.note(node, Fact.TEST_OWN_LINE, True)
        facts.note(node, Fact.JUMPS_IF_TRUE, cond is not test)  # the body is what a true test jumps over
        goes_to = merge if merge is not None else ctx.region_exit
        if not then_stmts and else_stmts and goes_to is not None and \
                self.cfg.jump_only_target(then_first) == goes_to:
            facts.note(node, Fact.PASS_ARM, True)
        if V.KEEPS_DEAD_JUMPS and else_stmts:
            # a body that never goes on: `else:` was written exactly when its jump is left
            if dead_jump is not None and not self._jump_statement_end(dead_jump, then_stmts, ctx):
                facts.note(node, Fact.ELSE_KEPT, True)
            elif then_stack is None:
                facts.note(node, Fact.ELSE_KEPT, else_stack is None and self._label_after_return(else_first, ctx))
        if merge is None and ctx.region_exit is not None and \
                then_stack is not None and else_stack is not None and \
                len(then_stack) == len(else_stack) > len(stack) and \
                not all(E.same_expr(x, y) for x, y in zip(then_stack, else_stack)):
            # arms that bring different values to where the enclosing construct ends: a
            # conditional expression cut off there (a try body ends before the
            # RETURN_VALUE of `return a if c else b`, 3.11+); one arm's values would stand
            # for both
            if any(not isinstance(x, M.RestoreStmt) for x in then_stmts + else_stmts):
                raise Mismatch("arms of a branch leave different values",
                               function=self.code.co_name)
            return [], None, [x if x is y else ifexp(cond, x, y) for x, y in zip(then_stack, else_stack)]
        if merge is None:
            end_stack = None
            if then_stack is not None or else_stack is not None:
                end_stack = then_stack if then_stack is not None else else_stack
            return [node], None, end_stack
        if then_stack is None and else_stack is None:
            # both arms left (return/break/...); the merge block is reached some other way
            return [node], merge, None if merge is None else list(stack)
        st = then_stack if then_stack is not None else else_stack
        return [node], merge, st

    def _arm_order(self, blk, test, t_true, t_false, folded):
        """(first block of the if body, first block of the else code, the if's test) for
        the branch of ``blk`` (its test folded from the blocks ``folded``)."""
        fall = self.cfg.fall(blk)
        own = {self.cfg.target(self.cfg[b].last) for b in folded
               if self._own_continue(b, self.cfg.target(self.cfg[b].last))}
        if own & {t_true, t_false}:
            # a `continue` of its own right after the test is the body of the if
            if t_false in own and t_true not in own:
                return t_false, t_true, E.negate(test)
        elif t_false == fall and t_true != fall:
            return t_false, t_true, E.negate(test)
        elif t_true != fall and t_false != fall:
            # both are jumps (compound conditions): the end of the loop body the tests
            # jumped back from is never an arm of its own (3.12+); else the block laid
            # out after the last test is the body (a jump back to a loop head is no
            # body), else the nearer one
            back = self._implicit_back(folded)
            after = self.cfg.fall(self.cfg[max(folded)])
            if t_true in back and t_false not in back:
                return t_false, t_true, E.negate(test)
            elif t_false in back and t_true not in back:
                pass
            elif after == t_false or (after != t_true and t_false < t_true):
                return t_false, t_true, E.negate(test)
        return t_true, t_false, test

    def _if_arms(self, then_first, else_first, cond, merge, ctx, stack):
        """Both arms of an if on ``cond``, up to ``merge``: (merge, then statements, then
        stack, else statements, else stack, merged), merged being the stack with the
        value of a conditional expression the arms compute instead (else None)."""
        base = self.ex._base  # (the statement the test is part of: its arms run blocks)
        while True:
            sub = ctx.but(stop=merge) if merge is not None else ctx
            then_stmts, then_stack = self.seq(then_first, sub, stack)
            if else_first == merge:
                else_stmts, else_stack = [], list(stack)
            else:
                else_stmts, else_stack = self.seq(else_first, sub, stack)
            if (merge is not None and then_stack is not None and else_stack is not None
                    and len(then_stack) == len(else_stack) > len(stack)):
                # a conditional expression whose value is computed inside the arms (3.12+
                # restores the locals an inlined comprehension hid: no statements of its own)
                if not any(not isinstance(x, M.RestoreStmt) for x in then_stmts + else_stmts):
                    merged = merge_stacks(cond, then_stack, else_stack,
                                          lambda: else_first in self.cfg.reachable(then_first, {merge}))
                    self.ex.carry_statement(merged, base)
                    return merge, then_stmts, then_stack, else_stmts, else_stack, merged
                if self._bare_return(merge) and merge != ctx.stop:
                    # arms that return in places and bring a value to the compiler's one
                    # shared `return` elsewhere: each arm returns through it
                    merge = None
                    continue
                if all(E.same_expr(x, y) for x, y in zip(then_stack, else_stack)) or \
                        self._constants_dropped(merge, stack, then_stack, else_stack):
                    # the same value loaded last in each arm: the start of the statement
                    # after the if, whose copies the arms end in (3.12+ copies `x.a =
                    # False; return`; its copies are joined after the load); or constants
                    # that the block where the arms meet drops (Dynamo)
                    return merge, then_stmts, then_stack, else_stmts, else_stack, None
                raise Mismatch("statements inside a conditional expression",
                               function=self.code.co_name)
            return merge, then_stmts, then_stack, else_stmts, else_stack, None

    def _skips_through_jump(self, bid, ctx):
        """Whether the arm at ``bid`` is a jump of its own back to the loop head: the
        compiler sends a test straight to the head when the jump back is on the test's
        line, so the test stood on another line than the end of the body (a comprehension
        filter below its element)."""
        return ctx.loop is not None and \
            self.cfg.jump_only_target(bid) in ctx.loop.continue_targets

    def _own_continue(self, bid, target):
        """Whether block ``bid`` ends in a test that jumps back to ``target`` through a
        `continue` statement only that test leads to (3.12+): `if a: continue` +
        `if b: continue` are two statements, not `if a or b: continue`."""
        last = self.cfg[bid].last
        return last.extra == EXPLICIT_BACK and last.opname in COND_JUMPS and self.cfg.target(last) == target

    def _implicit_back(self, bids):
        """Loop heads the condition blocks ``bids`` jump back to as the end of the loop
        body (3.12+: no `continue` statement there, see ``IMPLICIT_BACK``)."""
        out = set()
        for b in bids:
            last = self.cfg[b].last
            if last.extra == IMPLICIT_BACK and last.opname in COND_JUMPS:
                out.add(self.cfg.target(last))
        return out

    def _dead_else_jump(self, then_first, else_first):
        """Up to 3.9: the unreachable jump laid out right before ``else_first`` that ended
        an if body which never goes on (`if c: raise X` `else: ...`), or None."""
        if then_first is None or else_first is None or then_first >= else_first:
            return None
        blk = self.cfg.laid_out_before(else_first)
        if blk is None or blk.id < then_first or len(blk.instrs) != 1 or \
                blk.last.opname != "JUMP" or not self._unreached(blk):
            return None
        return blk

    def _jump_statement_end(self, dead_jump, then_stmts, ctx):
        """Whether the dead jump may be the `continue`/`break` ending the if body itself
        (its other jumps were threaded past it) rather than the jump over an `else`: it
        goes where that statement goes, and the body does not visibly end otherwise."""
        loop = ctx.loop
        target = self.cfg.target(dead_jump.last)
        if loop is None:
            return False
        if target in loop.continue_targets:
            # (right after a body's own `continue`, a dead jump back is the jump over an
            # else: the end of the if statement ends the loop body)
            ends = (ast.Return, ast.Raise, ast.Break)
            before = self.cfg.laid_out_before(dead_jump.id)
            if before is not None and before.preds and before.last.opname == "JUMP" and \
                    self.cfg.target(before.last) == target:
                ends += (ast.Continue,)
        elif target == loop.follow:
            # (after a `continue`, a dead jump out of the loop is a `break` statement)
            ends = (ast.Return, ast.Raise, ast.Break)
        else:
            return False
        return not (then_stmts and isinstance(then_stmts[-1], ends))

    def _label_after_return(self, else_first, ctx):
        """Up to 3.9 the peephole optimizer drops what follows a `return` up to the next
        jump target: unreachable code right after the else code's last `return` shows
        that the if statement ended there (its end was a jump target), so it had an else."""
        before = self.cfg.laid_out_before(else_first)
        if before is None or before.last.opname != "RETURN_VALUE":
            return False  # the body's jump over the else would be left after anything else
        arm = self.cfg.reachable(else_first, ctx.sinks(), ctx.region)
        if not arm:
            return False
        k = self.cfg.order.index(else_first)
        while k < len(self.cfg.order) and self.cfg.order[k] in arm:
            k += 1
        if k >= len(self.cfg.order):
            return False
        blk = self.cfg[self.cfg.order[k]]
        return self.cfg.laid_out_before(blk.id).last.opname == "RETURN_VALUE" and \
            blk.id > max(arm) and self._unreached(blk)

    def _else_jump_end(self, then_first, else_first, ctx):
        """Up to 3.9, where `if c: A` `else: B` ends when only A goes on: the target of the
        jump ending A (laid out right before B), when B never goes on past it. (3.10+
        moves such code; its jumps say less.)"""
        if then_first is None or else_first is None or then_first >= else_first:
            return ctx.stop
        blk = self.cfg.laid_out_before(else_first)
        if blk is None or blk.id < then_first or blk.last.opname != "JUMP":
            return ctx.stop
        end = self.cfg.target(blk.last)
        sinks = ctx.sinks()
        if end is None or end <= else_first or end in sinks or \
                (ctx.stop is not None and end > ctx.stop) or \
                (ctx.region is not None and end not in ctx.region) or \
                (ctx.loop is not None and end not in ctx.loop.body):
            return ctx.stop
        if any(b >= end for b in self.cfg.reachable(else_first, sinks, ctx.region)):
            return ctx.stop
        return end

    def _dead_jump_end(self, blk, else_first, ctx):
        """Where the if statement whose body ended in the dead jump ``blk`` ends: the
        jump's target when the else code goes on to it within the enclosing construct,
        else where that construct ends."""
        end = self.cfg.target(blk.last)
        if end is None or end <= else_first or (ctx.stop is not None and end > ctx.stop):
            return ctx.stop
        if end not in self.cfg.reachable(else_first, ctx.sinks() - {end}, ctx.region):
            return ctx.stop
        return end

    def _branch_merge(self, test, t_true, t_false, ctx, blk=None):
        """Where the two arms of a branch meet again."""
        if t_true == t_false and t_true not in ctx.sinks():
            return t_true  # `if c: pass` (also where it lies outside the region: a copy)
        merge = self.cfg.postdominator_merge([t_true, t_false], ctx.sinks(), ctx.region)
        if merge is not None and any(merge not in self.cfg.reachable(t, ctx.sinks(), ctx.region)
                                     for t in (t_true, t_false)):
            # (no place where both arms meet: an arm whose code never goes on by its own
            # edges, a `while 1:` left only by a `break` in an except clause, and a raise
            # or the no-match re-raise in the other)
            merge = None
        found = merge is not None
        if merge is None and not isinstance(test, M.ExcMatch):
            # arms that return in places and go on elsewhere: meet where the rest goes on
            merge = self.cfg.first_common(t_true, t_false, ctx.sinks(), ctx.region)
        if merge is None and not isinstance(test, M.ExcMatch) and V.HANDLERS_AT_END:
            merge = self._handler_goes_on_to(t_true, t_false, ctx) or \
                self._handler_goes_on_to(t_false, t_true, ctx)
        if merge is None and blk is not None and not isinstance(test, M.ExcMatch):
            merge = self._jumped_over_else(blk, t_true, t_false, ctx)
        if merge is None and ctx.stop is None and not isinstance(test, M.ExcMatch):
            # an arm whose try body returns goes on only through its except clauses
            both = self._reach_with_handlers(t_true, ctx) & self._reach_with_handlers(t_false, ctx)
            both = {b for b in both if self.cfg[b].succs and not self._only_raises(b)
                    and same_entry(self.effective_handler(b), ctx.handler)}
            merge = min(both) if both else None
        if merge is not None and not found and \
                any(self._ends_around(t, merge, ctx) for t in (t_true, t_false)):
            merge = None
        # otherwise they meet where the enclosing construct (or expression) ends
        return ctx.stop if merge is None else merge

    def _handler_goes_on_to(self, arm, other, ctx):
        """3.12+: where the except clauses of a try in ``arm`` go on after the handler
        (laid out after all the code, it jumps back) when that is the ``other`` arm's
        block: the arm's body returns, its handler meets the other arm there."""
        sinks = ctx.sinks()
        for b in sorted(self.cfg.reachable(arm, sinks, ctx.region)):
            entry = self.cfg[b].handler
            if entry is None or same_entry(entry, ctx.handler):
                continue
            after = self._after_handlers(entry, sinks, None)
            if after is not None and after == other and after < entry.target:
                return after
            return None
        return None

    def _ends_around(self, bid, merge, ctx):
        """Whether a path from ``bid`` reaches the end of the enclosing try or with body
        without passing ``merge``: then the arms do not meet there (`if c: while c: ...
        break ... else: E` `else: E` at the end of a with body: the break leaves for the
        exit, and E, where the else arm and the loop's normal end meet, must not follow
        the if). (Not the end of an expression: and/or arms jump straight there. Nor a
        `return <constant>` that left the body first, up to 3.10, where the arms meet in
        the body. 3.13 leaves the jump of such a `break` in a try body unprotected: a bare
        jump outside the region on to its end.) The break may also jump to where the
        enclosing if statement ends, no place of a loop around (3.10: that if is the last
        statement of a try body, the loop the last of its body)."""
        seen = self.cfg.reachable(bid, ctx.sinks() | {merge}, ctx.region)
        if self._breaks_to_stop(seen, merge, ctx):
            return True
        end = ctx.region_exit
        if end is None or merge == end or merge in ctx.region and self._constant_return(end):
            return False
        return any(s == end or s not in ctx.region and self._bare_jump_to(s, end)
                   for b in seen for s in self.cfg[b].succs)

    def _breaks_to_stop(self, seen, merge, ctx):
        """Whether one of the blocks ``seen`` ends in a jump to ``ctx.stop`` (not
        ``merge``, nor a place of the loop around): a `break` of a loop in the arm."""
        stop = ctx.stop
        if stop is None or stop == merge or ctx.region_exit is None or \
                ctx.loop is not None and (stop in ctx.loop.continue_targets or stop == ctx.loop.follow):
            return False
        return any(self.cfg[b].last.opname == "JUMP" and self.cfg.target(self.cfg[b].last) == stop
                   for b in seen)

    def _jumped_over_else(self, blk, t_true, t_false, ctx):
        """The block after `if c: A else: B` where B never goes on (returns, raises):
        the compiler lays out A, a jump forward over B, B, then the rest, so A's jump
        past B shows where the statement ends. (Had the rest belonged in A, it would
        follow A directly, with B after it.) None where the layout says otherwise: A
        must be one stretch of the layout right after the test, B (or copies of its
        blocks) the stretch that A jumps over."""
        arms = [t for t in (t_true, t_false) if t is not None and t > blk.id]
        if t_true == t_false or not arms:
            return None
        first = min(arms)
        other = t_false if first == t_true else t_true
        sinks = ctx.sinks()
        if other is None or first in sinks or other in sinks:
            return None
        then_arm = {b for b in self.cfg.reachable(first, sinks | {other}, ctx.region) if b < other}
        end = max(then_arm) if then_arm else None
        if end is None or self.cfg[end].last.opname != "JUMP":
            return None
        after = self.cfg.target(self.cfg[end].last)
        if after is None or after <= end or after in sinks:
            return None
        else_arm = self.cfg.reachable(other, sinks, ctx.region)
        live = [b for b in self.cfg.order if b not in self.cfg.alias]
        if {b for b in live if first <= b <= end} != then_arm or not else_arm or after in else_arm:
            return None
        gap = [self.cfg.alias.get(b, b) for b in self.cfg.order if end < b < after]
        if not gap or any(b not in else_arm for b in gap):
            return None
        if any(s not in then_arm and s != after for b in then_arm for s in self.cfg[b].succs):
            return None
        return after
