"""The checker's mutation test on every interpreter 3.8 to 3.13, as a Markdown table.

    python benchmarks/checker_mutation.py [--versions 3.8,3.13] [--python 3.8=PATH ...]
        [--sample N] [--time-budget S] [--per-kind K] [--out-dir DIR]

Runs ``python -m depyf.verify.mutation --json ...`` with each interpreter, one after the
other, on this checkout (``PYTHONPATH``); the interpreter must be able to import depyf's
dependencies (3.8: ``astunparse``), e.g. the nox environments ``.nox/tests-3-X`` (the
default when present) or ``--python 3.8=/path/to/python``. ``--sample`` (functions,
spread evenly) and ``--time-budget`` (seconds per version) bound the run: the whole
corpus with one mutant per kind and function takes about 2-3 minutes per version.
Prints one table, Python x kind: mutants, rejected, rejected %, then the accepted
mutants; ``--out-dir`` keeps each version's JSON (``mutation-3.X.json``).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
KINDS = ["swap", "move", "duplicate", "invert", "drop-else", "constant", "swap-args", "all"]


def default_python(version):
    nox = os.path.join(REPO, ".nox", "tests-" + version.replace(".", "-"), "bin", "python")
    if os.path.exists(nox):
        return nox
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python")))
    return found[-1] if found else None


def run_one(python, out, args):
    cmd = [python, "-m", "depyf.verify.mutation", "--quiet", "--json", out,
           "--per-kind", str(args.per_kind)]
    if args.sample:
        cmd += ["--sample", str(args.sample)]
    if args.time_budget:
        cmd += ["--time-budget", str(args.time_budget)]
    env = dict(os.environ, PYTHONPATH=REPO)
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not os.path.exists(out):
        sys.stderr.write(done.stdout + done.stderr)
        return None
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def table(results):
    """Python x kind: mutants / rejected / rejected %."""
    head = "| Python | " + " | ".join(KINDS) + " |"
    lines = [head, "|---|" + "---:|" * len(KINDS)]
    for version, r in results:
        cells = []
        for kind in KINDS:
            row = r["per_kind"][kind]
            pct = "-" if row["rejected %"] is None else "%.2f %%" % row["rejected %"]
            cells.append("%d / %d = %s" % (row["rejected"], row["mutants"], pct))
        lines.append("| %s | %s |" % (r["python"], " | ".join(cells)))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--versions", default=",".join(VERSIONS))
    p.add_argument("--python", action="append", default=[], metavar="3.X=PATH")
    p.add_argument("--sample", type=int)
    p.add_argument("--time-budget", type=float)
    p.add_argument("--per-kind", type=int, default=1)
    p.add_argument("--out-dir")
    args = p.parse_args(argv)
    chosen = dict(item.split("=", 1) for item in args.python)
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="depyf-mutation-")
    os.makedirs(out_dir, exist_ok=True)
    results = []
    for version in args.versions.split(","):
        python = chosen.get(version) or default_python(version)
        if python is None:
            print("no interpreter for %s" % version, file=sys.stderr)
            continue
        print("running %s (%s)" % (version, python), file=sys.stderr, flush=True)
        r = run_one(python, os.path.join(out_dir, "mutation-%s.json" % version), args)
        if r is not None:
            results.append((version, r))
    print("rejected / mutants = rejected % (per version and kind)\n")
    print(table(results))
    for version, r in results:
        f = r["functions"]
        print("\n%s: %d functions, %d mutated, %d not proven, %d not reached, %.0f s" % (
            r["python"], f["total"], f.get("mutated", 0), f.get("not proven (skipped)", 0),
            f.get("not reached (time budget)", 0), r["wall_s"]))
        for o in r["outcomes"]:
            if o["status"] == "accepted":
                print("  accepted: %s %s.%s: %s" % (o["kind"], o["module"], o["qualname"],
                                                   o["description"]))
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
