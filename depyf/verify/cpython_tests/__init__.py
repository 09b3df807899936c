"""CPython's own tests as a referee of the decompiler.

``depyf.decompile_module`` proves every text it returns; this package checks the proof
from the outside, with the test suite of the interpreter that runs it. For each target
the module is decompiled, the text is written into a folder of its own, and the test
modules run in a fresh interpreter with that folder in front (``launch``), once on the
decompiled text and once on the original text copied into the same kind of folder (the
same path effects). The outcome of every test (pass, fail, error, skip, expected failure,
unexpected success, timeout) is compared; where one differs, a control text (the same
source printed back from its syntax tree) and second runs separate tests that depend on
the source text or are flaky from real changes (``compare``).

Two modes (``targets``):

- ``library``: every pure-Python module and package of the standard library that has a
  test module (the pure twins ``_pydecimal``, ``_pydatetime``, ``_pyio``, ``_pylong``,
  ``_py_abc`` ... with the tests that test them); the decompiled module is imported by
  the unchanged test module.
- ``language``: CPython's tests of the language themselves (``test_grammar``,
  ``test_patma``, ``test_descr`` ...) decompiled and run in place of the originals.

A changed outcome from a proven text is a hole in the proof: the most important finding.
The run exits 1 when an outcome changed or a module was not proven (``report``).

The whole run, one version and mode at a time (hours on a slow machine)::

    PYTHONPATH=. python3.X -m depyf.verify.cpython_tests --mode library --json cpython-library-3.X.json
    PYTHONPATH=. python3.X -m depyf.verify.cpython_tests --mode language --json cpython-language-3.X.json

and the fast subset for CI (a few proven modules in each mode)::

    PYTHONPATH=. python3.X -m depyf.verify.cpython_tests --ci

The interpreter needs its own test package (``Lib/test``); the children run it with
``-S``, so no third-party package is needed.
"""
import os
import sys
import tempfile
import time

from . import report, targets
from .referee import Options, judge

__all__ = ["run", "Options", "judge"]


def run(mode, names=None, ci=False, options=None, workroot=None, keep=False, on_entry=None):
    """Judge the targets of ``mode``; returns the result dict (``report.format_table``
    prints it). ``on_entry(result)`` is called after each target (the JSON is rewritten
    there, so a long run that is stopped keeps what it found)."""
    options = options or Options()
    chosen, excluded = targets.select(mode, names, ci, python=options.python)
    result = {"python": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable,
              "mode": mode, "excluded": excluded, "modules": [], "wall_seconds": 0.0}
    start = time.perf_counter()
    work = workroot or tempfile.mkdtemp(prefix="depyf-cpython-")
    for target in chosen:
        entry = judge(target, os.path.join(work, target.name), options)
        result["modules"].append(entry)
        if not keep:
            _remove(os.path.join(work, target.name))
        result["wall_seconds"] = round(time.perf_counter() - start, 1)
        result["totals"] = report.totals(result["modules"])
        if on_entry is not None:
            on_entry(result)
    result["totals"] = report.totals(result["modules"])
    if not keep and workroot is None:
        _remove(work)
    return result


def _remove(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)
