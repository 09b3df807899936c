"""The stdlib round trip: how well the decompiler reproduces real Python, measured.

``python -m depyf.verify`` compiles the source of a fixed list of pure-Python stdlib
modules (``stdlib_corpus.MODULES``; read as text, never imported), and for every named
function and method in them (at any depth):

1. decompiles its code object with ``depyf.Decompiler(code).decompile()`` under a 10 s
   limit (outcome: *decompiled*);
2. compiles the text inside a rebuilt copy of its enclosing scopes, so closures keep
   their cells and methods their ``__class__`` cell and name mangling (*compiles*);
3. compares the normalized bytecode of the original and the recompiled function, nested
   lambdas, comprehensions and defs included (*bytecode-equal*).

It also counts the ``__temp`` names the decompiler introduced and times each call.
Stages, one module each: ``stdlib_corpus`` (which code objects), ``roundtrip`` (one
object), ``report`` (tables, JSON, the failure worklist); what "equal" means is
``depyf.equivalence.normalize`` (its docstring is the definition). ``docs/verify.md``
explains the whole method.

``equivalent(original, candidate) -> Verdict`` (``depyf.equivalence``, the layer under
everything that proves) is the checker the decompiler proves every result with; the
round trip also reports its verdict, and this package re-exports it.
"""
import time

from . import stdlib_corpus
from ..equivalence import Verdict, equivalent
from .roundtrip import Result, check, default_decompile, not_run

__all__ = ["run", "collect_targets", "check", "Result", "equivalent", "Verdict"]


def collect_targets(modules=None, sample=None, root=None):
    """``(targets, unchecked_anonymous)`` for the given modules (default: the corpus)."""
    targets = []
    unchecked = 0
    for name in modules or stdlib_corpus.MODULES:
        path, source, code = stdlib_corpus.compile_module(name, root)
        imports = stdlib_corpus.module_imports(source, path)
        defs = stdlib_corpus.def_positions(source)
        targets.extend(stdlib_corpus.iter_targets(name, code, imports, defs))
        unchecked += stdlib_corpus.count_unchecked(code, defs)
    return stdlib_corpus.sample_evenly(targets, sample), unchecked


def run(modules=None, sample=None, decompile=default_decompile, timeout=10.0, progress=None,
        time_budget=None):
    """Round-trip the corpus; returns ``(results, unchecked, wall_seconds)``.

    ``progress``, if given, is called with each ``Result`` as it is produced. With a
    ``time_budget`` (seconds for the whole run), objects not reached in time are recorded
    as failures of category "not run: time budget exceeded", never silently dropped.
    """
    start = time.perf_counter()
    targets, unchecked = collect_targets(modules, sample)
    results = []
    for target in targets:
        if time_budget is not None and time.perf_counter() - start > time_budget:
            r = not_run(target, "not run: time budget of %g s exceeded" % time_budget)
        else:
            r = check(target, decompile=decompile, timeout=timeout)
        results.append(r)
        if progress is not None:
            progress(r)
    return results, unchecked, time.perf_counter() - start
