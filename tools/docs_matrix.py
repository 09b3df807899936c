"""The torch matrix's measurement for tools/docs_tables.py (``torch-matrix``): a row per nox
session of the matrix (noxfile.py's TORCH_SMOKE on one torch release and Python), made from
the result file the smoke tests write where DEPYF_TORCH_RESULT names one
(tests/torch_debug/conftest.py), else read from the session's output."""
import datetime
import glob
import json
import os
import re
import subprocess
import sys

from docs_records import REPO, _load_json, _vkey


# ---- torch-matrix: the nox smoke sessions (noxfile.py's TORCH_SMOKE) ----------------------

OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error")


def matrix_run(out_dir, extra):
    """``record torch-matrix -- SESSION [SESSION...] [-- NOX ARGS]``: each ``nox -s SESSION``
    in turn, its output kept as OUT/SESSION.log and its result file as OUT/SESSION.json."""
    sessions = [a for a in extra if not a.startswith("-")]
    if not sessions:
        sys.exit("record torch-matrix -- SESSION [SESSION ...]  (e.g. torch-2.15 torch-py3.12)")
    status = 0
    for session in sessions:
        log = os.path.join(out_dir, session + ".log")
        env = dict(os.environ, DEPYF_TORCH_RESULT=os.path.join(out_dir, session + ".json"))
        start = datetime.datetime.now(datetime.timezone.utc)
        with open(log, "w") as f:
            proc = subprocess.Popen([sys.executable, "-m", "nox", "-s", session], cwd=REPO, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in proc.stdout:
                sys.stdout.write(line)
                f.write(line)
            proc.wait()
        seconds = (datetime.datetime.now(datetime.timezone.utc) - start).total_seconds()
        with open(os.path.join(out_dir, session + ".meta"), "w") as f:
            json.dump({"session_seconds": seconds, "exit_status": proc.returncode}, f)
        status = status or proc.returncode
    return status


def matrix_reduce(out_dir):
    rows = []
    for log in sorted(glob.glob(os.path.join(out_dir, "*.log"))):
        session = os.path.basename(log)[:-4]
        meta = os.path.join(out_dir, session + ".meta")
        meta = _load_json(meta) if os.path.exists(meta) else {}
        row = matrix_row(log, os.path.join(out_dir, session + ".json"), meta)
        if row is None:
            print("%s: no test results in its output, no row" % session, file=sys.stderr)
            continue
        row["command"] = "nox -s %s" % session
        rows.append(row)
    return rows


SUMMARY_LINE = re.compile(r"^=* ?(\d+ (?:passed|failed|skipped|xfailed|xpassed|errors?|deselected)\b.*?) "
                          r"in ([\d.]+)s\b", re.M)
VERSIONS = re.compile(r"^=+ torch (\S+), Python (\S+) =+$", re.M)
FIGURES = [("decompiled_and_running", "fell_back",
            re.compile(r"transformed/resume code objects: (\d+) decompiled and running, (\d+) fell back")),
           ("decompile_proven", "decompile_generated",
            re.compile(r"depyf.decompile on Dynamo's generated code objects: (\d+) of (\d+) proven"))]
NOX_END = re.compile(r"nox > Session (\S+) (was successful|failed|aborted)(?: in (.*?))?\.?$", re.M)


def matrix_row(log, result=None, meta=None):
    """A session's row: from the result file the smoke tests wrote (DEPYF_TORCH_RESULT) when
    there is one, else read from the session's output (pytest's last line, the summary
    section conftest prints, nox's last line); None when pytest did not finish."""
    text = open(log, encoding="utf-8", errors="replace").read()
    meta = meta or {}
    session = os.path.basename(log)[:-4]
    row = {"session": session, "torch": None, "python": None,
           "outcomes": dict.fromkeys(OUTCOMES, 0), "figures": {}, "test_seconds": None,
           "session_seconds": meta.get("session_seconds"), "nox": None}
    if result and os.path.exists(result):
        data = _load_json(result)
        row.update(torch=data["torch"], python=data["python"], outcomes=data["outcomes"],
                   figures=data["figures"], test_seconds=data["test_seconds"])
    else:
        found = VERSIONS.findall(text)
        if found:
            row["torch"], row["python"] = found[-1]
        last = SUMMARY_LINE.findall(text)
        if not last:  # pytest never finished (an install failed, the session still runs)
            return None
        if last:
            for count, what in re.findall(r"(\d+) (\w+)", last[-1][0]):
                what = {"errors": "error", "warnings": None, "deselected": None}.get(what, what)
                if what in row["outcomes"]:
                    row["outcomes"][what] = int(count)
            row["test_seconds"] = float(last[-1][1])
        for a, b, pattern in FIGURES:
            m = pattern.findall(text)
            if m:
                row["figures"][a], row["figures"][b] = int(m[-1][0]), int(m[-1][1])
    end = NOX_END.findall(text)
    row["nox"] = end[-1][1] if end else "did not finish"
    if row["session_seconds"] is None:
        row["session_seconds"] = _runner_seconds(log, session)
    if end and end[-1][2] and row["session_seconds"] is None:
        row["session_seconds"] = _nox_duration(end[-1][2])  # nox rounds to minutes
    return row


def _runner_seconds(log, session):
    """A session's duration from the ``summary`` file beside its log, when a runner wrote
    one (lines ``SESSION rc=N SECONDSs HH:MM``)."""
    path = os.path.join(os.path.dirname(log), "summary")
    if not os.path.exists(path):
        return None
    found = re.findall(r"^%s rc=\d+ (\d+)s" % re.escape(session), open(path).read(), re.M)
    return float(found[-1]) if found else None


def _nox_duration(text):
    seconds = 0.0
    for n, unit in re.findall(r"([\d.]+) (hour|minute|second)", text):
        seconds += float(n) * {"hour": 3600, "minute": 60, "second": 1}[unit]
    return seconds or None


def matrix_key(row):
    return row["session"]


def _count(a, b, figures, reverse=False):
    if a not in figures:
        return ""
    return "%d of %d" % (figures[a], figures[a] + figures[b]) if not reverse else \
        "%d of %d" % (figures[a], figures[b])


def _minutes(seconds):
    return "%.0f" % (seconds / 60.0) if seconds else ""


def matrix_summary(data):
    """The README's short form of the matrix: per Python, the torch releases run (a
    release that failed or fell back says so), and when."""
    cells, dates = {}, {}
    for r in sorted(data["rows"], key=lambda r: _vkey(r["torch"] or r["session"])[:3]):
        python = ".".join((r["python"] or "?").split(".")[:2])
        notes = [] if r["nox"] == "was successful" else ["failed"]
        if r["figures"].get("fell_back"):
            notes.append("%s fell back" % _count("fell_back", "decompiled_and_running", r["figures"]))
        if r["session"] == "torch":
            notes.append("full suite")
        cells.setdefault(python, []).append(
            (r["torch"] or "?").split("+")[0] + (" (%s)" % ", ".join(notes) if notes else ""))
        dates.setdefault(python, set()).add(r["recorded"]["date"])
    lines = ["| Python | torch releases whose session passed with no transformed code falling back, "
             "unless said | run on |", "|---|---|---|"]
    for python in sorted(cells, key=_vkey):
        days = sorted(dates[python])
        lines.append("| %s | %s | %s |" % (python, ", ".join(cells[python]),
                                           days[0] if len(days) == 1 else "%s to %s" % (days[0], days[-1])))
    return lines


def matrix_table(rows, data):
    rows = sorted(rows, key=lambda r: ([-x for x in _vkey(r["torch"] or r["session"])[:3]], r["python"] or ""))
    lines = ["| torch | Python | session | result | passed | failed | skipped | xfailed | fell back "
             "| `decompile` proven | tests (min) | session (min) | date | depyf |",
             "|---|---|---|---|---:|---:|---:|---:|---|---|---:|---:|---|---|"]
    for r in rows:
        o, f = r["outcomes"], r["figures"]
        result = {"was successful": "**passed**", "failed": "failed"}.get(r["nox"], r["nox"])
        lines.append("| %s | %s | `%s` | %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |" % (
            r["torch"] or "?", r["python"] or "?", r["session"], result, o["passed"],
            o["failed"] + o.get("error", 0), o["skipped"], o["xfailed"],
            _count("fell_back", "decompiled_and_running", f),
            _count("decompile_proven", "decompile_generated", f, reverse=True),
            _minutes(r["test_seconds"]), _minutes(r["session_seconds"]),
            r["recorded"]["date"], r["recorded"]["depyf"]))
    return lines
