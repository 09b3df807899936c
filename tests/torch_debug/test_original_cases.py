"""The cases the original depyf's torch tests exercise, on our dump: a function with no
graph, ``torch.export`` inside a session, irregular code from another bytecode hook,
``install()`` with a backward pass inside the compiled function, and the way vLLM uses
the tool. (Cell variables: the ``cellvars`` workload; processes and ranks:
test_session.py and test_shared_folder.py; the dispatcher: test_dispatcher.py.)"""
import ast
import os
import textwrap
import warnings

import pytest
import torch

import depyf
from depyf.optimization import TorchCompileWrapperWithCustomDispatcher
from support import assert_all_compile, assert_links_resolve, run_python
# (in a module pytest does not rewrite: its rewritten asserts use locals such as
# `@py_assert1`, which no source can declare, so such a frame keeps Dynamo's code)
from workloads import assert_print_comprehension, say_hello


def _overview(folder):
    text = open(os.path.join(str(folder), "depyf_overview.py"), encoding="utf-8").read()
    tree = ast.parse(text)
    return [ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)][0]


def test_functions_without_a_graph(tmp_path, capsys, no_pause):
    """Nothing for a graph: Dynamo still makes code (and resume functions it then does not
    compile); each one's file is there, every link resolves, and the output is the same."""
    torch._dynamo.reset()
    say_hello(", world!")
    assert_print_comprehension(1, 2)
    expected = capsys.readouterr().out
    with depyf.prepare_debug(str(tmp_path)):
        torch.compile(say_hello, backend="eager")(", world!")
        torch.compile(assert_print_comprehension, backend="eager")(1, 2)
    assert capsys.readouterr().out == expected == "Hello, world!\n2\n"
    with depyf.debug():
        torch.compile(say_hello, backend="eager")(", world!")
    assert capsys.readouterr().out.endswith("Hello, world!\n")
    torch._dynamo.reset()
    for fn in ("say_hello", "assert_print_comprehension"):
        assert (tmp_path / ("full_code_for_%s_0.py" % fn)).exists()
        assert (tmp_path / ("__transformed_code_0_for_%s.py" % fn)).exists()
    assert _overview(tmp_path)["counts"]["fell_back_to_dynamo"] == 0
    assert_links_resolve(str(tmp_path))
    resumes = [n for n in os.listdir(str(tmp_path)) if "resume_in_assert_print_comprehension" in n]
    assert resumes, os.listdir(str(tmp_path))
    text = (tmp_path / resumes[0]).read_text()
    assert "Dynamo did not compile it" in text and "__transformed_code_0_for_assert_print_comprehension.py" in text
    assert_all_compile(str(tmp_path))


def _counter():
    count = 0

    def tick(x):
        nonlocal count
        x.mul_(2)
        print("tick")
        count += 1
        return count
    return tick


def test_an_uncompiled_resume_function_of_a_closure_is_shown_as_python(tmp_path, capsys, no_pause):
    """A resume function Dynamo never compiles (its tail has no tensor) of a function that
    declares ``nonlocal``: its file holds its decompiled source nested in a function that
    binds the closure variable (``nonlocal`` alone does not compile), not a listing."""
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        x = torch.ones(2)
        count = torch.compile(_counter(), backend="eager")(x)
    assert count == 1 and x.tolist() == [2.0, 2.0]
    torch._dynamo.reset()
    resumes = [n for n in os.listdir(str(tmp_path)) if "resume_in_tick" in n]
    assert resumes, os.listdir(str(tmp_path))
    for name in resumes:
        text = (tmp_path / name).read_text()
        if "Dynamo did not compile it" not in text:
            continue
        assert "no proven source" not in text, text
        assert "\ndef __closure_for_torch_dynamo_resume_in_tick_at_" in text, text
        assert "        nonlocal count\n" in text, text
        break
    else:
        pytest.skip("Dynamo compiled every resume function of this closure on this release")
    assert_all_compile(str(tmp_path))


very_long_variable = "a" * 1000


class LongNamed(torch.nn.Module):
    """The original's export case: a submodule under a 1000-character attribute name."""

    def __init__(self):
        super().__init__()
        encoder = torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, batch_first=True), num_layers=2)
        setattr(self, very_long_variable, encoder)

    def forward(self, x):
        encoder = getattr(self, very_long_variable)
        return encoder(x)


def test_torch_export_inside_a_session(tmp_path, no_pause):
    torch.manual_seed(0)
    model = LongNamed().eval()
    x = torch.randn(1, 10, 8)
    with torch.no_grad():
        expected = model(x)
        torch._dynamo.reset()
        with depyf.prepare_debug(str(tmp_path)):
            compiled = torch.compile(model, backend="eager", fullgraph=True)(x)
            exported = torch.export.export(model, (x,))
            from_export = exported.module()(x)
            strict = torch.export.export(model, (x,), strict=True).module()(x)
        torch._dynamo.reset()
    for got in (compiled, from_export, strict):
        assert torch.allclose(got, expected, atol=1e-6)
    assert (tmp_path / "full_code_for_forward_0.py").exists()
    assert max(len(n) for n in os.listdir(str(tmp_path))) < 255  # file names stay short
    assert _overview(tmp_path)["counts"]["fell_back_to_dynamo"] == 0
    assert_links_resolve(str(tmp_path))
    assert_all_compile(str(tmp_path))


IRREGULAR_SCRIPT = textwrap.dedent('''
    import sys, torch, depyf

    def f():
        print((len("1"), "2", "3"))

    code = f.__code__

    class Tmp:
        def __init__(self):
            self.called_count = 0

        def __len__(self):
            self.called_count += 1
            return 1

    tmp = Tmp()
    # another bytecode hook, registered first, hands Dynamo code whose constants are
    # objects with no source form (as torch.compile itself does)
    replace = {None: None, "1": tmp, "2": torch.nn.Module, "3": torch.int64}
    new_code = code.replace(co_consts=tuple(replace[c] for c in code.co_consts))

    def convert_hook(old_code, compiled_code):
        if old_code is code:
            return new_code

    handle = torch._dynamo.convert_frame.register_bytecode_hook(convert_hook)
    f = torch.compile(f, backend="eager")
    with depyf.prepare_debug(sys.argv[1]):
        f()
        f()
    assert tmp.called_count == 2, tmp.called_count
    print("COUNT", tmp.called_count)
''')


def test_irregular_code_from_another_hook(tmp_path):
    script = tmp_path / "irregular.py"
    script.write_text(IRREGULAR_SCRIPT)
    dump = tmp_path / "dump"
    proc = run_python([str(script), str(dump)], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("(1, <class 'torch.nn.modules.module.Module'>, torch.int64)") == 2
    assert "COUNT 2" in proc.stdout
    data = _overview(dump)
    assert [f["running_code"] for f in data["transformed_code"]] == ["decompiled"]
    text = (dump / "__transformed_code_0_for_f.py").read_text()
    assert "__depyf_const_" in text  # the objects are named, bound in the frame's globals
    assert_links_resolve(str(dump))
    assert_all_compile(str(dump))


LOGGING_SCRIPT = textwrap.dedent('''
    import torch, depyf

    @torch.compile(backend="eager")
    def fn():
        x = torch.ones(1, 10, requires_grad=True)
        y = torch.ones(10, 1)
        loss = torch.mm(x, y).sum()
        loss.backward()
        return x.grad

    depyf.install()
    print("GRAD", fn().sum().item())
    depyf.uninstall()
''')


def test_install_logs_a_function_with_a_backward_pass(tmp_path):
    """The original's logging case: ``backward()`` inside the compiled function (a graph
    break), logged with TORCH_LOGS=+bytecode; the result is unchanged."""
    script = tmp_path / "logging_script.py"
    script.write_text(LOGGING_SCRIPT)
    proc = run_python([str(script)], cwd=str(tmp_path), env={"TORCH_LOGS": "+bytecode"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "GRAD 10.0" in proc.stdout
    assert "depyf: decompiled transformed code of fn:" in proc.stderr, proc.stderr[-3000:]
    assert "depyf: decompiled transformed code of torch_dynamo_resume_in_fn_at_" in proc.stderr


# ---- the way vLLM uses depyf --------------------------------------------------------------

_monitor = None  # vLLM keeps the context manager in a module global


def start_monitoring(path):
    global _monitor
    _monitor = depyf.prepare_debug(path)
    _monitor.__enter__()


def end_monitoring():
    global _monitor
    if _monitor is not None:
        _monitor.__exit__(None, None, None)
        _monitor = None


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.linear(x))


class VllmLikeWrapper(TorchCompileWrapperWithCustomDispatcher):
    """vLLM's wrapper: its bytecode hook also writes ``depyf.decompile(new_code)`` to a
    ``transformed_code.py`` of its own cache directory, from inside Dynamo's compile."""

    def __init__(self, model, cache_dir):
        self.model, self.cache_dir, self.decompiled = model, cache_dir, []
        super().__init__(torch.compile(self.forward, backend="eager"))

    def forward(self, x):
        return self.model(x)

    def bytecode_hook(self, old_code, new_code):
        before = len(self.compiled_codes)
        super().bytecode_hook(old_code, new_code)
        if len(self.compiled_codes) == before:
            return
        src = depyf.decompile(new_code)  # raises if not proven: the test then fails
        self.decompiled.append(src)
        path = os.path.join(self.cache_dir, "transformed_code.py")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(src)

    def __call__(self, x):
        if self.compiled_codes:
            with self.dispatch_to_code(0):
                return self.forward(x)
        return self.compiled_callable(x)


@pytest.mark.parametrize("wrapper_first", [True, False], ids=["wrapper-before-session", "wrapper-in-session"])
def test_vllm_usage(tmp_path, monkeypatch, no_pause, wrapper_first):
    """``prepare_debug(path).__enter__()`` in one function and ``__exit__`` in another, a
    per-rank path (``.../rank_1`` for rank 1, used as it is), and ``depyf.decompile`` in
    the wrapper's own bytecode hook (before our hook or after it: then it decompiles the
    code our hook put in place)."""
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    torch.manual_seed(0)
    model, x = Model(), torch.randn(3, 4)
    expected = model(x)
    path = tmp_path / "debug" / "rank_1"
    torch._dynamo.reset()
    wrapper = VllmLikeWrapper(model, str(tmp_path)) if wrapper_first else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start_monitoring(str(path))
        wrapper = wrapper or VllmLikeWrapper(model, str(tmp_path))
        first = wrapper(x)
        second = wrapper(x)  # dispatched to the recorded code
        end_monitoring()
    wrapper.remove_hook()
    torch._dynamo.reset()
    assert not [w for w in caught if "never entered" in str(w.message) or "in use" in str(w.message)]
    assert torch.equal(first, expected) and torch.equal(second, expected)
    assert len(wrapper.compiled_codes) == 1 and len(wrapper.decompiled) == 1
    compile(open(str(tmp_path / "transformed_code.py")).read(), "transformed_code.py", "exec")
    assert (path / "full_code_for_forward_0.py").exists(), os.listdir(str(path))
    assert not (path / "rank_1").exists()
    assert _overview(path)["counts"] == {"decompiled_and_running": 1, "fell_back_to_dynamo": 0}
    assert_links_resolve(str(path))
    assert_all_compile(str(path))
