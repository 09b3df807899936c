"""Compile-time overhead of ``depyf.prepare_debug`` over plain ``torch.compile``.

For each workload and backend, runs ``--runs`` fresh processes with plain torch.compile and
as many with ``prepare_debug`` around it, alternating, each with its own empty
``TORCHINDUCTOR_CACHE_DIR`` (cold compiles) and ``TORCHINDUCTOR_COMPILE_THREADS=1``. A
process times the calls that compile (first call of each input shape) including, for
depyf, leaving the ``with`` block (writing full code and overview files). Prints the
medians and their ratio; targets: <= 1.10 for inductor, <= 1.20 for eager.

    python benchmarks/compile_overhead.py            # all workloads, 3 runs each
    python benchmarks/compile_overhead.py --runs 5 --backends eager
"""
import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _toy():
    import torch

    def toy_example(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    def run(backend):
        f = torch.compile(toy_example, backend=backend)
        torch.manual_seed(0)
        for _ in range(6):  # both branches of the graph break
            f(torch.randn(10), torch.randn(10))

    return run


def _mlp():
    import torch
    import torch.nn as nn

    def run(backend):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8))
        cmodel = torch.compile(model, backend=backend)
        loss = cmodel(torch.randn(16, 32)).pow(2).mean()
        loss.backward()

    return run


def _graph_breaks():
    import torch

    def f(x):
        y = x.sin()
        print("", end="")
        z = y.cos() * x.sum().item()
        return z.relu()

    def run(backend):
        torch.compile(f, backend=backend)(torch.randn(64))

    return run


WORKLOADS = {"toy": _toy, "mlp_fwd_bwd": _mlp, "graph_breaks": _graph_breaks}


def child(workload, backend, use_depyf, dump_dir):
    import torch  # noqa: F401  (imported before timing)
    import torch._dynamo  # noqa: F401

    import depyf

    run = WORKLOADS[workload]()
    ctx = depyf.prepare_debug(dump_dir) if use_depyf else contextlib.nullcontext()
    start = time.perf_counter()
    with ctx:
        run(backend)
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed}))


def measure(workload, backend, use_depyf):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TORCHINDUCTOR_COMPILE_THREADS="1",
                   PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run(
            [sys.executable, __file__, "--child", workload, backend, "1" if use_depyf else "0",
             os.path.join(tmp, "dump")],
            env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        return json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backends", default="eager,inductor")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        workload, backend, use, dump = args.child
        child(workload, backend, use == "1", dump)
        return
    import torch

    print("torch %s, Python %s, %d CPUs; medians over %d fresh processes each"
          % (torch.__version__, sys.version.split()[0], os.cpu_count(), args.runs))
    print("%-14s %-9s %12s %12s %7s" % ("workload", "backend", "plain (s)", "depyf (s)", "ratio"))
    for backend in args.backends.split(","):
        for workload in args.workloads.split(","):
            plain, dumped = [], []
            for _ in range(args.runs):
                plain.append(measure(workload, backend, False))
                dumped.append(measure(workload, backend, True))
            p, d = statistics.median(plain), statistics.median(dumped)
            print("%-14s %-9s %12.2f %12.2f %7.2f" % (workload, backend, p, d, d / p), flush=True)


if __name__ == "__main__":
    main()
