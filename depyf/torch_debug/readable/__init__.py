"""Fold Dynamo's bookkeeping out of a decompiled transformed function (an AST pass).

Dynamo's transformed bytecode spills every stack value it moves into a temporary, builds
empty lists it never reads, extends lists by nothing and aliases values into ``tmp_<n>``
names only to delete them again. Decompiled, that is most of the text. ``fold`` removes it
with rules that never change what the code does, so the folded text can stay the code that
runs (and it still goes through the same equivalence check as any decompiled code; see
``transformed_code``). The rules, applied until none applies:

* **pure statements** (``rules``): an expression statement that only evaluates constants,
  displays of them, or local variables that are certainly bound (``[]``, ``()``, ``x``) is
  dropped;
* **dead temporaries**: a temporary (``__temp_<n>`` of the decompiler, ``tmp_<n>`` of
  Dynamo) that is never read loses its stores and ``del`` statements -- an assignment only
  if its value is pure as above, a ``(tmp := value)`` becomes ``value``, a ``del`` only
  where the name is certainly bound; a list temporary that is only ever extended by lists
  (``__temp_7 += __temp_9``) counts as never read;
* **leading walrus**: ``x = (n := value)[k]`` becomes ``n = value; x = n[k]`` when the
  ``:=`` is the first thing the statement evaluates;
* **single-use temporaries**: ``t = value`` directly followed by the only statement that
  reads ``t`` becomes that statement with ``value`` in place of ``t``, when only constants,
  displays and certainly bound local variables are evaluated before ``t`` in it (so
  nothing that ``value`` does can be reordered with anything else), and no line grows past
  100 characters; ``t = value; del a; x = t`` becomes ``x = value; del a``;
* **unpacked displays**: ``t1, t2 = [a, b]`` of temporaries, where the display only holds
  constants and certainly bound local variables and none of the targets, becomes
  ``t1 = a; t2 = b``;
* **Dynamo's lists** (``lists``): the lists Dynamo builds, slices, extends and unpacks to
  call a resume function at a graph break, when each is private to the function, are
  followed symbolically and replaced by their elements; a decompiler temporary holding a
  constant or an unchanging variable is replaced by it.

Then ``__temp_<n>`` names are renumbered in the order the printed text shows them. The
rules read their facts (names read and written, variables certainly bound, evaluation
order, effect-free expressions) from ``facts``, ``names``, ``bound`` and ``order``,
recomputed after every change (a rule that knows it left nothing more for itself says so:
``SETTLED``); the rules never need positions, and the printer (``printing``) reads none.

Names that are not temporaries (the user's variables, ``graph_out_0``), names a nested
scope or a ``global``/``nonlocal`` declaration refers to, and any function that calls
``locals()``/``vars()``/``dir()``/``eval``/``exec`` are left alone. Folding only drops
references that temporaries held, so an object can be released earlier, never later.

``fold(..., drop_profiling_calls=True)`` also removes Dynamo's profiling instrumentation
(``record_pregraph_bytecode_enter/exit`` around the graph's argument preparation). Those
calls do run (they open and close a profiler range), so that copy is for reading only:
it is the one shown in ``full_code_for_<fn>_<n>.py``.
"""
import ast

from ...bytecode import versions as V
from . import lists, printing
from .bound import bound_before
from .facts import Facts, unshare  # noqa: F401  (unshare: for fold_module's callers)
from .dead import drop_dead_temporaries
from .rules import (SETTLED, drop_profiling, drop_pure_statements, hoist_walrus, inline_single_use,
                    renumber_temporaries, split_display_unpack)

_MAX_ROUNDS = 200
RULES = (lists.scalarize, split_display_unpack, drop_pure_statements, drop_dead_temporaries,
         hoist_walrus, inline_single_use)
# Rules whose change often opens another for the same rule (an inlining or a moved
# store leaves a new single-use temporary next to its reader): called again at once,
# with fresh facts, before the other rules, until they change nothing or say that they
# would (``SETTLED``).
_CHAINING = frozenset([inline_single_use])


def fold_function(func, keep=(), drop_profiling_calls=False):
    """Apply the rules to the function node ``func`` in place until none applies."""
    _fold(func, keep, drop_profiling_calls)
    return func


def _fold(func, keep, drop_profiling_calls):
    """``fold_function``; returns the ``Facts`` of the folded function (no rule changed it
    since they were read) and whether anything changed."""
    facts = Facts(func, keep)
    if facts.introspective:
        return facts, False
    stale = drop_profiling_calls and drop_profiling(func)
    changed_any = bool(stale)
    bound = bound_before(func, facts.walrus_statements)
    quiet = 0  # rules in a row that changed nothing
    for _ in range(_MAX_ROUNDS * len(RULES)):
        for rule in RULES:
            changed = False
            for _ in range(_MAX_ROUNDS if rule in _CHAINING else 1):
                if stale:  # the facts are recomputed only after a change (the
                    # statements the rules make have no positions: nothing reads them)
                    facts = Facts(func, keep)
                    bound = bound_before(func, facts.walrus_statements)
                stale = rule(func, facts, bound)
                changed = changed or stale
                if not stale or stale is SETTLED:
                    break
            changed_any = changed_any or bool(changed)
            quiet = 0 if changed else quiet + 1
            if quiet == len(RULES):
                return facts, changed_any
    return Facts(func, keep), changed_any


def drop_profiling_calls(source):
    """``source`` without the profiler calls (and their temporaries) only."""
    if not V.HAS_AST_UNPARSE:
        return source
    return _without_profiling_calls(ast.parse(source), source)


def _without_profiling_calls(tree, text):
    """The text of module ``tree`` (printed as ``text``) without the profiler calls;
    ``tree`` changes in place."""
    changed = False
    for func in tree.body:
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            changed |= bool(drop_profiling(func))
    return printing.text(tree) + "\n" if changed else text


def fold(source, func_name, keep=(), drop_profiling_calls=False, renumber=True):
    """``source`` (a module holding ``def func_name``) with the function folded; the
    source unchanged where it cannot be parsed or printed (Python 3.8: no ``ast.unparse``).
    ``keep``: names never to remove or rename (e.g. the original frame's variables)."""
    if not V.HAS_AST_UNPARSE:
        return source
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    folded = fold_module(tree, func_name, keep, drop_profiling_calls, renumber)
    return source if folded is None else folded.text


class Folded:
    """A module whose function was folded in place (``fold_module``): ``text`` is what
    ``fold`` returns for it."""

    def __init__(self, tree, text, changed):
        self.tree, self.text = tree, text
        self.changed = changed  # a rule or the renumbering changed the tree (else ``text``
        # is the module as it was given, printed)

    def reading_text(self):
        """``drop_profiling_calls(self.text)``, from the folded tree rather than a parse
        of the text (the tree changes: call it last)."""
        return _without_profiling_calls(self.tree, self.text)


def fold_module(tree, func_name, keep=(), drop_profiling_calls=False, renumber=True):
    """``fold`` on a parsed module (or one the decompiler built, once ``unshare``d: the
    same nodes as parsing its text gives), changed in place: a ``Folded``, or None when
    the module defines no function ``func_name`` (None: the functions of any name) or
    where the text cannot be printed (Python 3.8: no ``ast.unparse``)."""
    if not V.HAS_AST_UNPARSE:
        return None
    funcs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and (func_name is None or n.name == func_name)]
    if not funcs:
        return None
    folds = [_fold(func, keep, drop_profiling_calls) for func in funcs]
    changed = any(c for _, c in folds)
    printed = printing.Printed(tree)
    text = printed.text
    if renumber:  # in the order the printed text shows the names
        renumbered = [renumber_temporaries(func, f, printed.names) for func, (f, _) in zip(funcs, folds)]
        if any(renumbered):
            text, changed = printed.again(), True
    return Folded(tree, text + "\n", changed)
