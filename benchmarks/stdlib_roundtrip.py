"""The full stdlib round trip on every interpreter 3.8 to 3.13, as a Markdown table.

    python benchmarks/stdlib_roundtrip.py [--versions 3.8,3.13] [--out-dir DIR] [--modules a,b]
                                          [--python 3.X=PATH ...]

Runs ``python -m depyf.verify --json ...`` (the whole corpus, no sample) with each pyenv
interpreter (``$(pyenv root)/versions/3.X.Y/bin/python``), one after the other, on this
checkout. Each runs in a virtual environment under ``~/.cache/depyf-bench/`` made once
from that interpreter with ``pip install -e <checkout>`` (so 3.8 gets its ``astunparse``);
``--no-venv`` uses the bare interpreters with ``PYTHONPATH`` instead, and ``--python
3.X=PATH`` a given interpreter that can import depyf's dependencies (a nox environment,
``.nox/tests-3-X/bin/python``). Prints

| Python | code objects | decompiled % | compiles % | bytecode-equal % | proven % | behave differently | __temp names | slowest s |

("proven": bytecode-equal or proven by the equivalence checker; "behave differently":
outputs the checker found a difference in, decompiled with ``allow_unproven``), the table of docs/measurements.md. ``--out-dir`` keeps each version's JSON and failure
worklist (``verify-3.X.json``, ``failures-3.X.txt``).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "depyf-bench")
VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]


def pyenv_python(version):
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python"))
    found.sort(key=lambda p: [int(x) for x in p.split(os.sep)[-3].split(".") if x.isdigit()])
    return found[-1] if found else None


def checkout_venv(python, version):
    """``~/.cache/depyf-bench/checkout-py3.X`` with this checkout installed editable."""
    venv = os.path.join(CACHE, "checkout-py" + version)
    vpython = os.path.join(venv, "bin", "python")
    probe = [vpython, "-c", "import depyf, os, sys; "
             "sys.exit(os.path.dirname(os.path.dirname(depyf.__file__)) != sys.argv[1])", REPO]
    if os.path.exists(vpython) and subprocess.run(probe, capture_output=True, cwd="/").returncode == 0:
        return vpython
    print("creating %s" % venv, file=sys.stderr, flush=True)
    subprocess.run([python, "-m", "venv", "--clear", venv], check=True)
    subprocess.run([vpython, "-m", "pip", "install", "--quiet", "-e", REPO], check=True)
    return vpython


def run_version(version, out_dir, modules, use_venv=True, python=None):
    given = python is not None
    python = python or pyenv_python(version)
    if python is None:
        return {"error": "no pyenv interpreter %s.*" % version}
    if use_venv and not given:
        try:
            python = checkout_venv(python, version)
        except subprocess.CalledProcessError as exc:
            return {"error": "could not set up a venv: %s" % exc}
    json_path = os.path.join(out_dir, "verify-%s.json" % version)
    fail_path = os.path.join(out_dir, "failures-%s.txt" % version)
    cmd = [python, "-m", "depyf.verify", "--quiet", "--json", json_path, "--failures", fail_path]
    if modules:
        cmd += ["--modules", modules]
    env = dict(os.environ, PYTHONPATH=REPO)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0 or not os.path.exists(json_path):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["exit %d" % proc.returncode]
        return {"error": tail[0], "python": python}
    with open(json_path) as f:
        data = json.load(f)
    data["bench_wall_seconds"] = wall
    return data


def markdown(rows):
    lines = [
        "| Python | code objects | decompiled % | compiles % | bytecode-equal % | proven % "
        "| behave differently | __temp names | slowest s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for version, data in rows:
        if "error" in data:
            lines.append("| %s | error: %s | | | | | | | |" % (version, data["error"].replace("|", "/")))
            continue
        t = data["total"]
        lines.append("| %s | %d | %.2f | %.2f | %.2f | %.2f | %d | %d | %.3f |" % (
            data["python"], t["objects"], t["decompiled_pct"], t["compiles_pct"], t["equal_pct"],
            t["proven_pct"], t["different"], t["temp_names"], t["slowest_seconds"]))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--versions", default=",".join(VERSIONS))
    p.add_argument("--modules", help="comma-separated subset (default: the whole corpus)")
    p.add_argument("--out-dir", help="keep per-version JSON and failure lists here")
    p.add_argument("--no-venv", action="store_true",
                   help="run the bare pyenv interpreters with PYTHONPATH=<checkout>")
    p.add_argument("--python", action="append", default=[], metavar="3.X=PATH",
                   help="the interpreter for one version (used as it is, no venv)")
    args = p.parse_args(argv)
    chosen = dict(item.split("=", 1) for item in args.python)
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="depyf-roundtrip-")
    os.makedirs(out_dir, exist_ok=True)

    rows = []
    for version in [v.strip() for v in args.versions.split(",") if v.strip()]:
        print("running %s ..." % version, file=sys.stderr, flush=True)
        rows.append((version, run_version(version, out_dir, args.modules, not args.no_venv,
                                          chosen.get(version))))
    print(markdown(rows))
    print()
    for version, data in rows:
        if "error" not in data:
            t = data["total"]
            print("- %s: %s code objects/s, slowest object %s, %d over 1 s, wall %.0f s" % (
                data["python"], t["objects_per_second"], t["slowest_object"], t["over_1s"],
                data["bench_wall_seconds"]))
    print("\nper-version JSON and failure lists: %s" % out_dir)
    return 1 if any("error" in data for _, data in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
