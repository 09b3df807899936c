"""Which local variables are certainly bound before each statement of a function
(``bound_before``), kept as one timeline per straight run of statements: the statements of
a run share it instead of each holding its own copy of a set that grows with the function."""
import ast
import bisect

from .facts import _arg_names
from .names import COMPOUND, _deleted_in, _stores_of, target_names, terminates


class _Line:
    """Names bound along a run of statements: a starting set, and when (positions that
    only grow) each name was bound (True) or unbound (False) after it."""
    __slots__ = ("base", "events", "pos")

    def __init__(self, base):
        self.base, self.events, self.pos = base, {}, 0


class Bound:
    """The names certainly bound at one point of a ``_Line`` (``name in bound``). Every
    statement of a straight run shares the line: no set copied per statement."""
    __slots__ = ("line", "pos")

    def __init__(self, line, pos):
        self.line, self.pos = line, pos

    def __contains__(self, name):
        event = self.line.events.get(name)
        if event is None:
            return name in self.line.base
        positions, present = event
        i = bisect.bisect_right(positions, self.pos)
        return present[i - 1] if i else name in self.line.base

    def frozen(self):
        line = self.line
        return frozenset([n for n in set(line.base) | set(line.events) if n in self])


def _start(names):
    return Bound(_Line(frozenset(names)), 0)


def _changed(bound, names, present):
    """``bound`` with ``names`` bound (``present``) or unbound."""
    if not names:
        return bound
    line = bound.line
    if bound.pos != line.pos:  # not the end of its line (a second branch): a new line
        bound = _start(bound.frozen())
        line = bound.line
    line.pos += 1
    for name in names:
        positions, flags = line.events.setdefault(name, ([], []))
        positions.append(line.pos)
        flags.append(present)
    return Bound(line, line.pos)


def bound_before(func, walrus=True):
    """{id(statement): names certainly bound when it starts (a ``Bound``: ask ``name in
    it``)}, for ``func``'s own scope (``walrus``: False when its ``Facts`` found no ``:=``,
    or the ids of the simple statements that hold one (``Facts.walrus_statements``): the
    expressions of the others are not walked).
    Conservative: anything deleted anywhere in a compound statement counts as unbound
    inside it; after it, only an ``if`` (what every branch that goes on binds) and a
    ``try`` with a ``finally`` and no handlers (what its body binds) add names."""
    timeline = _Timeline(walrus)
    timeline.block(func.body, _start(_arg_names(func.args)))
    return timeline.out


class _Timeline:
    """The walk of ``bound_before`` (methods, not nested functions that call each other:
    those would form a reference cycle holding every ``Bound`` until the cyclic collector
    runs)."""

    def __init__(self, walrus):
        self.walrus = walrus
        self.out = {}

    def block(self, body, bound):
        out = self.out
        for st in body:
            out[id(st)] = bound
            bound = self.after(st, bound)
        return bound

    def after(self, st, bound):
        if isinstance(st, ast.Delete):
            return _changed(bound, _deleted_in(st), False)
        compound = isinstance(st, COMPOUND) or type(st).__name__ in ("TryStar", "Match")
        if not compound:
            walrus = self.walrus
            has_walrus = walrus is True or bool(walrus) and id(st) in walrus
            return _changed(bound, _stores_of(st, has_walrus), True)
        block = self.block
        inner = _changed(bound, _deleted_in(st), False)
        if isinstance(st, ast.If):
            ends = [(block(branch, inner), terminates(branch)) for branch in (st.body, st.orelse)]
            going_on = [end.frozen() for end, stops in ends if not stops]
            return _start(frozenset.intersection(*going_on)) if going_on else inner
        if isinstance(st, (ast.For, ast.AsyncFor)):
            block(st.body, _changed(inner, target_names(st.target), True))
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            names = set()
            for item in st.items:
                if item.optional_vars is not None:
                    names |= target_names(item.optional_vars)
            block(st.body, _changed(inner, names, True))
        elif type(st).__name__ == "Match":
            for case in st.cases:
                block(case.body, inner)
        else:
            body_end = block(st.body, inner)
        for handler in getattr(st, "handlers", ()):
            block(handler.body, _changed(inner, {handler.name} if handler.name else set(), True))
        if getattr(st, "orelse", None):
            block(st.orelse, inner)
        if getattr(st, "finalbody", None):
            final_end = block(st.finalbody, inner)
            if isinstance(st, ast.Try) and not st.handlers and not st.orelse:
                # the statement after it runs only when the body completed
                deleted = set().union(*(_deleted_in(s) for s in st.finalbody))
                return _start((body_end.frozen() | final_end.frozen()) - deleted)
        return inner
