"""Conditional jumps read as tests: the popped condition, short-circuit tests folded
into one (`a and not b`), chained comparisons, and branches whose arms only leave
values (and/or, conditional expressions). ``emit_branch`` decides between a value and
an if statement (``branches``)."""
import ast

from ..mismatch import Mismatch
from ..symbolic import markers as M
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS
from .helpers import mentions, pending_value, same_code, same_entry
from .values import boolop, merge_arms, merge_stacks


class Conditions:
    """Mixin of ``Emitter``: conditions and value branches."""

    def _condition(self, blk, stack):
        """Pop the branch condition; return (test, true_target, false_target, keeps_value)."""
        last = blk.last
        op = last.opname
        fall = self.cfg.fall(blk)
        jump = self.cfg.target(last)
        if op in V.JUMP_OR_POP:
            value = stack[-1]
            if op == "JUMP_IF_FALSE_OR_POP":
                return value, fall, jump, True
            return value, jump, fall, True
        value = stack.pop()
        if op == "POP_JUMP_IF_FALSE":
            return value, fall, jump, False
        if op == "POP_JUMP_IF_TRUE":
            return value, jump, fall, False
        if op == "POP_JUMP_IF_NONE":
            return E.compare(value, ast.Is(), E.const(None)), jump, fall, False
        if op == "POP_JUMP_IF_NOT_NONE":
            return E.compare(value, ast.IsNot(), E.const(None)), jump, fall, False
        raise Mismatch("unknown branch", opname=op, offset=last.offset)

    def emit_branch(self, blk, ctx, stack):
        test, t_true, t_false, keeps = self._condition(blk, stack)
        if keeps:
            # value-context and/or: jump keeps the value, fallthrough pops it
            jump_stack = list(stack)
            stack.pop()
            fall_stack = stack
            if blk.last.opname == "JUMP_IF_FALSE_OR_POP":
                true_stack, false_stack = fall_stack, jump_stack
            else:
                true_stack, false_stack = jump_stack, fall_stack
            return self._value_branch(test, t_true, t_false, true_stack, false_stack, ctx)
        chain, cleanup = [], ()  # the blocks of the further links of a chained comparison
        if isinstance(test, M.ExcMatch):
            pass
        elif pending_value(stack) and isinstance(test, ast.Compare) and stack[-1] is test.comparators[-1]:
            chained = self._chained_condition(test, t_true, t_false, stack, chain)
            if chained is not None:
                cleanup = (t_false,)
                test, t_true, t_false = chained
                stack.pop()
            else:
                return self._value_branch(test, t_true, t_false, list(stack), list(stack), ctx)
        elif pending_value(stack) or (stack and stack[-1] is test):
            if pending_value(stack) and stack[-1] is not test:
                # the test of a conditional expression: `f(x, a if b and c else d)`
                test, t_true, t_false, folded = self._compound_folded(blk, test, t_true, t_false, ctx, stack)
                try:
                    return self._value_branch(test, t_true, t_false, list(stack), list(stack), ctx)
                except Mismatch:
                    pass
                # 3.9+: a finally body copied between `return x` and its RETURN_VALUE
                # runs its statements while x waits on the stack
                # (or Dynamo's statements between a call's callable and its arguments)
                return self._branch_under_waiting(blk, test, t_true, t_false, ctx, stack, folded)
            return self._value_branch(test, t_true, t_false, list(stack), list(stack), ctx)
        test, t_true, t_false, folded = self._compound_folded(blk, test, t_true, t_false, ctx, stack,
                                                              links=chain, cleanups=cleanup)
        try:
            return self._statement_branch(blk, test, t_true, t_false, ctx, stack, folded)
        except Mismatch:
            operand = self._bool_operand(test, t_true, t_false, stack)
            if operand is None:
                raise
        return self.emit_branch(operand[0], ctx, operand[1])

    def _bool_operand(self, test, t_true, t_false, stack):
        """3.8/3.9 `(a or b) and r`: a's jump skips b straight to r, and b ends in the
        value-keeping jump of the `and` (likewise `(a and b) or r`). The value of a never
        counts (r follows), so b's block can test `a or b` in its place: returns that
        block and the stack to run its jump with, or None for any other shape."""
        for to_r, to_b in ((t_true, t_false), (t_false, t_true)):
            if to_b not in self.cfg.blocks:
                continue
            bblk = self.cfg[to_b]
            op = bblk.last.opname
            if op not in V.JUMP_OR_POP or self.cfg.fall(bblk) != to_r \
                    or len(bblk.preds) != 1:
                continue
            st, out = list(stack), []
            try:
                self.ex.run(bblk.instrs[:-1], st, out)
            except Mismatch:
                return None
            if out or len(st) != len(stack) + 1:
                return None
            goes_to_r = test if to_r == t_true else E.negate(test)
            if op == "JUMP_IF_FALSE_OR_POP":
                st[-1] = boolop(ast.Or, goes_to_r, st[-1])
            else:
                st[-1] = boolop(ast.And, E.negate(goes_to_r), st[-1])
            return bblk, st
        return None

    def _trial_condition(self, blk, stack):
        """Run a block that ends in a conditional jump on a copy of ``stack``: its
        (test, true target, false target, stack after) when it only computes the test
        (no statements, a popping jump), else None."""
        st = list(stack)
        out = []
        try:
            self.ex.run(blk.instrs[:-1], st, out)
            test, t_true, t_false, keeps = self._condition(blk, st)
        except Mismatch:
            return None
        if out or keeps:
            return None
        return test, t_true, t_false, st

    def _chained_condition(self, test, t_true, t_false, stack, links=None):
        """`if a < b < c:` keeps b on the stack; the false path pops it in a cleanup block.
        ``links``: a list that gets the blocks of the further links."""
        if t_true not in self.cfg.blocks or t_false not in self.cfg.blocks:
            return None
        clean = self.cfg[t_false]
        ops = [i.opname for i in clean.instrs]
        if ops in (["POP_TOP", "JUMP"], ["POP_TOP"]) and len(clean.succs) == 1:
            false_target = clean.succs[0]  # (a copied exit there is merged with its original)
        elif ops[0] == "POP_TOP" and len(ops) > 1 and not clean.succs:
            # 3.10+ pasted the false arm (a `raise`, a `return`) after the cleanup's POP_TOP
            false_target = None
        else:
            return None
        blk = self.cfg[t_true]
        if blk.last.opname not in COND_JUMPS or len(blk.preds) != 1:
            return None
        trial = self._trial_condition(blk, stack)
        if trial is None:
            return None
        t2, tt, tf, st = trial
        if not isinstance(t2, ast.Compare) or t2.left is not stack[-1]:
            return None
        if blk.last.opname in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE") and false_target is not None \
                and self.cfg.through_jumps(tt) == self.cfg.through_jumps(false_target):
            # 3.11+ folds a last link `is None` into the jump, which goes where the
            # chain is false: `x is y is None` jumps away when not None
            flip = {ast.Is: ast.IsNot, ast.IsNot: ast.Is}[type(t2.ops[0])]
            t2, tt, tf = ast.Compare(left=t2.left, ops=[flip()], comparators=t2.comparators), tf, tt
        joined = ast.Compare(left=test.left, ops=test.ops + t2.ops,
                             comparators=test.comparators + t2.comparators)
        if links is not None:
            links.append(t_true)
        if len(st) == len(stack) and st[-1] is t2.comparators[-1] and tf == t_false:
            deeper = self._chained_condition(joined, tt, tf, st, links)
            return deeper
        if len(st) != len(stack) - 1:
            return None
        if false_target is None:
            if tf in self.cfg.blocks and same_code(self.cfg[tf].instrs, clean.instrs[1:]):
                return joined, tt, tf
        elif self._same_exit(tf, false_target):
            return joined, tt, tf
        return None

    def _over_cleanup(self, bid, folded, cleanups):
        """Up to 3.9 a chained comparison that is an `and` operand jumps over its cleanup
        to the next operand: where the jump block ``bid`` goes when only the tests
        ``folded`` reach it and a chained comparison's ``cleanups`` lie there, else None."""
        to = self.cfg.jump_only_target(bid)
        if not cleanups or to is None or to < bid or to not in self.cfg.blocks or \
                not set(self.cfg[bid].preds) <= folded:
            return None
        return to

    def _same_exit(self, a, b):
        """Whether blocks ``a`` and ``b`` go the same way: through jumps to one block, or
        copies of one `raise` (3.10+ paste the false arm of a chained comparison's last
        link after it, while the cleanup of the others falls into the original)."""
        if self.cfg.through_jumps(a) == self.cfg.through_jumps(b):
            return True
        if a not in self.cfg.blocks or b not in self.cfg.blocks:
            return False
        ba, bb = self.cfg[a], self.cfg[b]
        return not ba.succs and not bb.succs and same_code(ba.instrs, bb.instrs)

    def _chain_operand(self, test, t_true, t_false, stack, links, shared):
        """A chained comparison as an operand of a compound test (`a and 0 <= x < n`): its
        test and targets, a target that goes the way of one of ``shared`` given as that
        one (``_same_exit``); ``links`` gets its further blocks. None if it is none."""
        if not (pending_value(stack) and isinstance(test, ast.Compare) and
                stack[-1] is test.comparators[-1]):
            return None
        chained = self._chained_condition(test, t_true, t_false, stack, links)
        if chained is None:
            return None
        joined, tt, tf = chained
        tt, tf = [next((s for s in shared if self._same_exit(t, s)), t) for t in (tt, tf)]
        return joined, tt, tf

    def _value_branch(self, test, t_true, t_false, true_stack, false_stack, ctx):
        merge = self._branch_merge(test, t_true, t_false, ctx)
        try:
            return self._value_arms(test, t_true, t_false, true_stack, false_stack, ctx, merge)
        except Mismatch:
            if merge is None or not self._bare_return(merge):
                raise
        # an arm returns its value itself while the other brings it to a `return` of its
        # own (`return a < b < c or d`: the chain's cleanup lies after the return it falls
        # into): both arms return, and the value is the conditional expression of the two
        return self._value_arms(test, t_true, t_false, true_stack, false_stack, ctx, None)

    def _value_arms(self, test, t_true, t_false, true_stack, false_stack, ctx, merge):
        if t_true == t_false == merge:
            raise Mismatch("a test of no value")  # `if c: pass` while a value waits
        sub = ctx.but(stop=merge) if merge is not None else ctx
        base = self.ex._base  # (the statement the test is part of: its arms run blocks)
        # (3.12+ restores the locals an inlined comprehension hid: no statements of its own)
        a_stmts, a_stack = _without_restores(*self.seq(t_true, sub, true_stack))
        b_stmts, b_stack = _without_restores(*self.seq(t_false, sub, false_stack))
        if merge is None:
            # both arms return or raise (the compiler copies the end of the statement, and
            # a short exit after it, into each arm): the statements, with the conditional
            # expression where the two differ
            if a_stack is None and b_stack is None and a_stmts and \
                    isinstance(a_stmts[-1], (ast.Return, ast.Raise)) and \
                    (len(a_stmts) == 1 or mentions(a_stmts[0], true_stack)):
                stmts = merge_arms(test, a_stmts, b_stmts,
                                   lambda: t_false in self.cfg.reachable(t_true, set()))
                if stmts is not None:
                    return stmts, None, None
            brought = self._return_copied_into_arm(ctx, (a_stmts, a_stack, true_stack),
                                                   (b_stmts, b_stack, false_stack))
            if brought is not None:
                return [], ctx.stop, merge_stacks(test, *brought)
            if (ctx.stop is None and ctx.region_exit is not None and not (a_stmts or b_stmts)
                    and a_stack is not None and b_stack is not None and len(a_stack) == len(b_stack)):
                # both arms bring the value out of a protected region (3.11+: the `return`
                # of `return a and b` in a try body lies after the region)
                return [], ctx.region_exit, merge_stacks(test, a_stack, b_stack)
            raise Mismatch("conditional expression whose arms do not meet",
                           function=self.code.co_name)
        if a_stmts or b_stmts or a_stack is None or b_stack is None or len(a_stack) != len(b_stack):
            if a_stack is None and b_stack is not None and not b_stmts and not a_stmts:
                return [], merge, b_stack
            stmts = self._copied_statements(test, t_true, t_false, (a_stmts, a_stack),
                                            (b_stmts, b_stack), merge, true_stack)
            if stmts is not None:
                return stmts, merge, a_stack
            raise Mismatch("statements inside a conditional expression",
                           function=self.code.co_name)
        merged = merge_stacks(test, a_stack, b_stack,
                              lambda: t_false in self.cfg.reachable(t_true, {merge}))
        self.ex.carry_statement(merged, base)
        return [], merge, merged

    def _copied_statements(self, test, t_true, t_false, a, b, merge, waiting):
        """Arms ``(stmts, stack at the end)`` that meet after copies of the statement that
        takes a value ``waiting`` on the stack at the test (the exit blocks the compiler
        copied after it are joined again: `f(a if c else b); return x`): the statements
        with the conditional expression, or None. The arms must leave the same values
        behind."""
        (a_stmts, a_stack), (b_stmts, b_stack) = a, b
        if not a_stmts or a_stack is None or b_stack is None or len(a_stack) != len(b_stack) \
                or any(x is not y for x, y in zip(a_stack, b_stack)) or \
                not mentions(a_stmts[0], waiting):
            return None
        return merge_arms(test, a_stmts, b_stmts,
                          lambda: t_false in self.cfg.reachable(t_true, {merge}))

    def _return_copied_into_arm(self, ctx, a, b):
        """The stacks two arms ``(stmts, stack at the end, stack at the start)`` bring to
        the end of the enclosing construct when that end only returns and one arm
        returns its value itself, through a copy of that `return` (3.8/3.9 copy a
        bare return into the arm that falls into it: `return (b or c) if a else c`):
        that arm brings its value there too. None otherwise."""
        if ctx.stop is None or not self._bare_return(ctx.stop):
            return None
        for own_is_a in (True, False):
            (own, own_end, own_start), (other, other_end, _) = (a, b) if own_is_a else (b, a)
            if other or other_end is None or own_end is not None or len(own) != 1 or \
                    not isinstance(own[0], ast.Return) or own[0].value is None or \
                    len(other_end) != len(own_start) + 1:
                continue
            brought = list(own_start) + [own[0].value]
            return (brought, other_end) if own_is_a else (other_end, brought)
        return None

    def _compound(self, blk, test, t_true, t_false, ctx, stack, line=None):
        """Fold short-circuit conditions (`a and b`, `a or not b`, ...) into one test.

        A block joins the test when only the blocks folded so far (starting with ``blk``)
        reach it: in `(a and b) or c`, both a and b jump to c. A block that starts a
        compound test of its own joins as a whole: `a or (b and c)`. ``line``: only blocks
        testing on that line join."""
        return self._compound_folded(blk, test, t_true, t_false, ctx, stack, line=line)[:3]

    def _compound_folded(self, blk, test, t_true, t_false, ctx, stack, depth=0, line=None,
                         links=(), cleanups=()):
        folded = {blk.id} | set(links)
        cleanups = set(cleanups)  # of chained comparisons: reach further tests, test nothing
        changed = True
        while changed:
            changed = False
            for side in ("true", "false"):
                nxt = t_true if side == "true" else t_false
                if nxt in ctx.sinks() or nxt not in self.cfg.blocks:
                    continue
                hop = self._over_cleanup(nxt, folded, cleanups)
                if hop is not None:
                    hop, nxt = nxt, hop
                nblk = self.cfg[nxt]
                if not set(nblk.preds) <= folded | cleanups | {hop} or nblk.last.opname not in COND_JUMPS or \
                        nblk.last.opname in V.JUMP_OR_POP:
                    continue
                if nxt in self.latches or (ctx.region is not None and nxt not in ctx.region):
                    continue
                if line is not None and nblk.last.line != line:
                    continue
                if not same_entry(self.effective_handler(nxt), ctx.handler):
                    continue
                trial = self._trial_condition(nblk, stack)
                if trial is None:
                    continue
                t2, tt, tf, sub_stack = trial
                inner = {nxt}
                if len(sub_stack) == len(stack) + 1:  # a chained comparison
                    found = []
                    chained = self._chain_operand(t2, tt, tf, sub_stack, found, (t_true, t_false))
                    if chained is None or not ({chained[1], chained[2]} & {t_true, t_false}):
                        continue
                    cleanups.add(tf)
                    t2, tt, tf = chained
                    inner.update(found)
                elif len(sub_stack) != len(stack) or isinstance(t2, M.ExcMatch):
                    continue
                shared = t_true if side == "false" else t_false
                if any(self._own_continue(b, shared) for b in folded | inner):
                    continue
                if not ({tt, tf} & {t_true, t_false}) and depth < 8:
                    # the block's own targets are further tests: fold those first
                    t2, tt, tf, inner = self._compound_folded(nblk, t2, tt, tf, ctx, stack, depth + 1,
                                                              line)
                if side == "false":  # reached when test is false
                    if tt == t_true:
                        test, t_false = boolop(ast.Or, test, t2), tf
                    elif tf == t_true:
                        test, t_false = boolop(ast.Or, test, E.negate(t2)), tt
                    else:
                        continue
                else:  # reached when test is true
                    if tf == t_false:
                        test, t_true = boolop(ast.And, test, t2), tt
                    elif tt == t_false:
                        test, t_true = boolop(ast.And, test, E.negate(t2)), tf
                    else:
                        continue
                folded |= inner | ({hop} if hop is not None else set())
                changed = True
                break
        return test, t_true, t_false, folded


def _without_restores(stmts, stack):
    return [s for s in stmts if not isinstance(s, M.RestoreStmt)], stack
