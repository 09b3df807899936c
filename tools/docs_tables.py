"""The generated parts of the documentation: measurement tables and the CLI reference.

    python tools/docs_tables.py                 # rewrite every generated block from its data
    python tools/docs_tables.py --check         # exit 1 when a page differs from its data
    python tools/docs_tables.py record NAME [-- BENCHMARK ARGS...]
                                                # run NAME's benchmark, keep its results in
                                                # docs/data/NAME.json, rewrite the pages

A generated block sits between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``
in a page; nothing between the two is typed by hand. For a measurement, NAME's data file
``docs/data/NAME.json`` holds what the benchmark printed to its output file (reduced to the
figures shown), the command that made it, the date, the machine and the versions; the block
shows the table with those. ``cli`` is the argparse help of every ``depyf`` command.

Measurements (``record`` runs the benchmark with ``--out-dir`` in a temporary folder; the
arguments after ``--`` go to the benchmark, e.g. ``--python 3.8=PATH`` for an interpreter):

* ``stdlib-roundtrip``: ``benchmarks/stdlib_roundtrip.py`` (the whole corpus, each version)
* ``checker-mutation``: ``benchmarks/checker_mutation.py`` (mutants the checker refuses)
* ``compile-overhead``: ``benchmarks/compile_overhead.py`` (prepare_debug on the test workloads)
* ``deep-model``: ``benchmarks/deep_model.py`` (prepare_debug on a deep transformers model)

Measurements kept per row (tools/docs_records.py, tools/docs_matrix.py): each row holds
its own date, depyf commit, machine and command; ``record`` replaces the rows with the keys
it made and keeps the others, so one version or release can be measured again alone:

* ``cpython-tests``: ``python -m depyf.verify.cpython_tests --json`` (a row per mode and
  Python; ``-- --python 3.12=PATH --mode language``: which interpreters, which mode)
* ``torch-source-corpus``: ``benchmarks/package_corpus.py`` (a row per Python;
  ``-- --versions 3.10,3.13 --root SITE/torch``)
* ``torch-matrix``: ``nox -s SESSION`` of the torch matrix (a row per session;
  ``-- torch-2.15 torch-py3.12``), with DEPYF_TORCH_RESULT naming the result file the
  smoke tests write

    python tools/docs_tables.py import NAME FILE... [--date D] [--depyf REV] [--machine M]
                                                # rows from result files a run saved
                                                # (cpython-tests, torch-source-corpus: the
                                                # --json file; torch-matrix: the session's
                                                # output, e.g. nox -s torch-2.9 > torch-2.9.log)

An imported row's date is --date, else the one the file holds, else the file's time; its
commit is --depyf unless the file holds one (package_corpus's runs do).
"""
import argparse
import datetime
import glob
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

import docs_matrix
import docs_records

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "docs", "data")
BLOCK = re.compile(r"(<!-- generated: ([\w-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


# ---- measurements -------------------------------------------------------------------------

def _roundtrip_reduce(out_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(out_dir, "verify-*.json")),
                       key=lambda p: [int(x) for x in re.findall(r"\d+", os.path.basename(p))]):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        t = data["total"]
        rows.append({"python": data["python"], "objects": t["objects"],
                     "decompiled_pct": t["decompiled_pct"], "compiles_pct": t["compiles_pct"],
                     "equal_pct": t["equal_pct"], "proven_pct": t["proven_pct"],
                     "different": t["different"], "temp_names": t["temp_names"],
                     "slowest_seconds": t["slowest_seconds"]})
    return rows


def _roundtrip_table(rows, data=None):
    lines = ["| Python | code objects | decompiled % | compiles % | bytecode-equal % | proven % "
             "| behave differently | `__temp` names | slowest s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %d | %.2f | %.2f | %.2f | %.2f | %d | %d | %.3f |" % (
            r["python"], r["objects"], r["decompiled_pct"], r["compiles_pct"], r["equal_pct"],
            r["proven_pct"], r["different"], r["temp_names"], r["slowest_seconds"]))
    return lines


MUTATION_KINDS = ["swap", "move", "duplicate", "invert", "drop-else", "constant", "swap-args", "all"]


def _mutation_reduce(out_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(out_dir, "mutation-*.json")),
                       key=lambda p: [int(x) for x in re.findall(r"\d+", os.path.basename(p))]):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        rows.append({"python": data["python"], "settings": data["settings"],
                     "functions": data["functions"],
                     "per_kind": {k: {"mutants": data["per_kind"][k]["mutants"],
                                      "rejected": data["per_kind"][k]["rejected"]}
                                  for k in MUTATION_KINDS},
                     "accepted": ["%s %s.%s" % (o["kind"], o["module"], o["qualname"])
                                  for o in data["outcomes"] if o["status"] == "accepted"]})
    return rows


def _mutation_table(rows, data=None):
    lines = ["| Python | functions mutated | " + " | ".join(MUTATION_KINDS) + " |",
             "|---|---:|" + "---:|" * len(MUTATION_KINDS)]
    for r in rows:
        cells = []
        for kind in MUTATION_KINDS:
            c = r["per_kind"][kind]
            cells.append("%d/%d" % (c["rejected"], c["mutants"]))
        lines.append("| %s | %d | %s |" % (r["python"], r["functions"].get("mutated", 0), " | ".join(cells)))
    lines.append("")
    lines.append("Cells: refused / mutants. Accepted mutants (checker misses): %s." % (
        ", ".join(a for r in rows for a in r["accepted"]) or "none"))
    return lines


MEASUREMENTS = {
    "stdlib-roundtrip": {"benchmark": "benchmarks/stdlib_roundtrip.py",
                         "reduce": _roundtrip_reduce, "table": _roundtrip_table},
    "checker-mutation": {"benchmark": "benchmarks/checker_mutation.py",
                         "reduce": _mutation_reduce, "table": _mutation_table},
    "compile-overhead": {"benchmark": "benchmarks/compile_overhead.py",
                         "reduce": docs_records.overhead_reduce, "table": docs_records.overhead_table},
    "deep-model": {"benchmark": "benchmarks/deep_model.py",
                   "reduce": docs_records.deep_reduce, "table": docs_records.deep_table},
    "cpython-tests": {"benchmark": "-m depyf.verify.cpython_tests --json FILE",
                      "run": docs_records.cpython_run, "reduce": docs_records.cpython_reduce,
                      "table": docs_records.cpython_table, "key": docs_records.cpython_key,
                      "import": docs_records.cpython_rows},
    "torch-source-corpus": {"benchmark": "benchmarks/package_corpus.py",
                            "args": docs_records.corpus_args, "reduce": docs_records.corpus_reduce,
                            "table": docs_records.corpus_table, "key": docs_records.corpus_key,
                            "import": docs_records.corpus_row},
    "torch-matrix": {"benchmark": "-m nox -s", "run": docs_matrix.matrix_run,
                     "reduce": docs_matrix.matrix_reduce, "table": docs_matrix.matrix_table,
                     "key": docs_matrix.matrix_key, "import": docs_matrix.matrix_row},
}


def _machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return "%s, %d cores%s" % (platform.system(), os.cpu_count() or 0, ", " + model if model else "")


def _commit():
    """The checkout's commit; ``DEPYF_COMMIT`` names it where the run happens on a copy
    without git (a benchmark run on another machine)."""
    if os.environ.get("DEPYF_COMMIT"):
        return os.environ["DEPYF_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _write(name, data):
    os.makedirs(DATA, exist_ok=True)
    with open(os.path.join(DATA, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def _read(name):
    path = os.path.join(DATA, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _merge(name, rows):
    """Rows kept per key: the new ones replace those with the same key."""
    key = MEASUREMENTS[name]["key"]
    data = _read(name) or {"name": name, "rows": []}
    new = {key(r) for r in rows}
    data["rows"] = [r for r in data["rows"] if key(r) not in new] + rows
    data["rows"].sort(key=key)
    _write(name, data)


def record(name, extra):
    spec = MEASUREMENTS[name]
    out_dir = tempfile.mkdtemp(prefix="depyf-docs-%s-" % name)
    shown = ["python", spec["benchmark"]] + extra
    print("running: %s (results in %s)" % (" ".join(shown), out_dir), file=sys.stderr, flush=True)
    start = datetime.datetime.now(datetime.timezone.utc)
    commit = _commit()
    if "run" in spec:
        status = spec["run"](out_dir, extra)
    else:
        args = spec["args"](out_dir, extra) if "args" in spec else ["--out-dir", out_dir] + extra
        status = subprocess.run([sys.executable, os.path.join(REPO, spec["benchmark"])] + args,
                                cwd=REPO).returncode
    reduced = spec["reduce"](out_dir)
    if not reduced:
        sys.exit("%s wrote no results (exit status %d)" % (spec["benchmark"], status))
    stamp = {"command": " ".join(shown), "date": start.strftime("%Y-%m-%d"),
             "machine": _machine(), "depyf": commit, "exit_status": status}
    if "key" in spec:
        for row in reduced:
            row["recorded"] = dict(stamp)
            if row.get("command"):  # the command that made this row alone
                row["recorded"]["command"] = row.pop("command")
        _merge(name, reduced)
        return
    data = dict(name=name, **stamp)
    data.update(reduced if isinstance(reduced, dict) else {"rows": reduced})
    _write(name, data)


def import_files(name, argv):
    """Rows from result files a run wrote earlier (its date: --date, else the file's time)."""
    spec = MEASUREMENTS[name]
    p = argparse.ArgumentParser(prog="docs_tables.py import %s" % name)
    p.add_argument("files", nargs="+")
    p.add_argument("--date", help="when the run was made (default: the file's modification time)")
    p.add_argument("--depyf", default="unknown", help="the depyf commit that made it")
    p.add_argument("--machine", default="unknown")
    p.add_argument("--command", help="the command that made it")
    args = p.parse_args(argv)
    rows = []
    for path in args.files:
        found = spec["import"](path)
        if found is None:
            sys.exit("%s holds no finished run" % path)
        for row in found if isinstance(found, list) else [found]:
            own = row.pop("own", {})  # what the file says of itself (date, depyf commit)
            mtime = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
            row["recorded"] = {"command": args.command,
                               "date": args.date or own.get("date") or mtime.strftime("%Y-%m-%d"),
                               "machine": args.machine, "depyf": own.get("depyf") or args.depyf,
                               "source": os.path.basename(path)}
            rows.append(row)
    _merge(name, rows)


def _keyed_head(name, data):
    rows = data["rows"]
    commands = sorted({r["recorded"]["command"] for r in rows if r["recorded"].get("command")})
    commands = [re.sub(r"--python (3\.\d+)=\S+", r"--python \1=PATH", c) for c in commands]
    machines = sorted({r["recorded"]["machine"] for r in rows})
    imported = sorted({r["recorded"]["source"] for r in rows if r["recorded"].get("source")})
    return ["Each row is one run, with its date and depyf commit; `python tools/docs_tables.py "
            "record %s -- ARGS` measures a row again. Made by: %s. Machine: %s.%s" % (
                name, ", ".join("`%s`" % c for c in commands) or "-", "; ".join(machines),
                " Rows read from saved result files (`python tools/docs_tables.py import`): %s." % (
                    "; ".join(imported)) if imported else ""), ""]


def measurement_block(name):
    data = _read(name)
    if data is None or not data.get("rows"):
        return ["*Not measured yet:* `python tools/docs_tables.py record %s`." % name]
    if "key" in MEASUREMENTS[name]:
        return _keyed_head(name, data) + MEASUREMENTS[name]["table"](data["rows"], data)
    # an interpreter given by path is this machine's: shown by its version only
    command = re.sub(r"--python (3\.\d+)=\S+", r"--python \1=PATH", data["command"])
    head = ["Made by `%s` (recorded with `python tools/docs_tables.py record %s`) on %s, "
            "depyf %s, on %s; %s." % (
                command, name, data["date"], data["depyf"], data["machine"],
                data.get("versions") or "Python versions as in the first column"),
            ""]
    return head + MEASUREMENTS[name]["table"](data["rows"], data)


# ---- the command line's help --------------------------------------------------------------

def cli_block():
    os.environ["COLUMNS"] = "90"  # argparse wraps at the terminal's width
    sys.path.insert(0, REPO)
    from depyf.cli import build_parser

    parser = build_parser()
    out = ["```text", parser.format_help().rstrip(), "```"]
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in commands.choices.items():
        out += ["", "### depyf %s" % name, "", "```text", sub.format_help().rstrip(), "```"]
    return out


# ---- pages --------------------------------------------------------------------------------

def matrix_summary_block():
    """README.md's short form of the torch matrix (``docs_matrix.matrix_summary``)."""
    data = _read("torch-matrix")
    return docs_matrix.matrix_summary(data) if data and data.get("rows") else [
        "*Not measured yet:* `python tools/docs_tables.py record torch-matrix -- SESSION`."]


# the blocks made from something other than one measurement's data file
OTHER_BLOCKS = {"cli": cli_block, "torch-matrix-summary": matrix_summary_block}


def generate(name):
    if name in OTHER_BLOCKS:
        return OTHER_BLOCKS[name]()
    if name in MEASUREMENTS:
        return measurement_block(name)
    raise KeyError("no generator for block %r" % name)


def pages():
    return [os.path.join(REPO, "README.md")] + sorted(
        glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))


def rewrite(text):
    def block(m):
        return m.group(1) + "\n".join(generate(m.group(2))) + "\n" + m.group(4)
    return BLOCK.sub(block, text)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["record"]:
        rest = argv[1:]
        extra = rest[rest.index("--") + 1:] if "--" in rest else []
        names = rest[:rest.index("--")] if "--" in rest else rest
        if len(names) != 1 or names[0] not in MEASUREMENTS:
            sys.exit("record one of: %s" % ", ".join(MEASUREMENTS))
        record(names[0], extra)
        argv = []
    elif argv[:1] == ["import"]:
        if len(argv) < 3 or "import" not in MEASUREMENTS.get(argv[1], {}):
            sys.exit("import one of: %s" % ", ".join(n for n, s in MEASUREMENTS.items() if "import" in s))
        import_files(argv[1], argv[2:])
        argv = []
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when a page is not up to date")
    args = p.parse_args(argv)
    stale = []
    for path in pages():
        with io.open(path, encoding="utf-8") as f:
            text = f.read()
        new = rewrite(text)
        if new != text:
            stale.append(os.path.relpath(path, REPO))
            if not args.check:
                with io.open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    if args.check and stale:
        print("not up to date with their data (run python tools/docs_tables.py): %s"
              % ", ".join(stale), file=sys.stderr)
        return 1
    print("%s: %s" % ("stale" if args.check else "rewritten", ", ".join(stale) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
