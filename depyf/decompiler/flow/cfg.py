"""Stage 2: basic blocks and the control-flow graph, with exception edges.

Blocks are split at jump targets, after jumps/returns/raises, and wherever the covering
exception handler changes, so every block has exactly one handler (or none).
"""
from ...bytecode import versions as V
from .dominance import PostDominators
from .instructions import COND_JUMPS

NO_FALLTHROUGH = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP", "END_FINALLY_RERAISE"}
BRANCHES = COND_JUMPS | {"FOR_ITER", "SEND"}


def _exit_key(instrs, prev=None):
    """What makes two exit blocks interchangeable: same instructions and, except for a
    bare re-raise or an implicit `return None`, the same line. An implicit `return None`
    has no line of its own: it carries the line of the code it was appended to (``prev``,
    the instruction before it in layout); an explicit one starts its own line, or
    follows the test of its one-line `if`."""
    ops = tuple((i.opname, i.arg) for i in instrs)
    implicit = prev is None or prev.line == instrs[0].line or instrs[0].line is None
    if prev is not None and prev.opname in COND_JUMPS and prev.target is not None and \
            prev.target > prev.index:
        # right after a test that jumps forward: the body of `if c: return`, on one line
        implicit = False
    if [i.opname for i in instrs] == ["RERAISE"] or (
            [i.opname for i in instrs] == ["LOAD_CONST", "RETURN_VALUE"] and instrs[0].argval is None
            and implicit):
        return ops
    return ops + tuple(i.line for i in instrs)


def _is_bare_raise(ins):
    """`raise` without an operand: re-raises whichever exception is being handled there."""
    return ins.opname == "RAISE_VARARGS" and ins.arg == 0


class Block:
    __slots__ = ("id", "instrs", "handler", "succs", "preds", "end")

    def __init__(self, start, instrs, handler):
        self.id = start
        self.instrs = instrs
        self.end = start + len(instrs)
        self.handler = handler  # ExcEntry or None
        self.succs = []
        self.preds = []

    @property
    def last(self):
        return self.instrs[-1]

    def __repr__(self):
        return "<Block %d-%d %s>" % (self.id, self.end, [i.opname for i in self.instrs])


class CFG:
    def __init__(self, instrs, entries, merge_exits=True, merge_tails=False,
                 extra_leaders=()):
        """``merge_exits``: join the copies of small exit blocks; ``merge_tails``: also
        join identical code that runs into them (see ``_copied_tail_starts``)."""
        self.instrs = instrs
        self.merge_tails = merge_tails
        self.entries = entries
        self._postdominators = {}  # (sinks, id(limit), ignore_terminal) -> (limit, tree)
        n = len(instrs)
        handler_at = [None] * n
        for e in entries:
            for i in range(e.start, min(e.end, n)):
                if handler_at[i] is None:
                    handler_at[i] = e
        leaders = {0}
        for ins in instrs:
            if ins.opname == "FOR_ITER":
                leaders.add(ins.index)  # a loop head even when nothing jumps back to it
            if ins.target is not None:
                leaders.add(ins.target)
                leaders.add(ins.index + 1)
            if ins.opname == "END_ASYNC_FOR":  # what follows is the code after the loop
                leaders.add(ins.index + 1)
            if ins.opname == "END_FINALLY":  # 3.8: ends a finally body / re-raises
                leaders.add(ins.index)
                leaders.add(ins.index + 1)
            if ins.opname in NO_FALLTHROUGH or ins.opname in ("BEFORE_WITH", "BEFORE_ASYNC_WITH",
                                                              "SETUP_WITH", "SETUP_FINALLY",
                                                              "SETUP_ASYNC_WITH", "POP_BLOCK"):
                leaders.add(ins.index + 1)
        for e in entries:
            leaders.update((e.start, e.end, e.target))
        leaders.update(extra_leaders)  # e.g. where match-statement case bodies start
        if merge_exits:
            copies = self._copied_return_starts(instrs, leaders)
            if merge_tails:
                copies += self._copied_tail_starts(instrs, leaders)
            leaders.update(copies)
        for i in range(1, n):
            if handler_at[i] is not handler_at[i - 1]:
                leaders.add(i)
        starts = sorted(x for x in leaders if 0 <= x < n)
        self.blocks = {}
        self.order = starts
        self.block_at = [0] * n
        for k, s in enumerate(starts):
            e = starts[k + 1] if k + 1 < len(starts) else n
            blk = Block(s, instrs[s:e], handler_at[s])
            self.blocks[s] = blk
            for i in range(s, e):
                self.block_at[i] = s
        self.next_block = {s: (starts[k + 1] if k + 1 < len(starts) else None)
                           for k, s in enumerate(starts)}
        for blk in self.blocks.values():
            last = blk.last
            succ = []
            if last.opname not in NO_FALLTHROUGH and blk.end < n:
                succ.append(blk.end)
            if last.target is not None and last.opname not in ("SETUP_FINALLY", "SETUP_WITH",
                                                               "SETUP_ASYNC_WITH", "CALL_FINALLY"):
                succ.append(last.target)
            blk.succs = succ
        self.alias = self._merge_duplicate_exits() if merge_exits else {}
        for blk in self.blocks.values():
            blk.succs = [self.alias.get(s, s) for s in blk.succs]
        for blk in self.blocks.values():
            if blk.id in self.alias:
                continue
            for s in blk.succs:
                if s in self.blocks:
                    self.blocks[s].preds.append(blk.id)

    @staticmethod
    def _copied_return_starts(instrs, leaders):
        """Where 3.11+ pasted a copy of a `return` (or bare `raise`) statement at the end of a
        block (a bare `raise` after a nested handler's POP_EXCEPT re-raises the *outer*
        exception: left in the handler's block it would read as part of the clause).

        The copies keep the return statement's line number; splitting them into blocks
        of their own lets ``_merge_duplicate_exits`` join them again.
        """
        groups = {}
        for ins in instrs:
            if ins.opname not in ("RETURN_VALUE", "RERAISE") and not _is_bare_raise(ins):
                continue
            r = ins.index
            s = r
            while ins.opname != "RERAISE" and s > 0 and r - s < 3 and instrs[s - 1].line == ins.line and \
                    instrs[s - 1].target is None and instrs[s - 1].opname not in NO_FALLTHROUGH \
                    and s not in leaders:
                s -= 1
            if s > 0 and s < r and instrs[s - 1].opname == "PUSH_NULL" and instrs[s - 1].line == ins.line \
                    and s not in leaders:
                s -= 1  # (the NULL pushed for the call copied with it: never split from it)
            key = _exit_key(instrs[s:r + 1], instrs[s - 1] if s > 0 else None)
            groups.setdefault(key, []).append(s)
        starts = []
        for members in groups.values():
            if len(members) > 1:
                starts.extend(members)
        return starts

    @staticmethod
    def _copied_tail_starts(instrs, leaders):
        """Where 3.10+ may have pasted a whole small exit block (up to 4 instructions
        ending in a return) in place of a jump to it: the copies keep their lines, so two
        exits that end in the same instructions on the same lines may be copies from there
        on. (`r.append(a < b < c)` + `return r`: the call is copied into each arm of the
        chained comparison, which only meet again after it.) Only a guess: different
        paths that end alike look the same, so this is a second try (``merge_tails``)."""
        tails = {}
        for ins in instrs:
            if ins.opname != "RETURN_VALUE":
                continue
            r = ins.index
            s = r
            while s > 0 and r - s < 3 and instrs[s - 1].target is None and \
                    instrs[s - 1].opname not in NO_FALLTHROUGH and s not in leaders:
                s -= 1
            tails[r] = s
        found = {}
        for r, s in tails.items():
            for k in range(s, r - 1):  # suffixes longer than `LOAD x; RETURN_VALUE`
                found.setdefault(_exit_key(instrs[k:r + 1], instrs[k - 1] if k > 0 else None), []).append(k)
        starts = []
        for r, s in tails.items():
            for k in range(s, r - 1):  # the longest suffix that occurs twice
                if len(found[_exit_key(instrs[k:r + 1], instrs[k - 1] if k > 0 else None)]) > 1:
                    starts.append(k)
                    break
        return starts

    def _merge_duplicate_exits(self):
        """3.11+ copies small exit blocks (``return x``) into each predecessor; undo it so
        that the branches meet again. Identical exit blocks become one, and so do the
        identical blocks that run straight into them (the rest of a copied exit block)."""
        alias = {}
        facts = {}  # computed once, when needed: handler owners, dominators
        changed = True
        while changed:
            changed = False
            seen = {}
            for bid in self.order:
                blk = self.blocks[bid]
                if bid in alias or len(blk.instrs) > 4:
                    continue
                if not V.KEEPS_DEAD_JUMPS and [i.opname for i in blk.instrs] == ["POP_EXCEPT", "JUMP"]:
                    key = self._clause_end_key(blk, alias, facts)
                    if key is None:
                        continue
                else:
                    if blk.last.opname in ("RETURN_VALUE", "RERAISE") or _is_bare_raise(blk.last):
                        after = None
                    elif self.merge_tails and blk.last.opname not in NO_FALLTHROUGH and \
                            blk.last.target is None and blk.end in self.blocks:
                        after = alias.get(blk.end, blk.end)
                    else:
                        continue
                    if after is not None and after == bid:
                        continue
                    prev = self.instrs[bid - 1] if bid > 0 else None
                    key = (_exit_key(blk.instrs, prev), blk.handler.target if blk.handler else None,
                           after)
                    if blk.last.opname == "RERAISE" and not V.HANDLER_CODE_COVERED:
                        # a re-raise is only ever copied within the handler it ends: re-raises
                        # of different handlers (or of a finally body's two copies) stay apart
                        key += (self._facts(facts)["owner"].get(bid),)
                if key in seen:
                    alias[bid] = seen[key]
                    changed = True
                else:
                    seen[key] = bid
        return alias

    def _clause_end_key(self, blk, alias, facts):
        """What makes two `POP_EXCEPT; JUMP` blocks one (3.10+): the end of an except
        clause and its copy after a `break` out of a loop that ends the clause go on to
        the same place, whatever their lines. Only within one try statement (the
        clauses of two go on alike by chance), and not a `continue` in the clause (a
        jump back to a head that dominates it: kept apart from the clause's end). Up to
        3.9 the dead pair after a `continue` in a clause tells it apart: those stay."""
        facts = self._facts(facts, dominators=True)
        dom, index = facts["dom"], facts["index"]
        to = alias.get(blk.last.target, blk.last.target)
        if to in index and dom[blk.id] >> index[to] & 1:
            return None
        return ("POP_EXCEPT", blk.handler.target if blk.handler else None, to,
                facts["owner"].get(blk.id))

    def _facts(self, facts, dominators=False):
        """``facts`` with the handler owners (and the dominators) filled in once."""
        if "owner" not in facts:
            facts["owner"] = self._handler_owners()
        if dominators and "dom" not in facts:
            facts["dom"], facts["index"] = self.dominators()
        return facts

    def _handler_owners(self):
        """For each block, the nearest handler entry that dominates it (None outside
        handlers): whose handler code the block is part of."""
        dom, index = self.dominators()
        targets = [t for t in {e.target for e in self.entries} if t in index]
        owners = {}
        for b in self.order:
            inside = [t for t in targets if dom[b] >> index[t] & 1]
            if inside:
                owners[b] = max(inside, key=lambda t: bin(dom[t]).count("1"))
        return owners

    def dominators(self):
        """Dominator sets (as bit masks over ``order``), exception edges included.

        Code that is never reached (the compiler leaves jumps behind `continue` and
        `return`) is dominated by itself only: it does not close loops."""
        index = {b: k for k, b in enumerate(self.order)}
        succs = {}
        for b in self.order:
            blk = self.blocks[b]
            out = list(blk.succs)
            if blk.handler is not None and blk.handler.target in self.blocks:
                out.append(blk.handler.target)
            succs[b] = out
        # code nothing reaches (a POP_BLOCK after a raise) is dominated by no other
        # block: it must not look like the source of a back edge
        live, work = set(), [self.order[0]]
        while work:
            b = work.pop()
            if b not in live and b in succs:
                live.add(b)
                work.extend(succs[b])
        preds = {b: [] for b in self.order}
        for b, out in succs.items():
            for t in out:
                if t in preds and b in live:
                    preds[t].append(b)
        full = (1 << len(self.order)) - 1
        dom = {b: full if b in live else 1 << index[b] for b in self.order}
        dom[self.order[0]] = 1 << index[self.order[0]]
        changed = True
        while changed:
            changed = False
            for b in self.order[1:]:
                if b not in live:
                    continue
                acc = full
                for p in preds[b]:
                    acc &= dom[p]
                new = acc | (1 << index[b])
                if new != dom[b]:
                    dom[b] = new
                    changed = True
        return dom, index

    def reachable(self, start, sinks, limit=None):
        seen = set()
        work = [start]
        while work:
            b = work.pop()
            if b in seen or b in sinks or b not in self.blocks or (limit is not None and b not in limit):
                continue
            seen.add(b)
            work.extend(self.blocks[b].succs)
        return seen

    def first_common(self, a, b, sinks, limit=None, going_on=False):
        """The first block (in layout order) that both ``a`` and ``b`` can reach.

        ``going_on``: only blocks from which the code goes on (not a lone return or
        raise, which copied exits may make look shared)."""
        both = self.reachable(a, sinks, limit) & self.reachable(b, sinks, limit)
        if going_on:
            both = {x for x in both if self.blocks[x].succs}
        return min(both) if both else None

    def through_jumps(self, bid):
        """Follow blocks that are nothing but an unconditional jump."""
        seen = set()
        while bid in self.blocks and bid not in seen:
            blk = self.blocks[bid]
            if len(blk.instrs) != 1 or blk.last.opname != "JUMP":
                break
            seen.add(bid)
            bid = self.target(blk.last)
        return bid

    def fall(self, blk):
        """The block after ``blk`` in layout, following merged duplicates."""
        nxt = blk.end if blk.end in self.blocks else None
        return self.alias.get(nxt, nxt)

    def target(self, ins):
        return self.alias.get(ins.target, ins.target)

    def laid_out_before(self, bid):
        """The block laid out right before block ``bid`` (dead code included), or None
        for the first block or a start that is no block."""
        if bid not in self.blocks:
            return None
        k = self.order.index(bid)
        return self.blocks[self.order[k - 1]] if k > 0 else None

    def __getitem__(self, bid):
        return self.blocks[bid]

    def postdominator_merge(self, sources, sinks, limit=None, ignore_terminal=False):
        """Nearest block that every path from ``sources`` reaches before leaving via a sink.

        With ``ignore_terminal``, paths that end in return/raise are ignored: the merge
        is where the paths that go on meet. Returns None when they never meet (they all return or raise, or leave
        through ``sinks`` — break/continue targets or the enclosing construct's end).
        Blocks outside ``limit`` (a set) count as sinks too.
        """
        inside = [s for s in sources if s not in sinks and (limit is None or s in limit)]
        if len(inside) < len(sources) or not inside:
            return None  # a source already leaves: nothing postdominates it
        key = (frozenset(sinks), id(limit), ignore_terminal)
        cached = self._postdominators.get(key)
        if cached is None:
            # the limit set is kept alive with the tree, so its id is not reused
            tree = PostDominators(lambda b: self.blocks[b].succs, inside, sinks, limit,
                                  ignore_terminal)
            self._postdominators[key] = (limit, tree)
        else:
            tree = cached[1]
            if not all(tree.covers(s) for s in inside):
                tree.extend(inside)
        if any(tree.reaches_exit(s) for s in inside):
            return tree.nearest_common(inside)
        return self._postdominator_merge_slow(sources, sinks, limit, ignore_terminal)

    def _postdominator_merge_slow(self, sources, sinks, limit, ignore_terminal):
        """The same question by bit sets over the blocks reachable from ``sources``: only
        for sources that never reach an exit, where the answer is the block with the most
        postdominators among all those reached (no tree has it)."""
        nodes = []
        seen = set()
        work = list(sources)
        while work:
            b = work.pop()
            if b in seen or b in sinks or (limit is not None and b not in limit):
                continue
            seen.add(b)
            nodes.append(b)
            work.extend(self.blocks[b].succs)
        if not nodes:
            return None
        index = {b: k for k, b in enumerate(nodes)}
        full = (1 << (len(nodes) + 1)) - 1
        exit_bit = 1 << len(nodes)
        pdom = {b: full for b in nodes}

        def succ_bits(b):
            succs = self.blocks[b].succs
            if not succs:
                # return/raise; with ignore_terminal such paths do not constrain the
                # merge (the paths that go on decide where the construct ends)
                yield full if ignore_terminal else exit_bit
            for s in succs:
                if s in index:
                    yield pdom[s]
                else:
                    yield exit_bit

        changed = True
        order = sorted(nodes, reverse=True)
        while changed:
            changed = False
            for b in order:
                acc = full
                for bits in succ_bits(b):
                    acc &= bits
                new = acc | (1 << index[b])
                if new != pdom[b]:
                    pdom[b] = new
                    changed = True
        common = full
        for s in sources:
            common &= pdom[s] if s in index else exit_bit
        common &= ~exit_bit
        if not common:
            return None
        # the nearest common postdominator is the one with the most postdominators itself
        best, best_count = None, -1
        for b in nodes:
            if common >> index[b] & 1 and pdom[b] != full:
                c = bin(pdom[b]).count("1")
                if c > best_count:
                    best, best_count = b, c
        return best
