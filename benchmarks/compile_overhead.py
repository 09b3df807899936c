"""Compile-time overhead of ``depyf.prepare_debug`` over plain ``torch.compile``.

The workloads are the test suite's (``tests/torch_debug/workloads.py`` and
``hf_workloads.py``: graph breaks, closures, loops, training steps, recompiles, transformers
models from tiny configs with random weights). For each workload and backend, runs
``--runs`` fresh processes with plain torch.compile and as many with ``prepare_debug``
around it, alternating, each with its own empty ``TORCHINDUCTOR_CACHE_DIR`` (cold
compiles) and ``TORCHINDUCTOR_COMPILE_THREADS=1``, and depyf's modules compiled to bytecode
files beforehand, as an installed package has them. A process imports torch, depyf (and
transformers' model classes) first, then times the whole workload (building inputs,
compiling, running) including, for depyf, entering and leaving the ``with`` block (leaving
writes the full-code and overview files). Prints per-workload medians and their ratio,
then per backend the median of the workload ratios. Targets: <= 1.10 for eager
and aot_eager, <= 1.05 for inductor.

    python benchmarks/compile_overhead.py             # full: 9 runs eager/aot_eager, 3 inductor
    python benchmarks/compile_overhead.py --quick     # development: 3 runs, eager, 6 workloads
    python benchmarks/compile_overhead.py --profile toy eager   # cProfile one depyf process
    python benchmarks/compile_overhead.py --out-dir DIR # also write DIR/compile-overhead.json

Each row also shows the median count of the cyclic collector's full collections in the timed
part (plain / prepare_debug): where a ratio stands out, a full collection more or less is
the usual cause. The JSON (``--out-dir``) holds the versions, the machine's load average at
the start and the end, one row per workload and backend, and the median ratio per backend;
the table of docs/performance.md is made from it (``python tools/docs_tables.py record
compile-overhead``).
"""
import argparse
import compileall
import contextlib
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(REPO, "tests", "torch_debug")

WORKLOADS = [  # (name in workloads.py / hf_workloads.py)
    "toy", "print", "closure", "loop", "mlp_train", "cnn", "try_except", "seq16",
    "recompile_bias", "recompile_global", "hf_bert", "hf_llama",
]
QUICK_WORKLOADS = ["toy", "print", "loop", "mlp_train", "recompile_bias", "hf_bert"]
TARGETS = {"eager": 1.10, "aot_eager": 1.10, "inductor": 1.05}
# transformers classes a workload imports inside its timed part: imported before timing
HF_CLASSES = {"hf_bert": ["BertConfig", "BertModel"], "hf_llama": ["LlamaConfig", "LlamaForCausalLM"],
              "hf_gpt2_labels": ["GPT2Config", "GPT2LMHeadModel"],
              "hf_t5": ["T5Config", "T5ForConditionalGeneration"],
              "hf_qwen2_4layers": ["Qwen2Config", "Qwen2ForCausalLM"]}


def _workload(name):
    sys.path.insert(0, TESTS)
    import hf_workloads
    import workloads

    if name in HF_CLASSES:
        import transformers

        for cls in HF_CLASSES[name]:
            getattr(transformers, cls)
    table = dict(workloads.WORKLOADS, **hf_workloads.HF_WORKLOADS)
    return table[name][0]


class FullCollections:
    """Counts the cyclic collector's full (generation 2) collections while it is installed,
    and the time they take: one more of them in a process is a tenth of a second or more
    on torch's heap, enough to turn one small workload's ratio into an outlier."""

    def __init__(self):
        self.count, self.seconds, self._start = 0, 0.0, None

    def __call__(self, phase, info):
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        elif self._start is not None:
            self.count += 1
            self.seconds += time.perf_counter() - self._start

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self)


def _timed(workload, backend, use_depyf, dump_dir):
    """Seconds of the workload, and the full collections that ran during it."""
    import torch  # noqa: F401  (imported before timing)
    import torch._dynamo  # noqa: F401

    import depyf

    run = _workload(workload)
    ctx = depyf.prepare_debug(dump_dir) if use_depyf else contextlib.nullcontext()
    with FullCollections() as collections:
        start = time.perf_counter()
        with ctx:
            run(backend)
        seconds = time.perf_counter() - start
    return seconds, collections


def child(workload, backend, use_depyf, dump_dir):
    seconds, collections = _timed(workload, backend, use_depyf, dump_dir)
    print(json.dumps({"seconds": seconds, "full_gc": collections.count,
                      "full_gc_seconds": collections.seconds}))


def profile(workload, backend, top):
    """cProfile one process with prepare_debug (cold Inductor cache), printing the
    functions of depyf by cumulative time and the total."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor")
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        prof = cProfile.Profile()
        prof.enable()
        seconds, _ = _timed(workload, backend, True, os.path.join(tmp, "dump"))
        prof.disable()
    print("%s/%s with prepare_debug: %.3f s (under cProfile)" % (workload, backend, seconds))
    stats = pstats.Stats(prof).sort_stats("cumulative")
    stats.print_stats(r"depyf", top)


@functools.lru_cache(maxsize=None)
def bytecode_cached(code_root):
    """``code_root`` (returned), its ``depyf`` package compiled to bytecode files first, as
    an installed package is. A child then loads depyf's modules from them; otherwise, where
    ``PYTHONDONTWRITEBYTECODE`` is set, every depyf process would compile the modules it
    imports late (``depyf.torch_debug``, inside the timed ``with`` block) from source, a
    cost no plain process has and no installed depyf pays."""
    if not compileall.compile_dir(os.path.join(code_root, "depyf"), quiet=2):
        raise RuntimeError("could not compile %s/depyf to bytecode" % code_root)
    return code_root


def measure(workload, backend, use_depyf):
    """One fresh process: ``{"seconds", "full_gc", "full_gc_seconds"}``."""
    bytecode_cached(REPO)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TORCHINDUCTOR_COMPILE_THREADS="1",
                   PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--child", workload, backend,
             "1" if use_depyf else "0", os.path.join(tmp, "dump")],
            env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        return json.loads(proc.stdout.strip().splitlines()[-1])


def _medians(key, *modes):
    return [statistics.median(m[key] for m in runs) for runs in modes]


def _load():
    try:
        return "%.2f" % os.getloadavg()[0]
    except OSError:
        return "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 runs, eager, %s" % ",".join(QUICK_WORKLOADS))
    parser.add_argument("--runs", type=int, help="processes per workload and mode (default 9)")
    parser.add_argument("--inductor-runs", type=int, help="for inductor (default 3)")
    parser.add_argument("--backends", default=None, help="default eager,aot_eager,inductor")
    parser.add_argument("--workloads", default=None)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--profile", nargs=2, metavar=("WORKLOAD", "BACKEND"))
    parser.add_argument("--top", type=int, default=40, help="rows of --profile")
    parser.add_argument("--out-dir", help="write compile-overhead.json (the results) here")
    args = parser.parse_args()
    if args.child:
        workload, backend, use, dump = args.child
        child(workload, backend, use == "1", dump)
        return
    if args.profile:
        profile(args.profile[0], args.profile[1], args.top)
        return
    runs = args.runs or (3 if args.quick else 9)
    inductor_runs = args.inductor_runs or min(runs, 3)
    backends = (args.backends or ("eager" if args.quick else "eager,aot_eager,inductor")).split(",")
    names = (args.workloads.split(",") if args.workloads
             else QUICK_WORKLOADS if args.quick else WORKLOADS)
    import torch

    result = {"torch": torch.__version__, "python": sys.version.split()[0], "cpus": os.cpu_count(),
              "load_start": _load(), "rows": [], "backends": []}
    print("torch %s, Python %s, %d CPUs, load %s; medians over fresh processes (plain and "
          "prepare_debug alternating)" % (torch.__version__, sys.version.split()[0],
                                           os.cpu_count(), result["load_start"]))
    print("%-17s %-9s %4s %10s %10s %7s %9s" % ("workload", "backend", "runs", "plain (s)", "depyf (s)",
                                                "ratio", "full gc"))
    summary = []
    for backend in backends:
        n = inductor_runs if backend == "inductor" else runs
        ratios = []
        for workload in names:
            plain, dumped = [], []
            for _ in range(n):
                plain.append(measure(workload, backend, False))
                dumped.append(measure(workload, backend, True))
            p, d = _medians("seconds", plain, dumped)
            gc_p, gc_d = _medians("full_gc", plain, dumped)
            ratios.append(d / p)
            result["rows"].append({"workload": workload, "backend": backend, "runs": n,
                                   "plain_seconds": p, "depyf_seconds": d, "ratio": d / p,
                                   "plain_full_gc": gc_p, "depyf_full_gc": gc_d,
                                   "full_gc_seconds": _medians("full_gc_seconds", plain, dumped)})
            print("%-17s %-9s %4d %10.3f %10.3f %7.2f %4g / %-4g" % (
                workload, backend, n, p, d, d / p, gc_p, gc_d), flush=True)
        med = statistics.median(ratios)
        target = TARGETS.get(backend)
        summary.append("%-9s median ratio %.2f over %d workloads (target <= %s: %s)" % (
            backend, med, len(ratios), target, "met" if target and med <= target else "NOT met"))
        print(summary[-1] + "; load %s" % _load(), flush=True)
        result["backends"].append({"backend": backend, "median_ratio": med, "workloads": len(ratios),
                                   "target": target})
    print("\n".join(summary))
    result["load_end"] = _load()
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
        with open(os.path.join(args.out_dir, "compile-overhead.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
