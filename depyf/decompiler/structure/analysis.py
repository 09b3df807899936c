"""Facts about the CFG that the construct families share: loop latches and bodies, the
kind of each exception handler, the region a handler protects, leaders the CFG must
split at, and small path questions (does a block only raise, only jump on, ...)."""
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS
from ..symbolic import markers as M
from .helpers import WITH_EXIT_WINDOW, first_op, is_exit_call, same_entry, swaps_and_exits


class Analysis:
    """Mixin of ``Emitter``: the analyses, over ``self.cfg`` (set up in ``__init__``)."""

    def _protected_by_handler(self):
        """Handler target -> the blocks it protects directly."""
        protected = {}
        for blk in self.cfg.blocks.values():
            if blk.handler is not None:
                protected.setdefault(blk.handler.target, []).append(blk.id)
        return protected

    def _dominators(self):
        """``cfg.dominators()``, computed on first use (code without a cycle needs none)."""
        if self._dom is None:
            self._dom = self.cfg.dominators()
        return self._dom

    def _find_loops(self):
        """Loop head -> the blocks that jump back to it (its latches)."""
        latches = {}
        for blk in self.cfg.blocks.values():
            if blk.last.opname == "FOR_ITER" and len(blk.instrs) == 1:
                latches[blk.id] = []  # a for loop, even one whose body never loops back
        if not self.cfg.has_back_edge():
            # no cycle: no block jumps back to a block that dominates it, and no dead
            # code jumps back into a loop
            return self._async_fors(latches)
        dom, index = self._dominators()
        dead = []
        for blk in self.cfg.blocks.values():
            last = blk.last
            if last.target is None or last.opname not in COND_JUMPS | {"JUMP"}:
                continue
            head = self.cfg.target(last)
            if blk.id in dom and blk.id != self.cfg.order[0] and dom[blk.id] == 1 << index[blk.id]:
                dead.append((blk.id, head))
                continue
            # a back edge goes to a block that dominates its source (handlers placed after
            # the code they return to jump backwards without looping)
            if head in index and blk.id in dom and dom[blk.id] >> index[head] & 1 and \
                    self.cfg[head].last.opname != "SEND":
                latches.setdefault(head, []).append(blk.id)
        for bid, head in dead:
            # code nothing reaches (the jump back after a loop's last break) belongs to
            # the loop it jumps to; it makes no loop of its own
            if head in latches and bid > head:
                latches[head].append(bid)
        return self._async_fors(latches)

    def _async_fors(self, latches):
        """``latches`` with the head of every async for loop, also one whose body never
        loops back: the block of its GET_ANEXT (3.8's starts at the SETUP_FINALLY
        before it)."""
        instrs = self.cfg.instrs
        for ins in instrs:
            if ins.opname != "GET_ANEXT":
                continue
            bid = self.cfg.block_at[ins.index]
            if ins.index > 0 and instrs[ins.index - 1].opname == "SETUP_FINALLY" and \
                    ins.index - 1 in self.cfg.blocks:
                bid = ins.index - 1
            if bid in self.cfg.blocks and self._anext_entry(self.cfg[bid]) is not None:
                latches.setdefault(bid, [])
        return latches

    def loop_body(self, header, latches=None):
        """The blocks from which the loop goes back to ``header`` (through ``latches``, all
        by default); a handler inside the loop that goes back is reached from the code it
        protects (after the header)."""
        dom, index = self._dominators()
        body = {header}
        work = list(self.latches.get(header, ()) if latches is None else latches)
        while work:
            b = work.pop()
            if b in body:
                continue
            body.add(b)
            work.extend(self.cfg[b].preds)
            work.extend(p for p in self._protected.get(b, ()) if p in dom and dom[p] >> index[header] & 1)
        return body

    def _live_loop_body(self, header):
        """The loop's blocks but dead code (the jump back after its last break, the
        clean-up after a raise in a handler): 3.8/3.9 leave it unprotected even when a
        try statement holds the whole loop."""
        body = self.loop_body(header)
        dom, index = self._dominators()  # dead code dominates only itself
        return {b for b in body if b == header or b in dom and dom[b] != 1 << index[b]}

    def _classify_handlers(self):
        """Kind of each handler target: 'try', 'with', or 'cleanup' (compiler-internal)."""
        kinds = {}
        for e in self.cfg.entries:
            if e.target in kinds or e.target not in self.cfg.blocks:
                continue
            ops = [i.opname for i in self.cfg.instrs[e.target:e.target + 6]]
            if ops[:2] == ["PUSH_EXC_INFO", "WITH_EXCEPT_START"] or ops[:1] in (
                    ["WITH_EXCEPT_START"], ["WITH_CLEANUP_START"]):
                kind = "with"
            elif ops[:1] == ["PUSH_EXC_INFO"]:
                kind = "try"
            elif ops[:1] == ["END_ASYNC_FOR"] or ops[:2] == ["CLEANUP_THROW", "END_SEND"] or \
                    ops[:1] == ["CLEANUP_THROW"]:
                kind = "cleanup"
            elif ops[:1] == ["COPY"] and not V.HAS_EXCEPTION_TABLE:
                kind = "try"
            elif V.HAS_EXCEPTION_TABLE:
                kind = "cleanup"
            else:
                kind = self._classify_old(e.target, ops)
            kinds[e.target] = kind
        return kinds

    def _classify_old(self, target, ops):
        # up to 3.10: `except E as e` bodies are protected by a cleanup that deletes e
        instrs = self.cfg.instrs[target:target + 5]
        if tuple(i.opname for i in instrs[:3]) in V.EXC_NAME_CLEANUPS:
            if instrs[0].argval is None and instrs[3].opname in V.HANDLER_RERAISES:
                return "cleanup"
        return "try"

    def effective_handler(self, bid):
        """The innermost handler of a block that is a try/with (not compiler cleanup).
        (The CFG and the handler kinds are fixed once built: answered once per block.)"""
        cache = self._handler_cache
        if bid in cache:
            return cache[bid]
        e = cache[bid] = self._effective_handler(bid)
        return e

    def _effective_handler(self, bid):
        e = self.cfg[bid].handler
        seen = set()
        while e is not None and self.handler_kind.get(e.target) == "cleanup":
            if e.target in seen:
                return None
            seen.add(e.target)
            e = self.cfg[e.target].handler if e.target in self.cfg.blocks else None
        return e

    def handler_chain(self, bid):
        """The try/with handlers around block ``bid``, outermost first (a tuple)."""
        cache = self._chain_cache
        if bid in cache:
            return cache[bid]
        chain = []
        e = self.effective_handler(bid)
        while e is not None:
            chain.append(e)
            e = self.effective_handler(e.target) if e.target in self.cfg.blocks else None
        chain = cache[bid] = tuple(reversed(chain))  # outermost first
        return chain

    def region_of(self, entry):
        """Blocks protected by ``entry``, directly or through nested handlers."""
        key = (entry.start, entry.target)
        cache = self._region_cache
        if key in cache:
            return cache[key]
        region = set()
        for bid in self.cfg.order:
            chain = self.handler_chain(bid)
            if any(e.target == entry.target for e in chain):
                region.add(bid)
        cache[key] = region
        return region

    def _only_raises(self, bid):
        """Whether every path from block ``bid`` ends in a raise."""
        if bid not in self.cfg.blocks:
            return False
        for b in self.cfg.reachable(bid, set()):
            blk = self.cfg[b]
            if not blk.succs and blk.last.opname not in V.RAISES:
                return False
        return True

    def _only_cleanup_to(self, bid, ends):
        """Whether block ``bid`` leads to one of ``ends`` dropping values on the way, and
        nothing else (a break that leaves for where the enclosing construct ends)."""
        seen = set()
        while bid not in ends:
            if bid in seen or bid not in self.cfg.blocks:
                return False
            seen.add(bid)
            blk = self.cfg[bid]
            if len(blk.succs) != 1 or any(i.opname not in V.CLEANUP_ONLY for i in blk.instrs):
                return False
            bid = blk.succs[0]
        return True

    def _goes_on(self, bid, ends, sinks, region):
        """Whether a path from ``bid`` reaches one of ``ends`` (some of ``sinks``), also
        through a bare jump outside ``region`` (``_leaves_to``)."""
        if bid in ends or any(self._bare_jump_to(bid, e) for e in ends):
            return True
        reach = self.cfg.reachable(bid, sinks, region)
        return any(s in ends or any(self._bare_jump_to(s, e) for e in ends)
                   for b in reach for s in self.cfg[b].succs)

    def _leaves_to(self, bid, end, sinks, region):
        """Whether a path from ``bid`` reaches ``end`` (one of ``sinks``), also through
        a bare jump outside ``region`` (3.13 leaves the jump after a POP_EXCEPT in an
        enclosing try body unprotected, and the jump of a `break` out of a loop there)."""
        if bid == end or self._bare_jump_to(bid, end):
            return True
        reach = self.cfg.reachable(bid, sinks, region)
        return any(s == end or self.cfg.through_jumps(s) == end
                   for b in reach for s in self.cfg[b].succs)

    def _bare_jump_to(self, bid, target):
        """Whether block ``bid`` only jumps forward (through other such blocks) to
        ``target``."""
        return self.cfg.jump_only_target(bid) is not None and \
            target is not None and target > bid and self.cfg.through_jumps(bid) == target

    def _copy_of_exit(self, bid, ctx, stack):
        """Whether block ``bid``, reached with the value of a `return` on ``stack``, is a
        copy of the block where the region of ``ctx`` ends (the same instructions going on
        to the same block, with the same handler), or, for a with's body, its exit call
        with the value swapped below. 3.11+ copy a with's exit call into each way a
        `return` leaves its body through a finally copy, on to the finally copies around
        it: each copy is that way out."""
        blocks, exit_ = self.cfg.blocks, ctx.region_exit
        if exit_ is None or bid == exit_ or bid not in blocks or exit_ not in blocks or \
                not stack or self.ex.pending_returns.get(id(stack[-1])) is not stack[-1]:
            return False
        instrs = self.cfg.instrs
        if stack[-1] is self._escaping_value and self.handler_kind.get(ctx.handler.target) == "with" \
                and any(isinstance(v, M.WithExit) for v in stack) and swaps_and_exits(instrs, bid):
            return True  # (the exit call with the value swapped below: that of a `return`)
        a, b = blocks[bid], blocks[exit_]
        return a.succs == b.succs and len(a.succs) == 1 and same_entry(a.handler, b.handler) and \
            len(a.instrs) == len(b.instrs) and a.last.target is None and \
            all(x.opname == y.opname and x.arg == y.arg for x, y in zip(a.instrs, b.instrs))

    def _jumps_back_to(self, bid, exits):
        """Whether block ``bid`` is where an inner handler that ended (POP_EXCEPT: a with
        that suppressed, an except clause) only jumps back to one of ``exits`` laid out
        before it: the same way out as that exit (also the head of a loop after the region,
        3.13; not the head of a loop around the jump: that is the loop's next turn)."""
        blk = self.cfg.blocks.get(bid)
        if self.cfg.jump_only_target(bid) is None or not blk.preds:
            return False
        to = self.cfg.through_jumps(bid)
        return to in exits and to < bid and (
            to not in self.latches or bid not in self.loop_body(to)) and all(
            any(i.opname == "POP_EXCEPT" for i in self.cfg[p].instrs) for p in blk.preds)

    def _clause_escapes(self, exits, region, loop=None):
        """The ``exits`` of a try or with region that only a `return` (or a `break`,
        `continue` through a finally body or a with's exit) of an except clause inside it
        takes: they follow the clause's POP_EXCEPT (and the clean-up of its name) with no
        jump, and run straight on through the copies of finally bodies and with exits.
        3.12+ lays the handlers out after all other code, so these come after the
        region's normal way out: they are not where the statement ends."""
        if not V.HANDLERS_AT_END:
            return set()
        found = set()
        for t in exits:
            blk = self.cfg.blocks.get(t)
            if blk is not None and blk.preds and all(
                    p in region and self.cfg[p].last.target is None and
                    any(i.opname == "POP_EXCEPT" for i in self.cfg[p].instrs) for p in blk.preds) \
                    and (self._runs_straight_out(t) or self._clause_break(t, loop) or
                         self._clause_continue(t, exits, loop)):
                found.add(t)
        return found

    def _clause_break(self, t, loop):
        """Whether block ``t``, a bare jump the region's range leaves out right after a
        clause's POP_EXCEPT, is a `break` of the ``loop`` being emitted (to where it
        ends): from a clause of a try nested in the body, it leaves this try too (the
        end of such a clause jumps inside it)."""
        to = self.cfg.jump_only_target(t)
        return loop is not None and to is not None and to > t and to not in loop.body and (
            to == loop.follow or self.cfg.through_jumps(t) == loop.follow)

    def _runs_straight_out(self, bid):
        """Whether the code from block ``bid`` runs straight (no branch) into a
        RETURN_VALUE, or into a jump after code of its own (a bare jump is the same way out
        as the other jumps to its target)."""
        seen, code = set(), False
        while bid in self.cfg.blocks and bid not in seen:
            seen.add(bid)
            blk = self.cfg[bid]
            if blk.last.opname == "RETURN_VALUE" or blk.last.opname == "JUMP" and (
                    code or len(blk.instrs) > 1):
                return True
            if blk.last.target is not None or len(blk.succs) != 1:
                return False
            code, bid = True, blk.succs[0]
        return False

    def _bare_return(self, bid):
        """Whether block ``bid`` only returns the value on top of the stack."""
        return bid in self.cfg.blocks and [i.opname for i in self.cfg[bid].instrs] == ["RETURN_VALUE"]

    def _unreached(self, blk):
        """Whether nothing reaches block ``blk`` (3.8: but the end of an except chain, an
        END_FINALLY that only falls through when no exception is on)."""
        return not any(e.target == blk.id for e in self.cfg.entries) and \
            all(self.cfg[p].instrs[-1].opname == "END_FINALLY" for p in blk.preds)

    def _reach_with_handlers(self, bid, ctx):
        """Blocks reached from ``bid``, the handlers of try statements met on the way
        included (not the handler of the construct being emitted, nor compiler clean-up:
        the except* clause body's collector of what it raises goes on to the re-raise)."""
        seen, work = set(), [bid]
        sinks = ctx.sinks()
        while work:
            b = work.pop()
            if b in seen or b in sinks or b not in self.cfg.blocks or \
                    (ctx.region is not None and b not in ctx.region):
                continue
            seen.add(b)
            blk = self.cfg[b]
            work.extend(blk.succs)
            if blk.handler is not None and not same_entry(blk.handler, ctx.handler) and \
                    self.handler_kind.get(blk.handler.target) != "cleanup":
                work.append(blk.handler.target)
        return seen

    def _past_pop_blocks(self, bid):
        """The first block from ``bid`` on that does more than POP_BLOCK (up to 3.10 a
        try and a with each pop their block before the with's exit)."""
        seen = set()
        while bid in self.cfg.blocks and bid not in seen and len(self.cfg[bid].succs) == 1 and \
                all(i.opname == "POP_BLOCK" for i in self.cfg[bid].instrs):
            seen.add(bid)
            bid = self.cfg[bid].succs[0]
        return bid

    def _joined_copy(self, bid):
        """Whether block ``bid`` is one of the copies of an exit block that the CFG
        joined into one (``CFG.alias``)."""
        alias = self.cfg.alias
        return bid in alias or bid in alias.values()


def after_with_suppress(instrs):
    """Where the code after a with statement starts when its __exit__ suppressed the
    exception: the handler pops the exception state and the exit, then runs straight on
    into that code when the compiler placed it there (3.9+)."""
    out = set()
    for ins in instrs:
        if ins.opname != "WITH_EXCEPT_START":
            continue
        jump = first_op(instrs, ins.index + 1, WITH_EXIT_WINDOW - 1, "POP_JUMP_IF_TRUE")
        if jump is None:
            continue
        pop = first_op(instrs, jump.target, 6, "POP_EXCEPT")
        if pop is None:
            continue
        k = pop.index + 1
        while k < len(instrs) and instrs[k].opname == "POP_TOP":
            k += 1
        out.add(k)
    return out


def after_with_exit(instrs):
    """Where code that the compiler copied after the normal exit call of a with statement
    starts (a loop's follow copied to a `break` in the body): a block of its own, so that
    it can be read as the code after the loop. Not after the exit calls of a return out of
    nested withs, nor before a bare return (read inside the body)."""
    out = set()
    for k in range(len(instrs) - 6):
        if instrs[k].opname != "LOAD_CONST" or not is_exit_call(instrs[k:k + 5]):
            continue
        j = k + 5
        ops = [i.opname for i in instrs[j:j + 2]]
        if ops[0] in ("RETURN_VALUE", "RETURN_CONST", "POP_BLOCK", "JUMP") or ops[1] == "RETURN_VALUE" \
                or is_exit_call(instrs[j:j + 5]):
            continue
        out.add(j)
    return out


def after_except_star(instrs):
    """Where the code after an except* handler starts (the handler's last POP_EXCEPT is
    followed by it when the compiler copied it there instead of jumping)."""
    out = set()
    for ins in instrs:
        if ins.opname == "PREP_RERAISE_STAR":
            out.add(ins.index)  # where the last clause's body ends
            pop = first_op(instrs, ins.index, 8, "POP_EXCEPT")
            if pop is not None:
                out.add(pop.index + 1)
    return out
