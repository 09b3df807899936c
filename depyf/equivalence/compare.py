"""Comparing what the two sides hand to the outside world.

Terms without heap references are equal when they are ``==``. A list, dict, set or
function the code built is compared by identity and contents: the first time an object
of A meets an object of B in an operand they must have equal contents, and from then on
they are *paired*: the same object as far as the outside world can tell, which no other
object of either side may stand for. Objects the world has seen are *escaped*: at every
later event their contents are compared again (user code may read them), and after it
they are unknown (user code may have changed them).
"""
from .terms import refs_in, subterms

_LEAVES = frozenset(["c", "k", "s", "b", "u", "null", "unbound", "lasti", "cell", "retaddr"])


class Pairing:
    """Which object of the original is which object of the candidate."""

    __slots__ = ("a2b", "b2a")

    def __init__(self, a2b=None, b2a=None):
        self.a2b = dict(a2b or {})
        self.b2a = dict(b2a or {})

    def copy(self):
        return Pairing(self.a2b, self.b2a)

    def pair(self, oa, ob):
        self.a2b[oa] = ob
        self.b2a[ob] = oa

    def unpair(self, oa, ob):
        self.a2b.pop(oa, None)
        self.b2a.pop(ob, None)


class Comparer:
    """``same(a, b)``: do term ``a`` of frame ``fa`` and term ``b`` of frame ``fb`` stand
    for the same value? Pairs objects as it goes. ``nested(code_a, code_b)`` proves two
    code objects equivalent (None) or says why not."""

    def __init__(self, fa, fb, pairing, registry, nested):
        self.fa, self.fb = fa, fb
        self.pairing = pairing
        self.registry = registry
        self.nested = nested
        self.why = None  # the nested difference that made a comparison fail
        self._checking = set()

    def same(self, a, b):
        if a == b:
            return True
        ta, tb = a[0], b[0]
        if ta == "ref" and tb == "ref":
            return self._same_objects(a[2], b[2])
        if ta == "k" and tb == "k":
            return self._same_code(a, b)
        if ta != tb or len(a) != len(b) or ta in _LEAVES:
            return False
        for x, y in zip(a[1:], b[1:]):
            if not self._same_part(x, y):
                return False
        return True

    def _same_part(self, x, y):
        if not isinstance(x, tuple) or not isinstance(y, tuple):
            return x == y
        if x and isinstance(x[0], str):
            return isinstance(y[0] if y else None, str) and self.same(x, y)
        if len(x) != len(y):
            return False
        return all(self._same_part(p, q) for p, q in zip(x, y))

    def _same_code(self, a, b):
        from .terms import code_of
        ca, cb = code_of(a, self.registry), code_of(b, self.registry)
        if ca is None or cb is None:
            return False
        why = self.nested(ca, cb)
        if why is not None:
            self.why = why
            return False
        return True

    def _same_objects(self, oa, ob):
        p = self.pairing
        partner = p.a2b.get(oa)
        if partner is not None or ob in p.b2a:
            if partner != ob:
                return False
        key = (oa, ob)
        if key in self._checking:
            return True  # already being compared further up (a cycle)
        obj_a, obj_b = self.fa.heap.get(oa), self.fb.heap.get(ob)
        if obj_a is None or obj_b is None or obj_a.kind != obj_b.kind:
            return False
        fresh = partner is None
        if fresh:
            p.pair(oa, ob)
        self._checking.add(key)
        try:
            ok = self.same(obj_a.contents, obj_b.contents)
        finally:
            self._checking.discard(key)
        if not ok and fresh:
            p.unpair(oa, ob)
        return ok

    # -- what the outside world sees -----------------------------------------------------
    def escaped_agree(self):
        """The escaped objects of both sides are paired and have equal contents."""
        for oa, obj in self.fa.heap.items():
            if not obj.escaped:
                continue
            ob = self.pairing.a2b.get(oa)
            if ob is None or not self._same_objects(oa, ob):
                return False
        for ob, obj in self.fb.heap.items():
            if obj.escaped and ob not in self.pairing.b2a:
                return False
        return True


def escape(frame, terms):
    """Mark the objects reachable from ``terms`` (and from escaped objects) escaped."""
    todo = []
    for t in terms:
        refs_in(t, todo)
    todo.extend(("ref", frame.side, oid) for oid, o in frame.heap.items() if o.escaped)
    seen = set()
    while todo:
        ref = todo.pop()
        oid = ref[2]
        if oid in seen or ref[1] != frame.side:
            continue
        seen.add(oid)
        obj = frame.heap.get(oid)
        if obj is None:
            continue
        obj.escaped = True
        refs_in(obj.contents, todo)


def forget_escaped(fa, fb, pairing, key):
    """After user code ran: the contents of every escaped list, dict and set are
    unknown, the same unknown for paired objects. (A function's code, name, defaults
    and closure are only read again by calling it, an event that compares them again;
    whatever user code does to it, it does to both sides' alike.)"""
    for oa, obj in fa.heap.items():
        if obj.escaped and obj.kind != "function":
            obj.contents = ("s", ("heap", key, oa))
            ob = pairing.a2b.get(oa)
            if ob is not None and ob in fb.heap:
                fb.heap[ob].contents = obj.contents
    for ob, obj in fb.heap.items():
        if obj.escaped and obj.kind != "function" and ob not in pairing.b2a:
            obj.contents = ("s", ("heap-b", key, ob))


__all__ = ["Pairing", "Comparer", "escape", "forget_escaped", "subterms"]
