"""Symbolic values: what a stack slot or a variable holds while two code objects are run
side by side.

A term is a plain tuple whose first item is its tag, so terms hash, compare and print
cheaply. Two terms that are ``==`` stand for the same value on both sides, with one
exception built into the representation: a heap reference carries the side it belongs to
(``("ref", "A", 3)``), so references of different sides are never equal by accident;
they are compared through the pairing of objects (``compare.py``).

Tags:

- ``("c", type_name, value)``: a literal constant (floats and complex numbers by
  ``repr``, so ``0.0``/``-0.0`` and ``1``/``1.0``/``True`` differ);
- ``("k", id)``: an object without a literal form (a code object, a ``torch.device``
  Dynamo put in ``co_consts``, a value the decompiler bound by name); same object, same
  term;
- ``("s", key)``: an unknown value (an argument, the result of an operation); ``("b",
  key)``: an unknown value known to be a ``bool``; ``("u", key)``: an unknown value that
  may be an unbound local;
- ``("t", items)``: a tuple of known items;
- ``("ref", side, oid)``: a list, dict, set or function created by the code (contents in
  the side's heap, see ``frame.py``);
- ``("op", name, *args)``: a value computed without running user code (``type(e)``,
  a slice, a string concatenation...);
- ``("not", b)``, ``("is", a, b)``: booleans computed without running user code;
- ``("null",)``: the NULL the call protocol pushes; ``("unbound",)``: an unbound local;
  ``("retaddr", offset)``: 3.8's return address of a ``finally`` subroutine;
  ``("lasti",)``: the raising instruction's offset 3.11+ pushes for re-raises (only
  affects tracebacks); ``("cell", name)``: a closure cell, by variable name.
"""
import types

NULL = ("null",)
UNBOUND = ("unbound",)
LASTI = ("lasti",)
TRUE = ("c", "bool", True)
FALSE = ("c", "bool", False)
NONE = ("c", "NoneType", None)

_LITERAL_TYPES = (int, str, bytes, bool, type(None), type(Ellipsis))


class Registry:
    """Keeps the objects behind ``("k", id)`` terms alive (so ids are not reused) and
    resolves them back (code objects, for nested comparisons)."""

    def __init__(self):
        self.objects = {}

    def key(self, obj):
        self.objects[id(obj)] = obj
        return ("k", id(obj))

    def get(self, term):
        return self.objects.get(term[1]) if term[0] == "k" else None


def const(value, registry):
    """The term of a constant ``value`` (a ``co_consts`` entry, a bound object)."""
    kind = type(value)
    if kind in _LITERAL_TYPES:
        return ("c", kind.__name__, value)
    if kind in (float, complex):
        return ("c", kind.__name__, repr(value))
    if kind is tuple:
        return ("t", tuple(const(v, registry) for v in value))
    if kind is frozenset:
        return ("op", "frozenset", tuple(sorted((const(v, registry) for v in value), key=repr)))
    if kind is slice:  # 3.14 folds constant slices (`a[::2]`): the value BUILD_SLICE makes
        return ("op", "slice", const(value.start, registry), const(value.stop, registry),
                const(value.step, registry))
    return registry.key(value)


def code_of(term, registry):
    obj = registry.get(term)
    return obj if isinstance(obj, types.CodeType) else None


def is_literal(term):
    return term[0] == "c"


def bool_atom(term):
    """``(atom, polarity)`` when ``term`` is certainly a bool (its truth needs no user
    code), else None. ``atom`` is a constant bool, a bool symbol or an ``is`` test."""
    polarity = True
    while term[0] == "not":
        term = term[1]
        polarity = not polarity
    tag = term[0]
    if tag == "c":
        if term[1] == "bool":
            return term, polarity
        return None
    if tag in ("b", "is") or (tag == "op" and term[1] in BOOL_OPS):
        return term, polarity
    return None


# pure operations whose result is always a bool
BOOL_OPS = frozenset(["is-mapping", "is-sequence", "is-instance-of-type"])


def negate(term):
    if term[0] == "not":
        return term[1]
    if term == TRUE:
        return FALSE
    if term == FALSE:
        return TRUE
    return ("not", term)


def identity_test(a, b):
    """``a is b`` as a term: constants on the right, a decided answer when both sides are
    literal constants of types whose identity is their value (None, bools, Ellipsis)."""
    if a[0] == "c" and b[0] != "c":
        a, b = b, a
    if a[0] == "c" and b[0] == "c" and a[1] in ("NoneType", "bool", "ellipsis"):
        return TRUE if a == b else FALSE
    return ("is", a, b)


_LEAVES = frozenset(["c", "k", "s", "b", "u", "null", "unbound", "lasti", "cell", "retaddr"])


def subterms(term):
    """The terms directly inside ``term`` (through tuples of terms and of pairs)."""
    for x in term[1:]:
        if isinstance(x, tuple):
            if x and isinstance(x[0], str):
                yield x
            else:
                yield from _flatten(x)


def _flatten(items):
    for x in items:
        if isinstance(x, tuple):
            if x and isinstance(x[0], str):
                yield x
            else:
                yield from _flatten(x)


def refs_in(term, out):
    """Append the heap references inside ``term`` to ``out`` (and return ``out``)."""
    tag = term[0]
    if tag == "ref":
        out.append(term)
    elif tag not in _LEAVES:
        for x in subterms(term):
            refs_in(x, out)
    return out


def mentions(term, needle):
    """Whether ``needle`` occurs in ``term``."""
    if term == needle:
        return True
    if term[0] in _LEAVES:
        return False
    return any(mentions(x, needle) for x in subterms(term))


def is_marker(term):
    """Control data on the stack that decides where execution goes (3.8's finally
    protocol): never merged with ordinary values."""
    return term[0] in ("null", "retaddr") or (term[0] == "op" and term[1] == "exctype")
