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


# Dynamo 2.13's code for toy_example (graph break at the data-dependent `if`), decompiled by
# hand from its bytecode: the stack juggling of __nested_resume_fns / __nested_frame_values
# ends in calls of the two resume functions with two fresh empty lists, b and x.
TOY_MAIN = '''def {name}(a, b):
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = tmp_1()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_3(tmp_2)
    graph_out_0 = {fn}(a, b)
    del tmp_1
    del tmp_3
    __temp_1 = graph_out_0[0]
    x = graph_out_0[1]
    del graph_out_0
    if __temp_1:
        return {resume0}([], [], b, x)
    return {resume1}([], [], b, x)
'''


# ... and its resume functions: the graph's first output is returned.
TOY_RESUME = '''def {name}(__nested_resume_fns, __nested_frame_values, b, x):
    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter
    tmp_2 = tmp_1()
    tmp_3 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit
    tmp_3(tmp_2)
    graph_out_0 = {fn}({args})
    del tmp_1
    del tmp_3
    __temp_1 = graph_out_0[0]
    del graph_out_0
    return __temp_1
'''


def _graph_args(code):
    """The locals Dynamo's prologue passes to the graph (loaded between the two
    record_pregraph_bytecode_* calls)."""
    import dis

    names, inside = [], False
    for ins in dis.get_instructions(code):
        if ins.opname == "STORE_FAST" and ins.argval == "tmp_2":
            inside = True
        elif inside and ins.opname == "LOAD_FAST":
            names.append(ins.argval)
        elif inside and ins.opname == "LOAD_GLOBAL":
            break
    return ", ".join(names)


def stand_in_decompiler(template, only=None, resume_template=None):
    """A Decompiler stand-in knowing the given templates (others: DecompilationError)."""

    class StandIn:
        def __init__(self, code, fixed_globals=()):
            self.code = code
            self.bindings = {}

        def decompile(self, indentation=4, temp_prefix="__temp_", overwrite_fn_name=None):
            chosen = template
            if resume_template is not None and self.code.co_name.startswith("torch_dynamo_resume_in_"):
                chosen = resume_template
            elif only is not None and self.code.co_name != only:
                raise depyf.DecompilationError("the stand-in only knows %s" % only)
            fn = [n for n in self.code.co_names if n.startswith("__compiled_fn_")][0]
            resumes = [n for n in self.code.co_names if n.startswith("__resume_at_")]
            return chosen.format(name=overwrite_fn_name or self.code.co_name, fn=fn, args=_graph_args(self.code),
                                 resume0=(resumes + ["r0"])[0], resume1=(resumes + ["r0", "r1"])[1])

    return StandIn


def locals_at_line(path, text, run):
    """Run ``run()`` under ``depyf.debug()`` and collect the frame locals each time the line
    of ``path`` containing ``text`` executes (what a debugger breakpoint there would see)."""
    line = [i for i, t in enumerate(open(path).read().splitlines(), 1) if text in t][0]
    hits = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == path:
            if event == "line" and frame.f_lineno == line:
                hits.append(dict(frame.f_locals))
            return tracer
        return None

    with depyf.debug():
        sys.settrace(tracer)
        try:
            result = run()
        finally:
            sys.settrace(None)
    return hits, result


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
        # the checker's first difference: the exit hook is fetched before the enter hook
        assert "NOT the running code" in header and "not proven equivalent" in header, header
        assert "getattr record_pregraph_bytecode_exit" in header, header
        assert entry.code.co_filename == simple.__code__.co_filename
    torch._dynamo.reset()


def test_a_folded_text_that_is_not_equivalent_is_not_used(tmp_path, monkeypatch, no_pause):
    """A bug in the folding (here: it swaps the profiler calls) must not change the program:
    the text as decompiled runs instead, and the file says why."""
    def wrong_fold(source, func_name, **kwargs):
        lines = source.splitlines()
        lines[1:5] = [lines[3], lines[4], lines[1], lines[2]]
        return "\n".join(lines) + "\n"

    x = torch.randn(5)
    torch._dynamo.reset()
    expected = _run(x)
    torch._dynamo.reset()
    monkeypatch.setattr(transformed_code, "Decompiler", stand_in_decompiler(CORRECT))
    monkeypatch.setattr(transformed_code.readable, "fold", wrong_fold)
    with depyf.prepare_debug(str(tmp_path)):
        got = _run(x)
    assert torch.equal(expected, got)
    path = str(tmp_path / "__transformed_code_0_for_simple.py")
    text = open(path).read()
    assert "This is the code that runs" in text and "Shown as decompiled" in text, text
    assert "not proven equivalent" in text and "getattr record_pregraph_bytecode_exit" in text, text
    assert CORRECT.format(name="__transformed_code_0_for_simple", fn="__compiled_fn_1").splitlines()[1] in text
    entry = torch._dynamo.eval_frame._debug_get_cache_entry_list(simple.__code__)[0]
    assert entry.code.co_filename == path
    torch._dynamo.reset()


def test_breakpoint_in_replaced_code_is_hit(tmp_path, monkeypatch):
    monkeypatch.setattr(transformed_code, "Decompiler", stand_in_decompiler(CORRECT))
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        _run(torch.randn(3))
    path = str(tmp_path / "__transformed_code_0_for_simple.py")
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    hits, _ = locals_at_line(path, "return graph_out_0", lambda: _run(torch.randn(3)))
    assert hits and isinstance(hits[0]["x"], torch.Tensor), hits
    torch._dynamo.reset()


def test_graph_break_code_runs_from_its_file(tmp_path, monkeypatch):
    """toy_example's main frame (a graph break with resume calls) runs from the dump file:
    outputs identical, a line of the file executes with the frame's tensors."""
    import workloads

    torch._dynamo.reset()
    expected = workloads.w_toy("eager")
    torch._dynamo.reset()
    monkeypatch.setattr(transformed_code, "Decompiler",
                        stand_in_decompiler(TOY_MAIN, only="toy_example", resume_template=TOY_RESUME))
    with depyf.prepare_debug(str(tmp_path)):
        got = workloads.w_toy("eager")
    assert all(torch.equal(a, b) for a, b in zip(expected, got)) and len(expected) == len(got)
    path = str(tmp_path / "__transformed_code_0_for_toy_example.py")
    resume_files = [p for p in os.listdir(str(tmp_path)) if "resume_in_toy_example" in p]
    assert len(resume_files) == 2
    for p in [path] + [str(tmp_path / p) for p in resume_files]:
        assert "This is the code that runs" in open(p).read(), p
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    hits, again = locals_at_line(path, "x = graph_out_0[1]", lambda: workloads.w_toy("eager"))
    assert all(torch.equal(a, b) for a, b in zip(expected, again))
    tensors = {k for k, v in hits[0].items() if isinstance(v, torch.Tensor)} if hits else set()
    assert {"a", "b"} <= tensors, hits
    torch._dynamo.reset()


def test_subtly_wrong_graph_break_code_is_refused(tmp_path, monkeypatch):
    """The same source with the two lists aliased (one list passed twice): every structural
    check passes, the equivalence checker sees one object where Dynamo passes two, and
    Dynamo's code keeps running."""
    import workloads

    aliased = TOY_MAIN.replace("return {resume0}([], [], b, x)", "__l = []\n        return {resume0}(__l, __l, b, x)")
    torch._dynamo.reset()
    monkeypatch.setattr(transformed_code, "Decompiler", stand_in_decompiler(aliased, only="toy_example"))
    with depyf.prepare_debug(str(tmp_path)):
        workloads.w_toy("eager")
    text = open(str(tmp_path / "__transformed_code_0_for_toy_example.py")).read()
    assert "NOT the running code" in text and "with different operands" in text, text[:1500]
    torch._dynamo.reset()
