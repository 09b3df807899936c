"""Loops: which kind a loop head is, where a loop ends (its follow), and the for and
async for loops (``whiles`` has the while forms)."""
import ast
import dis

from ..symbolic import markers as M
from ...bytecode import raw
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS, TERMINATORS
from .context import Loop
from .helpers import appends_to, is_exit_call, past_return_swaps, same_entry, skip_exit_calls, take_target


class Loops:
    """Mixin of ``Emitter``: loop dispatch, loop ends, for loops."""

    def emit_loop(self, header, ctx, stack):
        blk = self.cfg[header]
        body = self.loop_body(header)
        self._emitting_loops.add(header)
        try:
            if blk.last.opname == "FOR_ITER" and len(blk.instrs) == 1:
                return self._emit_for(blk, body, ctx, stack)
            if self._anext_entry(blk) is not None:
                return self._emit_async_for(blk, body, ctx, stack)
            inner = self._stacked_loop(header, body, stack)
            if inner is None:
                return self._emit_while(blk, body, ctx, stack)
            self._inner_loops[header] = inner
            try:
                outer = [b for b in self.latches[header] if b not in inner]
                return self._emit_while(blk, body, ctx, stack, outer)
            finally:
                self._inner_loops.pop(header, None)
        finally:
            self._emitting_loops.discard(header)

    def _stacked_loop(self, header, body, stack):
        """3.10+ `while c: while True: ...`: the inner loop starts the outer one's body,
        whose test at the end (`if c: do { body } while (c)`) jumps back to the same
        head. The head's one latch that tests c, reached only past the inner loop's
        ways out, is the outer loop's; the inner loop's latches (a list), or None when
        ``header`` heads one loop. (A `continue` of a `while c:` goes to the test at
        its head, never to the body's start.)"""
        latches = self.latches[header]
        if V.WHILE_TESTS_AT_HEAD or len(latches) < 2:
            return None
        tests = [b for b in latches if self.cfg[b].last.opname in COND_JUMPS and
                 self.cfg[b].last.opname not in V.JUMP_OR_POP]
        if len(tests) != 1:
            return None
        latch = self.cfg[tests[0]]
        inner = [b for b in latches if b != latch.id]
        if latch.id in self.loop_body(header, inner):
            return None
        jump, fall = self.cfg.target(latch.last), self.cfg.fall(latch)
        exit_ = fall if jump == header else jump
        return inner if self._guarded(header, body, latch, exit_, stack) else None

    def emit_inner_loop(self, header, ctx, stack):
        """The inner loop of two that share ``header`` (``_stacked_loop``), met as the
        outer loop's body starts there."""
        latches = self._inner_loops.pop(header)
        try:
            body = self.loop_body(header, latches)
            return self._emit_while(self.cfg[header], body, ctx, stack, latches)
        finally:
            self._inner_loops[header] = latches

    def _loop_follow(self, body, exits, ctx, for_exit=None):
        cands = set(exits)
        for b in body:
            for s in self.cfg[b].succs:
                if s not in body:
                    cands.add(s)
        cands.discard(None)
        cands = {c for c in cands if not self._runs_into_with_return(c) and
                 not self._runs_into_finally_return(c, ctx)}
        breaks = self._clause_breaks(body)
        if not cands and len(breaks) == 1 and not breaks & ctx.sinks() and \
                not self._only_cleanup_to(min(breaks), ctx.sinks()):
            return min(breaks)  # (left only by breaks in except clauses, all to one place)
        cands |= breaks
        follow = self._follow_among(cands, exits, ctx, for_exit)
        if follow in cands and not exits and self._clause_break_block(follow):
            follow = self.cfg.target(self.cfg[follow].last)
        if follow is not None and self._inside_nested_regions({follow}, body, ctx):
            # (the loop cannot end inside a statement of its own body)
            follow = self._follow_among(cands - self._inside_nested_regions(cands, body, ctx),
                                        exits, ctx, for_exit)
        return follow

    def _with_exit_block(self, b):
        """Whether block ``b`` is only the normal exit call of a with statement, falling
        into code the compiler copied there (``after_with_exit``): the way out of a `break`
        in the with, like a jump."""
        blk = self.cfg.blocks.get(b)
        return blk is not None and len(blk.instrs) == 5 and is_exit_call(blk.instrs) and \
            len(blk.succs) == 1 and blk.succs[0] == blk.instrs[-1].index + 1

    def _clause_break_block(self, b):
        """Whether block ``b`` is a whole except clause that breaks (up to 3.9: the
        exception dropped, POP_EXCEPT, the jump past the loop): the way out, not where
        the loop ends."""
        blk = self.cfg.blocks.get(b)
        ops = [i.opname for i in blk.instrs] if blk is not None else []
        return V.KEEPS_DEAD_JUMPS and ops[-2:] == ["POP_EXCEPT", "JUMP"] and \
            all(op == "POP_TOP" for op in ops[:-2])

    def _runs_into_with_return(self, b):
        """Whether the way out of a loop at block ``b`` goes straight on (no branch)
        into the way out of a `return <value>` from inside try or with statements: the
        value swapped below each exit function and the exit called (after POP_BLOCK up to
        3.10), then returned, or a RETURN_VALUE alone (3.11+ leaves it out of the try's
        range). The return of an arm of the body (`with cm: while True: ... return f()`),
        never where the loop ends."""
        instrs, seen = self.cfg.instrs, set()
        while b in self.cfg.blocks and b not in seen:
            seen.add(b)
            k, exits = b, 0
            while True:
                while k < len(instrs) and instrs[k].opname == "POP_BLOCK":
                    k += 1
                swapped = past_return_swaps(instrs, k)
                if swapped is None:
                    break
                after = skip_exit_calls(instrs, swapped)
                if after == swapped:
                    return False
                k, exits = after, exits + 1
            if k < len(instrs) and instrs[k].opname == "RETURN_VALUE" and (exits or len(seen) > 1 and (
                    k == b or all(i.opname == "POP_BLOCK" for i in instrs[b:k]))):
                return True
            blk = self.cfg[b]
            if len(blk.succs) != 1 or blk.last.target is not None or blk.last.opname in TERMINATORS:
                return False
            b = blk.succs[0]
        return False

    def _runs_into_finally_return(self, b, ctx):
        """Whether the way out of a loop at block ``b`` runs straight on (no branch) out of
        the body of the try/finally statement of ``ctx`` with one value more on the stack
        (the raw instructions' stack effects): the value of a `return` on its way through
        the copy of the finally body (3.9+) or CALL_FINALLY (3.8), `try: while True: ...
        return x ... finally: ...`. The return of an arm of the body, never where the loop
        ends (no other way out of a loop leaves a value behind)."""
        if ctx.handler is None or ctx.region is None or b not in ctx.region or \
                self.handler_kind.get(ctx.handler.target) != "try" or \
                not self._handler_is_finally(ctx.handler):
            return False
        start = self.cfg[b].instrs[0].offset
        while b in ctx.region:
            blk = self.cfg[b]
            if len(blk.succs) != 1 or blk.last.target is not None or blk.last.opname in TERMINATORS \
                    or blk.succs[0] not in self.cfg.blocks:
                return False
            b = blk.succs[0]
        end = self.cfg[b].instrs[0].offset
        try:
            effect = sum(dis.stack_effect(op, arg if op >= dis.HAVE_ARGUMENT else None, jump=False)
                         for off, op, arg in raw.ops(self.code) if start <= off < end)
        except ValueError:  # (an opcode without a known stack effect: no such way out)
            return False
        return effect == 1

    def _follow_among(self, cands, exits, ctx, for_exit):
        """Where a loop ends whose ways out lead to ``cands``."""
        # ways out that only raise (`if c: raise`, except clauses that raise, the re-raise
        # when no clause matched) go nowhere: they do not take part in where the loop
        # ends, unlike its own exits (a for loop's end may raise). Only when a break (a
        # jump) is left to show where the loop ends (a loop left by returns only has no
        # end), and that end is not inside the clean-up of a handler a break leaves
        # (3.8-3.10)
        natural = {self.cfg.alias.get(e, e) for e in exits} | ({for_exit} if for_exit else set())
        going = {c for c in cands if c in natural or not self._only_raises(c)}
        if going != cands and any(c in self.cfg.blocks and self.cfg[c].last.opname == "JUMP" or
                                  self._with_exit_block(c) for c in going):
            follow = self._follow_of(going, exits, ctx, for_exit)
            if follow is not None and follow in self.cfg.blocks and \
                    self.cfg[follow].instrs[0].opname not in ("POP_EXCEPT", "POP_BLOCK"):
                return follow
        return self._follow_of(cands, exits, ctx, for_exit)

    def _inside_nested_regions(self, cands, body, ctx):
        """The blocks of ``cands`` inside a try/with region of the loop's own body (one
        that protects blocks of ``body`` and is neither the loop's handler nor one around
        it): ways out of the loop from inside a statement of its body (3.10+ copies the
        function's `return None` into the `break` of an if in a try body), which may lead
        to where the loop ends but never are that place."""
        around = set()
        if ctx.handler is not None:
            around = {ctx.handler.target} | {e.target for e in self.handler_chain(ctx.handler.target)}
        out = set()
        for c in cands:
            e = self.effective_handler(c) if c in self.cfg.blocks else None
            if e is None or e.target in around or self.cfg[c].instrs[0].opname == "POP_BLOCK":
                continue  # (3.8-3.10: a block that leaves the region, e.g. for a `break`)
            if self.region_of(e) & body:
                out.add(c)
        return out

    def _clause_breaks(self, body):
        """Where except clauses of try statements inside the loop ``body`` go on (after
        POP_EXCEPT) outside it: a `break` in the clause. The clause is no part of the
        body (it does not go back to the head), so the body's own edges miss that exit."""
        out = set()
        for target, protected in self._protected.items():
            # (a block of the try body that only raises, `if c: raise e`, is no way on;
            # one that loops back into the body is part of an outer loop's body)
            if target in body or not protected or not set(protected) & body or \
                    not all(b in body or self._raises_away(b, body) for b in protected):
                continue
            entry = self.cfg[protected[0]].handler
            if self.handler_kind.get(target, "try") != "try":
                continue
            after = self._after_handlers(entry, set(), None, breaks=True)
            if after is not None and after not in body:
                out.add(after)
        return out

    def _raises_away(self, bid, body):
        """Whether every path from block ``bid`` raises without coming back into ``body``
        (a path that never ends, around an outer loop, does not count as raising)."""
        return self._only_raises(bid) and not self.cfg.reachable(bid, set()) & body

    def _follow_of(self, cands, exits, ctx, for_exit):
        """Where a loop whose ways out lead to ``cands`` ends."""
        sinks = ctx.sinks()
        if not cands:
            return None
        if for_exit is not None and cands == {for_exit} and for_exit not in sinks and (
                ctx.region is None or for_exit in ctx.region):
            return for_exit  # a for loop without breaks ends where the iterator runs out
        merge = self.cfg.postdominator_merge(sorted(cands), sinks, ctx.region)
        ends = {b for b in (ctx.region_exit, ctx.stop) if b is not None}
        if merge is None and ends:
            # the other ways out return (or leave the try statement) in places: the loop
            # ends where the one path that goes on to the enclosing construct's end resumes
            going = [c for c in cands if self._goes_on(c, ends, sinks, ctx.region)]
            start = going[0] if len(going) == 1 else None
            if start is not None and start not in {self.cfg.alias.get(e, e) for e in exits}:
                # a break: its arm ends jumping past the loop (an arm that falls on
                # does not tell where the loop ends)
                last = self.cfg[start].last
                start = self.cfg.target(last) if last.opname == "JUMP" else None
            # (a break that only cleans up on its way to the end is the rule below)
            if start is not None and start not in sinks and not self._only_cleanup_to(start, ends) \
                    and same_entry(self.effective_handler(start), ctx.handler):
                return start
        if merge is None:
            # breaks that leave for where the enclosing try body or statement ends (3.11+
            # jumps there directly, through any finally copies), or for the head or exit of
            # the enclosing loop (a jump to a jump is threaded: `break` as the last thing of
            # an outer loop's body goes straight to its head): the loop ends there too
            breaks = cands - {self.cfg.alias.get(e, e) for e in exits}
            ends = [ctx.region_exit, ctx.stop]
            if ctx.loop is not None:
                ends += sorted(ctx.loop.continue_targets) + [ctx.loop.follow]
            for end in ends:
                if end is not None and any(self._leaves_to(c, end, sinks, ctx.region) or
                                           end == ctx.region_exit and self._jumps_on_as(end, c)
                                           for c in breaks):
                    return self._raising_else_end(cands, exits, sinks, ctx) or end
        return merge

    def _jumps_on_as(self, end, b):
        """Whether block ``end`` is a bare jump that lands where ``b`` leads through bare
        jumps: a break to ``b`` is one to ``end`` (3.13: the unprotected jump that ends a
        try body and a break of a loop inside it go on to the same latch)."""
        return self.cfg.jump_only_target(end) is not None and \
            self.cfg.through_jumps(end) == self.cfg.through_jumps(b)

    def _raising_else_end(self, cands, exits, sinks, ctx):
        """Where the ways out of a loop that may end by itself (its test, its iterator)
        meet once the paths that return or raise are left out, before the end of the
        enclosing construct: a `break` and an else clause that raises in places both
        go on to the statement after the loop (`return f()` in a try/finally, whose
        value waits while the finally copy runs). None if they only meet at that end."""
        if not {self.cfg.alias.get(e, e) for e in exits} & cands:
            return None  # (`while True:`: its breaks alone tell where it ends)
        merge = self.cfg.postdominator_merge(sorted(cands), sinks, ctx.region, ignore_terminal=True)
        if merge is None or merge in cands:
            return None
        # (every way out goes on there: an else clause that always returns is no such way)
        if not all(merge in self.cfg.reachable(c, sinks, ctx.region) for c in cands):
            return None
        return merge

    def _emit_for(self, blk, body, ctx, stack):
        # (3.13 copies a small exit after the loop into each `break`: the copies are one)
        exit_ = self.cfg.target(blk.last)
        it = stack.pop()
        is_async = False
        if isinstance(it, M.GetIter):
            is_async = it.is_async
            iter_expr = it.value
        else:
            iter_expr = it
            it = M.GetIter(it)
        follow = self._loop_follow(body, [exit_], ctx, for_exit=self.cfg.alias.get(exit_, exit_))
        if follow is None:
            follow = exit_
        loop = Loop(blk.id, follow, body, {blk.id})
        inner = ctx.but(loop=loop, stop=None)
        body_stmts, _ = self.seq(blk.end, inner, stack + [it, M.ForItem()])
        target, body_stmts = take_target(body_stmts)
        orelse = []
        if follow != exit_:
            orelse, _ = self.seq(exit_, ctx.but(stop=follow), stack)
        node = (ast.AsyncFor if is_async else ast.For)(
            target=target, iter=iter_expr, body=body_stmts or [ast.Pass()], orelse=orelse,
            type_comment=None)
        inlined = self._inlined_comprehension(node, stack, iter_expr)
        if inlined is not None:
            return [], follow, inlined
        return [node], follow, stack

    def _inlined_comprehension(self, loop, stack, iter_expr):
        """3.12+ inlines list/set/dict comprehensions: a (async) for loop that appends to
        the display below its iterator builds a value. The stack with that value, or None."""
        acc = stack[-1] if stack else None
        if V.INLINED_COMPREHENSIONS and isinstance(acc, (ast.List, ast.Set, ast.Dict)) and \
                appends_to(loop.body, acc):
            from ..rewrite.comprehensions import comprehension_from_body
            from ..rewrite.rules import fix
            return stack[:-1] + [comprehension_from_body(self.code, fix([loop]), iter_expr)]
        return None

    def _anext_entry(self, blk):
        """The exception entry ending an `async for` whose head is ``blk``, or None."""
        for ins in self.cfg.instrs[blk.id:blk.id + 3]:
            if ins.opname == "GET_ANEXT":
                e = self.cfg[self.cfg.block_at[ins.index]].handler
                if e is not None and self.cfg.instrs[e.target].opname == "END_ASYNC_FOR":
                    return e
        return None

    def _emit_async_for(self, blk, body, ctx, stack):
        """`async for`: GET_ANEXT + await at the head; StopAsyncIteration ends the loop in
        an END_ASYNC_FOR handler, which continues after the loop."""
        entry = self._anext_entry(blk)
        it = stack[-1]
        iter_expr = it.value if isinstance(it, M.GetIter) else it
        if not isinstance(it, M.GetIter):
            # an async comprehension's `.0` is the async iterator already; below the loop
            # body it is the loop's iterator, not a value waiting to be used
            stack = stack[:-1] + [M.GetIter(it, is_async=True)]
        after = self.cfg.fall(self.cfg[entry.target])
        follow = self._loop_follow(body, [after] if after is not None else [], ctx)
        if follow is None:
            follow = after
        loop = Loop(blk.id, follow, body, {blk.id})
        body_stmts, _ = self.seq(blk.id, ctx.but(loop=loop, stop=None), stack, enter=True)
        target, body_stmts = take_target(body_stmts)
        node = ast.AsyncFor(target=target, iter=iter_expr, body=body_stmts or [ast.Pass()],
                            orelse=[], type_comment=None)
        rest = stack[:-1]
        inlined = self._inlined_comprehension(node, rest, iter_expr)
        if inlined is not None:
            return [], follow, inlined
        if after is not None and follow != after:
            node.orelse, _ = self.seq(after, ctx.but(stop=follow), rest)
        return [node], follow, rest
