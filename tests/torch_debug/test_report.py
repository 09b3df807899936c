"""depyf.report.build without a browser: the pages of the toy example's dump, their links
and anchors, a multi-rank layout, and folders that are no dump directory."""
import os
import subprocess
import sys

import pytest

from report_support import Page, as_two_ranks, broken_links, report_pages, toy_example_dump
from support import REPO

from depyf import report
from depyf.torch_debug import adapter


@pytest.fixture(scope="module")
def toy_dump(tmp_path_factory):
    return toy_example_dump(tmp_path_factory.mktemp("toy"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_index_lists_the_function_with_its_facts(toy_dump):
    index = report.build(toy_dump)
    assert index == os.path.join(toy_dump, "index.html")
    page = Page(read(index))
    rows = page.with_class("a", "fn")
    assert [a["href"] for a in rows] == ["depyf_report/main/fn_toy_example_0.html"]
    text = read(index)
    # the reason torch gave (its wording changes between releases; before 2.5 it gives
    # none: overview.UNREPORTED), and its id where torch has ids (2.9+)
    ns = {}
    exec(read(os.path.join(toy_dump, "depyf_overview.py")), ns)
    reasons = {b["reason"] for b in ns["OVERVIEW"]["graph_breaks"]}
    assert reasons and all(r and r in text for r in reasons), reasons
    if adapter.graph_break_id("Data-dependent branching"):
        assert "GB0170" in text and "Data-dependent branching" in text
    assert page.with_class("table", "sortable")
    assert "<script src" not in text and "<link" not in text  # nothing to fetch


def test_every_link_and_anchor_resolves(toy_dump):
    report.build(toy_dump)
    pages = report_pages(toy_dump)
    assert len(pages) == 5, pages  # index, toy_example, three graphs
    assert broken_links(pages) == []


def test_function_page_has_source_guards_code_and_stage_links(toy_dump):
    report.build(toy_dump)
    page_path = os.path.join(toy_dump, "depyf_report", "main", "fn_toy_example_0.html")
    page = Page(read(page_path))
    marked = page.with_class("span", "gb")
    assert [a["id"] for a in marked] == ["L8"]  # `if b.sum() < 0:` is where it broke
    assert {"entry-__transformed_code_0_for_toy_example",
            "entry-__transformed_code_0_for_torch_dynamo_resume_in_toy_example_at_8",
            "entry-__transformed_code_1_for_torch_dynamo_resume_in_toy_example_at_8"} <= page.ids
    assert len(page.with_class("table", "guard")) == 3
    text = read(page_path)
    assert "___check_tensor" in text and "if b.sum() &lt; 0:" in text
    syms = {a["href"] for a in page.with_class("a", "sym")}
    assert "graph___compiled_fn_1.html" in syms
    assert "#entry-__transformed_code_1_for_torch_dynamo_resume_in_toy_example_at_8" in syms
    stages = [a["href"] for a in page.with_class("a", "stage")]
    assert "graph___compiled_fn_1.html#stage-Captured_Graph-0" in stages
    assert "graph___compiled_fn_1.html#stage-kernel-0" in stages


def test_out_dir_elsewhere_links_back_to_the_dump(toy_dump, tmp_path):
    index = report.build(toy_dump, str(tmp_path / "out"))
    assert index == str(tmp_path / "out" / "index.html")
    assert not os.path.exists(os.path.join(toy_dump, "depyf_report", "main", "never"))
    assert broken_links(report_pages(str(tmp_path / "out"))) == []


def test_ranks_get_a_selector_and_their_own_pages(toy_dump, tmp_path):
    root = as_two_ranks(toy_dump, tmp_path)
    report.build(root)
    pages = report_pages(root)
    assert broken_links(pages) == []
    index = Page(read(os.path.join(root, "index.html")))
    assert {"rank-rank_0", "rank-rank_1", "rank-select"} <= index.ids
    fn_page = Page(read(os.path.join(root, "depyf_report", "rank_1", "fn_toy_example_0.html")))
    options = [a.get("value") for t, a in fn_page.tags if t == "option"]
    assert options == ["../rank_0/fn_toy_example_0.html", "fn_toy_example_0.html"]


def test_a_folder_that_is_no_dump_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(report.ReportError, match="is not a depyf dump directory"):
        report.build(str(tmp_path))
    with pytest.raises(report.ReportError, match="is not a directory"):
        report.build(str(tmp_path / "missing"))
    assert sorted(os.listdir(str(tmp_path))) == ["notes.txt"]  # nothing written


def test_broken_overview_is_a_report_error(tmp_path):
    (tmp_path / "depyf_overview.py").write_text("OVERVIEW = {'a': open('x')}\n")
    with pytest.raises(report.ReportError, match="OVERVIEW is not a literal"):
        report.build(str(tmp_path))


def test_building_imports_neither_torch_nor_needs_pygments(toy_dump, tmp_path):
    """The report is built where the dump was copied to: no torch; without pygments the
    code is plain text."""
    code = (
        "import sys; sys.modules['pygments'] = None\n"
        "from depyf import report\n"
        "print(report.build(sys.argv[1], sys.argv[2]))\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, "-c", code, toy_dump, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    page = read(str(tmp_path / "depyf_report" / "main" / "fn_toy_example_0.html"))
    assert 'class="hl src"' in page and 'class="k"' not in page  # no pygments spans
    assert broken_links(report_pages(str(tmp_path))) == []


def test_the_link_checker_finds_what_is_broken(tmp_path):
    """The checker the report tests rely on: a missing file, a missing anchor and an
    external script are each reported."""
    (tmp_path / "a.html").write_text('<p id="x"></p><a href="a.html#x">ok</a><a href="#y">no anchor</a>'
                                     '<a href="b.html">no file</a><script src="https://cdn.example/x.js"></script>')
    bad = broken_links([str(tmp_path / "a.html")])
    assert len(bad) == 3 and "'y'" in bad[0] and "no such file" in bad[1] and "external" in bad[2], bad


def test_guards_of_entries_whose_code_is_no_def_are_shown(toy_dump, tmp_path):
    # an entry that fell back to Dynamo's bytecode has a comment where its readable copy
    # would be: the guard above it is still that entry's
    import ast
    import shutil
    folder = str(tmp_path / "dump")
    shutil.copytree(toy_dump, folder)
    (path,) = [os.path.join(folder, f) for f in os.listdir(folder) if f.startswith("full_code_for_")]
    lines = read(path).splitlines()
    defs = [n for n in ast.parse("\n".join(lines)).body if isinstance(n, ast.FunctionDef)
            and n.name.startswith("__transformed_code_")]
    for node in reversed(defs):
        lines[node.lineno - 1:node.end_lineno] = [
            "# %s could not be decompiled; its bytecode is listed in %s.py" % (node.name, node.name)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    report.build(folder)
    page = Page(read(os.path.join(folder, "depyf_report", "main", "fn_toy_example_0.html")))
    assert len(page.with_class("table", "guard")) == 3
    assert "No guard recorded" not in read(os.path.join(folder, "depyf_report", "main",
                                                         "fn_toy_example_0.html"))
