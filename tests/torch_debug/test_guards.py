"""Guard functions in full_code files agree with torch's own guard check."""
import ast
import os

import torch

import depyf
import workloads
from depyf.torch_debug import adapter, guards


def _guard_sources(full_code_path, fn_name):
    tree = ast.parse(open(full_code_path).read())
    src = open(full_code_path).read().splitlines()
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("__guard_") and node.name.endswith("_for_" + fn_name):
            out[node.name] = "\n".join(src[node.lineno - 1: node.end_lineno]) + "\n"
    return out


def _agree(entry, source, name, L, G):
    fn = guards.load_guard_function(entry, source, name)
    ours, theirs = fn(L, G), adapter.entry_guard(entry).check(L)
    assert ours == theirs, "%s: ours %s, torch %s for %s" % (name, ours, theirs, {k: getattr(v, "shape", v) for k, v in L.items()})
    return ours


def test_guards_agree_with_torch(tmp_path):
    torch._dynamo.reset()
    f = torch.compile(workloads.gb_print, backend="eager", dynamic=False)
    x = torch.randn(4, 3)
    with depyf.prepare_debug(str(tmp_path)):
        f(x)
    code = workloads.gb_print.__code__
    entries = adapter.cache_entries(code)
    assert len(entries) == 1
    sources = _guard_sources(os.path.join(str(tmp_path), "full_code_for_gb_print_0.py"), "gb_print")
    assert list(sources) == ["__guard_0_for_gb_print"]
    src = sources["__guard_0_for_gb_print"]
    descriptions = [part for _, _, parts in adapter.guard_tree(adapter.entry_guard(entries[0]))
                    for part in parts]
    if any("y = x.sin() * SCALE" in part for part in descriptions):  # (not before torch 2.5)
        assert "# y = x.sin() * SCALE" in src  # the user's source line as a comment
    G = workloads.__dict__
    entry = entries[0]
    name = "__guard_0_for_gb_print"
    assert _agree(entry, src, name, {"x": torch.randn(4, 3)}, G) is True  # seen
    assert _agree(entry, src, name, {"x": torch.randn(5, 3)}, G) is False  # other shape
    assert _agree(entry, src, name, {"x": torch.randn(4, 3, dtype=torch.float64)}, G) is False
    assert _agree(entry, src, name, {"x": torch.randn(4, 3, requires_grad=True)}, G) is False
    assert _agree(entry, src, name, {"x": torch.randn(3, 4).t()}, G) is False  # other strides
    old = workloads.SCALE
    try:
        workloads.SCALE = 3.0  # a changed global
        assert _agree(entry, src, name, {"x": torch.randn(4, 3)}, G) is False
    finally:
        workloads.SCALE = old
    torch._dynamo.reset()


def test_guards_of_recompiled_entries(tmp_path):
    torch._dynamo.reset()
    f = torch.compile(workloads.toy_example, backend="eager", dynamic=False)
    with depyf.prepare_debug(str(tmp_path)):
        f(torch.randn(10), torch.randn(10))
        f(torch.randn(3), torch.randn(3))
    entries = adapter.cache_entries(workloads.toy_example.__code__)
    assert len(entries) == 2
    sources = _guard_sources(os.path.join(str(tmp_path), "full_code_for_toy_example_0.py"), "toy_example")
    assert len(sources) == 2
    G = workloads.__dict__
    for j, entry in enumerate(entries):
        name = "__guard_%d_for_toy_example" % j
        for n in (10, 3, 7):
            _agree(entry, sources[name], name, {"a": torch.randn(n), "b": torch.randn(n)}, G)
        a = torch.randn(10)
        _agree(entry, sources[name], name, {"a": a, "b": a}, G)  # aliasing
    torch._dynamo.reset()
