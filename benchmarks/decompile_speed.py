"""Decompile speed: this depyf against the PyPI release depyf==0.20.0, same corpus, same run.

    python benchmarks/decompile_speed.py [--modules a,b] [--repeat N] [--json PATH]

Both decompile every def of the stdlib corpus (``depyf.verify.stdlib_corpus``: the same
fixed module list as the round trip) on the same interpreter (CPython 3.11 from pyenv by
default) on this machine, one after the other. The release runs in its own virtual
environment under ``~/.cache/depyf-bench/`` (created on first use: ``depyf==0.20.0``
installed with ``--no-deps`` plus its declared requirements ``astor`` and ``dill``; it
does not need torch). Ours runs from this checkout.

Each side is a separate worker process (``--worker``) that reads and compiles the
corpus (not timed), then times each ``decompile(code)`` call alone with
``time.perf_counter``; an exception is a failure but its time still counts; a call is cut
off after 10 s. Printed: code objects/second (objects / summed call time) for each, the
ratio, failures, and the slowest single code object of each. One untimed warm-up call
per side comes first, so lazy imports are not counted.
"""
import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_FILE = os.path.join(REPO, "depyf", "verify", "stdlib_corpus.py")
RELEASE = "depyf==0.20.0"
RELEASE_DEPS = ["astor", "dill"]  # its Requires-Dist (checked in its wheel METADATA)
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "depyf-bench")
LIMIT_SECONDS = 10.0


def default_python():
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    versions = os.path.join(root, "versions")
    found = sorted(v for v in os.listdir(versions) if v.startswith("3.11.")) if os.path.isdir(versions) else []
    return os.path.join(versions, found[-1], "bin", "python") if found else sys.executable


def release_venv(python):
    """A virtual environment with the release installed; created once, then reused."""
    tag = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    venv = os.path.join(CACHE, "depyf-0.20.0-py" + tag)
    vpython = os.path.join(venv, "bin", "python")
    check = [vpython, "-c", "import importlib.metadata as m; assert m.version('depyf') == '0.20.0'"]
    # Probed from another folder: the checkout's own depyf metadata must not answer.
    away = tempfile.gettempdir()
    if os.path.exists(vpython) and subprocess.run(check, capture_output=True, cwd=away).returncode == 0:
        return vpython
    print("creating %s (%s, --no-deps, + %s)" % (venv, RELEASE, ", ".join(RELEASE_DEPS)), file=sys.stderr)
    subprocess.run([python, "-m", "venv", "--clear", venv], check=True)
    pip = [vpython, "-m", "pip", "install", "--quiet"]
    subprocess.run(pip + ["--no-deps", RELEASE], check=True)
    subprocess.run(pip + RELEASE_DEPS, check=True)
    subprocess.run(check, check=True, cwd=away)
    return vpython


# ---------------------------------------------------------------- worker (one side)

def _load_corpus():
    # By file path, not as depyf.verify: the release worker has another ``depyf``.
    spec = importlib.util.spec_from_file_location("_depyf_bench_corpus", CORPUS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def worker(which, modules, repeat):
    if which == "ours":
        sys.path.insert(0, REPO)
    import depyf

    origin = os.path.dirname(os.path.abspath(depyf.__file__))
    expect_ours = origin == os.path.join(REPO, "depyf")
    if expect_ours != (which == "ours"):
        raise SystemExit("worker %s imported depyf from %s" % (which, origin))
    corpus = _load_corpus()
    targets = []
    for name in modules or corpus.MODULES:
        path, source, code = corpus.compile_module(name)
        defs = corpus.def_positions(source)
        targets.extend(corpus.iter_targets(name, code, defs=defs, standalone=False))

    if which == "ours":
        decompile = lambda code: depyf.Decompiler(code).decompile()  # noqa: E731
    else:
        decompile = depyf.decompile
    # One untimed call first, so neither side pays its lazy imports inside the timings.
    def _warm_up(a, b=1):
        return [a + b for _ in range(b)] if a else None

    try:
        decompile(_warm_up.__code__)
    except Exception:
        pass
    signal.signal(signal.SIGALRM, _on_alarm)
    rows = []
    for t in targets:
        best, error = None, None
        for _ in range(repeat):
            start = time.perf_counter()
            try:
                signal.setitimer(signal.ITIMER_REAL, LIMIT_SECONDS, 1.0)
                decompile(t.code)
            except _Timeout:
                error = "timeout after %g s" % LIMIT_SECONDS
            except Exception as exc:
                error = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
            if error and error.startswith("timeout"):
                break
        rows.append({"object": "%s:%s" % (t.module, t.qualname), "seconds": best, "error": error})
    return {"which": which, "python": sys.version.split()[0], "depyf": origin, "rows": rows}


# ---------------------------------------------------------------- driver

def run_side(python, which, args, env=None):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [python, os.path.abspath(__file__), "--worker", which, "--out", out,
           "--repeat", str(args.repeat)]
    if args.modules:
        cmd += ["--modules", args.modules]
    start = time.perf_counter()
    # The worker's stdout is dropped: the release prints notes while it decompiles.
    subprocess.run(cmd, check=True, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    with open(out) as f:
        data = json.load(f)
    os.unlink(out)
    data["wall_seconds"] = wall
    return data


def summarize(data):
    rows = data["rows"]
    total = sum(r["seconds"] for r in rows)
    slowest = max(rows, key=lambda r: r["seconds"]) if rows else None
    times = sorted(r["seconds"] for r in rows)
    return {
        "objects": len(rows),
        "failures": sum(r["error"] is not None for r in rows),
        "timeouts": sum((r["error"] or "").startswith("timeout") for r in rows),
        "median": times[len(times) // 2] if times else 0.0,
        "seconds": total,
        "per_second": len(rows) / total if total > 0 else float("inf"),
        "slowest": slowest,
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus")
    p.add_argument("--repeat", type=int, default=1, help="time each call N times, keep the best")
    p.add_argument("--python", default=None, help="interpreter for both sides (default: pyenv 3.11)")
    p.add_argument("--json", metavar="PATH", help="write both sides' per-object timings here")
    p.add_argument("--worker", choices=["ours", "release"], help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    modules = [m for m in args.modules.split(",") if m] if args.modules else None

    if args.worker:
        with open(args.out, "w") as f:
            json.dump(worker(args.worker, modules, args.repeat), f)
        return 0

    python = args.python or default_python()
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    ours = run_side(python, "ours", args, env)
    release = run_side(release_venv(python), "release", args, env)
    a, b = summarize(ours), summarize(release)

    print("Decompile speed on the stdlib corpus, Python %s (%s)" % (ours["python"], python))
    print()
    print("| decompiler | code objects | failures (timeouts) | total s | code objects/s "
          "| median ms | slowest object (s) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, s in (("depyf (this checkout)", a), ("depyf 0.20.0 (PyPI)", b)):
        slow = s["slowest"]
        print("| %s | %d | %d (%d) | %.2f | %.1f | %.2f | %s (%.3f) |" % (
            label, s["objects"], s["failures"], s["timeouts"], s["seconds"], s["per_second"],
            1000 * s["median"], slow["object"] if slow else "-", slow["seconds"] if slow else 0.0))
    print()
    if b["per_second"] and b["per_second"] != float("inf"):
        print("throughput ratio (ours / 0.20.0): %.2fx; median-time ratio (0.20.0 / ours): %.2fx"
              % (a["per_second"] / b["per_second"], b["median"] / a["median"] if a["median"] else 0))
        for label, side, s in (("ours", ours, a), ("0.20.0", release, b)):
            if s["timeouts"]:
                kept = [r["seconds"] for r in side["rows"] if not (r["error"] or "").startswith("timeout")]
                print("%s: %d calls were cut off at %g s; without them %.1f code objects/s"
                      % (label, s["timeouts"], LIMIT_SECONDS, len(kept) / sum(kept)))
    print("ours: %d code objects over 1 s" % sum(r["seconds"] > 1.0 for r in ours["rows"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ours": ours, "release": release}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
