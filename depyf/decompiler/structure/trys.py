"""Protected regions: ``emit_protected`` tells a try from a with, then try statements
(3.8's try/finally and the general form; except* is ``try_star``): the body, where the
statement ends, the handler's code read back as clauses (``rewrite.clauses.build_try``), the else clause,
and returns whose value leaves the protected range on the stack."""
import ast

from ..mismatch import Mismatch
from ..symbolic import markers as M
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from ..flow.instructions import TERMINATORS


class Trys:
    """Mixin of ``Emitter``: try statements."""

    def emit_protected(self, bid, entry, ctx, stack, enter=False):
        kind = self.handler_kind.get(entry.target, "try")
        region = self.region_of(entry)
        # where the body falls out of its region: the last such place in layout (exits
        # through return/break/continue are laid out inline, before the normal one)
        # (3.12+ `await` leaves a CLEANUP_THROW block that jumps back into the await when
        # a thrown-in exception ends the awaited one: not a way out of the try)
        outside = {t for b in region for t in self.cfg[b].succs if t not in region
                   and not (kind == "try" and self.cfg[b].instrs[0].opname == "CLEANUP_THROW")
                   and not self._jumps_into(t, region)}
        # a bare jump to another of these exits is the same way out (3.12+: a with's
        # suppressed-exception path jumps to the code after the try, the body falls into it)
        outside = {t for t in outside if not self._jumps_back_to(t, outside)}
        outside = self._fold_bare_jump_exits(outside, region, ctx.loop)
        escapes = self._clause_escapes(outside, region, ctx.loop)
        if outside - escapes:
            outside -= escapes
        exit_block = max(outside, key=lambda t: self._laid_out_at(t, region)) if outside else None
        inner = ctx.but(handler=entry, region=region, region_exit=exit_block, escape=ctx, stop=None)
        # (``enter``: the region starts at the head of the loop being emitted)
        if kind == "with":
            return self._emit_with(bid, entry, inner, ctx, stack, exit_block, enter)
        self._try_depth[entry.target] = len(stack)
        return self._emit_try(bid, entry, inner, ctx, stack, exit_block, enter)

    def _jumps_into(self, t, region):
        """Whether block ``t`` only jumps back into ``region`` (3.12+: the jump after a
        CLEANUP_THROW of an await in an async with's exit, left unprotected): no way out.
        (Not the jump back to the head of a loop whose body the region starts: the way on
        to the next iteration.)"""
        blk = self.cfg[t] if t in self.cfg.blocks else None
        if blk is None or [i.opname for i in blk.instrs] != ["JUMP"]:
            return False
        to = self.cfg.target(blk.last)
        return to in region and t not in self.latches.get(to, ())

    def _thrown_in_return(self, bid, region):
        """Whether block ``bid`` is the jump back into ``region`` after the CLEANUP_THROW of
        a `yield from`/`await` inside it (3.12+ leaves that jump unprotected): part of the
        region's code, not of a loop around it."""
        preds = self.cfg[bid].preds
        return bool(preds) and all(self.cfg[p].instrs[0].opname == "CLEANUP_THROW" for p in preds) \
            and self._jumps_into(bid, region)

    def _laid_out_at(self, t, region):
        """Where the way out of ``region`` to block ``t`` lies in layout: the latest of
        the places its edges went to before the copies of an exit were joined (3.10+
        pastes the code after the try after the body's end: joined, it is the first
        copy, which may lie before a `return` of the body). Not from the end of a finally
        body's handler copy (3.12+ lays it out after all other code: its `return`, joined
        to the one of the copy on the normal path, tells nothing of the body's layout)."""
        alias = self.cfg.alias
        if t not in alias.values():
            return t
        n = len(self.cfg.instrs)
        found = t
        late = self._finally_handler_ends(region)
        for b in region:
            blk = self.cfg[b]
            if b in late:
                continue
            for to in (blk.end if blk.last.opname not in TERMINATORS and blk.end < n else None,
                       blk.last.target):
                if to is not None and alias.get(to, to) == t:
                    found = max(found, to)
        return found

    def _finally_handler_ends(self, region):
        """The blocks of ``region`` where the handler code of a finally body ends its
        handling (POP_EXCEPT), 3.12+; an empty set before."""
        if not V.HANDLERS_AT_END:
            return set()
        out = set()
        for e in {self.cfg[b].handler for b in region} - {None}:
            if e.target in region and self.handler_kind.get(e.target) == "try" and \
                    self._handler_is_finally(e):
                out |= {b for b in self._handler_interior(e) if b in region and
                        any(i.opname == "POP_EXCEPT" for i in self.cfg[b].instrs)}
        return out

    def _fold_bare_jump_exits(self, exits, region, loop):
        """3.13 leaves the jump that ends an arm of a try body out of the protected range:
        the arms leave the region through blocks that only jump on. Such jumps to where
        another way out goes, or to where several of them go, are that one way out.
        (Otherwise the code after the try would be emitted again inside the arm.) So is
        one to past every other way out, but for the `break`/`continue` of ``loop``: the
        others return or leave inline before it (`if a: x() else: return 1`, a for loop's
        `else: return` after its `break`), and the code after the try comes last."""
        through = self.cfg.through_jumps
        bare = {t: through(t) for t in exits if t in self.cfg.blocks and
                [i.opname for i in self.cfg[t].instrs] == ["JUMP"] and through(t) not in region
                and through(t) > t}
        targets = [to for to in bare.values()]
        folded = {t for t, to in bare.items() if to in exits or targets.count(to) > 1 or
                  self._past_other_exits(t, to, exits, region, loop)}
        return (exits - folded) | {bare[t] for t in folded}

    def _past_other_exits(self, t, to, exits, region, loop):
        """Whether the bare jump ``t`` out of ``region`` goes to ``to``, laid out past
        every other of its ``exits``, and is no way on of ``loop`` (nor clean-up on the
        way to one: the POP_BLOCK of a with around the loop, 3.8-3.10)."""
        if loop is not None and self._only_cleanup_to(t, {loop.follow} | set(loop.continue_targets)):
            return False
        others = exits - {t}
        return bool(others) and all(self._laid_out_at(o, region) < to for o in others)

    def _emit_try(self, bid, entry, inner, ctx, stack, exit_block, enter):
        """The try statement of handler ``entry`` whose body starts at ``bid`` (``inner``:
        the body's ctx; ``exit_block``: where the body falls out of the region)."""
        if exit_block is not None and exit_block == entry.target:
            return self._emit_try_38(bid, entry, inner, ctx, stack, enter)
        body, body_stack, exit_block = self._try_body(bid, entry, inner, ctx, stack, exit_block, enter)
        if self._is_star_handler(entry.target):
            return self._emit_try_star(entry, ctx, stack, body, body_stack, exit_block)
        follow = self._try_follow(entry, exit_block, body_stack, ctx)
        hstmts, hstack, clause_returned = self._try_clauses(entry, follow, ctx, stack)
        from ..rewrite.clauses import build_try
        # (3.8: a finally body left by break/continue/return starts dropping the return
        # address CALL_FINALLY pushed, or the exception: then it drops the exception as
        # a bare except clause does)
        node, is_finally = build_try(body, hstmts, self.code.co_name,
                                     self.cfg.instrs[entry.target].opname == "POP_FINALLY")
        if is_finally:
            # the finally body also runs, copied, on the normal path: continue there
            if body_stack is None:
                return [node], None, None
            facts.note(node, Fact.FINALLY_COPY, True)
            return [node], exit_block, body_stack
        orelse = []
        st = hstack if hstack is not None else body_stack
        if body_stack is not None and exit_block is not None and exit_block != follow:
            orelse, ostack = self.seq(exit_block, ctx.but(stop=follow), body_stack)
            if ostack is not None:
                st = ostack
            elif hstack is None:
                st = None
        node.orelse = orelse
        if follow is None:
            # every path left the try, or reached the end of the enclosing construct
            return [node], None, st
        if st is None and clause_returned:
            # the clauses that reached the end returned through it: no path goes on
            return [node], None, None
        if st is None and follow is not None:
            st = list(stack)
        return [node], follow, st

    def _try_body(self, bid, entry, inner, ctx, stack, exit_block, enter):
        """The try body's statements, the stack it ends with and its way out (both None
        once a `return` whose value leaves the protected range is taken into it)."""
        body, body_stack = self.seq(bid, inner, stack, enter=enter)
        if body_stack is not None and len(body_stack) > len(stack) and exit_block is not None and \
                not any(isinstance(v, M.Marker) for v in body_stack[len(stack):]):
            # `return x` in the body: the value leaves the protected range on the stack
            # (3.11+ leaves the RETURN_VALUE itself unprotected; inside a handler the
            # exception state is popped first), so the return belongs to the body
            self._note_pending_return(inner, body_stack)
            more, st = self.seq(*self._outermost_exit(exit_block, ctx), body_stack)
            if st is None and more and not isinstance(more[-1], ast.Return) and \
                    self._handler_is_finally(entry):
                # the copy of the finally body on the way out raises: the value is the
                # body's `return`, which the finally body cancels
                body.append(ast.Return(value=body_stack[-1]))
                body_stack, exit_block = None, None
            elif st is None:
                body.extend(more)
                body_stack, exit_block = None, None
            elif not more and self._past_pop_blocks(exit_block) == ctx.region_exit or \
                    more and st and st[-1] is body_stack[-1] and self._handler_is_finally(entry):
                # (`more`: the copy of this try's finally body, on the way to the exit)
                ret = self._return_through_with_exit(ctx.region_exit, ctx, body_stack)
                if ret is not None:
                    body.append(ret)
                    body_stack, exit_block = None, None
                elif more:
                    rest = self._return_past_region_end(ctx, st, body_stack[-1])
                    if rest is not None:
                        body.extend(more + rest)
                        body_stack, exit_block = None, None
        if body_stack is not None and exit_block is not None and self._returns_const_in_body(entry, exit_block):
            more, st = self.seq(exit_block, ctx, body_stack)
            if st is None:
                body.extend(more)
                body_stack, exit_block = None, None
        return body, body_stack, exit_block

    def _note_pending_return(self, ctx, stack):
        """A value above the stack of the try statement whose body a path leaves (ctx:
        the body's): the value of a `return`, which a break/continue of the finally
        body may drop on the way (``Fact.RETURN_CANCELLED``)."""
        base = self._try_depth.get(ctx.handler.target) if ctx.handler is not None else None
        if base is not None and len(stack) == base + 1 and isinstance(stack[-1], ast.expr) and \
                not isinstance(stack[-1], M.Marker):
            self.ex.pending_returns[id(stack[-1])] = stack[-1]

    def _try_follow(self, entry, exit_block, body_stack, ctx):
        """Where the try statement ends: the block after it, or None when every path
        leaves it (or reaches the end of the enclosing construct)."""
        sources = [entry.target] + ([exit_block] if exit_block is not None and body_stack is not None else [])
        follow = self.cfg.postdominator_merge(sources, ctx.sinks(), ctx.region)
        if follow == entry.target or (len(sources) == 1 and follow is not None and (any(
                i.opname == "POP_EXCEPT" for i in self.cfg[follow].instrs) or
                follow in self._handler_interior(entry))):
            # the handler (its own code, reached only from it while the body returns:
            # a try nested in a bare except clause that every path runs) cannot be where
            # the try statement ends
            follow = None
        if follow is not None and len(sources) == 1 and ctx.loop is not None and \
                self._only_cleanup_to(follow, ctx.sinks() - {follow}):
            follow = None  # (the iterator dropped by a `break` of the clauses or finally body)
        if follow is None and len(sources) == 1:
            # ... but the end of an enclosing except clause (its POP_EXCEPT), where the
            # clauses of this one go on, is
            after = self._after_handlers(entry, ctx.sinks(), ctx.region)
            if after is not None and self.cfg[after].instrs[0].opname == "POP_EXCEPT":
                follow = after
        if follow is None and len(sources) == 2:
            # clauses that may re-raise, and that go on (after POP_EXCEPT) to a place the
            # body reaches too: the try ends there (code after it runs with the exception
            # state restored, not inside the clause)
            follow = self._handlers_rejoin(entry, exit_block, ctx)
        if follow is None and len(sources) == 1:
            # a body that never goes on: the try ends where its clauses go on after their
            # POP_EXCEPT (not at the end of the enclosing construct, reached from there)
            follow = self._after_handlers(entry, ctx.sinks(), ctx.region)
        if follow is None:
            # handlers that go on to where the enclosing construct ends: the try ends there
            # (not the code after the loop the try is in: a jump there is a `break`)
            # (nor the `return <constant>` a path leaves the enclosing try body by, up to
            # 3.10, where the statement ends inside that body)
            ends = [b for b in (ctx.region_exit, ctx.stop) if b is not None and
                    (ctx.loop is None or b != ctx.loop.follow) and
                    not (b == ctx.region_exit and self._constant_return_out(b, ctx))]
            reach = self.cfg.reachable(entry.target, set(ends))
            for b in ends:
                if any(b in self.cfg[r].succs for r in reach):
                    follow = b
                    break
        if follow is None and len(sources) == 2:
            # handlers and body that return or raise in places and go on elsewhere: the
            # try ends where the paths that go on meet
            follow = self.cfg.first_common(sources[0], sources[1], ctx.sinks(), ctx.region,
                                           going_on=True)
            if follow == entry.target:
                follow = None
        if follow is None:
            # a body that returns, clauses of which some go on: where they go on after
            # restoring the exception state (POP_EXCEPT) is where the try ends
            follow = self._after_handlers(entry, ctx.sinks(), ctx.region)
        if follow is None and entry.target > 0:
            # every handler escapes: the body's jump over the handlers shows where it ends
            before = self.cfg.instrs[entry.target - 1]
            if before.opname == "JUMP" and before.target > entry.target and not (
                    body_stack is None and self.cfg.target(before) in ctx.sinks()):
                # (a body that never goes on: the jump is the `break` of a copy of the
                # finally body on its way out)
                follow = self.cfg.target(before)
            elif body_stack is not None and exit_block is not None and exit_block < entry.target and \
                    self.handler_kind.get(entry.target) == "try" and not self._handler_is_finally(entry) \
                    and not self._falls_into_else(entry, exit_block):
                # 3.12+ moves handlers to the end: the body runs straight on
                follow = exit_block
        if ctx.loop is not None and body_stack is not None and exit_block is not None and \
                follow in (None, exit_block, self.cfg.through_jumps(exit_block)):
            head = self._clauses_end_at_loop_head(entry, ctx)
            if head is not None and head != self.cfg.through_jumps(exit_block):
                # the try ends the loop body: the code the body goes on to is its else
                follow = head
        return follow

    def _try_clauses(self, entry, follow, ctx, stack):
        """The handler's code up to ``follow`` (``build_try`` reads it back as clauses),
        the stack a clause that goes on to ``follow`` ends with (else None), and whether
        a clause returned through that end."""
        if V.HAS_EXCEPTION_TABLE:
            handler_stack = list(stack) + [M.ExcValue()]
        else:
            handler_stack = list(stack) + [M.PrevExc(), M.PrevExc(), M.PrevExc(),
                                           M.ExcValue("tb"), M.ExcValue("value"), M.ExcValue("type")]
        hctx = ctx.but(stop=follow, clause_base=len(stack))
        returned = self._clause_returns
        hstmts, hstack = self.seq(entry.target, hctx, handler_stack)
        clause_returned = self._clause_returns > returned
        if hstack is not None and (clause_returned and len(hstack) != len(stack) or any(
                isinstance(v, (M.ExcValue, M.PrevExc)) for v in hstack[len(stack):])):
            # the end reached as the bound of arms that left (returned through it, or
            # re-raised: the exception still on the stack), not by a clause that ended
            hstack = None
        if hstack is not None and follow is not None and \
                not self._leaves_to(entry.target, follow, ctx.sinks() | {follow}, None):
            hstack = None  # every clause returns or raises: the stop was reached as a bound
        return hstmts, hstack, clause_returned

    def _emit_try_38(self, bid, entry, inner, ctx, stack, enter):
        """3.8 try/finally: the normal path falls into the finally body, which ends in
        END_FINALLY (returns and breaks reach it through CALL_FINALLY instead)."""
        end = self._end_finally_of(entry.target)
        if end is None:
            raise Mismatch("finally without END_FINALLY", function=self.code.co_name)
        body, body_stack = self.seq(bid, inner.but(region_exit=entry.target), stack, enter=enter)
        final, _ = self.seq(entry.target, ctx.but(stop=end), stack + [M.FinallyMarker()])
        node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
        nxt = self.cfg.fall(self.cfg[end])
        if body_stack is None:
            return [node], None, None
        return [node], nxt, stack

    def _end_finally_of(self, start):
        """3.8: the END_FINALLY closing the finally body that begins at ``start``."""
        depth = 0
        for ins in self.cfg.instrs[start:]:
            if ins.opname in V.SETUPS_ENDING_IN_END_FINALLY:
                depth += 1
            elif ins.opname == "END_FINALLY":
                if depth == 0:
                    return ins.index
                depth -= 1
        return None

    def _return_through_with_exit(self, bid, ctx, stack):
        """`with cm: try: return f()`: the value leaves the try on the stack straight into
        the with's exit call (block ``bid``, the end of the enclosing with region), then is
        returned. The `return` belongs in the try body: after it, a raise in `f()` would
        escape the handlers. The Return node, or None when the value goes elsewhere."""
        marker = next((v for v in reversed(stack) if isinstance(v, M.WithExit)), None)
        if marker is None or ctx.escape is None:
            return None
        try:
            tail, _, _ = self._skip_with_exit(bid, marker, ctx.escape, list(stack))
        except Mismatch:
            return None
        if tail and isinstance(tail[0], ast.Return) and tail[0].value is stack[-1]:
            return tail[0]
        return None

    def _outermost_exit(self, bid, ctx):
        """Where a value left on the stack at block ``bid`` goes on: the RETURN_VALUE of
        a `return` in nested try bodies lies outside all of them (3.11+; up to 3.10 past
        their POP_BLOCKs), so the exit of this try may be the exit of enclosing ones
        too; the return (with the cleanup on its way) is emitted as the path escaping
        the outermost of them. The block and ctx to go on from."""
        while ctx.region is not None and ctx.escape is not None:
            if bid != ctx.region_exit:
                if self._past_pop_blocks(bid) != ctx.region_exit:
                    break
                bid = ctx.region_exit
            ctx = ctx.escape
        return bid, ctx

    def _clause_return(self, bid, ctx, stack):
        """An except clause that reaches the end of its try statement (``bid``) with a
        value above the statement's stack that it kept beneath the exception while it
        restored the exception state: the value of a `return` in the clause (its name
        deleted after that); the
        rest of its way out (finally copies, tails the compiler joined) belongs to the
        clause. Its statements, or None."""
        if ctx.clause_base is None or len(stack) != ctx.clause_base + 1 or \
                self.ex.returning.get(id(stack[-1])) is not stack[-1]:
            return None
        bid, out_ctx = self._outermost_exit(bid, ctx)
        if out_ctx is ctx:
            out_ctx = ctx.but(stop=None, clause_base=None)
        more, st = self.seq(bid, out_ctx, stack)
        if st is not None or not any(isinstance(n, ast.Return) and n.value is stack[-1]
                                     for s in more for n in ast.walk(s)):
            return None
        self._clause_returns += 1
        return more
