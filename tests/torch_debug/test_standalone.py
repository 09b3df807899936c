"""Every dump file imports on its own, and every captured/AOT graph file
runs as a script on inputs of the recorded shapes, dtypes and strides, printing the shapes
it produced (``python __compiled_fn_1.Captured_Graph.0.py``)."""
import os
import pytest
import torch

import depyf
from support import HERE, run_python
from workloads import WORKLOADS

CASES = [("toy", "eager"), ("toy", "aot_eager"), ("toy", "inductor"), ("mlp_train", "aot_eager"),
         ("dynamic_recompile", "aot_eager"), ("mark_dynamic", "eager"), ("cnn", "eager"),
         ("closure", "eager"), ("hook_lambda", "eager")]


@pytest.mark.parametrize("name,backend", CASES, ids=["%s-%s" % c for c in CASES])
def test_dump_files_import_and_graphs_run_alone(name, backend, tmp_path):
    dump = str(tmp_path / "dump")
    torch._dynamo.reset()
    with depyf.prepare_debug(dump):
        WORKLOADS[name][0](backend)
    torch._dynamo.reset()
    proc = run_python([os.path.join(HERE, "walk_dump.py"), dump])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "BAD 0" in proc.stdout, proc.stdout[-4000:]
    graphs = [line for line in proc.stdout.splitlines() if line.startswith("OK __compiled_fn_")
              and "kernel_" not in line and "Joint_graph" not in line]
    # before torch 2.5 a captured graph calls the program's modules, which its file lacks
    state_in_graph = not getattr(torch._dynamo.config, "inline_inbuilt_nn_modules", True)
    assert graphs and all("'output " in line or (state_in_graph and "not run alone:" in line)
                          for line in graphs), graphs


def test_one_graph_file_as_the_user_runs_it(tmp_path):
    dump = str(tmp_path / "dump")
    torch._dynamo.reset()
    with depyf.prepare_debug(dump):
        WORKLOADS["toy"][0]("eager")
    torch._dynamo.reset()
    first = sorted(n for n in os.listdir(dump) if n.endswith(".Captured_Graph.0.py"))[0]
    proc = run_python([first], cwd=dump)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shapes = sorted(line.split(": ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("output "))
    assert shapes == ["() bool", "(10,) float32"], proc.stdout  # (their order is Dynamo's)
