"""``benchmarks/deep_model.py`` at its smallest size (one layer, two alternations run at
a time, eager), so that the script cannot rot between the runs that use it: the table row, the
per-code hook times and the verdict are printed, and the JSON docs/performance.md is made
from is written."""
import json
import os
import subprocess
import sys

import pytest

from support import REPO

pytest.importorskip("transformers")


def _compile_overhead():
    """The module ``benchmarks/compile_overhead.py``."""
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import compile_overhead
    finally:
        sys.path.pop(0)
    return compile_overhead


def test_deep_model_benchmark_smallest_size(tmp_path):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "deep_model.py"), "--layers", "1",
         "--runs", "2", "--jobs", "2", "--backends", "eager", "--out-dir", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    row = next(line for line in lines if line.split()[:2] == ["1", "eager"])
    plain, dumped, ratio = (float(x) for x in row.split()[3:6])
    assert plain > 0 and dumped > 0 and abs(ratio - dumped / plain) < 0.01
    assert "wrapper" in row and " instr " in row  # the hook timed the transformed forward
    assert any(line.startswith("1 layers eager: ") for line in lines), lines
    assert any(line.startswith("hook time against instructions:") for line in lines), lines
    with open(os.path.join(str(tmp_path), "deep-model.json")) as f:
        data = json.load(f)
    assert [(r["layers"], r["backend"], r["runs"]) for r in data["rows"]] == [(1, "eager", 2)]
    assert data["rows"][0]["per_code"] and data["torch"] and data["python"] and data["jobs"] == 2


def test_deep_model_phases_time_every_step(tmp_path):
    """``--phases``: every step it names is found (a renamed function fails here) and was
    called in the one compile."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "deep_model.py"), "--phases", "1", "eager"],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    steps = {line[:30].strip(): line[30:].split() for line in proc.stdout.splitlines()
             if line.endswith("call(s)")}
    for step in ("hook", "decompile", "fold", "check", "proxy runs", "reading copy", "graph files",
                 "full-code and overview files"):
        seconds, _, count, _ = steps[step]
        assert float(seconds) > 0 and int(count) >= 1, (step, steps)


def test_deep_model_trace_payloads_times_torchs_events():
    """``--trace-payloads``: torch's structured-trace events of one compile, per name
    (the captured graph's printout among them), with their count."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "deep_model.py"), "--trace-payloads", "1", "eager"],
        env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {line.split()[0]: line.split()[1:] for line in proc.stdout.splitlines()
            if line.strip() and line.split()[-1].endswith("s") and line[:1] != " "}
    calls, _, payload, _ = rows["dynamo_output_graph"]
    assert int(calls) == 1 and float(payload[:-1]) > 0, proc.stdout
    assert int(rows["describe_tensor"][0]) >= 1, proc.stdout
    assert proc.stdout.rstrip().endswith("in all"), proc.stdout


def test_children_load_depyf_from_bytecode(tmp_path):
    """The benchmarks compile the measured ``depyf`` to bytecode files before the runs, as
    an installed package has them: a child that imports it late (``depyf.torch_debug``,
    inside the timed block) loads it without compiling, even where ``PYTHONDONTWRITEBYTECODE``
    keeps the children from writing bytecode themselves."""
    import importlib.util
    compile_overhead = _compile_overhead()
    package = tmp_path / "depyf" / "torch_debug"
    package.mkdir(parents=True)
    for folder in (package.parent, package):
        (folder / "__init__.py").write_text("VALUE = 1\n")
    assert compile_overhead.bytecode_cached(str(tmp_path)) == str(tmp_path)
    for folder in (package.parent, package):
        assert os.path.exists(importlib.util.cache_from_source(str(folder / "__init__.py")))


def test_full_collections_are_counted_while_installed():
    """The compile-overhead rows' full-collection count: full collections inside the block
    count, younger ones do not, nor any after it."""
    import gc
    compile_overhead = _compile_overhead()
    with compile_overhead.FullCollections() as collections:
        gc.collect(0)
        gc.collect(1)
        gc.collect()
        gc.collect(2)
    gc.collect()
    assert collections.count == 2
    assert collections.seconds > 0
    assert collections not in gc.callbacks
