"""Stage 2: basic blocks and the control-flow graph, with exception edges.

Blocks are split at jump targets, after jumps/returns/raises, and wherever the covering
exception handler changes, so every block has exactly one handler (or none).
"""
from . import exits
from .dominance import PostDominators, dominators
from .instructions import TERMINATORS


# Where an instruction splits blocks besides jumps: before it, after it, or both.
_BEFORE, _AFTER, _AROUND = "before", "after", "around"
_SPLITS = dict.fromkeys(TERMINATORS, _AFTER)
_SPLITS.update(dict.fromkeys(("BEFORE_WITH", "BEFORE_ASYNC_WITH", "SETUP_WITH", "SETUP_FINALLY",
                              "SETUP_ASYNC_WITH", "POP_BLOCK"), _AFTER))
_SPLITS.update({
    "FOR_ITER": _BEFORE,  # a loop head even when nothing jumps back to it
    "END_ASYNC_FOR": _AFTER,  # what follows is the code after the loop
    "END_FINALLY": _AROUND,  # 3.8: ends a finally body / re-raises
})


class Block:
    __slots__ = ("id", "instrs", "handler", "succs", "preds", "end", "last")

    def __init__(self, start, instrs, handler):
        self.id = start
        self.instrs = instrs  # never empty, never changed
        self.last = instrs[-1]
        self.end = start + len(instrs)
        self.handler = handler  # ExcEntry or None
        self.succs = []
        self.preds = []

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
        add = leaders.add
        # (where a protected range starts or ends only: a tail copied across it is one)
        bounds = {x for e in entries for x in (e.start, e.end)}
        for ins in instrs:
            if ins.target is not None:
                add(ins.target)
                add(ins.index + 1)
            split = _SPLITS.get(ins.opname)
            if ins.opname == "POP_BLOCK":
                bounds.add(ins.index + 1)
            elif split is not None:
                if split is not _AFTER:
                    add(ins.index)
                if split is not _BEFORE:
                    add(ins.index + 1)
        bounds -= leaders
        leaders |= bounds
        for e in entries:
            leaders.update((e.start, e.end, e.target))
        bounds -= {e.target for e in entries} | set(extra_leaders)
        leaders.update(extra_leaders)  # e.g. where match-statement case bodies start
        # (3.10+: the code after a try pasted after the end of its except clause)
        self.clause_tails = set(exits.clause_tail_starts(instrs, leaders))
        leaders.update(self.clause_tails)
        if merge_exits:
            copies = exits.copied_return_starts(instrs, leaders)
            if merge_tails:
                copies += exits.copied_tail_starts(instrs, leaders - bounds)
            leaders.update(copies)
        if entries:
            for i in range(1, n):
                if handler_at[i] is not handler_at[i - 1]:
                    leaders.add(i)
        starts = sorted(x for x in leaders if 0 <= x < n)
        self.blocks = {}
        self.order = starts
        self._position = {b: k for k, b in enumerate(starts)}  # block id -> place in order
        self.block_at = [0] * n
        for k, s in enumerate(starts):
            e = starts[k + 1] if k + 1 < len(starts) else n
            blk = Block(s, instrs[s:e], handler_at[s])
            self.blocks[s] = blk
            self.block_at[s:e] = [s] * (e - s)
        self.next_block = {s: (starts[k + 1] if k + 1 < len(starts) else None)
                           for k, s in enumerate(starts)}
        for blk in self.blocks.values():
            last = blk.last
            succ = []
            if last.opname not in TERMINATORS and blk.end < n:
                succ.append(blk.end)
            if last.target is not None and last.opname not in ("SETUP_FINALLY", "SETUP_WITH",
                                                               "SETUP_ASYNC_WITH", "CALL_FINALLY"):
                succ.append(last.target)
            blk.succs = succ
        self.alias = exits.merge_duplicate_exits(self) if merge_exits else {}
        for blk in self.blocks.values():
            blk.succs = [self.alias.get(s, s) for s in blk.succs]
        for blk in self.blocks.values():
            if blk.id in self.alias:
                continue
            for s in blk.succs:
                if s in self.blocks:
                    self.blocks[s].preds.append(blk.id)

    def has_back_edge(self):
        """Whether an edge (exception edges included) goes to a block laid out at or
        before its source. Without one the graph has no cycle (edges that go forward
        cannot close one)."""
        for blk in self.blocks.values():
            if blk.handler is not None and blk.handler.target <= blk.id:
                return True
            for s in blk.succs:
                if s <= blk.id:
                    return True
        return False

    def dominators(self):
        """Dominator bit sets of every block (``dominance.dominators``)."""
        return dominators(self)

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

    def jump_only_target(self, bid):
        """Where block ``bid`` goes when it is nothing but an unconditional jump (merged
        duplicates followed), else None (also for a start that is no block)."""
        blk = self.blocks.get(bid)
        if blk is None or len(blk.instrs) != 1 or blk.last.opname != "JUMP":
            return None
        return self.target(blk.last)

    def through_jumps(self, bid):
        """Follow blocks that are nothing but an unconditional jump."""
        seen = set()
        while bid not in seen:
            to = self.jump_only_target(bid)
            if to is None:
                break
            seen.add(bid)
            bid = to
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
        k = self._position[bid]
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
