"""``depyf decompile DIR --out SRC``: a source tree rebuilt from a folder of .pyc files.

Every ``.pyc`` under DIR stands for a source file (``pycs.source_path``); where several
stand for one (several Python versions, ``-O`` variants), the running Python's is
decompiled, else the newest version's, the plain one before ``.opt-1``/``.opt-2``.
This Python's files are decompiled here, each other version's by an interpreter of
that version (``pythons``), all of them in one run of it. A file is written only when
its text is proven (with ``--allow-unproven`` also when not, under NOT PROVEN
comments), into a file that did not exist: the run refuses to start when SRC already
holds a file it would write, unless ``--force``. The summary on stderr says what
became of each module; the exit status is 0 only when every module was proven and
written.
"""
import json
import os
import sys
import tempfile

from ..decompiler.api import Decompiler
from ..decompiler.modules import read_pyc
from ..errors import DecompilationError, UnprovenError, UnsupportedPycError
from . import pycs, pythons
from .output import CliError

PROVEN, UNPROVEN, REFUSED, NOT_PYC, NO_PYTHON, FAILED = (
    "proven", "NOT PROVEN", "refused", "not a .pyc", "no Python", "not written")
_ORDER = (PROVEN, UNPROVEN, REFUSED, NOT_PYC, NO_PYTHON, FAILED)
_TOTALS = {PROVEN: "proven and written", UNPROVEN: "written with NOT PROVEN marks",
           REFUSED: "refused", NOT_PYC: "not a .pyc depyf reads",
           NO_PYTHON: "of another Python version with no interpreter found",
           FAILED: "not written"}


class Module:
    """One source file to rebuild: ``dest`` (relative to SRC), the .pyc ``pyc`` picked
    for it and its ``header``, ``note`` on the pick, and after the run ``outcome``:
    ``{"status", "reason", "how"}``."""

    def __init__(self, dest, pyc, header, note=None):
        self.dest, self.pyc, self.header, self.note = dest, pyc, header, note
        self.outcome = None


def rebuild(folder, out, allow_unproven=False, force=False, check=False):
    """Rebuild the source tree of ``folder`` into ``out``; the exit status."""
    modules, others, unread = plan(folder)
    _check_out(out, modules, force)
    options = {"allow_unproven": allow_unproven, "force": force}
    here = [m for m in modules if m.header.kind == pycs.RUNNING]
    _run_here(here, out, options)
    by_version = {}
    for m in modules:
        if m.header.kind == pycs.OTHER:
            by_version.setdefault(m.header.version, []).append(m)
        elif m.header.kind != pycs.RUNNING:
            m.outcome = {"status": NOT_PYC, "reason": m.header.problem}
    missing = [_run_elsewhere(version, group, out, options)
               for version, group in sorted(by_version.items())]
    return summary(folder, out, modules, others, [m for m in missing if m] + unread, check)


def plan(folder):
    """``(modules, count of other files, folders not read)``: the ``Module`` of each
    source file the .pyc files under ``folder`` stand for, in path order."""
    found, others, unreadable = {}, 0, []
    for root, dirs, files in os.walk(folder, onerror=unreadable.append):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if not name.endswith(".pyc"):
                others += 1
                continue
            dest, level = pycs.source_path(os.path.relpath(path, folder))
            found.setdefault(dest, []).append((path, level, pycs.header(path)))
    unread = ["cannot read the folder %s: %s" % (exc.filename, exc.strerror)
              for exc in unreadable]
    if unreadable and unreadable[0].filename == folder:
        raise CliError(unread[0])
    if not found:
        raise CliError("no .pyc file in %s (%s)" % (
            folder, "it is empty" if not others else "it holds %d other file%s" % (
                others, "s" if others != 1 else "")))
    return [_pick(dest, found[dest]) for dest in sorted(found)], others, unread


def _pick(dest, candidates):
    """The ``Module`` for ``dest`` from its .pyc ``candidates``: the running Python's,
    else the newest version's, the least optimized first."""
    readable = [c for c in candidates if c[2].kind in (pycs.RUNNING, pycs.OTHER)]
    if not readable:
        return Module(dest, candidates[0][0], candidates[0][2])
    newest = pycs.newest_first({c[2].version for c in readable})
    running = [c for c in readable if c[2].kind == pycs.RUNNING]
    pool = running or [c for c in readable if c[2].version == newest[0]]
    path, _, header = min(pool, key=lambda c: c[1])
    note = None
    if len(candidates) > 1:
        why = "the running Python's" if running else "the newest"
        rest = ", ".join(os.path.basename(c[0]) + ("" if c[2].kind in (pycs.RUNNING, pycs.OTHER)
                                                   else " (not readable)")
                         for c in candidates if c[0] != path)
        note = "%s: picked %s (Python %s, %s) over %s" % (
            dest, os.path.basename(path), header.version, why, rest)
    return Module(dest, path, header, note)


def _check_out(out, modules, force):
    """Refuse an ``out`` that is not a folder, or already holds a file to write."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise CliError("--out %s is not a directory" % out)
    if force:
        return
    there = [m.dest for m in modules if m.header.kind in (pycs.RUNNING, pycs.OTHER)
             and os.path.lexists(os.path.join(out, m.dest))]
    if there:
        more = " (and %d more)" % (len(there) - 1) if there[1:] else ""
        raise CliError("%s already exists%s; nothing was written: give an --out without "
                       "the files this run writes, or --force to replace them"
                       % (os.path.join(out, there[0]), more))


def _run_here(modules, out, options):
    items = [(m.pyc, os.path.join(out, m.dest)) for m in modules]
    for m, outcome in zip(modules, run_batch({"items": items, **options})):
        m.outcome = outcome


def _run_elsewhere(version, modules, out, options):
    """Decompile ``modules`` (all of Python ``version``) with that Python; the line
    saying why not when there is none."""
    executable, why = pythons.find(version)
    if executable is None:
        for m in modules:
            m.outcome = {"status": NO_PYTHON, "reason": "written by Python %s" % version}
        return why
    items = [(os.path.abspath(m.pyc), os.path.abspath(os.path.join(out, m.dest))) for m in modules]
    with tempfile.TemporaryDirectory(prefix="depyf-") as workdir:
        outcomes, failed = pythons.run_batch(executable, {"items": items, **options}, workdir)
    for k, m in enumerate(modules):
        m.outcome = outcomes[k] if outcomes else {"status": FAILED, "reason": failed}
    return None


def run_batch(request):
    """Decompile and write each ``(pyc, dest)`` of ``request["items"]``: the outcome of
    each (this is also what an interpreter of another version runs)."""
    return [_one(pyc, dest, request["allow_unproven"], request["force"])
            for pyc, dest in request["items"]]


def run_batch_files(request_path, result_path):
    """``run_batch`` of the request in a JSON file, the outcomes written to another (what
    an interpreter of another version runs for ``pythons.run_batch``)."""
    with open(request_path, encoding="utf-8") as fh:
        request = json.load(fh)
    outcomes = run_batch(request)
    with open(result_path, "w", encoding="utf-8") as fh:
        json.dump(outcomes, fh)
    return 0


def _one(pyc, dest, allow_unproven, force):
    try:
        code = read_pyc(pyc)
    except UnsupportedPycError as exc:
        return {"status": NOT_PYC, "reason": exc.reason}
    except OSError as exc:
        return {"status": NOT_PYC, "reason": "cannot read %s: %s" % (pyc, exc.strerror or exc)}
    decompiler = Decompiler(code)
    try:
        text = decompiler.decompile(allow_unproven=allow_unproven)
    except UnprovenError as exc:
        return {"status": REFUSED, "reason": "not proven: %s" % exc.verdict.reason}
    except DecompilationError as exc:
        return {"status": REFUSED, "reason": str(exc)}
    except Exception as exc:  # noqa: BLE001 - one module's bug must not stop the others
        return {"status": REFUSED, "reason": "a bug in depyf: %s: %s" % (type(exc).__name__, exc)}
    try:
        os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
        with open(dest, "w" if force else "x", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        return {"status": FAILED, "reason": "cannot write %s: %s" % (dest, exc.strerror or exc)}
    if decompiler.verdict:
        return {"status": PROVEN, "how": decompiler.verdict.how}
    return {"status": UNPROVEN, "reason": "not proven: %s" % decompiler.verdict.reason}


def summary(folder, out, modules, others, problems, check):
    """Print what became of each module, then ``problems`` (lines), on stderr; the exit
    status."""
    lines = ["depyf decompile: %s -> %s: %d module%s" % (
        folder, out, len(modules), "s" if len(modules) != 1 else "")]
    width = max(len(s) for s in _ORDER)
    counts = dict.fromkeys(_ORDER, 0)
    for m in modules:
        status = m.outcome["status"]
        counts[status] += 1
        what = m.dest
        if status == PROVEN and check and m.outcome.get("how"):
            what += " (%s)" % m.outcome["how"]
        elif status != PROVEN:
            reason = str(m.outcome.get("reason") or "no reason given")
            what += ": " + (" ".join(reason.split()) if check else _first_line(reason))
        lines.append("  %-*s  %s" % (width, status, what))
    lines += ["  " + m.note for m in modules if m.note]
    lines += ["  " + line for line in problems]
    if others:
        lines.append("  (%d file%s not named .pyc left alone)"
                     % (others, "s" if others != 1 else ""))
    lines.append("total: " + ", ".join("%d %s" % (counts[s], _TOTALS[s]) for s in _ORDER
                                       if counts[s]))
    sys.stderr.write("\n".join(lines) + "\n")
    return 0 if counts[PROVEN] == len(modules) and not problems else 1


def _first_line(text):
    return text.strip().splitlines()[0] if text.strip() else "no reason given"
