"""What the code of an exception handler shows: where its except clauses go on after
POP_EXCEPT, whether it is a finally, and the layout hints around it (else clauses, a
`continue` in a clause, returns in the body)."""
from ...bytecode import versions as V
from ..flow.exits import name_cleanup
from ..flow.instructions import TERMINATORS


class Handlers:
    """Mixin of ``Emitter``: questions about handlers' code."""

    def _after_handlers(self, entry, sinks, region, breaks=False):
        """The one block that the except clauses of handler ``entry`` jump on to after
        their POP_EXCEPT, or None. (Through the handlers of try statements in a clause,
        whose own clauses go on in it: a clause ending in a try whose body raises.)
        ``breaks``: also by a jump that leaves an enclosing try (``_break_past_handler``:
        asked where a loop ends, such a jump is a `break`)."""
        if self._handler_is_finally(entry):
            return None
        target = entry.target
        after, seen, work = set(), set(), [(target, 0)]
        while work:
            b, depth = work.pop()
            if b in seen or b in sinks or b not in self.cfg.blocks or (region is not None and b not in region):
                continue
            seen.add(b)
            blk = self.cfg[b]
            if any(i.opname == "POP_EXCEPT" for i in blk.instrs):
                if depth:
                    work.extend((s, depth - 1) for s in blk.succs)  # (a nested clause's end)
                elif blk.last.opname == "JUMP":  # (not a return on its way out)
                    after.add(self.cfg.target(blk.last))
                elif breaks and (blk.last.opname in ("POP_EXCEPT", "POP_BLOCK") or
                                 self._ends_clause_clearing_name(blk)) and \
                        self._break_past_handler(blk) is not None:
                    after.add(self._break_past_handler(blk))
                elif (blk.last.opname == "POP_EXCEPT" or self._clears_name_after_pop(blk)) and \
                        self._joined_copy(blk.end) or \
                        blk.end in self.cfg.clause_tails or self._try_after_clause(blk, entry):
                    # (3.10+ pasted a copy of the code the clause goes on to, a return,
                    # after its POP_EXCEPT and the clean-up of its `as` name: the copy is
                    # joined to the block it copies, or is the only one)
                    if not self._returns_out_of_region(self.cfg.fall(blk), sinks, region):
                        after.add(self.cfg.fall(blk))
                continue
            if self._no_match_reraise(blk):
                continue
            work.extend((s, depth) for s in blk.succs)
            inner = blk.handler
            if inner is not None and inner.target != target and b != target and \
                    self.handler_kind.get(inner.target) == "try" and not self._handler_is_finally(inner):
                work.append((inner.target, depth + 1))
        after -= {target} | set(sinks)
        if sinks:
            # (a `break` that leaves enclosing blocks on its way to where the loop
            # ends, a sink: POP_BLOCK up to 3.10)
            after = {a for a in after if not (self.cfg[a].instrs[0].opname == "POP_BLOCK" and
                                              self._only_cleanup_to(a, sinks))}
        return after.pop() if len(after) == 1 else None

    def _break_past_handler(self, blk):
        """Where the clause ending in ``blk`` (its POP_EXCEPT; up to 3.10 also the
        POP_BLOCK of an enclosing try) goes on past the enclosing handler's range, else
        None: a jump laid out next that the range leaves out, or the POP_EXCEPT of an
        enclosing clause that the loop ends (a `break` from a clause of a try nested in
        a try body or in an except clause: it leaves the outer statement too)."""
        nxt = self.cfg.blocks.get(blk.end)
        ops = [i.opname for i in blk.instrs[-2:]]
        if nxt is None or blk.last.opname == "POP_BLOCK" and ops != ["POP_EXCEPT", "POP_BLOCK"]:
            return None
        if nxt.handler is blk.handler or nxt.handler is not None and blk.handler is not None and \
                nxt.handler.target == blk.handler.target:
            return None
        to = self.cfg.jump_only_target(blk.end)
        if to is not None:
            return to
        if blk.last.opname == "POP_EXCEPT" and nxt.instrs[0].opname == "POP_EXCEPT":
            return blk.end
        return None

    @staticmethod
    def _ends_clause_clearing_name(blk):
        """Whether ``blk`` ends an `except E as name:` clause: its POP_EXCEPT, then the
        name cleared (3.11+)."""
        return V.HAS_EXCEPTION_TABLE and Handlers._clears_name_after_pop(blk)

    @staticmethod
    def _clears_name_after_pop(blk):
        """Whether ``blk`` ends in POP_EXCEPT and the clean-up of an `as` name (up to
        3.10 the clause's POP_BLOCK comes first)."""
        ops = blk.instrs[-4:]
        return len(ops) == 4 and ops[0].opname == "POP_EXCEPT" and name_cleanup(ops[1:])

    def _try_after_clause(self, blk, entry):
        """3.11+: whether the except clause ending in ``blk`` (its POP_EXCEPT) runs on
        into a try statement that starts there (3.12+ place the code after a try whose body
        raises right after its clause, at the depth of the try of ``entry``): the clause
        is over, the next statement begins."""
        if not V.HAS_EXCEPTION_TABLE or not (blk.last.opname == "POP_EXCEPT" or
                                             self._ends_clause_clearing_name(blk)):
            return False  # (the end of the clause: its POP_EXCEPT, `as` name cleared)
        nxt = self.cfg.fall(blk)
        inner = self.cfg[nxt].handler if nxt in self.cfg.blocks else None
        return inner is not None and inner.depth == entry.depth and not inner.lasti and \
            self.handler_kind.get(inner.target) == "try" and \
            self._protected.get(inner.target, [None])[0] == nxt

    def _handler_interior(self, entry):
        """The blocks of the except clauses (or finally body) of ``entry`` that run before
        their POP_EXCEPT (with the exception still being handled), reached from its start
        (a finally body that ends re-raising: all of it)."""
        seen, work = set(), [entry.target]
        while work:
            b = work.pop()
            if b in seen or b not in self.cfg.blocks:
                continue
            seen.add(b)
            blk = self.cfg[b]
            if not any(i.opname == "POP_EXCEPT" for i in blk.instrs):
                work.extend(blk.succs)
        return seen

    def _handlers_rejoin(self, entry, exit_block, ctx):
        """Where the except clauses of ``entry`` go on after their POP_EXCEPT, when the
        body's way out ``exit_block`` goes on nowhere else (it reaches that place,
        directly or through an else clause, or returns, raises, breaks or continues),
        else None."""
        sinks = ctx.sinks()
        after = self._after_handlers(entry, sinks, ctx.region)
        if after is None or after in sinks:
            return None
        reach = self.cfg.reachable(exit_block, sinks | {after}, ctx.region)
        goes_on = {s for b in reach for s in self.cfg[b].succs} - reach
        # (3.11+ leaves the RETURN_VALUE of a `return` out of the region: that path returns)
        if any(self.cfg[s].succs or self.cfg[s].last.opname != "RETURN_VALUE"
               for s in goes_on - sinks - {after}):
            return None
        if after not in goes_on and after != exit_block and ctx.loop is not None and \
                after not in self.loop_body(ctx.loop.header):
            return None  # (the clauses break out of a `while True` the body goes on in)
        return after

    def _returns_out_of_region(self, bid, sinks, region):
        """Whether block ``bid``, laid out right after the POP_EXCEPT of a clause of a try
        nested in a try body (``region``), lies outside that body and is none of its ends
        (``sinks``): the copy of the enclosing finally body that the clause's `return`
        runs straight through on its way out (3.11+; a try statement there reads as the
        code after the nested try), not where the clause goes on."""
        return region is not None and bid not in region and bid not in sinks and \
            self._runs_straight_out(bid)

    def _no_match_reraise(self, blk):
        """3.8: the END_FINALLY that an except chain jumps to when no clause matched: it
        re-raises (the exception is on the stack), so its fall-through never runs."""
        if len(blk.instrs) != 1 or blk.last.opname != "END_FINALLY" or not blk.preds:
            return False
        for p in blk.preds:
            instrs = self.cfg[p].instrs
            if len(instrs) < 2 or instrs[-2].opname != "EXC_MATCH_POP2" or \
                    self.cfg.target(instrs[-1]) != blk.id:
                return False
        return True

    def _falls_into_else(self, entry, exit_block):
        """3.11 lays the handlers out right after the try body and its else clause: code
        the body runs straight into before them is the else clause (the code after the
        statement comes after the handlers, reached by a jump over them)."""
        if V.HANDLERS_AT_END or not V.HAS_EXCEPTION_TABLE:
            return False
        return any(self.cfg.fall(self.cfg[b]) == exit_block and
                   self.cfg[b].last.opname not in TERMINATORS
                   for b in self.region_of(entry))

    def _continue_in_clause(self, jump):
        """Whether ``jump`` is a `continue` written in an except clause (up to 3.10): the
        clause's own end, a dead `POP_EXCEPT; JUMP`, follows it. (The source keeps it even
        as the last statement of the loop body.)"""
        if not V.KEEPS_DEAD_JUMPS or jump is None or jump.index < 1 or \
                self.cfg.instrs[jump.index - 1].opname != "POP_EXCEPT":
            return False
        nxt = self.cfg.blocks.get(jump.index + 1)
        # (or the dead jump over the else of an if the continue ends the body of)
        return nxt is not None and not nxt.preds and nxt.instrs[0].opname in ("POP_EXCEPT", "JUMP")

    def _returns_const_in_body(self, entry, exit_block):
        """Up to 3.9 `return <constant>` in a try body pops the block first and loads the
        value after it: `POP_BLOCK; LOAD_CONST; RETURN_VALUE`, where a body that goes on
        has `POP_BLOCK; JUMP_FORWARD` (try/except) instead. That return is the body's."""
        if V.EXIT_BLOCKS_COPIED or self.handler_kind.get(entry.target) != "try" or \
                self._handler_is_finally(entry):
            return False
        instrs = self.cfg.instrs
        for b in self.region_of(entry):
            blk = self.cfg[b]
            if blk.last.opname == "POP_BLOCK" and self.cfg.fall(blk) == exit_block:
                tail = [i.opname for i in instrs[blk.end:blk.end + 2]]
                return tail == ["LOAD_CONST", "RETURN_VALUE"]
        return False

    def _clauses_end_at_loop_head(self, entry, ctx):
        """The loop head that an except clause's own end jumps to, else None.

        Up to 3.10 a clause ends `POP_EXCEPT; JUMP end-of-try`, the jump retargeted to the
        loop head when the try ends the loop body. A `continue` in the clause is the same
        pair, followed by the clause's own (dead) POP_EXCEPT and jump: that one is not."""
        if self._handler_is_finally(entry) or not V.KEEPS_DEAD_JUMPS:
            return None
        heads, seen, work = set(), set(), [entry.target]
        while work:
            b = work.pop()
            if b in seen or b not in self.cfg.blocks or b in ctx.sinks():
                continue
            seen.add(b)
            blk = self.cfg[b]
            ops = [i.opname for i in blk.instrs]
            if "POP_EXCEPT" in ops:
                last = blk.last
                if ops[-2:] == ["POP_EXCEPT", "JUMP"] and not self._continue_in_clause(last):
                    heads.add(self.cfg.target(last))
                continue
            if ops[-1] not in V.HANDLER_RERAISES:  # (the exception goes on: not a clause)
                work.extend(blk.succs)
        if len(heads) == 1 and heads <= ctx.loop.continue_targets:
            return heads.pop()
        return None

    def _clause_continue(self, t, exits, loop):
        """Whether block ``t`` (after a clause's POP_EXCEPT, as in ``_clause_break``) is a
        `continue` of ``loop``, back to its head, where another of the region's ``exits``
        goes too: the body's own way on (3.12+ lay the clause's jump out after all the
        handlers, past that way: not where the try statement ends)."""
        to = self.cfg.jump_only_target(t)
        return loop is not None and to is not None and to < t and to in loop.continue_targets and \
            any(o != t and self.cfg.through_jumps(o) == to for o in exits)

    def _handler_is_finally(self, entry):
        """A finally handler re-raises without ever testing the exception's type."""
        i = entry.target
        instrs = self.cfg.instrs
        ops = [ins.opname for ins in instrs[i:i + 3]]
        if ops[:1] == ["PUSH_EXC_INFO"]:
            ops = ops[1:]
        return not (ops[:1] == ["POP_TOP"] or "CHECK_EXC_MATCH" in [x.opname for x in instrs[i:i + 8]]
                    or "EXC_MATCH_POP2" in [x.opname for x in instrs[i:i + 8]])
