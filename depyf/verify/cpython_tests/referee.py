"""Judge one target: decompile its files, run its tests on each text, compare.

The result is a JSON-ready dict: the decompilation (``status``, the files not proven and
why), the runs (``launch.Run.summary``), whether the module under test really came from
the variant folder (``substitution``), and the comparison (``compare.compare``).
"""
import os

from . import compare as cmp
from .launch import run_tests
from .texts import FileText, control_text, decompile_file, default_decompile, target_status, \
    write_variant

PROVEN = ("proven", "copied")


class Options:
    """How a target is judged: ``decompile`` (code -> text, raising depyf's errors),
    time limits in seconds (``decompile_timeout`` per file, ``timeout`` per test run,
    ``per_test`` per test), ``proven_only`` (run no unproven text), ``always_control``
    (run the control even when nothing changed), ``python`` (the children's
    interpreter), ``progress`` (called with a line of text)."""

    def __init__(self, decompile=default_decompile, decompile_timeout=600.0, timeout=600.0,
                 per_test=120.0, proven_only=False, always_control=False, python=None,
                 progress=None):
        self.decompile = decompile
        self.decompile_timeout = decompile_timeout
        self.timeout = timeout
        self.per_test = per_test
        self.proven_only = proven_only
        self.always_control = always_control
        self.python = python
        self.progress = progress or (lambda text: None)


def judge(target, work, options):
    """The judgement of ``target`` (a ``targets.Target``), its folders under ``work``."""
    texts = [decompile_file(rel, path, options.decompile, options.decompile_timeout)
             for rel, path, decompile in target.files if decompile]
    status = target_status(texts)
    entry = {"name": target.name, "mode": target.mode, "tests": target.tests, "status": status,
             "decompile_seconds": round(sum(t.seconds for t in texts), 1),
             "files": [t.to_json() for t in texts if t.status != "proven"]}
    options.progress("%s: %s in %.1f s" % (target.name, status, entry["decompile_seconds"]))
    decompiled = {t.rel: t.text for t in texts if t.text is not None}
    if not decompiled:
        entry["not_run"] = "no file was decompiled"
        return entry
    if options.proven_only and status not in PROVEN:
        entry["not_run"] = "the decompiled text is not proven"
        return entry
    judge_runs(target, work, decompiled, entry, options)
    return entry


def _folders(target, root):
    base = os.path.join(root, "lib" if target.mode == "library" else "test")
    if target.mode == "library":
        return base, {"lib": base}
    return base, {"test_dir": base}


def limits_after(orig, options):
    """``(timeout, limits)`` for the runs after the original's: a test may take ten times
    what it took there (at least 30 s, at most ``per_test``), the whole run five times
    (at least 120 s, at most ``timeout``): a decompiled text that hangs costs minutes,
    not hours."""
    limits = {test: min(options.per_test or 1e9, max(30.0, 10 * seconds))
              for test, seconds in orig.durations.items()}
    timeout = options.timeout if orig.timed_out else min(options.timeout,
                                                         max(120.0, 5 * orig.seconds))
    return timeout, limits


def _run(target, work, variant, texts, options, attempt=1, after=None):
    root = os.path.join(work, variant)
    folder, where = _folders(target, root)
    if attempt == 1:
        write_variant(folder, target.files, texts)
        for rel, path in target.links:
            if not os.path.lexists(os.path.join(folder, rel)):
                os.symlink(path, os.path.join(folder, rel))
    timeout, limits = limits_after(after, options) if after else (options.timeout, None)
    run = run_tests(os.path.join(work, "%s-run%d" % (variant, attempt)), target.tests,
                    target.targets, timeout=timeout, per_test=options.per_test,
                    python=options.python, limits=limits, **where)
    run.folder = folder
    options.progress("  %s run %d: %s" % (variant, attempt, run.summary()["counts"]))
    return run


def judge_runs(target, work, decompiled, entry, options):
    orig = _run(target, work, "orig", {}, options)
    deco = _run(target, work, "deco", decompiled, options, after=orig)
    ctrl = orig2 = deco2 = None
    differ = cmp.differing(orig, deco)
    if differ or options.always_control:
        controls = {rel: control_text(path) for rel, path, decompile in target.files if decompile}
        entry["control_missing"] = sorted(rel for rel, text in controls.items() if text is None)
        ctrl = _run(target, work, "ctrl", {r: t for r, t in controls.items() if t}, options,
                    after=orig)
    if differ:
        orig2 = _run(target, work, "orig", {}, options, attempt=2)
        deco2 = _run(target, work, "deco", decompiled, options, attempt=2, after=orig)
    entry["runs"] = {name: run.summary() for name, run in
                     (("original", orig), ("decompiled", deco), ("control", ctrl),
                      ("original_again", orig2), ("decompiled_again", deco2)) if run}
    harness = harness_problems(orig)
    if harness:
        entry["harness_problems"] = harness
    entry["substitution"] = {"original": substitution(target, orig),
                             "decompiled": substitution(target, deco)}
    if deco.fatal or not deco.done:
        entry["decompiled_log"] = deco.log
    entry.update(cmp.compare(orig, deco, ctrl, orig2, deco2))
    for item in entry["changed"]:
        item["proven_text"] = entry["status"] in PROVEN


SKIPPED = ("ResourceDenied", "SkipTest", "unittest.case.SkipTest")


def harness_problems(orig):
    """What kept the original run from testing anything it should have: test modules
    that did not import (but not those that skip themselves: a resource not enabled, a
    module missing), test discovery that failed, the child itself failing."""
    found = []
    for test, outcome in sorted(orig.outcomes.items()):
        detail = orig.details.get(test, "")
        if outcome != "error":
            continue
        if "<loading" in test or "_FailedTest" in test or (
                detail.startswith("import failed") and not any(
                    detail.startswith("import failed: %s:" % kind) for kind in SKIPPED)):
            found.append({"test": test, "detail": detail})
    if orig.fatal:
        found.append({"test": "(child)", "detail": orig.fatal})
    return found


def substitution(target, run):
    """Whether the modules under test came from the run's folder (each import of one,
    and the ``__file__`` of those still in ``sys.modules`` at the end): ``ok``, or the
    problem (``not exercised``: the tests never imported them; ``preloaded``; ``from
    elsewhere``) with the imports that were not from the folder."""
    def watched(name):
        return any(name == t or name.startswith(t + ".") for t in target.targets)
    imports = [(name, origin) for name, origin in run.imports + run.loaded if watched(name)]
    elsewhere = sorted({"%s from %s" % (name, origin) for name, origin in imports
                        if not origin.startswith(run.folder + os.sep)})
    if run.preloaded:
        return {"problem": "preloaded", "modules": run.preloaded}
    if elsewhere:
        return {"problem": "from elsewhere", "imports": elsewhere}
    if not any(name in target.targets for name, _ in imports):
        return {"problem": "not exercised"}
    return {"ok": len([1 for name, _ in run.imports if watched(name)])}


__all__ = ["Options", "judge", "FileText"]
