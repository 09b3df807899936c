"""The measurements of tools/docs_tables.py beyond the stdlib round trip and the checker's
mutants: how each benchmark is run, what of its output is kept in docs/data/NAME.json and
the table a page shows.

Two kinds:

* whole: ``record NAME`` replaces the data file (``compile-overhead``, ``deep-model``);
* per row (``KEY`` below): a row stands for one Python version, one mode or one torch
  release and carries its own date, depyf commit, machine and command; ``record`` (or
  ``import`` of a result file a run wrote earlier) replaces the rows with the same key and
  keeps the others (``cpython-tests``: mode and Python; ``torch-source-corpus``: Python;
  ``torch-matrix``: nox session, in docs_matrix.py).
"""
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _minor(version):
    return ".".join(str(version).split(".")[:2])


def _vkey(text):
    return [int(x) for x in re.findall(r"\d+", str(text))]


# ---- compile-overhead: benchmarks/compile_overhead.py -------------------------------------

def overhead_reduce(out_dir):
    path = os.path.join(out_dir, "compile-overhead.json")
    if not os.path.exists(path):
        return None
    data = _load_json(path)
    return {"versions": "torch %s, Python %s" % (data["torch"], data["python"]),
            "load": "%s at the start, %s at the end" % (data["load_start"], data.get("load_end", "?")),
            "rows": data["rows"], "backends": data["backends"]}


def overhead_table(rows, data):
    counted = all("plain_full_gc" in r for r in rows)  # records before the count have none
    lines = ["| workload | backend | runs | plain (s) | with prepare_debug (s) | ratio |"
             + (" full collections |" if counted else ""),
             "|---|---|---:|---:|---:|---:|" + ("---:|" if counted else "")]
    for r in rows:
        lines.append("| %s | %s | %d | %.3f | %.3f | %.2f |" % (
            r["workload"], r["backend"], r["runs"], r["plain_seconds"], r["depyf_seconds"], r["ratio"])
            + (" %g / %g |" % (r["plain_full_gc"], r["depyf_full_gc"]) if counted else ""))
    lines.append("")
    lines.append("Median ratio per backend: %s. Load average of the machine: %s." % ("; ".join(
        "%s %.2f over %d workloads (target <= %s: %s)" % (
            b["backend"], b["median_ratio"], b["workloads"], b["target"],
            "met" if b["target"] and b["median_ratio"] <= b["target"] else "not met")
        for b in data["backends"]), data["load"]))
    if counted:
        lines.append("Full collections: the median count of the cyclic collector's full "
                     "collections in the timed part, plain / with prepare_debug.")
    return lines


def _benchmark(name):
    """The module ``benchmarks/<name>.py`` (for the functions its records are read with)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "benchmarks", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- deep-model: benchmarks/deep_model.py -------------------------------------------------

def deep_reduce(out_dir):
    path = os.path.join(out_dir, "deep-model.json")
    if not os.path.exists(path):
        return None
    data = _load_json(path)
    return {"versions": "torch %s, transformers %s, Python %s" % (
                data["torch"], data.get("transformers", "?"), data["python"]),
            "load": "%s at the start, %s at the end" % (data["load_start"], data.get("load_end", "?")),
            "slope_ms_per_1000": data.get("slope_ms_per_1000_instructions", data.get("slope_ms_per_1000")),
            "targets": data.get("targets", {}), "jobs": data.get("jobs", 1), "rows": data["rows"]}


def deep_table(rows, data):
    deep = _benchmark("deep_model")
    lines = ["| layers | backend | runs | plain (s) | with prepare_debug (s) | ratio | CPU ratio "
             "| alternations' ratios | depyf's hook (s) | transformed code objects (instructions) |",
             "|---:|---|---:|---:|---:|---:|---:|---|---:|---|"]
    for r in rows:
        own = deep.alternation_ratios(r)  # (rows recorded before the times were kept: none)
        lines.append("| %d | %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %.3f | %s |" % (
            r["layers"], r["backend"], r["runs"], r["plain_seconds"], r["depyf_seconds"], r["ratio"],
            r["cpu_ratio"], "%.2f-%.2f" % (min(own), max(own)) if own else "-", r["hook_seconds"],
            ", ".join("`%s` %d" % (c["name"], c["instructions"]) for c in r["per_code"])))
    lines.append("")
    slope = data.get("slope_ms_per_1000")
    targets = data.get("targets") or {}
    verdicts = ["%d layers %s %s" % (r["layers"], r["backend"],
                                     "met" if r["ratio"] <= targets.get(r["backend"], 0) else "not met")
                for r in rows]
    jobs = data.get("jobs", 1)
    lines.append("depyf's hook time against the code object's size: %s. Targets (ratio <= %s): %s. "
                 "Load average of the machine: %s.%s" % (
                     "%.0f ms per 1000 instructions" % slope if slope is not None else "one size only",
                     ", ".join("%s %s" % kv for kv in sorted(targets.items())),
                     "; ".join(verdicts) or "-", data["load"],
                     " %d alternations ran at a time." % jobs if jobs > 1 else ""))
    return lines


# ---- cpython-tests: python -m depyf.verify.cpython_tests --json ---------------------------

def cpython_rows(path):
    """The rows of a ``--json`` file of ``depyf.verify.cpython_tests`` (one per mode)."""
    data = _load_json(path)
    return [cpython_row(run) for run in data.get("runs", [data])]


def cpython_row(data):
    t = data["totals"]
    modules = data["modules"]
    changed = [(m["name"], m["status"], len(m.get("changed") or ())) for m in modules if m.get("changed")]
    return {"mode": data["mode"], "python": data["python"], "modules": t["modules"],
            "proven": t["proven"], "refused": t["refused"],
            "unreadable": sum(1 for m in modules if m["status"] == "unreadable"),
            "internal_error": t.get("internal_error", 0), "tests": t["tests"], "same": t["same"],
            "changed": t["changed"], "changed_on_proven": sum(n for _, s, n in changed if s == "proven"),
            "changed_where": ["`%s` (%s) %d" % c for c in changed],
            "source_text_dependent": t["source_text_dependent"], "flaky": t.get("flaky", 0),
            "not_reached": t["not_reached"], "minutes": round(data["wall_seconds"] / 60.0),
            "not_proven": ["`%s` (%s)" % (m["name"], m["status"]) for m in modules
                           if m["status"] != "proven"]}


def cpython_key(row):
    return "%s %s" % (row["mode"], _minor(row["python"]))


def cpython_run(out_dir, extra):
    """``record cpython-tests -- [--python 3.X=PATH ...] [ARGS]``: a whole run per
    interpreter (this one without --python); ARGS go to each run (e.g. --mode language)."""
    pythons, rest, i = [], [], 0
    while i < len(extra):
        if extra[i] == "--python":
            pythons.append(extra[i + 1].split("=", 1)[1])
            i += 2
        else:
            rest.append(extra[i])
            i += 1
    if any(a.startswith(("--modules", "--ci", "--list", "--report")) for a in rest):
        sys.exit("cpython-tests records whole runs only (no --modules, --ci, --list, --report)")
    status = 0
    for n, python in enumerate(pythons or [sys.executable]):
        out = os.path.join(out_dir, "cpython-%d.json" % n)
        env = dict(os.environ, PYTHONPATH=REPO)
        proc = subprocess.run([python, "-m", "depyf.verify.cpython_tests", "--json", out] + rest,
                              cwd=REPO, env=env)
        with open(out + ".command", "w") as f:
            f.write(" ".join(["python", "-m", "depyf.verify.cpython_tests", "--json", "FILE"] + rest))
        status = status or proc.returncode
    return status


def cpython_reduce(out_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(out_dir, "cpython-*.json"))):
        for row in cpython_rows(path):
            if os.path.exists(path + ".command"):
                row["command"] = open(path + ".command").read()
            rows.append(row)
    return rows


def cpython_table(rows, data):
    out = []
    for mode in ("library", "language"):
        chosen = [r for r in rows if r["mode"] == mode]
        if not chosen:
            continue
        out += ["**%s mode**" % mode.capitalize(), "",
                "| Python | modules | proven | refused (unreadable) | internal errors | tests | same "
                "| changed (on proven text) | source-text dependent | flaky | not reached | minutes "
                "| date | depyf |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
        for r in chosen:
            out.append("| %s | %d | %d | %d (%d) | %d | %s | %s | %d (%d) | %d | %d | %d | %d | %s | %s |" % (
                r["python"], r["modules"], r["proven"], r["refused"], r["unreadable"],
                r["internal_error"], format(r["tests"], ","), format(r["same"], ","), r["changed"],
                r["changed_on_proven"], r["source_text_dependent"], r["flaky"], r["not_reached"],
                r["minutes"], r["recorded"]["date"], r["recorded"]["depyf"]))
        out += [""]
        for r in chosen:
            out += ["- Python %s: not proven: %s; changed outcomes: %s." % (
                r["python"], ", ".join(r["not_proven"]) or "none",
                ", ".join(r["changed_where"]) or "none")]
        out += [""]
    return out[:-1] if out else ["*Not measured yet.*"]


# ---- torch-source-corpus: benchmarks/package_corpus.py ------------------------------------

def corpus_row(path):
    """One Python version of a package_corpus ``--json`` run: its summary rows per package,
    what was not proven (with causes) and how it was measured."""
    pc = _benchmark("package_corpus")
    run = _load_json(path)
    return {"own": {"date": run.get("date", "")[:10] or None, "depyf": run.get("depyf_commit")},
            "python": run["python"], "version": run["version"],
            "package": os.path.basename(os.path.normpath(run["root"])),
            "package_version": pc.package_version(run["root"]) or _package_version_from_path(run["root"]),
            "timeout": run["timeout"], "module_timeout": run["module_timeout"],
            "module_proof": run.get("module_proof"), "retried": run.get("retried", []),
            "summary": pc.summarize(run),
            "not_proven": [list(f[:3]) + [f[3], list(f[4])] for f in pc.failures(run)]}


def _package_version_from_path(root):
    found = re.search(r"torch-([\w.+]+)\.dist-info", " ".join(glob.glob(os.path.join(root, "..", "torch-*.dist-info"))))
    return found.group(1) if found else None


def corpus_key(row):
    return _minor(row["python"])


def corpus_args(out_dir, extra):
    return ["--json", os.path.join(out_dir, "corpus-{version}.json"), "--no-table"] + extra


def corpus_reduce(out_dir):
    return [corpus_row(p) for p in sorted(glob.glob(os.path.join(out_dir, "corpus-*.json")), key=_vkey)]


def corpus_table(rows, data):
    pc = _benchmark("package_corpus")
    rows = sorted(rows, key=lambda r: _vkey(r["python"]))
    summary = [dict(s, slowest=tuple(s["slowest"])) for r in rows for s in r["summary"]]
    statuses = ("proven", "unproven", "no-compile", "error", "timeout")
    totals = ["| Python | functions | proven % | not proven | internal errors | modules | proven % "
              "| not proven | module errors | package | date | depyf |", "|" + "---|" * 12]
    for r in rows:
        s = r["summary"]
        n, ok = sum(x["functions"] for x in s), sum(x["proven"] for x in s)
        m = sum(x["module " + k] for x in s for k in statuses)
        mok = sum(x["module proven"] for x in s)
        totals.append("| %s | %d | %s | %d | %d | %d | %s | %d | %d | %s %s | %s | %s |" % (
            r["python"], n, pc.percent2(ok, n), n - ok, sum(x["internal"] for x in s), m,
            pc.percent2(mok, m), m - mok, sum(x["module error"] for x in s), r["package"],
            r["package_version"] or "", r["recorded"]["date"], r["recorded"]["depyf"]))
    retried = ["Python %s: what was not proven measured again (`--retry`) on %s with depyf %s." % (
        r["python"], x["date"], x["depyf_commit"]) for r in rows for x in r["retried"]]
    first = rows[0]
    out = ["Time limits: %s s per function, %s s per module (modules proven by `%s`)." % (
        first["timeout"], first["module_timeout"], first["module_proof"] or "-")]
    out += [""] + retried if retried else []
    out += ["", "**Totals**", "", *totals, "", "**Functions per package**", "",
            pc.function_table(summary), "", "**Whole modules per package**", "",
            pc.module_table(summary), "", "**What is not proven, by cause** (`future`: in a module "
            "with `from __future__ import annotations`; `long`: the code has an `EXTENDED_ARG`)", "",
            _cause_table(rows), "", "**Internal errors and timeouts**", "", "```", _bugs(rows), "```"]
    return "\n".join(out).split("\n")


def _cause_table(rows):
    found = {}
    for r in rows:
        for kind, where, why, _, facts in r["not_proven"]:
            e = found.setdefault((kind, why), {"count": 0, "versions": {}, "examples": [],
                                               "future": 0, "long": 0})
            e["count"] += 1
            e["future"] += "future" in facts
            e["long"] += "long" in facts
            e["versions"][r["version"]] = e["versions"].get(r["version"], 0) + 1
            if len(e["examples"]) < 3 and where not in e["examples"]:
                e["examples"].append(where)
    lines = ["| kind | cause | count | per version | future | long | examples |",
             "|---|---|---|---|---|---|---|"]
    for (kind, why), e in sorted(found.items(), key=lambda kv: (-kv[1]["count"], kv[0])):
        lines.append("| %s | %s | %d | %s | %d | %d | %s |" % (
            kind, why.replace("|", "\\|"), e["count"],
            " ".join("%s:%d" % kv for kv in sorted(e["versions"].items(), key=lambda kv: _vkey(kv[0]))),
            e["future"], e["long"], ", ".join("`%s`" % x for x in e["examples"])))
    return "\n".join(lines)


def _bugs(rows):
    lines = []
    for r in rows:
        for kind, where, _, reason, _ in r["not_proven"]:
            if kind in ("internal", "timeout", "module timeout") or kind == "module error" \
                    and not reason.startswith(("UnsupportedShape", "UnsupportedInstruction")):
                lines.append("%s %s %s: %s" % (r["version"], kind, where, re.sub(r":\d+ in ", " in ", reason)))
    return "\n".join(lines) or "(none)"
