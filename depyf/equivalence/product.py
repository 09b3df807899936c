"""Running the original (A) and the candidate (B) side by side.

Both sides run to their next event; the two events must be the same (what is done, to
equal operands, with the same exception being handled, while the objects the outside
world has seen hold the same contents). Then every outcome of the event (a result, an
exception, an exhausted iterator...) is given to both sides as the same fresh unknown,
and both run on. Each pair of positions is a *node*; states meeting at a node are joined
(``merge.join``) so that the exploration ends. Returns of both sides, or exceptions
leaving both, must agree too. Every difference found is a counterexample path: the
original and the candidate do something different on it.
"""
from collections import deque

from .compare import Comparer, escape, forget_escaped
from .describe import event_text, terminal_text
from .machine import ModelLimit
from .merge import ProductState, join, shape
from .terms import mentions


_MAX_VARIANTS = 16


class Difference(Exception):
    """The two code objects do something different on some path."""

    def __init__(self, reason, state=None, what_a=None, what_b=None):
        super().__init__(reason)
        self.reason = reason
        self.state = state
        self.what_a, self.what_b = what_a, what_b


class Explorer:
    def __init__(self, machine_a, machine_b, registry, nested, budget, prune=True):
        self.ma, self.mb = machine_a, machine_b
        self.prune = prune  # superseded lineages are dropped (``Lineage``)
        self.registry = registry
        self.nested = nested
        self.budget = budget
        # (positions, stack depths) -> [[shapes or None, [_Stored]]]
        self.stored = {}
        self.generations = {}  # node number -> how many joins it has seen
        self.visits = 0

    def run(self, start):
        queue = deque(self._advance(start.fa, start.fb, start.pairing, start.decisions, None))
        while queue:
            state = queue.popleft()
            if state.origin is not None and state.origin.dead:
                continue  # what it stands for is explored from a joined state (``Lineage``)
            self.visits += 1
            if self.visits > self.budget:
                raise ModelLimit("more than %d joined states to explore" % self.budget)
            queue.extend(self._step(state))

    def release(self):
        """Break the links from lineages to the states stored from them (a stored state's
        own state leads back to the lineage it came from): once the exploration is over,
        reference counting frees it all, without a run of the cyclic garbage collector
        (held off while depyf works inside a compile: ``torch_debug.gc_pause``)."""
        for groups in self.stored.values():
            for _, variants in groups:
                for stored in variants:
                    stored.lineage.children = []
        self.stored = {}

    def _advance(self, fa, fb, pairing, decisions, origin):
        """Run both sides to their next stops: the product states reached."""
        out = []
        self.mb.pairing = pairing
        stops_a = self.ma.run(fa, decisions)
        last = len(stops_a) - 1
        for i, (ga, da, _) in enumerate(stops_a):
            # the callers give ``fb`` away: the last run of B may take it
            for gb, db, _ in self.mb.run(fb.copy() if i < last else fb, da):
                out.append(ProductState(ga, gb, pairing.copy(), db, origin))
        return out

    def _step(self, state):
        fa, fb = state.fa, state.fb
        if fa.result is not None or fb.result is not None:
            self._finish(state)
            return []
        variants = self._variants(state)
        if any(n.dead for n in variants):
            variants[:] = [n for n in variants if not n.dead]
        for n in variants:
            generation = self.generations[n.node] = self.generations[n.node] + 1
            joined = join(n.node, generation, n.state, state)
            if joined is None:
                continue  # incompatible: try the next variant
            n.joined = True
            joined, changed = joined
            if not changed:
                return []
            n.state = joined
            if self.prune:
                n.lineage.supersede()
                n.lineage = Lineage()
            return self._outcomes(n, joined)
        if len(variants) >= _MAX_VARIANTS:
            raise ModelLimit("more than %d incompatible states meet at one point" % _MAX_VARIANTS)
        stored = self._new_node(state)
        variants.append(stored)
        return self._outcomes(stored, state)

    def _new_node(self, state):
        node = len(self.generations)
        self.generations[node] = 0
        stored = _Stored(node, state)
        if state.origin is not None:
            state.origin.children.append(stored)
        return stored

    def _variants(self, state):
        """The states stored where ``state`` stands (both positions and ``shape``s alike,
        ``_Stored``), a list to append to. A shape is
        computed only when a second state comes to the same positions and depths (on a
        deep stack it costs a walk of the stack, and most positions of straight-line code
        are reached once), from the first state stored there, which no join has changed
        yet."""
        fa, fb = state.fa, state.fb
        key = (fa.pc, fb.pc, len(fa.stack), len(fb.stack))
        groups = self.stored.get(key)
        if groups is None:
            self.stored[key] = groups = [[None, []]]
            return groups[0][1]
        wanted = (shape(fa), shape(fb))
        for group in groups:
            if group[0] is None:
                first = group[1][0].state
                group[0] = (shape(first.fa), shape(first.fb))
            if group[0] == wanted:
                return group[1]
        variants = []
        groups.append([wanted, variants])
        return variants

    def _outcomes(self, stored, state):
        node, origin = stored.node, stored.lineage
        fa, fb = state.fa, state.fb
        self.ma.decisions = self.mb.decisions = state.decisions
        self.mb.pairing = state.pairing
        ev_a, ev_b = self.ma.event_at(fa), self.mb.event_at(fb)
        pairing = state.pairing.copy()
        fa, fb = fa.copy(), fb.copy()
        self._same_event(state, fa, fb, pairing, ev_a, ev_b)
        out = []
        decisions = state.decisions
        if ev_a.kind == ("truth",) and ev_a.operands[0][0] != "ref":  # remember the answer
            decisions = dict(decisions)
            decisions[("truth of", ev_a.operands[0])] = ("b", ("r", node, "ok", 0))
        elif ev_a.kind != ("truth",):
            decisions = forget_truths(decisions, ev_a.operands)
        outcomes = ev_a.outcomes
        if ev_a.exc is None and ev_b.exc is None and _leaves(fa) and _leaves(fb):
            outcomes = [o for o in outcomes if o[0] != "raise"]  # (``_leaves``)
        last = len(outcomes) - 1
        for i, (label, kinds) in enumerate(outcomes):
            results = tuple((k, ("r", node, label, n)) for n, k in enumerate(kinds))
            exc = ("s", ("exc", node))
            ga, gb = (fa.copy(), fb.copy()) if i < last else (fa, fb)  # the last takes them
            self.ma.resume(ga, ev_a, label, results, exc)
            self.mb.resume(gb, ev_b, label, results, exc)
            forget_escaped(ga, gb, pairing, (node, label))
            out.extend(self._advance(ga, gb, pairing, decisions, origin))
        return out

    def _same_event(self, state, fa, fb, pairing, ev_a, ev_b):
        c = Comparer(fa, fb, pairing, self.registry, self.nested)
        problem = None
        if ev_a.kind != ev_b.kind or len(ev_a.operands) != len(ev_b.operands):
            problem = "they do different things"
        elif not all(c.same(x, y) for x, y in zip(ev_a.operands, ev_b.operands)):
            problem = "with different operands"
        elif ev_a.outcomes != ev_b.outcomes:
            problem = "with different outcomes"
        elif not c.same(fa.exc, fb.exc):
            problem = "while handling different exceptions"
        if problem is None:
            escape(fa, ev_a.operands + (fa.exc,))
            escape(fb, ev_b.operands + (fb.exc,))
            if not c.escaped_agree():
                problem = "while objects user code can see differ"
        if problem is not None:
            raise Difference(
                "%s: the original %s, the candidate %s" % (
                    problem, event_text(ev_a, fa), event_text(ev_b, fb))
                + ("; inside: %s" % c.why if c.why else ""),
                state, event_text(ev_a, fa), event_text(ev_b, fb))

    def _finish(self, state):
        fa, fb = state.fa, state.fb
        ra, rb = fa.result, fb.result
        if ra is None or rb is None:
            stopped, going = (fa, fb) if ra is not None else (fb, fa)
            self.ma.decisions = self.mb.decisions = state.decisions
            machine = self.mb if going is fb else self.ma
            ev = machine.event_at(going)
            texts = {id(stopped): terminal_text(stopped), id(going): event_text(ev, going)}
            raise Difference("the original %s, the candidate %s" % (texts[id(fa)], texts[id(fb)]),
                             state, texts[id(fa)], texts[id(fb)])
        c = Comparer(fa, fb, state.pairing.copy(), self.registry, self.nested)
        same = ra[0] == rb[0] and all(c.same(x, y) for x, y in zip(ra[1:], rb[1:]))
        if same:
            escape(fa, ra[1:])
            escape(fb, rb[1:])
            same = c.escaped_agree()
        if not same:
            raise Difference("the original %s, the candidate %s%s" % (
                terminal_text(fa), terminal_text(fb), "; inside: %s" % c.why if c.why else ""),
                state, terminal_text(fa), terminal_text(fb))


def _leaves(f):
    """Whether an exception raised at ``f``'s instruction leaves the function (no handler
    covers it). When it leaves both, the event's "raise" outcome is not explored: the
    exception is the same fresh unknown on both sides, and ``_finish`` would compare only
    it and the objects user code can see, which ``_same_event`` found paired and equal and
    ``forget_escaped`` gives the same new contents. Half of the states of straight-line
    code (a deep model's transformed code: every attribute and item load is an event)
    would be such exits."""
    handlers = f.info.handlers
    return handlers[f.pc] is None if handlers is not None else not f.blocks


class _Stored:
    """The state stored at a node, and the lineage of the states explored from it."""

    __slots__ = ("node", "state", "lineage", "joined", "dead")

    def __init__(self, node, state):
        self.node, self.state = node, state
        self.lineage = Lineage()
        self.joined = False  # another state was joined into it (it covers more than its lineage)
        self.dead = False


class Lineage:
    """The states explored from one stored state, until a join changes that state.

    When another state is joined into a stored one and changes it, the joined state is
    explored from there, and it covers everything the stored one stood for: the states
    explored from the stored one before are *superseded*. Those still queued are dropped,
    and so are the states stored from them (and, in turn, what was explored from those),
    unless another state was joined into one of them: such a state stands for more than
    what it was explored from and stays. (Otherwise the exploration of the stored state
    would go on beside the joined one's, one step ahead, and be joined with it at every
    step: after a loop, the path that leaves it at its first test runs to the end, and
    the path of the joined loop state behind it.)"""

    __slots__ = ("children", "dead")

    def __init__(self):
        self.children = []  # the _Stored states first reached by states of this lineage
        self.dead = False

    def supersede(self):
        work = [self]
        while work:
            lineage = work.pop()
            lineage.dead = True
            for stored in lineage.children:
                if not stored.joined and not stored.dead:
                    stored.dead = True
                    work.append(stored.lineage)
            lineage.children = []


def forget_truths(decisions, operands):
    """The remembered truth of a value handed to user code is forgotten: that code may
    change it (``while l: l.pop()`` tests a list that ``pop`` empties)."""
    stale = [k for k in decisions
             if k[0] == "truth of" and any(mentions(x, k[1]) for x in operands)]
    if not stale:
        return decisions
    decisions = dict(decisions)
    for k in stale:
        del decisions[k]
    return decisions
