"""Real packages as a corpus: every function of an installed package through ``depyf.decompile``.

What it measures, with the running interpreter, for each sub-package of a package folder
(by default torch's ``_dynamo``, ``_inductor``, ``fx`` and ``nn``):

- every ``.py`` file is read as text and compiled by the running Python (the package is
  never imported, so any Python 3.10-3.13 can read torch's source); a file that does not
  compile on that Python is counted and skipped, with the reason;
- every function-like code object of it (defs at any depth and methods; lambdas and
  comprehensions inside their def, those outside any def on their own: the targets of
  ``depyf.verify.stdlib_corpus.iter_targets``) goes through
  ``depyf.decompiler.api.Decompiler(code).decompile()`` under a per-call time limit, and
  ends as *proven* (how: bytecode-equal, layout-equal or checked), *refused*
  (``UnprovenError``), *unsupported* (``UnsupportedShape``/``UnsupportedInstruction``),
  *internal* error (``InternalError`` or anything else: a bug in depyf) or *timeout*;
  each call is timed;
- every file as a whole module: ``depyf.decompiler.modules.decompile_module``, the text
  compiled again and compared with ``depyf.verify.equivalence.equivalent`` (``prove_module``);
  ends as proven, unproven, no-compile (the text is not valid Python), error or timeout.

Reasons are grouped into *causes* (``cause``: names, offsets, line numbers and values
masked), so that the table of causes says which shapes lose the most functions (and how
many of them are in modules with ``from __future__ import annotations``, whose
annotations are compiled as strings).

Run (one interpreter; ``{version}`` in a path becomes the running Python's ``3.X``)::

    PYTHONPATH=. python benchmarks/package_corpus.py --root SITE/torch \\
        --json /tmp/pc-{version}.json --failures /tmp/pc-failures-{version}.txt

or under several pyenv interpreters one after the other (``--versions``; each run is a
subprocess of this script, with the ``PYTHONPATH`` given or else this checkout's depyf;
their JSON files are merged into one table). The torch measurement (torch 2.13's source,
from the test venv nox makes: ``nox -s torch``)::

    python benchmarks/package_corpus.py --versions 3.10,3.11,3.12,3.13 \\
        --root .nox/torch/lib/python3.11/site-packages/torch --timeout 20 \\
        --json /tmp/torchsrc-{version}.json --failures /tmp/torchsrc-failures-{version}.txt

About 20,000 functions and 705 modules per version; on the 2-core machine of the project
a version took 6-9 minutes with modules compared by the checker, 1-1.5 minutes for the
functions alone (``--no-modules``) with a faster depyf, and 3.5 minutes for the modules
proven by ``decompile_module`` itself (3.12).

``--report A.json B.json ...`` prints the tables again from saved runs (with ``--failures``
also their worklists: causes are computed when reported). ``--markdown PAGE.md`` (with a
run, ``--versions`` or ``--report``) writes the tables as a Markdown page: date, Python and
package versions, depyf commit, the command that regenerates the page, the totals per
version, the tables per package and per cause. The tables of the docs' torch page
(docs/torch-source-corpus.md) are made from runs' JSON by ``tools/docs_tables.py``
(``record torch-source-corpus -- ARGS`` runs this script with ARGS; ``import
torch-source-corpus RUN.json`` takes a saved run).

``--retry JSON`` measures again, with the running Python (of the run's version) and
depyf, only what a saved run did not prove, and writes the run with those results to
``--json`` (the run records which items were measured again, when and with which depyf
commit): after a fix, the worklist again without the whole run.

``--packages`` picks sub-packages (comma separated, relative to ``--root``; ``.`` is the whole folder,
``*`` each sub-package of it in its own row), e.g. ``--root SITE/transformers --packages
models/bert,generation`` or ``--root SITE/sympy --packages '*'``. Stdlib only (besides depyf).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:  # this checkout's depyf unless PYTHONPATH names another
    sys.path.append(REPO)

from depyf.verify import stdlib_corpus as corpus  # noqa: E402
from depyf.verify.roundtrip import FUTURE_FLAGS, DecompileTimeout, time_limit  # noqa: E402

TORCH_PACKAGES = ("_dynamo", "_inductor", "fx", "nn")
STATUSES = ("proven", "refused", "unsupported", "internal", "timeout")
MODULE_STATUSES = ("proven", "unproven", "no-compile", "error", "timeout")
VERSION = "%d.%d" % sys.version_info[:2]
FUTURE_ANNOTATIONS = __import__("__future__").annotations.compiler_flag


# ---------------------------------------------------------------- files and names


def package_files(root, package):
    """The ``.py`` files of ``package`` (a folder under ``root``; ``.`` is root), sorted."""
    top = os.path.normpath(os.path.join(root, package))
    if os.path.isfile(top + ".py"):
        return [top + ".py"]
    found = glob.glob(os.path.join(top, "**", "*.py"), recursive=True)
    return sorted(p for p in found if os.path.isfile(p))


def expand_packages(root, packages):
    """``--packages`` as a list: ``*`` is every sub-package of root and every module file
    at its top (``__init__`` included), each in its own row."""
    out = []
    for name in packages:
        if name != "*":
            out.append(name)
            continue
        for entry in sorted(os.listdir(root)):
            if os.path.isfile(os.path.join(root, entry, "__init__.py")):
                out.append(entry)
            elif entry.endswith(".py"):
                out.append(entry[:-3])
    return out


def module_name(path, root):
    """Dotted name of ``path`` counted from the folder above ``root`` (``torch.fx.graph``)."""
    rel = os.path.relpath(path, os.path.dirname(os.path.normpath(root)))[:-3]
    parts = rel.split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def first_line(text, limit=300):
    lines = str(text).strip().splitlines()
    text = lines[0] if lines else ""
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------- causes


def code_names(code):
    """Every identifier a code object and the code nested in it carries."""
    names = {code.co_name}
    names.update(code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            names |= code_names(const)
    return names


_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_NUMBER = re.compile(r"\b0x[0-9a-fA-F]+\b|-?\b\d+(\.\d+)?\b")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*\b")
_ANGLE = re.compile(r"<(function|result|code|class|module|object|cell|exception|value)[^<>]*>")
_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_WHERE = re.compile(r" at offset \d+| \(line \d+\)| \([^(),]*\.py, line \d+\)")
_OPERANDS = re.compile(r"the original .*?(\[.*\]) at .*, the candidate .*?(\[.*\]) at ")
_KIND_NAME = re.compile(r"\b(getattr|setattr|delattr|super attribute|store name|store global|"
                        r"store cell|load name|load global|load cell|load from dict or global|"
                        r"load from dict or cell|delete \w+|import from|import) (?!\*)[\w.]+")
_OPARG = re.compile(r"\s*\bat [A-Z][A-Z_0-9]+[^,;\[\]]*")
# Words of the checker's and the decompiler's messages kept even when the function has a
# name spelled so (``call``, ``value``...); other identifiers of the function are masked.
KEEP = frozenset("""
the original candidate with different operands outcomes at they do things returns raises
call store load delete cell name global fast deref attr getattr setattr delattr getitem
setitem delitem import from value values internal expression conditional in of a an is
not to for and or block loop function free variables differ docstrings builtin iter next
yield send exception result object class module line offset read before set nested code
none true false while handling objects user can see return setup annotations
__future__ imports must occur beginning file decompiled compile
""".split())


VERDICT_KINDS = ("refused", "module unproven")


def cause(kind, reason, names=()):
    """The cause of a failure of ``kind`` (a status; ``module ...`` for whole modules):
    ``reason`` with what differs from one function to the next masked, so that equal
    causes read alike.

    A verdict (``VERDICT_KINDS``): of a module's proof naming several code objects
    (``a: ...; b: ...``) only the first is kept; where the difference is inside nested
    code (``; inside: f: ...``) only the innermost difference is kept; then the leading ``f:``
    (the function the verdict is about), offsets and line numbers go, ``<function
    f>``-like values lose their name, ``[...]`` operand lists become ``[.]`` (``(operands
    print alike)`` is added when the two sides' lists read the same: the difference is
    in what they refer to), ``at OPCODE arg`` goes (the event says what the instruction
    did, and opcodes differ between versions for the same event), names after an event's kind
    (``getattr x``, ``store cell x``...) and the function's identifiers (``names``; not
    the words of ``KEEP``) become ``?``. Any other reason (the decompiler's own words)
    only loses file locations and the ``[OPCODE]`` the reading stopped at (but that of an
    unsupported instruction). In both, quoted strings become ``'?'`` and numbers ``N``."""
    text = first_line(reason, 100000)
    if kind not in VERDICT_KINDS:
        if "unsupported instruction" not in text:  # else the opcode is the cause
            text = re.sub(r" \[[A-Z][A-Z_0-9]*\]$", "", text)
        text = _WHERE.sub("", text)
        text = re.sub(r" @ (\S+):\d+ in ", r" @ \1 in ", text)
        text = _NUMBER.sub("N", _QUOTED.sub("'?'", text))
        return text if len(text) <= 200 else text[:197] + "..."
    text = re.split(r"; (?!inside: )(?=[\w<>.]+: )", text)[0]  # a module's first unproven
    inside = text.count("; inside: ")
    text = text.rsplit("; inside: ", 1)[-1]
    text = re.sub(r"^[A-Za-z_<][\w<>.]*: (?=\S)", "", text)  # "f: they do different things"
    text = _WHERE.sub("", text)
    alike = _OPERANDS.search(text)
    alike = alike is not None and alike.group(1) == alike.group(2)
    text = _ANGLE.sub(lambda m: "<%s>" % m.group(1), text)
    for _ in range(4):
        text = _BRACKETS.sub("[.]", text)
    text = _QUOTED.sub("'?'", text)
    text = _NUMBER.sub("N", text)
    text = _OPARG.sub("", text)
    text = _KIND_NAME.sub(r"\1 ?", text)
    names = set(names)
    text = _WORD.sub(lambda m: "?" if m.group(0) in names and m.group(0).lower() not in KEEP
                     and not m.group(0).isupper() else m.group(0), text)
    text = re.sub(r"\s+", " ", text).strip(" ,.")
    if alike:
        text += " (operands print alike)"
    if inside:
        text = "in nested code: " + text
    return text if len(text) <= 200 else text[:197] + "..."


def names_in(reason, code):
    """The identifiers of ``code`` (and the code in it) that ``reason`` mentions: what
    ``cause`` masks (kept with each result, so that causes can be computed again)."""
    return sorted(set(_WORD.findall(reason)) & code_names(code))


# ---------------------------------------------------------------- one function, one module


def _where(exc):
    """`` @ depyf/file.py:line in function``: the innermost frame of depyf in ``exc``'s
    traceback (the timer's own frame left out: a timeout says where it struck)."""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    frames = [f for f in frames if f.name != "_fire"]
    inside = [f for f in frames if os.sep + "depyf" + os.sep in f.filename] or frames
    if not inside:
        return ""
    f = inside[-1]
    name = f.filename
    if os.sep + "depyf" + os.sep in name:
        name = "depyf" + os.sep + name.rsplit(os.sep + "depyf" + os.sep, 1)[1]
    return " @ %s:%d in %s" % (name, f.lineno, f.name)


def classify(exc):
    """``(status, reason)`` of an exception ``decompile`` let out."""
    from depyf.errors import (InternalError, UnprovenError, UnsupportedInstruction,
                              UnsupportedShape)
    if isinstance(exc, DecompileTimeout):
        return "timeout", first_line(exc)
    if isinstance(exc, UnprovenError):
        verdict = getattr(exc, "verdict", None)
        return "refused", first_line(verdict.reason if verdict is not None else exc.reason, 2000)
    if isinstance(exc, (UnsupportedShape, UnsupportedInstruction)):
        text = first_line(exc.reason)
        if exc.opname and exc.opname not in text:
            text += " [%s]" % exc.opname
        return "unsupported", text
    if isinstance(exc, InternalError):
        inner = exc.cause if exc.cause is not None else exc
        return "internal", first_line(exc.reason) + _where(inner)
    return "internal", "%s: %s%s" % (type(exc).__name__, first_line(exc), _where(exc))


def measure_function(target, timeout):
    """``[qualname, first line, status, detail, names, seconds, long jumps]`` of one
    ``Target``; detail is how it was proven, or the reason it was not (``names``: see
    ``names_in``; ``long jumps``: see ``long_jumps``)."""
    from depyf.decompiler.api import Decompiler
    code = target.code
    start = time.perf_counter()
    try:
        with time_limit(timeout):
            d = Decompiler(code)
            d.decompile()
        status, detail = "proven", d.verdict.how if d.verdict is not None else "?"
    except (Exception, DecompileTimeout) as exc:  # every failure is a result here
        status, detail = classify(exc)
    seconds = time.perf_counter() - start
    names = names_in(detail, code) if status in VERDICT_KINDS else []
    return [target.qualname, code.co_firstlineno, status, detail, names, round(seconds, 5),
            long_jumps(code)]


def long_jumps(code):
    """Whether ``code`` or code nested in it has an ``EXTENDED_ARG`` (an argument over
    255: a jump over a long stretch of code, many names or constants): many of the
    shapes refused on 3.12+ are refused only past that size."""
    import dis
    ops = code.co_code[::2]
    return dis.opmap["EXTENDED_ARG"] in ops or any(
        long_jumps(c) for c in code.co_consts if hasattr(c, "co_code"))


def module_proof():
    """How whole modules are proven with the ``depyf`` imported: ``"decompile_module"``
    where it proves the text itself (and raises ``UnprovenError``), else ``"equivalent"``
    (the text compiled here and compared with the checker)."""
    import inspect
    from depyf.decompiler.modules import decompile_module
    params = inspect.signature(decompile_module).parameters
    return "decompile_module" if "allow_unproven" in params else "equivalent"


def prove_module(code, path):
    """``(status, detail)`` of the whole-module round trip of ``code``: decompile it,
    compile the text, compare (``module_proof``: by ``decompile_module`` itself where it
    proves, else here)."""
    from depyf.decompiler.modules import decompile_module
    from depyf.errors import DecompilationError, UnprovenError
    if module_proof() == "decompile_module":
        try:
            decompile_module(code)
        except UnprovenError as exc:
            verdict = getattr(exc, "verdict", None)
            return "unproven", first_line(verdict.reason if verdict is not None else exc.reason,
                                          2000)
        except DecompilationError as exc:
            return "error", "%s: %s" % (type(exc).__name__, classify(exc)[1])
        return "proven", "decompile_module"
    try:
        from depyf.equivalence import equivalent
    except ImportError:  # before it moved out of depyf.verify
        from depyf.verify.equivalence import equivalent
    try:
        text = decompile_module(code)
    except DecompilationError as exc:
        return "error", "%s: %s" % (type(exc).__name__, classify(exc)[1])
    try:
        recompiled = compile(text, path, "exec", flags=code.co_flags & FUTURE_FLAGS,
                             dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return "no-compile", "%s: %s" % (type(exc).__name__, first_line(exc))
    verdict = equivalent(code, recompiled, compare_name=False)
    if verdict:
        return "proven", verdict.how
    return "unproven", first_line(verdict.reason, 2000)


def measure_module(code, path, timeout):
    """``[status, detail, names, seconds]`` of ``prove_module`` under a time limit."""
    start = time.perf_counter()
    try:
        with time_limit(timeout):
            status, detail = prove_module(code, path)
    except (Exception, DecompileTimeout) as exc:
        status, detail = ("timeout" if isinstance(exc, DecompileTimeout) else "error",
                          "%s: %s%s" % (type(exc).__name__, first_line(exc), _where(exc)))
    seconds = time.perf_counter() - start
    names = names_in(detail, code) if "module " + status in VERDICT_KINDS else []
    return [status, detail, names, round(seconds, 4)]


def measure_file(path, root, timeout, module_timeout, functions=True, modules=True):
    """One file: ``{"module", "skipped"}`` when the running Python cannot compile it, else
    ``{"module", "functions": [...], "whole": [...] or None}``."""
    name = module_name(path, root)
    try:
        with open(path, "rb") as fh:
            source = fh.read().decode("utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = compile(source, path, "exec", dont_inherit=True)
            defs = corpus.def_positions(source)
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
        return {"module": name, "skipped": "%s: %s" % (type(exc).__name__, first_line(exc))}
    record = {"module": name, "functions": [], "whole": None,
              "future_annotations": bool(code.co_flags & FUTURE_ANNOTATIONS)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if functions:
            for target in corpus.iter_targets(name, code, defs=defs):
                record["functions"].append(measure_function(target, timeout))
        if modules:
            record["whole"] = measure_module(code, path, module_timeout)
    return record


def measure(root, packages, timeout=20.0, module_timeout=120.0, functions=True, modules=True,
            progress=None):
    """The run's JSON object: ``{"version", "python", "root", "packages": {name: [file
    records]}, ...}`` for each of ``packages`` under ``root``."""
    started = time.perf_counter()
    import depyf
    out = {"version": VERSION, "python": sys.version.split()[0], "root": os.path.abspath(root),
           "depyf": os.path.dirname(os.path.abspath(depyf.__file__)),
           "depyf_commit": git_commit(os.path.dirname(os.path.abspath(depyf.__file__))),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "module_proof": module_proof() if modules else None,
           "timeout": timeout, "module_timeout": module_timeout, "packages": {}}
    for package in expand_packages(root, packages):
        files = package_files(root, package)
        records = out["packages"][package] = []
        for i, path in enumerate(files):
            records.append(measure_file(path, root, timeout, module_timeout, functions, modules))
            if progress and (i + 1) % 25 == 0:
                progress("%s %s: %d/%d files, %.0f s" % (VERSION, package, i + 1, len(files),
                                                         time.perf_counter() - started))
        if progress:
            progress("%s %s: %d files done, %.0f s" % (VERSION, package, len(files),
                                                       time.perf_counter() - started))
    out["wall_seconds"] = round(time.perf_counter() - started, 2)
    return out


# ---------------------------------------------------------------- summaries


def summarize(run):
    """Rows ``{version, package, functions, proven, ...}`` per package of one run."""
    rows = []
    for package, records in run["packages"].items():
        row = {"version": run["version"], "package": package, "files": len(records),
               "skipped": sum(1 for r in records if "skipped" in r), "functions": 0,
               "seconds": 0.0, "slowest": (0.0, ""), "how": {}}
        row.update((s, 0) for s in STATUSES)
        row.update(("module " + s, 0) for s in MODULE_STATUSES)
        row["module seconds"] = 0.0
        for r in records:
            for qualname, _, status, detail, _, seconds in (f[:6] for f in r.get("functions", ())):
                row["functions"] += 1
                row[status] += 1
                row["seconds"] += seconds
                if status == "proven":
                    row["how"][detail] = row["how"].get(detail, 0) + 1
                if seconds > row["slowest"][0]:
                    row["slowest"] = (seconds, "%s:%s" % (r["module"], qualname))
            if r.get("whole"):
                row["module " + r["whole"][0]] += 1
                row["module seconds"] += r["whole"][3]
        rows.append(row)
    return rows


def percent(part, whole):
    return "%.1f" % (100.0 * part / whole) if whole else "-"


def function_table(rows):
    head = ("| Python | package | files (skipped) | functions | proven % | refused | "
            "unsupported | internal | timeouts | total s | slowest |")
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        lines.append("| %s | %s | %d (%d) | %d | %s | %d | %d | %d | %d | %.1f | %.2f s %s |" % (
            r["version"], r["package"], r["files"], r["skipped"], r["functions"],
            percent(r["proven"], r["functions"]), r["refused"], r["unsupported"],
            r["internal"], r["timeout"], r["seconds"], r["slowest"][0], r["slowest"][1]))
    return "\n".join(lines)


def module_table(rows):
    head = ("| Python | package | modules | proven % | unproven | no-compile | error | timeouts "
            "| total s |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        n = sum(r["module " + s] for s in MODULE_STATUSES)
        lines.append("| %s | %s | %d | %s | %d | %d | %d | %d | %.1f |" % (
            r["version"], r["package"], n, percent(r["module proven"], n), r["module unproven"],
            r["module no-compile"], r["module error"], r["module timeout"], r["module seconds"]))
    return "\n".join(lines)


def failures(run):
    """``(kind, module:qualname, cause, reason, facts)`` of every item not proven in one
    run; ``facts``: ``"future"`` (its module has ``from __future__ import annotations``),
    ``"long"`` (``long_jumps``; unknown for a module)."""
    for package, records in run["packages"].items():
        for r in records:
            if "skipped" in r:
                yield "skipped", r["module"], cause("skipped", r["skipped"]), r["skipped"], ()
                continue
            future = ("future",) if r.get("future_annotations") else ()
            for f in r["functions"]:
                qualname, _, status, detail, names = f[:5]
                if status != "proven":
                    facts = future + (("long",) if f[6:] and f[6] else ())
                    yield (status, "%s:%s" % (r["module"], qualname), cause(status, detail, names),
                           detail, facts)
            whole = r.get("whole")
            if whole and whole[0] != "proven":
                kind = "module " + whole[0]
                yield (kind, "%s:<module>" % r["module"], cause(kind, whole[1], whole[2]),
                       whole[1], future)


def cause_table(runs, examples=3):
    """Causes ranked by count over all runs: ``| kind | cause | count | per version |
    future | long | examples |`` (how many are in modules with ``from __future__ import
    annotations``, how many have ``long_jumps``)."""
    found = {}
    for run in runs:
        for kind, where, why, _, facts in failures(run):
            entry = found.setdefault((kind, why), {"count": 0, "versions": {}, "examples": [],
                                                   "future": 0, "long": 0})
            entry["count"] += 1
            entry["future"] += "future" in facts
            entry["long"] += "long" in facts
            entry["versions"][run["version"]] = entry["versions"].get(run["version"], 0) + 1
            if len(entry["examples"]) < examples and where not in entry["examples"]:
                entry["examples"].append(where)
    lines = ["| kind | cause | count | per version | future | long | examples |",
             "|---|---|---|---|---|---|---|"]
    for (kind, why), e in sorted(found.items(), key=lambda kv: (-kv[1]["count"], kv[0])):
        per = " ".join("%s:%d" % kv for kv in sorted(e["versions"].items(), key=_vkey))
        lines.append("| %s | %s | %d | %s | %d | %d | %s |" % (
            kind, why.replace("|", "\\|"), e["count"], per, e["future"], e["long"],
            ", ".join(e["examples"])))
    return "\n".join(lines)


def _vkey(item):
    return [int(x) for x in item[0].split(".")]


def bugs(runs):
    """Every internal error and timeout, one line each (with a module's error that is not
    an unsupported shape or instruction: the checker's): depyf's bugs, listed by name."""
    lines = []
    for run in runs:
        for kind, where, _, reason, _ in failures(run):
            if kind in ("internal", "timeout", "module timeout") or kind == "module error" \
                    and not reason.startswith(("UnsupportedShape", "UnsupportedInstruction")):
                lines.append("%s %s %s: %s" % (run["version"], kind, where, reason))
    return "\n".join(lines) or "(none)"


def print_report(runs, out=sys.stdout):
    runs = sorted(runs, key=lambda r: _vkey((r["version"],)))
    rows = [row for run in runs for row in summarize(run)]
    print("Functions\n\n" + function_table(rows) + "\n", file=out)
    hows = ["%s %s: %s" % (r["version"], r["package"], ", ".join(
        "%s %d" % kv for kv in sorted(r["how"].items()))) for r in rows]
    print("Proven by\n\n" + "\n".join(hows) + "\n", file=out)
    print("Whole modules\n\n" + module_table(rows) + "\n", file=out)
    print("Causes\n\n" + cause_table(runs) + "\n", file=out)
    print("Internal errors and timeouts\n\n" + bugs(runs), file=out)


def git_commit(folder):
    """The commit checked out at ``folder`` (short hash, ``+`` when files differ), or None."""
    try:
        head = subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=30)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", folder, "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=30)
        return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def package_version(root):
    """``__version__`` of the package at ``root`` as its ``version.py`` spells it, or None."""
    try:
        with open(os.path.join(root, "version.py")) as fh:
            found = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", fh.read(), re.M)
    except OSError:
        return None
    return found.group(1) if found else None


def totals_table(runs):
    """One row per run: every package together (functions and whole modules)."""
    lines = ["| Python | functions | proven % | not proven | internal | modules | proven % | "
             "not proven | errors |", "|" + "---|" * 9]
    for run in runs:
        rows = summarize(run)
        n = sum(r["functions"] for r in rows)
        ok = sum(r["proven"] for r in rows)
        m = sum(r["module " + s] for r in rows for s in MODULE_STATUSES)
        mok = sum(r["module proven"] for r in rows)
        lines.append("| %s | %d | %s | %d | %d | %d | %s | %d | %d |" % (
            run["python"], n, percent2(ok, n), n - ok, sum(r["internal"] for r in rows), m,
            percent2(mok, m), m - mok, sum(r["module error"] for r in rows)))
    return "\n".join(lines)


def percent2(part, whole):
    return "%.2f" % (100.0 * part / whole) if whole else "-"


def markdown_page(runs, command, title="Torch's own source as a decompiler corpus"):
    """The Markdown page of ``runs``: what was measured and how, the tables."""
    runs = sorted(runs, key=lambda r: _vkey((r["version"],)))
    rows = [row for run in runs for row in summarize(run)]
    first = runs[0]
    version = package_version(first["root"])
    commits = sorted({str(r.get("depyf_commit")) for r in runs})
    dates = sorted({r.get("date", "?") for r in runs})
    packages = ", ".join("`%s`" % p for p in first["packages"])
    out = ["# %s" % title, "",
           "Generated by `benchmarks/package_corpus.py` (do not edit by hand); regenerate with:",
           "", "```", command, "```", "",
           "- measured: %s; Python %s" % (", ".join(dates), ", ".join(r["python"] for r in runs)),
           "- package: `%s`%s, sub-packages %s (each file compiled by the running Python from "
           "its text, never imported)" % (os.path.basename(os.path.normpath(first["root"])),
                                           " %s" % version if version else "", packages),
           "- depyf commit: %s; time limit %s s per function, %s s per module (proven by `%s`)"
           % (", ".join(commits), first["timeout"], first["module_timeout"],
              first.get("module_proof") or "-"),
           ] + ["- Python %s: what was not proven measured again (`--retry`) on %s with depyf %s"
                % (r["python"], x["date"], x["depyf_commit"]) for r in runs
                for x in r.get("retried", ())] + [
           "- functions: every def, method, and lambda/comprehension outside a def through "
           "`depyf.decompile` (proven, refused, unsupported, internal error, timeout); modules: "
           "each file through `decompile_module`, proven as a whole", "",
           "## Totals", "", totals_table(runs), "",
           "## Functions per package", "", function_table(rows), "",
           "## Whole modules per package", "", module_table(rows), "",
           "## What is not proven, by cause", "",
           "`future`: in a module with `from __future__ import annotations`; `long`: the code "
           "has an `EXTENDED_ARG` (see the script's docstring).", "",
           cause_table(runs), "",
           "## Internal errors and timeouts", "", "```", bugs(runs), "```", ""]
    return "\n".join(out)


def write_markdown(runs, path, argv):
    command = "python benchmarks/package_corpus.py " + " ".join(argv)
    with open(path, "w") as fh:
        fh.write(markdown_page(runs, command))


def retry(run, timeout=None, module_timeout=None, progress=None):
    """Measure again what ``run`` (a saved run of this Python's version) did not prove:
    its functions and modules not proven, in place. Returns how many were measured."""
    if run["version"] != VERSION:
        raise ValueError("a %s run retried with Python %s" % (run["version"], VERSION))
    timeout = timeout or run["timeout"]
    module_timeout = module_timeout or run["module_timeout"]
    done = 0
    for package, records in run["packages"].items():
        for r in records:
            todo = [k for k, f in enumerate(r.get("functions", ())) if f[2] != "proven"]
            whole = r.get("whole")
            if not todo and not (whole and whole[0] != "proven"):
                continue
            path = module_path(run["root"], r["module"])
            with open(path, "rb") as fh:
                source = fh.read().decode("utf-8")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                code = compile(source, path, "exec", dont_inherit=True)
                targets = {t.qualname: t for t in corpus.iter_targets(
                    r["module"], code, defs=corpus.def_positions(source))}
                for k in todo:
                    old = r["functions"][k]
                    if old[0] in targets:
                        r["functions"][k] = measure_function(targets[old[0]], timeout)
                        done += 1
                if whole and whole[0] != "proven":
                    r["whole"] = measure_module(code, path, module_timeout)
                    done += 1
            if progress:
                progress("%s: %s measured again" % (VERSION, r["module"]))
    import depyf
    run.setdefault("retried", []).append({
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "items": done,
        "depyf_commit": git_commit(os.path.dirname(os.path.abspath(depyf.__file__)))})
    return done


def module_path(root, name):
    """The file of module ``name`` (dotted, counted from the folder above ``root``)."""
    parts = name.split(".")[1:]
    path = os.path.join(root, *parts)
    return path + ".py" if os.path.isfile(path + ".py") else os.path.join(path, "__init__.py")


def write_failures(run, path):
    with open(path, "w") as fh:
        for kind, where, why, reason, _ in failures(run):
            fh.write("%s\t%s\t%s\t%s\t%s\n" % (run["version"], where, kind, why, reason))


# ---------------------------------------------------------------- several interpreters


def pyenv_python(version):
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python"))
    found.sort(key=lambda p: [int(x) for x in p.split(os.sep)[-3].split(".") if x.isdigit()])
    return found[-1] if found else None


def drive(args, argv):
    """Run this script under each of ``--versions``, one after the other (with the
    ``PYTHONPATH`` given, else this checkout's depyf); merge."""
    tmp = tempfile.mkdtemp(prefix="package-corpus-")
    runs = []
    for version in args.versions.split(","):
        python = args.python.get(version) or pyenv_python(version)
        if python is None:
            print("no interpreter for %s (give --python %s=PATH)" % (version, version),
                  file=sys.stderr)
            continue
        json_path = (args.json or os.path.join(tmp, "run-{version}.json")).replace(
            "{version}", version)
        cmd = [python, os.path.abspath(__file__)] + _child_args(argv) + ["--json", json_path]
        if args.failures:
            cmd += ["--failures", args.failures.replace("{version}", version)]
        env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH") or REPO)
        print("running %s" % " ".join(cmd), file=sys.stderr, flush=True)
        proc = subprocess.run(cmd + ["--no-table"], env=env)
        if proc.returncode != 0 or not os.path.exists(json_path):
            print("%s failed (exit %d)" % (version, proc.returncode), file=sys.stderr)
            continue
        with open(json_path) as fh:
            runs.append(json.load(fh))
    if runs:
        if args.markdown:
            write_markdown(runs, args.markdown, argv)
        print_report(runs)
    return 0 if runs else 1


def _child_args(argv):
    """``argv`` without the options the driver sets per child."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=")[0]
        if name in ("--versions", "--json", "--failures", "--python", "--markdown"):
            skip = "=" not in arg
            continue
        out.append(arg)
    return out


def default_root():
    """torch's folder: the running Python's, else the one of this checkout's nox venv."""
    import importlib.util
    spec = importlib.util.find_spec("torch") if "torch" not in sys.modules else None
    if spec is not None and spec.submodule_search_locations:
        return list(spec.submodule_search_locations)[0]
    found = sorted(glob.glob(os.path.join(REPO, ".nox", "torch", "lib", "python*",
                                          "site-packages", "torch")))
    return found[-1] if found else None


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", help="package folder (default: torch's)")
    p.add_argument("--packages", help="comma-separated sub-packages of --root ('.': all of "
                   "it, '*': each sub-package); default %s for torch, '.' otherwise"
                   % ",".join(TORCH_PACKAGES))
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per function")
    p.add_argument("--module-timeout", type=float, default=120.0, help="seconds per module")
    p.add_argument("--no-functions", action="store_true", help="whole modules only")
    p.add_argument("--no-modules", action="store_true", help="functions only")
    p.add_argument("--json", help="write the run here ({version}: the Python's 3.X)")
    p.add_argument("--failures", help="write the worklist of what is not proven here")
    p.add_argument("--versions", help="run under each pyenv interpreter, e.g. 3.10,3.13")
    p.add_argument("--python", action="append", default=[], metavar="3.X=PATH",
                   help="interpreter for one of --versions (default: pyenv's)")
    p.add_argument("--report", nargs="+", metavar="JSON", help="print the tables of saved runs")
    p.add_argument("--markdown", metavar="PAGE.md", help="write the tables as a Markdown page")
    p.add_argument("--retry", metavar="JSON", help="measure again what a saved run of this "
                   "Python did not prove; write the run to --json")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--no-table", action="store_true", help="no tables on stdout")
    args = p.parse_args(argv)
    args.python = dict(item.split("=", 1) for item in args.python)
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.report:
        runs = []
        for path in args.report:
            with open(path) as fh:
                runs.append(json.load(fh))
            if args.failures:  # the worklist again, with the causes as grouped now
                write_failures(runs[-1], args.failures.replace("{version}", runs[-1]["version"]))
        if args.markdown:
            write_markdown(runs, args.markdown, argv)
        print_report(runs)
        return 0
    if args.retry:
        with open(args.retry) as fh:
            run = json.load(fh)
        progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
        retry(run, progress=progress)
        if args.json:
            with open(args.json.replace("{version}", VERSION), "w") as fh:
                json.dump(run, fh, indent=0)
        if args.failures:
            write_failures(run, args.failures.replace("{version}", VERSION))
        if not args.no_table:
            print_report([run])
        return 0
    if args.versions:
        return drive(args, argv)
    root = args.root or default_root()
    if root is None or not os.path.isdir(root):
        print("no package folder %r (give --root)" % root, file=sys.stderr)
        return 2
    if args.packages:
        packages = args.packages.split(",")
    else:
        packages = TORCH_PACKAGES if os.path.basename(os.path.normpath(root)) == "torch" else ["."]
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    run = measure(root, packages, args.timeout, args.module_timeout, not args.no_functions,
                  not args.no_modules, progress)
    if args.json:
        with open(args.json.replace("{version}", VERSION), "w") as fh:
            json.dump(run, fh, indent=0)
    if args.failures:
        write_failures(run, args.failures.replace("{version}", VERSION))
    if args.markdown:
        write_markdown([run], args.markdown, argv)
    if not args.no_table:
        print_report([run])
    return 0


if __name__ == "__main__":
    sys.exit(main())
