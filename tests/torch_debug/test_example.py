"""The main example (examples/toy_example.py, the README's first command), run as
written (inductor backend): it dumps everything and says where the dump is and how to
open the report."""
import glob
import os
import shutil

import torch

from support import REPO, assert_all_compile, run_python

TORCH_MINOR = tuple(int(p) for p in torch.__version__.split(".")[:2])


def test_main_example_dumps_everything_and_says_where(tmp_path):
    shutil.copy(os.path.join(REPO, "examples", "toy_example.py"), tmp_path / "toy_example.py")
    # torch 2.5 to 2.7 report no post-grad graph when Inductor's FX graph cache serves a
    # graph, and its cache is on disk (an earlier run of the example fills it): off there
    env = {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0"} if TORCH_MINOR < (2, 8) else None
    proc = run_python(["toy_example.py"], cwd=str(tmp_path), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    dump = tmp_path / "dump_src_dir"
    # where the dump is, the file to start with, the command that opens the report
    # (prepare_debug logs them; the example shows the "depyf" logger's INFO messages)
    assert "depyf: torch.compile's code is in %s (start with full_code_for_toy_example_0.py)" % dump \
        in proc.stderr, proc.stderr[-3000:]
    assert "depyf report %s --open" % dump in proc.stderr
    assert "Failed to initialize NumPy" not in proc.stderr  # the torch extra brings numpy
    for name in ("full_code_for_toy_example_0.py", "__transformed_code_0_for_toy_example.py"):
        assert (dump / name).exists(), name
    resumes = glob.glob(str(dump / "__transformed_code_*_for_torch_dynamo_resume_in_toy_example_at_*.py"))
    assert len(resumes) == 2, resumes
    for stage in ("Captured_Graph", "Forward_graph", "AFTER_POST_GRAD"):
        assert len(glob.glob(str(dump / ("__compiled_fn_*.%s.0.py" % stage)))) == 3, stage
    kernels = glob.glob(str(dump / "__compiled_fn_*.kernel_0.py"))
    assert len(kernels) == 3
    # the graph numbers in file names are the ones the transformed code calls
    transformed = (dump / "__transformed_code_0_for_toy_example.py").read_text()
    k = os.path.basename(sorted(kernels)[0]).split(".")[0]
    assert any(k in open(p).read() for p in [str(dump / "__transformed_code_0_for_toy_example.py")] + resumes)
    assert "__compiled_fn_" in transformed
    assert_all_compile(str(dump))
