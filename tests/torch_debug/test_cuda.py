"""torch.compile on a CUDA GPU under ``prepare_debug`` and ``debug()`` (skipped without one):
Inductor's Triton kernels dumped as valid Python, CUDA graphs (``mode="reduce-overhead"``)
with and without a graph break inside the region, a training step; outputs and gradients
bitwise-identical without depyf, with ``prepare_debug`` and under ``debug()``, and every
transformed code object running as decompiled code.

``DEPYF_CUDA_DUMPS=DIR`` keeps the dump folders in DIR (to read them afterwards).
"""
import glob
import os
import re

import pytest
import torch

import depyf
from support import assert_all_compile, assert_bitwise_equal

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")


def toy(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def toy_workload(mode):
    torch.manual_seed(0)
    f = torch.compile(toy, mode=mode)
    outs = []
    for _ in range(4):
        a = torch.randn(64, device="cuda")
        b = torch.randn(64, device="cuda")
        outs.append(f(a, b).clone())
    return [o.cpu() for o in outs]


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(32, 64)
        self.b = torch.nn.Linear(64, 8)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def mlp_cudagraphs(mode):
    torch.manual_seed(0)
    model = MLP().cuda()
    f = torch.compile(model, mode=mode)
    x = torch.randn(16, 32, device="cuda")
    with torch.no_grad():
        outs = [f(x).clone() for _ in range(5)]  # warm-up, record, replays
    return [o.cpu() for o in outs]


def break_in_region(x, w):
    y = torch.relu(x @ w)
    torch._dynamo.graph_break()
    return torch.tanh(y).sum(dim=-1)


def graph_break_cudagraphs(mode):
    torch.manual_seed(0)
    f = torch.compile(break_in_region, mode=mode)
    x = torch.randn(16, 32, device="cuda")
    w = torch.randn(32, 32, device="cuda")
    outs = [f(x, w).clone() for _ in range(5)]
    return [o.cpu() for o in outs]


def train_step(mode):
    torch.manual_seed(0)
    model = MLP().cuda()
    f = torch.compile(model, mode=mode)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    outs = []
    for _ in range(3):
        x = torch.randn(16, 32, device="cuda")
        loss = f(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        outs.append(loss.detach().cpu())
    return outs + [p.detach().cpu() for p in model.parameters()]


CASES = {
    "toy_inductor": (toy_workload, "default"),
    "toy_reduce_overhead": (toy_workload, "reduce-overhead"),
    "mlp_reduce_overhead": (mlp_cudagraphs, "reduce-overhead"),
    "graph_break_in_cudagraph_region": (graph_break_cudagraphs, "reduce-overhead"),
    "train_step_inductor": (train_step, "default"),
}


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    keep = os.environ.get("DEPYF_CUDA_DUMPS")
    return keep or str(tmp_path_factory.mktemp("cuda_dumps"))


def _overview(dump_dir):
    ns = {}
    with open(os.path.join(dump_dir, "depyf_overview.py")) as fh:
        exec(fh.read(), ns)
    return ns["OVERVIEW"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_cuda_workload(name, dumps, monkeypatch):
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    run, mode = CASES[name]
    dump_dir = os.path.join(dumps, name)
    torch._dynamo.reset()
    reference = run(mode)
    torch._dynamo.reset()
    with depyf.prepare_debug(dump_dir):
        dumped = run(mode)
    with depyf.debug():
        debugged = run(mode)
    torch._dynamo.reset()
    assert_bitwise_equal(reference, dumped, "%s with prepare_debug" % name)
    assert_bitwise_equal(reference, debugged, "%s under debug()" % name)
    assert_all_compile(dump_dir)
    counts = _overview(dump_dir)["counts"]
    kernels = sorted(glob.glob(os.path.join(dump_dir, "__compiled_fn_*.kernel_*.py")))
    triton = [k for k in kernels if re.search(r"@triton\.jit|triton_heuristics|async_compile\.triton",
                                              open(k).read())]
    print("\n%s: torch %s, %s: %d transformed code objects running as decompiled code, %d fell "
          "back; %d kernel files, %d with Triton kernels" % (
              name, torch.__version__, torch.cuda.get_device_name(),
              counts["decompiled_and_running"], counts["fell_back_to_dynamo"], len(kernels),
              len(triton)))
    assert counts["fell_back_to_dynamo"] == 0
    assert counts["decompiled_and_running"] > 0
    assert triton, "no Triton kernel among the dumped kernel files: %s" % kernels
