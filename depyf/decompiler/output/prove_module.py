"""Prove a whole module's text: every code object in it against its original.

The text is compiled on its own, as a user would run it (its ``from __future__``
imports are in the text: the original's flags are not lent to it), and the module code
object is compared with the original by the equivalence checker, which compares every
code object nested in it (class bodies, functions, lambdas, comprehensions) at the
place where the module makes it. When that is not proven, each code object is
checked on its own, what it nests taken as equivalent, to name each one that is not
proven.
"""
from collections import namedtuple

from ...equivalence import Verdict, equivalent

# One unproven code object: the original ``code``, its ``path`` of code objects from the
# module down to it (module first), and the checker's ``verdict`` on it alone.
Unproven = namedtuple("Unproven", "code path verdict")
_CO_OPTIMIZED = 0x1


class ModuleVerdict:
    """The proof of a module's text: truthy when proven. ``verdict`` is the checker's
    answer on the module code object; ``unproven`` lists the innermost code objects not
    proven (empty when proven; the module itself when its text does not compile or
    its nested code objects do not pair up)."""

    __slots__ = ("verdict", "unproven")

    def __init__(self, verdict, unproven=()):
        self.verdict = verdict
        self.unproven = list(unproven)

    def __bool__(self):
        return bool(self.verdict)

    @property
    def reason(self):
        """Each unproven code object and its first difference, or None when proven."""
        return "; ".join(unproven_notes(self)) if self.unproven else self.verdict.reason

    @property
    def how(self):
        return self.verdict.how

    @property
    def different(self):
        return any(item.verdict.different for item in self.unproven)


def prove_module(code, text, filename="<depyf-check>", bindings=None):
    """The ``ModuleVerdict`` on ``text`` (a whole module's source) against ``code``."""
    try:
        recompiled = compile(text, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        verdict = _refused("the decompiled module does not compile: %s (line %s)"
                           % (exc.msg, exc.lineno))
        return ModuleVerdict(verdict, [Unproven(code, (code,), verdict)])
    verdict = equivalent(code, recompiled, bindings=bindings, compare_name=False)
    if verdict:
        return ModuleVerdict(verdict)
    found = _innermost(code, recompiled, (code,), bindings, top=True)
    return ModuleVerdict(verdict, found or [Unproven(code, (code,), verdict)])


def _innermost(a, b, path, bindings, top=False):
    """The unproven pairs under and at ``(a, b)``: each nested pair's, then ``a`` itself
    when it differs apart from what it nests (those pairs taken as equivalent)."""
    pairs = paired_children(a, b)
    found = []
    for x, y in pairs or ():
        found += _innermost(x, y, path + (x,), bindings)
    verdict = equivalent(a, b, bindings=bindings, compare_name=not top, assume=pairs or ())
    return found if verdict else found + [Unproven(a, path, verdict)]


def paired_children(a, b):
    """The code objects nested in ``a`` and ``b`` paired by name, in order (the k-th of a
    name with the k-th), or None when the two do not have the same names as often."""
    ours, theirs = _by_name(a), _by_name(b)
    if {n: len(v) for n, v in ours.items()} != {n: len(v) for n, v in theirs.items()}:
        return None
    return [pair for name in ours for pair in zip(ours[name], theirs[name])]


def _by_name(code):
    found = {}
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            found.setdefault(const.co_name, []).append(const)
    return found


def _refused(reason):
    return Verdict(False, reason, different=True)


def unproven_notes(verdict):
    """One line per unproven code object of a ``ModuleVerdict``: its qualified name and
    the checker's first difference."""
    notes = []
    for item in verdict.unproven:
        reason = _first_line(item.verdict.reason)
        own = item.code.co_name + ": "
        path = named_path(item.path)
        if reason.startswith(own) and path[-1] is item.code:
            reason = reason[len(own):]
        notes.append("%s: %s" % (qualname(path), reason))
    return notes


def named_path(path):
    """``path`` up to its last code object with a name a statement gives (a def or a
    class: lambdas and comprehensions are named by what holds them)."""
    k = max([0] + [i for i, code in enumerate(path) if not code.co_name.startswith("<")])
    return path[:k + 1]


def qualname(path):
    """The qualified name of the last code object of ``path`` (code objects from the
    module down), as ``Class.method`` / ``outer.<locals>.inner``; "<module>" alone."""
    parts = []
    for outer, code in zip(path, path[1:]):
        if parts and outer.co_flags & _CO_OPTIMIZED:
            parts.append("<locals>")
        parts.append(code.co_name)
    return ".".join(parts) or "<module>"


def _first_line(text):
    text = str(text).strip()
    return text.splitlines()[0] if text else "no reason given"
