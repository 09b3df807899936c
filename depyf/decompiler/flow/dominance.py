"""Postdominator trees over a CFG, computed once per (sinks, limit, terminal rule).

The structuring stage asks, for every branch, where its arms meet again: the nearest
block that every path from the arms passes before it leaves (through a sink, out of the
region, or by return/raise). Recomputing that from the arms for each branch costs the
size of everything after the branch, which made decompiling a function of N branches
cost N**2. A postdominator of a block depends only on the paths that start there, so one
tree built over every block reachable from the first branch answers the later ones too.

The tree is built with the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple,
Fast Dominance Algorithm", 2001) on the reversed graph, rooted at a virtual exit. Blocks
that never reach the exit (endless loops, and with ``ignore_terminal`` paths that only
return or raise) are not in the tree: every block postdominates them.
"""

EXIT = "exit"  # the virtual exit every leaving edge goes to (block ids are ints)


class PostDominators:
    """Immediate postdominators of every block reachable from ``roots``.

    ``succs(b)`` gives a block's successors; a successor in ``sinks``, outside ``limit``
    (a set, or None for no limit) or, unless ``ignore_terminal``, the end of a block
    without successors, is an edge to the exit."""

    def __init__(self, succs, roots, sinks, limit, ignore_terminal):
        self._succs = succs
        self._sinks = sinks
        self._limit = limit
        self._ignore_terminal = ignore_terminal
        self.nodes = set()
        self._grow(roots)

    def inside(self, b):
        return b not in self._sinks and (self._limit is None or b in self._limit)

    def covers(self, b):
        return b in self.nodes

    def _grow(self, roots):
        inside = self._inside_filter()
        work = inside(roots)
        nodes, succs = self.nodes, self._succs
        while work:
            b = work.pop()
            if b in nodes:
                continue
            nodes.add(b)
            work.extend(inside(succs(b)))
        self._build()

    def _inside_filter(self):
        """A function keeping the blocks of a list that are ``inside`` (one call per
        list, not per block)."""
        sinks, limit = self._sinks, self._limit
        if limit is None:
            return lambda blocks: [b for b in blocks if b not in sinks]
        return lambda blocks: [b for b in blocks if b not in sinks and b in limit]

    def extend(self, roots):
        """Take in blocks reachable from ``roots`` too (the tree is rebuilt)."""
        self._grow(roots)

    def _build(self):
        preds = {b: [] for b in self.nodes}
        preds[EXIT] = []
        out = {}
        sinks, limit = self._sinks, self._limit
        terminal = [] if self._ignore_terminal else [EXIT]
        for b in self.nodes:
            succs = self._succs(b)
            if not succs:
                out[b] = edges = list(terminal)
            else:
                out[b] = edges = [s if s not in sinks and (limit is None or s in limit) else EXIT
                                  for s in succs]  # (``inside``)
            for s in edges:
                preds[s].append(b)
        # postorder of the reversed graph from the exit
        order, seen = [], {EXIT}
        stack = [(EXIT, iter(preds[EXIT]))]
        while stack:
            node, it = stack[-1]
            for p in it:
                if p not in seen:
                    seen.add(p)
                    stack.append((p, iter(preds[p])))
                    break
            else:
                stack.pop()
                order.append(node)
        number = {b: k for k, b in enumerate(order)}
        ipdom = {EXIT: EXIT}
        self._ipdom, self._number = ipdom, number
        meet = self._meet

        changed = True
        reverse_post = order[-2::-1]  # without the exit itself
        while changed:
            changed = False
            for b in reverse_post:
                new = None
                for s in out[b]:
                    if s in ipdom:
                        new = s if new is None else meet(s, new)
                if new is not None and ipdom.get(b) != new:
                    ipdom[b] = new
                    changed = True

    def reaches_exit(self, b):
        return b in self._ipdom

    def _meet(self, a, b):
        """The nearest common postdominator of ``a`` and ``b`` in the tree built so far
        (walk up from whichever is deeper in the reversed postorder)."""
        number, ipdom = self._number, self._ipdom
        while a != b:
            while number[a] < number[b]:
                a = ipdom[a]
            while number[b] < number[a]:
                b = ipdom[b]
        return a

    def nearest_common(self, sources):
        """The nearest block postdominating every source that reaches the exit (not the
        exit itself), or None."""
        found = None
        for s in sources:
            if s not in self._ipdom:
                continue
            if found is None:
                found = s
                continue
            found = self._meet(found, s)
        if found is EXIT or found is None:
            return None
        if all(s == found for s in sources) and self._chain_holds_all(found):
            # the bit-set formulation this replaces never answers a block that every
            # block after it postdominates (a lone source with a straight run to the
            # end); it answers the next one. Kept: callers are tuned to it.
            found = self._ipdom[found]
            return None if found is EXIT else found
        return found

    def _chain_holds_all(self, b):
        """Whether every block reachable from ``b`` postdominates ``b`` (a straight run)."""
        chain = set()
        node = b
        while node is not EXIT:
            chain.add(node)
            node = self._ipdom[node]
        node = b
        while node is not EXIT:
            if any(self.inside(s) and s not in chain for s in self._succs(node)):
                return False
            node = self._ipdom[node]
        return True


def dominators(cfg):
    """Dominator sets (as bit masks over ``order``), exception edges included.

    Code that is never reached (the compiler leaves jumps behind `continue` and
    `return`) is dominated by itself only: it does not close loops."""
    index = {b: k for k, b in enumerate(cfg.order)}
    succs = {}
    for b in cfg.order:
        blk = cfg.blocks[b]
        out = list(blk.succs)
        if blk.handler is not None and blk.handler.target in cfg.blocks:
            out.append(blk.handler.target)
        succs[b] = out
    # code nothing reaches (a POP_BLOCK after a raise) is dominated by no other
    # block: it must not look like the source of a back edge
    live, work = set(), [cfg.order[0]]
    while work:
        b = work.pop()
        if b not in live and b in succs:
            live.add(b)
            work.extend(succs[b])
    preds = {b: [] for b in cfg.order}
    for b, out in succs.items():
        for t in out:
            if t in preds and b in live:
                preds[t].append(b)
    full = (1 << len(cfg.order)) - 1
    dom = {b: full if b in live else 1 << index[b] for b in cfg.order}
    dom[cfg.order[0]] = 1 << index[cfg.order[0]]
    changed = True
    while changed:
        changed = False
        for b in cfg.order[1:]:
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
