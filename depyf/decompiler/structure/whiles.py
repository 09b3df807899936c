"""While loops in their compiled forms: tested at the head (`while c:` up to 3.9, or
a head `continue` jumps to), tested at the end (3.10+ `if c: do body while c`), and
`while True:` with or without a final `if not c: break`."""
import ast

from ..mismatch import Mismatch
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS
from ..symbolic.markers import Marker
from .. import facts
from ..facts import Fact
from .context import Loop
from .helpers import mentions, pending_value, same_entry


class Whiles:
    """Mixin of ``Emitter``: while loops."""

    def _emit_while(self, blk, body, ctx, stack, latches=None):
        header = blk.id
        latches = self.latches[header] if latches is None else latches
        # 3.10+ compile `while c:` as `if c: do { body } while (c)`: the latch tests c
        latch = self.cfg[latches[0]] if len(latches) == 1 else None
        classic = self._emit_classic_while(blk, body, ctx, stack)
        if classic is not None:
            return classic
        tested_at_end = latch is not None and latch.last.opname in COND_JUMPS and \
            latch.last.opname not in V.JUMP_OR_POP
        if tested_at_end:
            jump, fall = self.cfg.target(latch.last), self.cfg.fall(latch)
            exit_ = fall if jump == header else jump
            follow = self._loop_follow(body, [exit_], ctx)
            if follow is None:  # (block 0 is a follow too: the head of a loop around)
                follow = exit_
            if not self._guarded(header, body, latch, exit_, stack):
                if self.cfg.through_jumps(exit_) == self.cfg.through_jumps(follow):
                    return self._emit_do_while(blk, body, latch, follow, ctx, stack)
                tested_at_end = False  # with an else clause: a `while True:` that tests inside
        if tested_at_end:
            pure = latch.id != header and self._pure_condition(latch, stack)
            loop = Loop(header, follow, body, {header, latch.id} if pure else {header})
            body_stmts, test, t_true, t_false = self._body_then_test(header, latch, loop, ctx, stack)
            if t_true != header:
                test = E.negate(test)
            orelse = []
            if follow != exit_:
                orelse, _ = self.seq(exit_, ctx.but(stop=follow), stack)
            node = ast.While(test=test, body=body_stmts or [ast.Pass()], orelse=orelse)
            facts.note(node, Fact.INVERTED, True)
            return [node], follow, stack
        # classic `while c:` (condition at the head) or `while True:`
        follow = self._loop_follow(body, [], ctx)
        loop = Loop(header, follow, body, {header})
        inner = ctx.but(loop=loop, stop=None)
        body_stmts, _ = self.seq(header, inner, stack, enter=True)
        test = E.const(True)
        orelse = []
        node = ast.While(test=test, body=body_stmts or [ast.Pass()], orelse=orelse)
        return [node], follow, (stack if follow is not None else None)

    def _test_towards(self, blk, stack, target, entered=False):
        """(condition under which block ``blk`` jumps to ``target``, its other successor),
        the block's statements aside; None when ``blk`` does not end in such a test.
        ``entered``: ``stack`` is what the block leaves, not what it starts with (its
        statements may use values from before it: those are stand-ins)."""
        if blk.last.opname not in COND_JUMPS or blk.last.opname in V.JUMP_OR_POP:
            return None
        pads = [Marker() for _ in range(4)] if entered else []
        st = list(stack) + pads
        try:
            self.ex.run(blk.instrs[:-1], st, [])
            test, t_true, t_false, _ = self._condition(blk, st)
        except Mismatch:
            return None
        if not entered and len(st) != len(stack) or mentions(test, pads):
            return None
        if t_true == target:
            return test, t_false
        if t_false == target:
            return E.negate(test), t_true
        return None

    def _guarded(self, header, body, latch, exit_, stack):
        """Whether the only way into a loop that tests its condition at the end (its
        ``latch``) is a test of that same condition leaving for the same exit: 3.10+
        `while c:` (`if c: do { body } while (c)`). Otherwise the body runs before the
        first test, a `while True:` that breaks at the end."""
        if V.WHILE_TESTS_AT_HEAD:
            return False
        outside = [p for p in self.cfg[header].preds if p not in body]
        if len(outside) != 1:
            return False
        again = self._test_towards(latch, stack, header, entered=True)
        first = self._test_towards(self.cfg[outside[0]], stack, header, entered=True)
        through = self.cfg.through_jumps
        return again is not None and first is not None and E.same_expr(again[0], first[0]) and \
            through(again[1]) == through(first[1]) == through(exit_)

    def _emit_do_while(self, blk, body, latch, follow, ctx, stack):
        """`while True: body; if not c: break`: the test ends the body (in ``latch``)."""
        header = blk.id
        loop = Loop(header, follow, body, {header})
        body_stmts, test, t_true, t_false = self._body_then_test(header, latch, loop, ctx, stack)
        leave = E.negate(test) if t_true == header else test
        body_stmts.append(ast.If(test=leave, body=[ast.Break()], orelse=[]))
        node = ast.While(test=E.const(True), body=body_stmts, orelse=[])
        return [node], follow, stack

    def _body_then_test(self, header, latch, loop, ctx, stack):
        """A do-while body that ends in the test of ``latch``: (its statements, the test,
        the test's true and false targets). The body runs up to the block where the test
        starts (``_latch_start``), then that block's own statements."""
        start = self._latch_start(latch, header, loop, ctx, stack)
        body_stmts, loop_stack = [], list(stack)
        if start.id != header:
            body_stmts, loop_stack = self.seq(header, ctx.but(loop=loop, stop=start.id), stack,
                                              enter=True)
            if loop_stack is None:
                loop_stack = list(stack)
        self.ex.run(start.instrs[:-1], loop_stack, body_stmts)
        found = self._test_from(start, latch, loop, ctx, loop_stack)
        if found is None:
            raise Mismatch("a loop test that does not end the body", function=self.code.co_name)
        return (body_stmts,) + found

    def _latch_start(self, latch, header, loop, ctx, stack):
        """The block where the test in ``latch`` starts: the first of the blocks on the
        latch's line, one leading to the next, that test one condition going on to the
        head or the exit (`while a and b:`; `0 <= x < n` keeps x on the stack from one
        link to the next), else the latch."""
        best, cand = latch, latch
        for _ in range(8):
            if cand.id == header or len(cand.preds) != 1 or cand.preds[0] not in loop.body:
                break
            cand = self.cfg[cand.preds[0]]
            if cand.last.opname not in COND_JUMPS or cand.last.opname in V.JUMP_OR_POP or \
                    cand.last.line != latch.last.line:
                break
            st = list(stack)
            try:
                self.ex.run(cand.instrs[:-1], st, [])
                found = self._test_from(cand, latch, loop, ctx, st)
            except Mismatch:
                found = None
            if found is not None:
                best = cand
        return best

    def _test_from(self, start, latch, loop, ctx, stack):
        """(test, true target, false target) of the condition that starts in block
        ``start`` (its statements run: ``stack`` holds its test) and ends in ``latch``,
        going to the loop's head or out; None when it does not."""
        test, t_true, t_false, _ = self._condition(start, stack)
        if start is latch:
            return test, t_true, t_false
        found = self._chain_at(test, t_true, t_false, stack)
        if found is None:
            return None
        test, t_true, t_false, chain, cleanup = found
        test, t_true, t_false, folded = self._compound_folded(
            start, test, t_true, t_false, ctx.but(loop=loop, stop=None), stack,
            line=latch.last.line, links=chain, cleanups=cleanup)
        through = self.cfg.through_jumps
        if latch.id not in folded or through(loop.header) not in (through(t_true), through(t_false)):
            return None
        return test, t_true, t_false

    def _chain_at(self, test, t_true, t_false, stack):
        """The test of a block that may be the first link of a chained comparison (`0 <=
        x < n` keeps x on ``stack`` for the next link): (test, true target, false
        target, the blocks of the further links, the cleanup of the kept operand), the
        whole comparison and ``stack`` without the operand for a chain; None for a kept
        operand that starts none."""
        if not (pending_value(stack) and isinstance(test, ast.Compare) and stack[-1] is test.comparators[-1]):
            return test, t_true, t_false, [], ()
        links = []
        chained = self._chained_condition(test, t_true, t_false, stack, links)
        if chained is None:
            return None
        stack.pop()  # (the operand the links share)
        return chained + (links, (t_false,))

    def _emit_classic_while(self, blk, body, ctx, stack):
        """`while c:` tested at the head: the head only computes the test and leaves the
        loop on one arm. Up to 3.9 every `while c:` looks so; 3.10+ compile it as
        `if c: do { body } while (c)`, and the head is a loop of its own only when a
        `continue` jumps back to it: then the do-while's latches are continues too.
        The head of a `while c:` falls into the body and jumps away to leave (or, with
        no body, jumps to itself); one that falls into the way out (a return, a raise)
        is the `if c:` that starts a `while True:` body. None when the head is not such a
        test."""
        if blk.last.opname not in COND_JUMPS or blk.last.opname in V.JUMP_OR_POP:
            return None
        trial = self._trial_condition(blk, stack)
        if trial is None:
            return None
        test, t_true, t_false, st = trial
        found = self._chain_at(test, t_true, t_false, st)
        if found is None:
            return None
        test, t_true, t_false, links, cleanups = found
        head = self._compound_head(blk, body, found, st, ctx)
        folded = head is not None or V.WHILE_HEAD_COMPOUND and (t_true in body) == (t_false in body)
        if head is not None:
            test, t_true, t_false, exit_, retests = head
        elif folded:  # `while a or b:` tested at the head: both of a's targets are in the loop
            # (on the line of the head: an `if c: break` of the body's own folds the same)
            test, t_true, t_false, _ = self._compound_folded(blk, test, t_true, t_false, ctx, st,
                                                             line=blk.last.line, links=links,
                                                             cleanups=cleanups)
            out = t_true if t_false in body else t_false
            if out in self.cfg.blocks and self.cfg[self.cfg.through_jumps(out)].last.opname in V.RAISES:
                return None  # `if a and b: raise` heading a `while True:` body
        if head is None:
            if len(st) != len(stack) or (t_true in body) == (t_false in body):
                return None
            exit_ = t_false if t_true in body else t_true
            if exit_ == self.cfg.fall(blk) and not folded and blk.id not in (t_true, t_false):
                return None
            retests = self._retest_latches(blk.id, test, t_true, t_false, exit_, st)
            if retests is None:
                return None
        follow = self._loop_follow(body, [exit_], ctx)
        if follow is None:
            follow = exit_
        do_while = self.cfg.through_jumps(t_true if t_false == exit_ else t_false)
        loop = Loop(blk.id, follow, body, {blk.id}, retests, do_while)
        inner = ctx.but(loop=loop, stop=None)
        if not folded:  # (3.14: only the head's line, see above)
            test, t_true, t_false, _ = self._compound_folded(
                blk, test, t_true, t_false, inner, st, links=links, cleanups=cleanups,
                line=blk.last.line if V.WHILE_HEAD_COMPOUND else None)
        if t_true in body and t_false not in body:
            first, out = t_true, t_false
        elif t_false in body and t_true not in body:
            first, out, test = t_false, t_true, E.negate(test)
        else:
            return None
        if self.cfg.through_jumps(out) != self.cfg.through_jumps(exit_):
            return None
        if retests:
            # the do-while's head is the first block of the body, no loop of its own
            self._emitting_loops.add(do_while)
        try:
            body_stmts, _ = self.seq(first, inner, st)
        finally:
            if retests:
                self._emitting_loops.discard(do_while)
        orelse = []
        if follow != exit_:
            orelse, _ = self.seq(exit_, ctx.but(stop=follow), stack)
        node = ast.While(test=test, body=body_stmts or [ast.Pass()], orelse=orelse)
        return [node], follow, stack

    def _compound_head(self, blk, body, found, st, ctx):
        """3.10+ `while a and b:` whose head is a loop (a `continue` jumps to it): the
        head tests the whole compound condition, leaving the loop from one block or
        another, and the do-while's latches test it again. (test, true target, false
        target, exit, retest starts) of that reading, or None (a one-block test, or
        latches that do not test the same)."""
        if V.WHILE_TESTS_AT_HEAD:
            return None
        test, t_true, t_false, links, cleanups = found
        test, t_true, t_false, folded = self._compound_folded(blk, test, t_true, t_false, ctx, st,
                                                              links=links, cleanups=cleanups)
        if len(folded) < 2 or (t_true in body) == (t_false in body):
            return None
        exit_ = t_false if t_true in body else t_true
        retests = self._retest_latches(blk.id, test, t_true, t_false, exit_, st, ctx, len(folded))
        if not retests:
            return None
        return test, t_true, t_false, exit_, retests

    def _retest_latches(self, header, test, t_true, t_false, exit_, stack, ctx=None, size=1):
        """The blocks that test ``test`` again at the end of a 3.10+ `while` body whose
        head (``header``, a loop because `continue` jumps to it) tests it, going on to the
        same blocks: the body's first one, or ``exit_``. ``size``: how many blocks the
        head's test takes (a compound test is tested again in as many, laid out in a row
        that ends in the latch: the first of them is the retest). [] up to 3.9, None when
        the loop is no such `while`."""
        if V.WHILE_TESTS_AT_HEAD:
            return []
        into = test if t_false == exit_ else E.negate(test)
        first = self.cfg.through_jumps(t_true if t_false == exit_ else t_false)
        latches = self.latches.get(first)
        if not latches or first == header or header in latches:
            return None
        starts, covered = [], set()
        for bid in latches:
            if bid in covered:
                continue
            found = None
            cand = self.cfg[bid]
            for _ in range(size):
                found = self._retest_at(cand, into, first, exit_, stack, ctx, size > 1, header)
                if found is not None and bid in found or cand.id == first:
                    break
                cand = self.cfg.laid_out_before(cand.id)
                if cand is None:
                    break
            if found is None or bid not in found:
                return None
            starts.append(cand.id)
            covered |= found
        return starts

    def _retest_at(self, blk, into, first, exit_, stack, ctx, compound, header):
        """The blocks of a test of the loop's condition (``into``: true when the body is
        entered) that starts at block ``blk`` (after statements of the body) and goes on
        to ``first`` or ``exit_``, or None. ``compound``: the test may take more blocks.
        The test is protected as the body's start is, or (a body that starts with a try
        statement, 3.11+) as the loop's head ``header``."""
        handler = self.effective_handler(blk.id)
        if blk.last.opname not in COND_JUMPS or blk.last.opname in V.JUMP_OR_POP or \
                not (same_entry(handler, self.effective_handler(first)) or
                     same_entry(handler, self.effective_handler(header))):
            return None
        st = list(stack)
        try:
            self.ex.run(blk.instrs[:-1], st, [])  # statements of the body, then the test
            t2, tt, tf, _ = self._condition(blk, st)
            found = self._chain_at(t2, tt, tf, st) if compound else (t2, tt, tf, [], ())
            if found is None:
                return None
            t2, tt, tf, links, cleanups = found
            folded = {blk.id}
            if compound:
                t2, tt, tf, folded = self._compound_folded(blk, t2, tt, tf, ctx, st, links=links,
                                                           cleanups=cleanups)
        except Mismatch:
            return None
        through = self.cfg.through_jumps
        if len(st) != len(stack) or first not in (through(tt), through(tf)):
            return None
        out = tf if through(tt) == first else tt
        again = t2 if through(tt) == first else E.negate(t2)
        if through(out) != through(exit_) or not (
                E.same_expr(again, into) or E.same_expr(E.negate(again), E.negate(into))):
            return None
        return folded

    def _while_without_back_edge(self, blk, test, first, follow, ctx, stack):
        """`while c: B` whose body ``B`` never goes back to the test (each path returns
        or breaks) compiles (3.10+) like `if c: B`, the breaks jumping to where the if
        ends (``follow``). The loop read so (its test in ``blk``, the body from block
        ``first``), or None when its body does not fit."""
        body = self.cfg.reachable(first, ctx.sinks() | {follow}, ctx.region)
        loop = Loop(blk.id, follow, body, set())
        try:
            stmts, st = self.seq(first, ctx.but(loop=loop, stop=None), stack)
        except Mismatch:
            return None
        if st is not None:
            return None
        return ast.While(test=test, body=stmts or [ast.Pass()], orelse=[])

    def _finally_leaves_to(self, first, merge, ctx):
        """Whether a 3.8 finally body in the code from block ``first`` up to ``merge``
        jumps there, leaving the finally (POP_FINALLY): a `break`, where ``merge`` is no
        `continue` of the loop around."""
        if ctx.loop is not None and merge in ctx.loop.continue_targets:
            return False
        through = self.cfg.through_jumps
        for bid in self.cfg.reachable(first, ctx.sinks() | {merge}, ctx.region):
            blk = self.cfg[bid]
            if blk.last.opname == "JUMP" and through(self.cfg.target(blk.last)) == through(merge) and \
                    any(i.opname == "POP_FINALLY" for i in blk.instrs):
                return True
        return False

    def _pure_condition(self, blk, stack):
        out = []
        st = list(stack)
        try:
            self.ex.run(blk.instrs[:-1], st, out)
        except Mismatch:
            return False
        return not out and len(st) == len(stack) + 1
