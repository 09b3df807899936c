"""The replacement path, independent of the decompiler's progress: a stand-in decompiler
returns the correct source of Dynamo's transformed code for a function without a graph
break, and the file must then BE the running code: outputs identical, the short graph name
bound, the code object compiled from the dump file, breakpoints there hit. A wrong source
must be refused by the equivalence check (Dynamo's code keeps running)."""
import os
import sys

import pytest
import torch

import depyf
from depyf.torch_debug import transformed_code


def simple(x):
    return x.sin() + 1


CORRECT = '''def {name}(x):
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = tmp_1()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_3(tmp_2)
    graph_out_0 = {fn}(x)
    del tmp_1
    del tmp_3
    return graph_out_0[0]
'''
WRONG_ORDER = '''def {name}(x):
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_3(tmp_2)
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = tmp_1()
    graph_out_0 = {fn}(x)
    del tmp_1
    del tmp_3
    return graph_out_0[0]
'''


def stand_in_decompiler(template):
    class StandIn:
        def __init__(self, code):
            self.code = code
            self.bindings = {}

        def decompile(self, indentation=4, temp_prefix="__temp_", overwrite_fn_name=None):
            fn = [n for n in self.code.co_names if n.startswith("__compiled_fn_")][0]
            return template.format(name=overwrite_fn_name or self.code.co_name, fn=fn)

    return StandIn


def _run(x):
    return torch.compile(simple, backend="eager")(x)


@pytest.mark.parametrize("template,used", [(CORRECT, True), (WRONG_ORDER, False)], ids=["correct", "wrong-order"])
def test_decompiled_code_runs_only_when_equivalent(template, used, tmp_path, monkeypatch, no_pause):
    x = torch.randn(5)
    torch._dynamo.reset()
    expected = _run(x)
    torch._dynamo.reset()
    monkeypatch.setattr(transformed_code, "Decompiler", stand_in_decompiler(template))
    with depyf.prepare_debug(str(tmp_path)):
        got = _run(x)
    assert torch.equal(expected, got)
    path = str(tmp_path / "__transformed_code_0_for_simple.py")
    header = "".join(open(path).readlines()[:8])
    entry = torch._dynamo.eval_frame._debug_get_cache_entry_list(simple.__code__)[0]
    if used:
        assert "This is the code that runs" in header, header
        assert entry.code.co_filename == path
        k = [n for n in entry.code.co_names if n.startswith("__compiled_fn_")][0]
        assert "_" not in k[len("__compiled_fn_"):], k  # the short name, bound in globals:
        assert k in simple.__globals__
        with depyf.debug():
            assert torch.equal(_run(x), expected)
    else:
        assert "NOT the running code" in header and "before they are assigned" in header, header
        assert entry.code.co_filename == simple.__code__.co_filename
    torch._dynamo.reset()


def test_breakpoint_in_replaced_code_is_hit(tmp_path, monkeypatch):
    monkeypatch.setattr(transformed_code, "Decompiler", stand_in_decompiler(CORRECT))
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        _run(torch.randn(3))
    path = str(tmp_path / "__transformed_code_0_for_simple.py")
    line = [i for i, text in enumerate(open(path).read().splitlines(), 1) if "return graph_out_0" in text][0]
    hits = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == path:
            if event == "line" and frame.f_lineno == line:
                hits.append(dict(frame.f_locals))
            return tracer
        return None

    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    with depyf.debug():
        sys.settrace(tracer)
        try:
            _run(torch.randn(3))
        finally:
            sys.settrace(None)
    assert hits and isinstance(hits[0]["x"], torch.Tensor), hits
    torch._dynamo.reset()
