"""Joining the states that reach one product node, so loops and branch joins end.

The state stored at a node stands for every pair of concrete states it covers. When
another state arrives there, the two are *anti-unified*: slot by slot, what both hold
(the same term) is kept, and where they differ a fresh unknown (a *phi* of the node)
takes its place, one phi per distinct pair, so that slots equal in both states (the
original's ``x`` and the candidate's ``x``, or the original's stack slot and the
candidate's temporary) stay equal. The phis of the node itself are variables: an arriving
state that only fills them in differently is already covered (nothing changed), which is
how loops reach a fixpoint. Objects are matched by where they are reached from.

A slot that holds a list (or another object of the code's) in one state and something
else in the other is joined into a phi only when the object is reachable from nowhere
else afterwards: changes made to it through another variable would be hidden otherwise.
Such states are *incompatible* and kept apart (explored separately) instead. Objects
that disappear into a phi are named by their contents for the phi's key (with repeats
of one object told apart from equal objects), so that the two sides' equal values still
get the same phi.
"""
import operator

from .compare import Pairing
from .frame import Obj
from .machine import ModelLimit
from .terms import UNBOUND, bool_atom, is_marker, refs_in

_LEAVES = frozenset(["c", "k", "s", "b", "u", "null", "unbound", "lasti", "cell", "retaddr"])
_SYMBOLS = frozenset(["s", "b", "u"])  # the leaves a phi can be
_CONSTANT_LEAVES = _LEAVES - _SYMBOLS


class ProductState:
    """Both sides at their next stop, which objects are paired, and the outcomes of the
    boolean tests decided on the way there."""

    __slots__ = ("fa", "fb", "pairing", "decisions", "origin")

    def __init__(self, fa, fb, pairing, decisions, origin=None):
        self.fa, self.fb, self.pairing, self.decisions = fa, fb, pairing, decisions
        self.origin = origin  # the exploration step it comes from (``product.Lineage``)


def shape(f):
    """What must be equal for two states of one side to be joined at all."""
    markers = tuple((k, t if t[0] == "retaddr" else t[0] if t[0] != "op" else t[1])
                    for k, t in _marker_candidates(f.stack) if is_marker(t))
    return (len(f.stack), markers, tuple(b.key() for b in f.blocks), f.kwnames,
            f.ready[0] if f.ready else None)


_FIRST = operator.itemgetter(0)
_MARKER_TAGS = ("null", "retaddr", "op")  # (is_marker's)


def _marker_candidates(stack):
    """``enumerate(stack)``, on a deep stack restricted to the terms whose tag a marker can
    have, found at C speed (a call can keep hundreds of values on the stack, a deep
    model's graph call ~300, and this runs at every step)."""
    if len(stack) < _DEEP:
        return enumerate(stack)
    tags = list(map(_FIRST, stack))
    found = []
    for tag in _MARKER_TAGS:
        k = -1
        for _ in range(tags.count(tag)):
            k = tags.index(tag, k + 1)
            found.append(k)
    found.sort()
    return [(k, stack[k]) for k in found]


_DEEP = 32


class _Join:
    def __init__(self, node, generation, frames):
        self.node = node
        self.generation = generation
        self.frames = frames  # side -> (stored frame, arriving frame)
        self.swallowed = {"A": (set(), set()), "B": (set(), set())}
        self.phi_count = generation > 1  # no phis of this node exist before its second join
        self.phis = {}
        self.var = {}  # phi of this node in the stored state -> the arriving term
        self.maps = {"A": ({}, {}), "B": ({}, {})}
        self.queue = []
        self.changed = False

    def own(self, t):
        return t[0] in ("s", "b", "u") and t[1][0] == "phi" and t[1][1] == self.node

    def _own_inside(self, t):
        if self.own(t):
            return [t]
        if t[0] in _LEAVES:
            return []
        found = []
        for x in t[1:]:
            if isinstance(x, tuple):
                self._collect(x, found)
        return found

    def _collect(self, x, found):
        if x and isinstance(x[0], str):
            found.extend(self._own_inside(x))
        else:
            for y in x:
                if isinstance(y, tuple):
                    self._collect(y, found)

    def term(self, side, g, s):
        if g is s or g == s:
            tag = g[0]
            if tag in _CONSTANT_LEAVES:
                return g
            if tag in _SYMBOLS:
                key = g[1]
                if key[0] == "phi" and key[1] == self.node and self.var.setdefault(g, g) != g:
                    return self.generalize(g, s, side)
                return g
            if not refs_in(g, []):
                if self.phi_count:
                    for p in self._own_inside(g):
                        if self.var.setdefault(p, p) != p:
                            return self.generalize(g, s, side)
                return g
        if self.own(g):
            seen = self._neutral(side, s)
            prev = self.var.get(g)
            if prev is None and _covers(g, s):
                self.var[g] = seen
                return g
            if prev == seen:
                return g
            return self.generalize(g, s, side)
        if g[0] == "ref" and s[0] == "ref":
            gs, sg = self.maps[side]
            if g[2] in gs:
                return g if gs[g[2]] == s[2] else self.generalize(g, s, side)
            if s[2] in sg:
                return self.generalize(g, s, side)
            gs[g[2]], sg[s[2]] = s[2], g[2]
            self.queue.append((side, g[2], s[2]))
            return g
        if g[0] == s[0] and len(g) == len(s) and g[0] not in _LEAVES:
            parts = [self._part(side, x, y) for x, y in zip(g[1:], s[1:])]
            if None not in parts:
                return g if all(p is x for p, x in zip(parts, g[1:])) else (g[0],) + tuple(parts)
        return self.generalize(g, s, side)

    def _part(self, side, x, y):
        if not isinstance(x, tuple) or not isinstance(y, tuple):
            return x if x == y else None
        if x and isinstance(x[0], str):
            return self.term(side, x, y) if y and isinstance(y[0], str) else None
        if len(x) != len(y):
            return None
        parts = [self._part(side, p, q) for p, q in zip(x, y)]
        if None in parts:
            return None
        return x if all(p is q for p, q in zip(parts, x)) else tuple(parts)

    def _neutral(self, side, s):
        """``s`` (of the arriving state) as both sides can compare it: objects in it are
        named by their contents, and noted as gone into a phi."""
        refs = refs_in(s, [])
        if not refs:
            return s
        self.swallowed[side][1].update(r[2] for r in refs)
        return _by_contents(s, self.frames[side][1], {})

    def generalize(self, g, s, side=None):
        if is_marker(g) or is_marker(s):
            raise ModelLimit("control values differ where two paths join")
        key = (g, s)
        if side is not None:
            refs_g, refs_s = refs_in(g, []), refs_in(s, [])
            if refs_g or refs_s:
                gone_g, gone_s = self.swallowed[side]
                gone_g.update(r[2] for r in refs_g)
                gone_s.update(r[2] for r in refs_s)
                stored, arriving = self.frames[side]
                key = (_by_contents(g, stored, {}), _by_contents(s, arriving, {}))
        phi = self.phis.get(key)
        if phi is None:
            if UNBOUND in (g, s) or "u" in (g[0], s[0]):
                kind = "u"
            elif bool_atom(g) is not None and bool_atom(s) is not None:
                kind = "b"
            else:
                kind = "s"
            phi = (kind, ("phi", self.node, self.generation, len(self.phis)))
            self.phis[key] = phi
        self.changed = True
        return phi


def _by_contents(t, frame, seen):
    """``t`` with the objects in it replaced by their kind and contents (the first
    time) or their first-seen number (again)."""
    if t[0] == "ref":
        if t[2] in seen:
            return ("again", seen[t[2]])
        seen[t[2]] = len(seen)
        obj = frame.heap.get(t[2])
        if obj is None:
            return ("lost",)
        return ("object", obj.kind, _by_contents(obj.contents, frame, seen))
    if t[0] in _LEAVES:
        return t
    return (t[0],) + tuple(_part_by_contents(x, frame, seen) for x in t[1:])


def _part_by_contents(x, frame, seen):
    if not isinstance(x, tuple):
        return x
    if x and isinstance(x[0], str):
        return _by_contents(x, frame, seen)
    return tuple(_part_by_contents(y, frame, seen) for y in x)


def _covers(phi, s):
    """Whether the node variable ``phi`` can stand for ``s``."""
    if is_marker(s):
        return False
    if phi[0] == "u":
        return True
    if s == UNBOUND or s[0] == "u":
        return False
    return phi[0] == "s" or bool_atom(s) is not None


class Incompatible(Exception):
    """The two states cannot be joined without losing an object."""


def join(node, generation, stored, arriving):
    """``(state, changed)``: a state covering both; ``changed`` is False when
    ``arriving`` was already covered by ``stored`` (which is then returned). None when
    they are incompatible."""
    try:
        return _join(node, generation, stored, arriving)
    except Incompatible:
        return None


def _join(node, generation, stored, arriving):
    j = _Join(node, generation, {"A": (stored.fa, arriving.fa), "B": (stored.fb, arriving.fb)})
    fa = _join_frame(j, "A", stored.fa, arriving.fa)
    fb = _join_frame(j, "B", stored.fb, arriving.fb)
    _join_heaps(j, stored, arriving, fa, fb)
    _keep_escaped_partners(j, stored, arriving, fa, fb)
    for side in ("A", "B"):
        gone_g, gone_s = j.swallowed[side]
        gs, sg = j.maps[side]
        if gone_g & set(gs) or gone_s & set(sg):
            raise Incompatible()  # an object lost in a phi is still reachable
    pairing = _join_pairing(j, stored.pairing, arriving.pairing, fa, fb)
    decisions = _join_decisions(j, stored.decisions, arriving.decisions)
    if not j.changed:
        return stored, False
    return ProductState(fa, fb, pairing, decisions), True


def _join_frame(j, side, g, s):
    f = g.copy(heap=False, slots=False)
    term = j.term
    node = j.node

    # the same term on both paths and no phi of this node: ``term`` would keep it as it
    # is and record nothing, so it is not asked (most of a deep stack at most joins)
    f.stack = [x if x is y and (x[0] in _CONSTANT_LEAVES or (x[0] in _SYMBOLS and (
        x[1][0] != "phi" or x[1][1] != node))) else term(side, x, y) for x, y in zip(g.stack, s.stack)]
    gl, sl = g.locals, s.locals
    f.locals = out = {}
    for n, v in gl.items():
        w = sl.get(n, UNBOUND)
        if w is v and (v[0] in _CONSTANT_LEAVES or (v[0] in _SYMBOLS and (
                v[1][0] != "phi" or v[1][1] != node))):
            out[n] = v
        else:
            out[n] = term(side, v, w)
    for n, v in sl.items():
        if n not in gl:
            out[n] = term(side, UNBOUND, v)
    f.exc = j.term(side, g.exc, s.exc)
    if g.ready is not None:
        f.ready = j.term(side, g.ready, s.ready)
    return f


def _join_heaps(j, stored, arriving, fa, fb):
    frames = {"A": (stored.fa, arriving.fa, fa), "B": (stored.fb, arriving.fb, fb)}
    while j.queue:
        side, og, os_ = j.queue.pop(0)
        g_frame, s_frame, out = frames[side]
        a, b = g_frame.heap[og], s_frame.heap[os_]
        if a.kind != b.kind:
            raise ModelLimit("a %s and a %s meet where two paths join" % (a.kind, b.kind))
        if b.escaped and not a.escaped:
            j.changed = True
        out.heap[og] = Obj(a.kind, j.term(side, a.contents, b.contents), a.escaped or b.escaped)


def _keep_escaped_partners(j, stored, arriving, fa, fb):
    """An escaped object one side still reaches keeps its partner on the other side,
    reached or not: user code may hold the partner, and the two are compared again at
    every event (the candidate keeps in a temporary a list the original only had on
    its stack)."""
    states = {"A": (stored.fa, arriving.fa), "B": (stored.fb, arriving.fb)}
    while True:
        added = False
        for oa, ob in stored.pairing.a2b.items():
            for side, here, there, partner_side in (("A", oa, ob, "B"), ("B", ob, oa, "A")):
                gs_here, gs_there = j.maps[side][0], j.maps[partner_side][0]
                if here not in gs_here or there in gs_there:
                    continue
                g_there, s_there = states[partner_side]
                obj = g_there.heap.get(there)
                arriving_here = gs_here[here]
                pairs = arriving.pairing.a2b if side == "A" else arriving.pairing.b2a
                arriving_there = pairs.get(arriving_here)
                if (obj is None or not obj.escaped or arriving_there is None
                        or arriving_there not in s_there.heap
                        or arriving_there in j.maps[partner_side][1]):
                    continue
                j.term(partner_side, ("ref", partner_side, there),
                       ("ref", partner_side, arriving_there))
                added = True
        if not added:
            return
        _join_heaps(j, stored, arriving, fa, fb)


def _join_pairing(j, g, s, fa, fb):
    out = Pairing({a: b for a, b in g.a2b.items() if a in fa.heap and b in fb.heap})
    out.b2a = {b: a for a, b in out.a2b.items()}
    if len(out.a2b) != len(g.a2b):
        j.changed = True
    sg_a, sg_b = j.maps["A"][1], j.maps["B"][1]
    for ya, yb in s.a2b.items():
        xa, xb = sg_a.get(ya), sg_b.get(yb)
        if xa is None or xb is None:
            continue
        if out.a2b.get(xa, xb) != xb or out.b2a.get(xb, xa) != xa:
            raise ModelLimit("an object of one side stands for two objects of the other")
        if xa not in out.a2b:
            out.pair(xa, xb)
            j.changed = True
    return out


def _substitute(j, t):
    if j.own(t):
        return j.var.get(t)
    if t[0] in _LEAVES:
        return t
    parts = []
    for x in t[1:]:
        if isinstance(x, tuple) and x and isinstance(x[0], str):
            x = _substitute(j, x)
            if x is None:
                return None
        parts.append(x)
    return (t[0],) + tuple(parts)


def _join_decisions(j, g, s):
    out = {}
    for atom, value in g.items():
        there = _substitute(j, atom)
        if there is not None and s.get(there) == value:
            out[atom] = value
        else:
            j.changed = True
    return out
