"""Compile-time overhead of ``depyf.prepare_debug`` on models of real depth.

A transformers ``LlamaForCausalLM`` from a config with tiny widths (hidden size 16, random
weights, never downloaded) and real depth (``--layers``, default 8, 32 and 64): Dynamo
compiles its ``forward`` into one transformed code object whose size grows with the depth,
so depyf's own work on that code object (decompiling, folding, proving) must grow no
faster than linearly with a small constant. For each depth and backend, runs ``--runs``
fresh processes with plain ``torch.compile`` and as many with ``prepare_debug`` around it,
alternating, each with its own empty ``TORCHINDUCTOR_CACHE_DIR`` and
``TORCHINDUCTOR_COMPILE_THREADS=1``, and depyf's modules compiled to bytecode files beforehand,
as an installed package has them. A process imports torch, depyf and transformers and
builds the model first, then times one forward under ``torch.compile`` (compiling and
running), for depyf including entering and leaving the ``with`` block. Prints the medians
and their ratio (``cpu``: the ratio of the medians of the processes' CPU time, steadier
on a loaded machine), each alternation's own ratio (their spread: how much the machine
drifts between alternations), the load average, and for the depyf processes the median
of depyf's own time (its bytecode hook) per transformed code object against the code
object's instruction count, with the slope (ms per 1000 instructions) over every depth. On a machine
of many cores, ``--jobs N`` runs N alternations at a time (a plain process and a depyf
process one after the other, so both meet the same load), each child with
``OMP_NUM_THREADS`` = cores / N.
Targets: <= 1.10 for eager and aot_eager, <= 1.05 for inductor.

    python benchmarks/deep_model.py                       # 8,32,64 layers; eager, aot_eager, inductor
    python benchmarks/deep_model.py --layers 32 --backends eager --runs 5
    python benchmarks/deep_model.py --layers 1 --runs 1 --backends eager   # smoke test
    python benchmarks/deep_model.py --layers 32 --backends eager --against REV  # REV's depyf too
    python benchmarks/deep_model.py --profile 32 eager    # cProfile depyf's hook in one process
    python benchmarks/deep_model.py --phases 32 eager     # wall time of depyf's steps, one process
    python benchmarks/deep_model.py --trace-payloads 32 eager  # torch's structured-trace events, timed
    python benchmarks/deep_model.py --out-dir DIR         # also write DIR/deep-model.json
    python benchmarks/deep_model.py --jobs 8              # 8 alternations at a time (16+ cores)

The JSON (``--out-dir``) holds the versions, the load average at the start and the end, one
row per depth and backend (with each alternation's times and depyf's hook time per
transformed code object) and the slope; the table of docs/performance.md is made from it
(``python tools/docs_tables.py record deep-model``).
"""
import argparse
import collections
import concurrent.futures
import contextlib
import dis
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = {"eager": 1.10, "aot_eager": 1.10, "inductor": 1.05}


def build(layers):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=layers,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)
    return LlamaForCausalLM(cfg).eval(), torch.randint(0, 64, (2, 8))


def _hook_timer(per_code):
    """Time depyf's bytecode hook per transformed code object: [(name, code object, s)].
    The instructions are counted after the timed run (``_counted``): counting them inside
    it allocates one object per instruction, which at 64 layers set off a full collection
    of torch's heap (0.4 s) that the plain process never pays."""
    from depyf.torch_debug import transformed_code

    cls = transformed_code.TransformedCodeHook
    real = cls.__call__

    @functools.wraps(real)
    def timed(self, code, new_code):
        start = time.perf_counter()
        try:
            return real(self, code, new_code)
        finally:
            per_code.append((code.co_name, new_code, time.perf_counter() - start))

    cls.__call__ = timed


def _counted(per_code):
    """[(name, instructions, s)] of ``_hook_timer``'s records."""
    return [(name, len(list(dis.get_instructions(code))), s) for name, code, s in per_code]


def timed_run(layers, backend, use_depyf, dump_dir, profiler=None):
    import torch
    import torch._dynamo  # noqa: F401  (imported before timing)

    import depyf

    model, ids = build(layers)
    per_code = []
    if use_depyf:
        _hook_timer(per_code)
    ctx = depyf.prepare_debug(dump_dir) if use_depyf else contextlib.nullcontext()
    if profiler is not None:
        profiler.enable()
    start, cpu = time.perf_counter(), time.process_time()
    with ctx:
        torch.compile(model, backend=backend)(input_ids=ids)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if profiler is not None:
        profiler.disable()
    return seconds, cpu, _counted(per_code)


def profile(layers, backend, top):
    """cProfile one prepare_debug process, printing depyf's functions by cumulative time."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor")
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        prof = cProfile.Profile()
        seconds, _, per_code = timed_run(layers, backend, True, os.path.join(tmp, "dump"), prof)
    print("%d layers/%s with prepare_debug: %.3f s under cProfile; hook: %s" % (
        layers, backend, seconds, ", ".join("%s %d instr %.3f s" % c for c in per_code)))
    pstats.Stats(prof).sort_stats("cumulative").print_stats(r"depyf", top)


# depyf's steps timed by ``--phases``: (label, module, attribute); nested steps are inside
# the ones above them (the hook holds the decompiling, the fold and the check)
PHASES = (
    ("hook", "depyf.torch_debug.transformed_code", "TransformedCodeHook.__call__"),
    ("  decompile", "depyf.torch_debug.transformed_code", "TransformedCodeHook._decompiled"),
    ("  fold", "depyf.torch_debug.readable", "fold_module"),
    ("  check", "depyf.torch_debug.transformed_code", "TransformedCodeHook._check"),
    ("    proxy runs", "depyf.torch_debug.proxy_run", "compare"),
    ("  reading copy", "depyf.torch_debug.readable", "Folded.reading_text"),
    ("  graph files", "depyf.torch_debug.graphs", "GraphDumper.compiled"),
    ("graph validity checks", "depyf.torch_debug.graphs", "compiles"),
    ("trace events", "depyf.torch_debug.prepare", "Capture._on_trace"),
    ("full-code and overview files", "depyf.torch_debug.prepare", "Capture.write_summaries"),
)


def phases(layers, backend):
    """Wall time and calls of each of depyf's steps (``PHASES``) in one prepare_debug
    process, without a profiler's cost per call."""
    import importlib

    spent, calls = collections.Counter(), collections.Counter()

    def timed(label, real):
        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start
                calls[label] += 1
        return wrapper

    for label, module, attribute in PHASES:
        owner = importlib.import_module(module)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, name, timed(label, getattr(owner, name)))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor")
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        seconds, _, _ = timed_run(layers, backend, True, os.path.join(tmp, "dump"))
    print("%d layers/%s with prepare_debug: %.3f s" % (layers, backend, seconds))
    for label, _, _ in PHASES:
        print("%-30s %8.3f s %5d call(s)" % (label, spent[label], calls[label]))


def trace_payloads(layers, backend):
    """Time what torch builds for each structured-trace event in one prepare_debug
    process (its metadata and payload exist only because a handler is attached), per
    event name, with the cyclic collector off during each event (a collection that falls
    inside one would be charged to it)."""
    import gc

    import torch._logging._internal as internal

    real = internal.trace_structured
    spent, calls = collections.defaultdict(lambda: [0.0, 0.0, 0.0]), collections.Counter()

    def trace_structured(name, metadata_fn=dict, *, payload_fn=lambda: None, **kwargs):
        seen = {"name": name, "metadata": 0.0, "payload": 0.0}

        def metadata():
            start = time.perf_counter()
            value = metadata_fn()
            seen["metadata"] = time.perf_counter() - start
            if name == "artifact" and isinstance(value, dict):
                seen["name"] = value.get("name", name)
            return value

        def payload():
            start = time.perf_counter()
            value = payload_fn()
            seen["payload"] = time.perf_counter() - start
            return value

        enabled = gc.isenabled()
        gc.disable()
        start = time.perf_counter()
        try:
            return real(name, metadata, payload_fn=payload, **kwargs)
        finally:
            total = time.perf_counter() - start
            if enabled:
                gc.enable()
            row = spent[seen["name"]]
            row[0] += seen["metadata"]
            row[1] += seen["payload"]
            row[2] += total - seen["metadata"] - seen["payload"]
            calls[seen["name"]] += 1

    for module in list(sys.modules.values()):  # (callers that imported the function itself)
        for attribute, value in list(getattr(module, "__dict__", {}).items()):
            if value is real:
                setattr(module, attribute, trace_structured)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor")
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        seconds, _, _ = timed_run(layers, backend, True, os.path.join(tmp, "dump"))
    print("%d layers/%s with prepare_debug: %.3f s" % (layers, backend, seconds))
    print("%-36s %6s %10s %10s %10s" % ("event", "calls", "metadata", "payload", "logging"))
    for name in sorted(spent, key=lambda n: -sum(spent[n])):
        print("%-36s %6d %9.3fs %9.3fs %9.3fs" % ((name, calls[name]) + tuple(spent[name])))
    print("%-36s %6d %9.3fs in all" % ("", sum(calls.values()), sum(sum(r) for r in spent.values())))


def measure(layers, backend, use_depyf, code_root=REPO):
    """One fresh process; ``code_root``: the folder whose ``depyf`` it imports (its
    bytecode compiled first: ``compile_overhead.bytecode_cached``)."""
    from compile_overhead import bytecode_cached  # (a script beside this one; imported here
    # only: tools/docs_tables.py loads this file from its path for the table's format)
    bytecode_cached(code_root)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TORCHINDUCTOR_COMPILE_THREADS="1",
                   PYTHONPATH=code_root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--child", str(layers), backend,
             "1" if use_depyf else "0", os.path.join(tmp, "dump")],
            env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        return json.loads(proc.stdout.strip().splitlines()[-1])


def _load():
    try:
        return "%.2f" % os.getloadavg()[0]
    except OSError:
        return "?"


def slope(points):
    """Least-squares slope of seconds against instructions, in ms per 1000 instructions."""
    if len({n for n, _ in points}) < 2:
        return None
    mx = statistics.mean(n for n, _ in points)
    my = statistics.mean(s for _, s in points)
    num = sum((n - mx) * (s - my) for n, s in points)
    den = sum((n - mx) ** 2 for n, _ in points)
    return 1e6 * num / den


def pair(layers, backend, against=None):
    """One alternation: a plain process, then (with ``against``) one with that version's
    depyf, then one with this depyf."""
    result = {"plain": measure(layers, backend, False)}
    if against is not None:
        result["other"] = measure(layers, backend, True, against[1])
    result["depyf"] = measure(layers, backend, True)
    return result


def run_pairs(configs, runs, jobs, against=None):
    """``runs`` alternations per (layers, backend), ``jobs`` of them at a time (each
    alternation runs its processes one after another, so plain and depyf meet the same
    conditions): {config: [pair result]}."""
    tasks = [config for config in configs for _ in range(runs)]
    if jobs > 1:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            done = list(pool.map(lambda config: pair(*config, against), tasks))
    else:
        done = [pair(*config, against) for config in tasks]
    results = collections.defaultdict(list)
    for config, result in zip(tasks, done):
        results[config].append(result)
    return results


def alternation_ratios(row):
    """Each alternation's own ratio, sorted (its two processes ran one after the other):
    their spread shows how far the machine drifted between alternations."""
    return sorted(a["depyf"]["seconds"] / a["plain"]["seconds"] for a in row.get("alternations", ()))


def make_row(layers, backend, pairs, points, against=None):
    """One row from a configuration's alternations: medians, ratios, the per-code hook
    times (added to ``points``); prints it, and the row of ``against``'s depyf."""
    def median(mode, key):
        return statistics.median(r[mode][key] for r in pairs)

    per_code = collections.defaultdict(list)  # (order, name, instructions) -> [s]
    for r in pairs:
        for i, (name, instructions, seconds) in enumerate(r["depyf"]["per_code"]):
            per_code[(i, name, instructions)].append(seconds)
    p, d = median("plain", "seconds"), median("depyf", "seconds")
    pc, dc = median("plain", "cpu"), median("depyf", "cpu")
    codes = []
    for (_, name, instructions), times in sorted(per_code.items()):
        codes.append((name, instructions, statistics.median(times)))
        points.append((instructions, statistics.median(times)))
    hook = sum(s for _, _, s in codes)
    runs = len(pairs)
    row = {"layers": layers, "backend": backend, "runs": runs, "plain_seconds": p,
           "depyf_seconds": d, "ratio": d / p, "cpu_ratio": dc / pc, "hook_seconds": hook,
           "alternations": [{mode: {"seconds": r[mode]["seconds"], "cpu": r[mode]["cpu"]}
                             for mode in ("plain", "depyf")} for r in pairs],
           "per_code": [{"name": n, "instructions": i, "seconds": s} for n, i, s in codes]}
    print("%6d %-9s %4d %10.3f %10.3f %7.2f %7.2f %9.3f  %s (alternations: %s)" % (
        layers, backend, runs, p, d, d / p, dc / pc, hook,
        "; ".join("%s %d instr %.0f ms" % (n, i, 1e3 * s) for n, i, s in codes),
        " ".join("%.2f" % x for x in alternation_ratios(row))), flush=True)
    if against is not None:
        o, oc = median("other", "seconds"), median("other", "cpu")
        other_hook = statistics.median(sum(s for _, _, s in r["other"]["per_code"]) for r in pairs)
        print("%6d %-9s %4d %10.3f %10.3f %7.2f %7.2f %9.3f  (depyf of %s)" % (
            layers, backend, runs, p, o, o / p, oc / pc, other_hook, against[0]), flush=True)
    return row


def extract(rev, folder):
    """``rev``'s ``depyf`` package, extracted into ``folder`` (returned); ``rev`` may also
    be a folder that holds a ``depyf`` package (a copy where git is not at hand)."""
    if os.path.isdir(os.path.join(rev, "depyf")):
        return os.path.abspath(rev)
    archive = subprocess.run(["git", "-C", REPO, "archive", rev, "depyf"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", default="8,32,64", help="comma-separated depths (default 8,32,64)")
    parser.add_argument("--backends", default="eager,aot_eager,inductor")
    parser.add_argument("--runs", type=int, default=5, help="processes per depth, backend and mode (5)")
    parser.add_argument("--inductor-layers", default="32",
                        help="depths run with inductor (default 32: its compiles are long)")
    parser.add_argument("--against", metavar="REV",
                        help="also time the depyf of git revision REV (or of the folder REV/depyf), "
                             "alternating (a row each)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="alternations run at a time (default 1; on a machine of many cores, "
                             "each child then gets OMP_NUM_THREADS=cores/jobs)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--profile", nargs=2, metavar=("LAYERS", "BACKEND"))
    parser.add_argument("--top", type=int, default=40, help="rows of --profile")
    parser.add_argument("--phases", nargs=2, metavar=("LAYERS", "BACKEND"),
                        help="wall time of depyf's steps in one prepare_debug process")
    parser.add_argument("--trace-payloads", nargs=2, metavar=("LAYERS", "BACKEND"),
                        help="time torch's structured-trace events in one prepare_debug process")
    parser.add_argument("--out-dir", help="write deep-model.json (the results) here")
    args = parser.parse_args()
    if args.child:
        layers, backend, use, dump = args.child
        seconds, cpu, per_code = timed_run(int(layers), backend, use == "1", dump)
        print(json.dumps({"seconds": seconds, "cpu": cpu, "per_code": per_code}))
        return
    if args.profile:
        profile(int(args.profile[0]), args.profile[1], args.top)
        return
    if args.phases:
        phases(int(args.phases[0]), args.phases[1])
        return
    if args.trace_payloads:
        trace_payloads(int(args.trace_payloads[0]), args.trace_payloads[1])
        return
    import torch

    depths = [int(x) for x in args.layers.split(",")]
    inductor_depths = [int(x) for x in args.inductor_layers.split(",")]
    result = {"torch": torch.__version__, "python": sys.version.split()[0], "cpus": os.cpu_count(),
              "load_start": _load(), "jobs": args.jobs, "rows": []}
    import transformers
    result["transformers"] = transformers.__version__
    print("torch %s, Python %s, %d CPUs, load %s; LlamaForCausalLM (hidden 16); medians over "
          "fresh processes (plain and prepare_debug alternating, %d alternation(s) at a time)" % (
              torch.__version__, sys.version.split()[0], os.cpu_count(), result["load_start"], args.jobs))
    print("%6s %-9s %4s %10s %10s %7s %7s %9s  %s" % (
        "layers", "backend", "runs", "plain (s)", "depyf (s)", "ratio", "cpu", "hook (s)",
        "depyf's hook per code object"))
    points, verdicts = [], []
    against = None
    if args.against:
        against = (args.against, extract(args.against, tempfile.mkdtemp(prefix="depyf-against-")))
    configs = [(layers, backend) for backend in args.backends.split(",") for layers in depths
               if backend != "inductor" or layers in inductor_depths or len(depths) == 1]
    if args.jobs > 1:
        os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // args.jobs))
    results = run_pairs(configs, args.runs, args.jobs, against)
    for layers, backend in configs:
        row = make_row(layers, backend, results[(layers, backend)], points, against)
        result["rows"].append(row)
        ratio = row["ratio"]
        target = TARGETS.get(backend)
        verdicts.append("%d layers %s: %.2f (target <= %s: %s)" % (
            layers, backend, ratio, target, "met" if target and ratio <= target else "NOT met"))
    s = slope(points)
    print("hook time against instructions: %s; load %s" % (
        "%.2f ms per 1000 instructions" % s if s is not None else "one size only", _load()))
    print("\n".join(verdicts))
    result.update(slope_ms_per_1000=s, targets=TARGETS, load_end=_load())
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
        with open(os.path.join(args.out_dir, "deep-model.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
