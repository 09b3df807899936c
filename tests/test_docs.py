"""The documentation's promises: every example marked runnable runs (docs_blocks.py says
how blocks are marked), the README's set-up commands are the ones the project uses, the
README stays a front door, its links resolve, and no page speaks of the project's history."""
import os
import re
import sys

import pytest

import docs_blocks
from docs_blocks import REPO

NO_SUBPROCESS = pytest.mark.skipif(
    sys.platform == "emscripten", reason="no subprocesses under WebAssembly (3.14 via pyodide)")
RUNNABLE = docs_blocks.blocks({"run"})


def test_there_are_runnable_examples_and_markers_are_well_formed():
    every = docs_blocks.blocks()  # raises on a marker without its block
    assert len(RUNNABLE) >= 5
    assert {b.kind for b in every} == {"run", "run torch", "setup"}


@NO_SUBPROCESS
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_runnable_example_runs(block, tmp_path):
    proc = docs_blocks.run(block, tmp_path, timeout=300)
    assert proc.returncode == 0, "%s\n--- stdout\n%s\n--- stderr\n%s" % (
        block.text, proc.stdout[-3000:], proc.stderr[-3000:])


def _setup_commands():
    return [b.text.strip() for b in docs_blocks.blocks({"setup"})
            if b.path == os.path.join(REPO, "README.md")]


def test_readme_setup_commands_are_the_projects():
    install, tests = _setup_commands()
    # 1. install with the torch release the integration tests pin, then the main example
    noxfile = open(os.path.join(REPO, "noxfile.py"), encoding="utf-8").read()
    pinned = re.search(r'^TORCH_REQUIREMENT = "(torch==[^"]+)"', noxfile, re.M).group(1)
    assert install == 'pip install "%s" -e ".[torch]" && python examples/toy_example.py' % pinned
    pyproject = open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8").read()
    assert re.search(r'^torch = \["torch>=[^"]+", "numpy"\]', pyproject, re.M), "the torch extra"
    example = open(os.path.join(REPO, "examples", "toy_example.py"), encoding="utf-8").read()
    assert 'depyf.prepare_debug("./dump_src_dir")' in example
    # 2. the tests: the script CI runs
    assert tests == "./run_tests.sh"
    assert os.access(os.path.join(REPO, "run_tests.sh"), os.X_OK)
    ci = open(os.path.join(REPO, ".ci", "run"), encoding="utf-8").read()
    assert "exec ./run_tests.sh" in ci


def test_readme_is_a_front_door():
    text = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    assert len(text.splitlines()) <= 150
    for needed in ("docs/images/", "prepare_debug", "depyf run", "depyf report", "depyf decompile"):
        assert needed in text, needed


LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


@pytest.mark.parametrize("page", docs_blocks.pages(), ids=lambda p: os.path.relpath(p, REPO))
def test_relative_links_resolve(page):
    text = open(page, encoding="utf-8").read()
    broken = [target for target, _ in LINK.findall(text)
              if "://" not in target and not target.startswith("mailto:")
              and not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(page), target)))]
    assert not broken, broken


# The documentation speaks of the product as it is, not of how it got there.
HISTORY = re.compile(r"\bissue \d+|\bthis session\b|\bsession \d+\b|\bbefore this change\b|"
                     r"\bafter this change\b|\bthe seed README\b|\bmain's (code|depyf|layout)\b|"
                     r"\bthis branch\b|\bthe branch point\b", re.I)


def test_no_history_in_docs_and_docstrings():
    paths = docs_blocks.pages()
    for folder in ("depyf", "tests", "benchmarks", "tools"):
        for root, dirs, files in os.walk(os.path.join(REPO, folder)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "node_modules")]
            paths += [os.path.join(root, f) for f in files if f.endswith((".py", ".md"))]
    me = os.path.abspath(__file__)
    hits = ["%s:%d: %s" % (os.path.relpath(p, REPO), n, line.strip())
            for p in paths if os.path.abspath(p) != me
            for n, line in enumerate(open(p, encoding="utf-8", errors="replace"), 1)
            if HISTORY.search(line)]
    assert not hits, "\n".join(hits)


def test_api_reference_covers_every_public_name():
    """docs/reference/api.md renders (mkdocstrings) every name of depyf.__all__, and the
    modules depyf.utils, depyf.decompiler and depyf.verify."""
    import depyf

    text = open(os.path.join(REPO, "docs", "reference", "api.md"), encoding="utf-8").read()
    rendered = re.findall(r"(?m)^::: ([\w.]+)$", text)
    for name in depyf.__all__:
        assert any(r == "depyf." + name or r.startswith("depyf.torch_debug") and r.endswith("." + name)
                   for r in rendered), name
    for module in ("depyf.utils", "depyf.decompiler", "depyf.verify"):
        assert module in rendered, module
