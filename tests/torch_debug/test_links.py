"""A reader can follow every name the transformed code calls to
its file, and the overview/headers say why and where each compile happened and what it cost."""
import ast
import os
import re

import pytest
import torch

import depyf
from workloads import dyn, toy_example


@pytest.fixture(scope="module")
def toy_dump(tmp_path_factory):
    dump = str(tmp_path_factory.mktemp("links") / "dump")
    torch._dynamo.reset()
    f = torch.compile(toy_example, backend="eager")
    torch.manual_seed(0)
    with depyf.prepare_debug(dump):
        for _ in range(6):  # both branches of `if b.sum() < 0`
            f(torch.randn(10), torch.randn(10))
        g = torch.compile(dyn, backend="eager", dynamic=False)
        g(torch.randn(3))
        g(torch.randn(4))  # recompiles: the size guard fails
    torch._dynamo.reset()
    return dump


def _header(path):
    lines = []
    for line in open(path):
        if not line.startswith("#"):
            break
        lines.append(line)
    return "".join(lines)


def _resume_calls(path):
    """Names of the ``__resume_at_*`` functions the code of ``path`` calls."""
    tree = ast.parse(open(path).read())
    return sorted({n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
                   and isinstance(n.func, ast.Name) and n.func.id.startswith("__resume_at_")})


def test_every_resume_call_leads_to_its_file(toy_dump):
    main = os.path.join(toy_dump, "__transformed_code_0_for_toy_example.py")
    calls = _resume_calls(main)
    assert len(calls) == 2, calls
    header = _header(main)
    continues = set()
    for name in calls:
        m = re.search(r"#\s+%s -> (\S+\.py) \(continues at (.*)\)" % re.escape(name), header)
        assert m, "the header of %s does not link %s to a file:\n%s" % (main, name, header)
        target = os.path.join(toy_dump, m.group(1))
        assert os.path.exists(target), target
        assert "_for_torch_dynamo_resume_in_toy_example_at_" in target
        resume_header = _header(target)
        # the resume file names the global it is, its caller, and where it continues
        assert "This is %s, called by __transformed_code_0_for_toy_example.py" % name in resume_header
        continues.add(m.group(2))
        assert m.group(2) in resume_header
    # the two branches continue at different lines of the user's function
    assert continues == {"workloads.py:38 `b = b * -1`", "workloads.py:39 `return x * b`"}, continues


def test_overview_lists_trigger_times_breaks_and_recompiles_per_compile(toy_dump):
    path = os.path.join(toy_dump, "depyf_overview.py")
    text = open(path).read()
    namespace = {}
    exec(compile(text, path, "exec"), namespace)  # stays valid Python
    compiles = namespace["OVERVIEW"]["compiles"]
    functions = namespace["OVERVIEW"]["transformed_code"]
    assert len(functions) == 5, functions  # toy_example, two resume functions, dyn twice
    for f in functions:
        info = compiles[f["compile_id"]]
        assert any("test_links.py" in frame for frame in info["trigger"]), info
        assert info["seconds"]["forward"]["total"] > 0, info
        assert "dynamo" in info["seconds"]["forward"], info
    section = text[text.index("# == compiles"):]
    assert section.count("Compile time: total") == 5, section
    assert "graph break GB0170 Data-dependent branching" in section, section
    assert "gb/gb0170.html" in section
    assert re.search(r"recompiled because: .*size", section), section
    # the graph break's hints and documentation link, in the overview and the header
    breaks = namespace["OVERVIEW"]["graph_breaks"]
    assert breaks[0]["hints"] and breaks[0]["documentation"].endswith("gb0170.html"), breaks
    header = _header(os.path.join(toy_dump, "__transformed_code_0_for_toy_example.py"))
    assert "#     Documentation: https://" in header and "#     Hint: " in header, header
    assert re.search(r"# Compiled when called from test_links\.py:\d+ in toy_dump", header), header
    # the times also in full_code (written when the block ends)
    full = open(os.path.join(toy_dump, "full_code_for_toy_example_0.py")).read()
    assert full.count("# Compile time: total") == 3, full
