"""Functions compiled in a pytest test module: pytest rewrites their ``assert`` statements
and names the temporaries ``@py_assert1``, ``@py_format3``... (real locals no source can
spell). Their transformed and resume code still runs as decompiled code: the dump file
writes stand-ins, the running code has the real names (depyf/torch_debug/local_names.py)."""
import glob
import os

import torch

import depyf
from support import assert_all_compile, assert_bitwise_equal, expect_gap


def asserts_around_a_break(x, y):
    z = x * 2
    assert z.shape == y.shape
    print("graph break")
    w = z + y
    assert w.dim() == 1, "one dimension"
    return w.sum()


def _breaks(t):
    print("graph break inside the assert")
    return t.cos()


def assert_live_across_a_break(x, y):
    z = torch.sin(x)
    # `@py_assert1` (z.sum()) is live while _breaks runs: an argument of the resume function
    assert z.sum() < _breaks(y).sum() + 100
    return z + 1


def _run(fn, backend="eager"):
    compiled = torch.compile(fn, backend=backend)
    return [compiled(torch.ones(3) * i, torch.arange(3.0)) for i in range(2)]


def _overview(dump):
    ns = {}
    exec(open(os.path.join(dump, "depyf_overview.py")).read(), ns)
    return ns["OVERVIEW"]


def test_pytest_rewrote_the_asserts():
    for fn in (asserts_around_a_break, assert_live_across_a_break):
        assert any(n.startswith("@py_assert") for n in fn.__code__.co_varnames), fn.__code__.co_varnames


def test_rewritten_functions_run_as_decompiled_code(tmp_path, no_pause):
    for fn in (asserts_around_a_break, assert_live_across_a_break):
        dump = str(tmp_path / fn.__name__)
        torch._dynamo.reset()
        reference = _run(fn)
        torch._dynamo.reset()
        with depyf.prepare_debug(dump):
            dumped = _run(fn)
        with depyf.debug():
            debugged = _run(fn)
        torch._dynamo.reset()
        assert_bitwise_equal(reference, dumped, fn.__name__ + " with prepare_debug")
        assert_bitwise_equal(reference, debugged, fn.__name__ + " under debug()")
        data = _overview(dump)
        fell_back = [(f["function"], f["why_not_decompiled"]) for f in data["transformed_code"]
                     if f["running_code"] != "decompiled"]
        expect_gap(len(fell_back), "%s: %d fell back" % (fn.__name__, len(fell_back)), strict=False)
        assert not fell_back, fell_back
        assert data["counts"]["decompiled_and_running"] >= 2  # the function and a resume function
        texts = [open(p).read() for p in glob.glob(os.path.join(dump, "__transformed_code_*.py"))]
        assert any("_py_assert1 is @py_assert1" in t for t in texts), texts[0][:3000]
        code_lines = [line for t in texts for line in t.splitlines() if not line.lstrip().startswith("#")]
        assert not [line for line in code_lines if "@py_" in line]
        assert_all_compile(dump)


def test_resume_function_takes_an_assert_temporary(tmp_path, no_pause):
    """The live ``@py_assert`` temporary is passed to a resume function and spelled there."""
    dump = str(tmp_path / "dump")
    torch._dynamo.reset()
    with depyf.prepare_debug(dump):
        _run(assert_live_across_a_break)
    torch._dynamo.reset()
    resumes = [open(p).read() for p in glob.glob(
        os.path.join(dump, "__transformed_code_*_for_torch_dynamo_resume_in_assert_live*.py"))]
    expect_gap(sum("NOT the running code" in t for t in resumes), "a resume function fell back",
               strict=False)
    assert any("def " in t and "_py_assert1" in t.split("def ", 1)[1].split(")")[0]
               for t in resumes), resumes
