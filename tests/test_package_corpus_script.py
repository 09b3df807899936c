"""``benchmarks/package_corpus.py`` on a tiny package made here: the counts, the tables, the
worklist and the causes, so that the script cannot rot between the runs that use it."""
import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "package_corpus.py")

FILES = {
    "fakepkg/__init__.py": "",
    "fakepkg/a.py": (
        "import os\n\n"
        "def f(x):\n    return os.path.join(x, 'a')\n\n"
        "class C:\n"
        "    def m(self, y):\n"
        "        def inner(z):\n            return [z * y for _ in range(3)]\n"
        "        return inner\n"
    ),
    "fakepkg/sub/__init__.py": "X = 1\n",
    "fakepkg/sub/bad.py": "def broken(:\n    pass\n",
    "fakepkg/sub/later.py": "from __future__ import annotations\n\ndef g(x):\n    return x\n",
}


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("package_corpus", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def package(tmp_path):
    for name, text in FILES.items():
        path = tmp_path.joinpath(*name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path / "fakepkg")


def test_counts(script, package):
    run = script.measure(package, ["."], timeout=30, module_timeout=60)
    [row] = script.summarize(run)
    assert (row["files"], row["skipped"], row["functions"]) == (5, 1, 4)
    assert (row["proven"], row["refused"], row["unsupported"], row["internal"],
            row["timeout"]) == (4, 0, 0, 0, 0)
    assert row["module proven"] == 4
    records = {r["module"]: r for r in run["packages"]["."]}
    assert sorted(records) == ["fakepkg", "fakepkg.a", "fakepkg.sub", "fakepkg.sub.bad",
                               "fakepkg.sub.later"]
    assert records["fakepkg.sub.later"]["future_annotations"]
    assert not records["fakepkg.a"]["future_annotations"]
    assert records["fakepkg.sub.bad"]["skipped"].startswith("SyntaxError")
    names = [f[0] for f in records["fakepkg.a"]["functions"]]
    assert names == ["f", "C.m", "C.m.<locals>.inner"]
    assert [f[6] for f in records["fakepkg.a"]["functions"]] == [False, False, False]
    [failure] = list(script.failures(run))
    assert failure[:2] == ("skipped", "fakepkg.sub.bad")


def test_each_subpackage_and_files(script, package, tmp_path):
    out = tmp_path / "run-{version}.json"
    fails = tmp_path / "fails.txt"
    rc = script.main(["--root", package, "--packages", "*", "--json", str(out), "--failures",
                      str(fails), "--quiet", "--no-table"])
    assert rc == 0
    [written] = list(tmp_path.glob("run-3.*.json"))
    run = json.loads(written.read_text())
    assert sorted(run["packages"]) == ["__init__", "a", "sub"]
    rows = {r["package"]: r for r in script.summarize(run)}
    assert (rows["a"]["functions"], rows["a"]["proven"], rows["sub"]["skipped"]) == (3, 3, 1)
    line = fails.read_text().splitlines()
    assert len(line) == 1 and "\tfakepkg.sub.bad\tskipped\t" in line[0]
    tables = []
    script.print_report([run], out=_Lines(tables))
    text = "\n".join(tables)
    assert "| %s | a | 1 (0) | 3 | 100.0 |" % run["version"] in text
    assert "| skipped | SyntaxError: invalid syntax | 1 | %s:1 | 0 | 0 | fakepkg.sub.bad |" % (
        run["version"]) in text


class _Lines:
    def __init__(self, into):
        self.into = into

    def write(self, text):
        self.into.append(text)


def test_outcomes_of_decompile(script):
    from depyf.errors import InternalError, UnprovenError, UnsupportedShape
    assert script.classify(UnsupportedShape("odd jump", opname="JUMP", offset=4)) == (
        "unsupported", "odd jump [JUMP]")
    status, reason = script.classify(UnprovenError("the decompiled source is not proven"))
    assert status == "refused" and reason.startswith("the decompiled source")
    try:
        raise KeyError("x")
    except KeyError as exc:
        status, reason = script.classify(InternalError("unexpected KeyError: 'x'", cause=exc))
    assert status == "internal" and " @ " in reason


def test_cause_masks_what_differs_per_function(script):
    a = ("f: with different operands: the original call [<function g>, (a, b), ()] at CALL at "
         "offset 22 (line 6), the candidate call [<function g>, (a, b), ()] at CALL at offset "
         "22 (line 5)")
    b = ("h: with different operands: the original call [<function k>, (x,), ()] at CALL at "
         "offset 8 (line 60), the candidate call [<function k>, (x,), ()] at CALL at offset "
         "8 (line 2)")
    assert script.cause("refused", a, {"f", "g", "a", "b"}) == \
        script.cause("refused", b, {"h", "k", "x"}) == (
        "with different operands: the original call [.], the candidate call [.] (operands "
        "print alike)")
    nested = ("f: the original returns <function g>, the candidate returns <function g>; "
              "inside: g: the original load global spam at LOAD_GLOBAL spam at offset 2 (line "
              "3), the candidate returns None")
    assert script.cause("refused", nested, {"f", "g", "spam"}) == (
        "in nested code: the original load global ?, the candidate returns None")


def test_driver_passes_options_but_its_own(script):
    argv = ["--versions", "3.10,3.11", "--root", "/x", "--json=/o/{version}.json",
            "--failures", "/f", "--python", "3.10=/p", "--timeout", "5"]
    assert script._child_args(argv) == ["--root", "/x", "--timeout", "5"]


def test_cause_of_other_failures_keeps_the_words(script):
    assert script.cause("module no-compile", "SyntaxError: from __future__ imports must occur "
                        "at the beginning of the file (file.py, line 3)", {"file", "imports"}) \
        == "SyntaxError: from __future__ imports must occur at the beginning of the file"
    assert script.cause("internal", "unexpected KeyError: 'x' @ depyf/a.py:12 in f") == \
        "unexpected KeyError: '?' @ depyf/a.py in f"
    assert script.cause("unsupported", "statements inside a conditional expression "
                        "[STORE_FAST]") == "statements inside a conditional expression"
    assert script.cause("unsupported", "unsupported instruction [FOO]") == \
        "unsupported instruction [FOO]"


def test_long_jumps(script):
    short = compile("def f(x):\n    return x\n", "<s>", "exec").co_consts[0]
    body = "".join("    x%d = g(x.a%d)\n" % (i, i) for i in range(80))
    long = compile("def f(x):\n    while x:\n" + body.replace("    ", "        ") + "\n",
                   "<l>", "exec")
    assert not script.long_jumps(short)
    assert script.long_jumps(long)  # the module, through the def nested in it


def test_markdown_page(script, package, tmp_path):
    page = tmp_path / "page.md"
    out = tmp_path / "run.json"
    assert script.main(["--root", package, "--json", str(out), "--quiet", "--no-table"]) == 0
    assert script.main(["--report", str(out), "--markdown", str(page)]) == 0
    text = page.read_text()
    run = json.loads(out.read_text())
    assert text.startswith("# ")
    assert "--report %s --markdown %s" % (out, page) in text  # the command that regenerates it
    assert run["date"] in text and run["python"] in text
    assert "| %s | 4 | 100.00 | 0 | 0 | 4 | 100.00 | 0 | 0 |" % run["python"] in text
    assert "| skipped | SyntaxError: invalid syntax | 1 |" in text


def test_retry_measures_what_was_not_proven_again(script, package, tmp_path):
    out = tmp_path / "run.json"
    assert script.main(["--root", package, "--json", str(out), "--quiet", "--no-table"]) == 0
    run = json.loads(out.read_text())
    [record] = [r for r in run["packages"]["."] if r["module"] == "fakepkg.a"]
    record["functions"][1][2:4] = ["refused", "made up"]
    record["whole"][0:2] = ["unproven", "made up"]
    out.write_text(json.dumps(run))
    again = tmp_path / "again.json"
    assert script.main(["--retry", str(out), "--json", str(again), "--quiet", "--no-table"]) == 0
    run = json.loads(again.read_text())
    [record] = [r for r in run["packages"]["."] if r["module"] == "fakepkg.a"]
    assert record["functions"][1][:3] == ["C.m", 7, "proven"]
    assert record["whole"][0] == "proven"
    [retried] = run["retried"]
    assert retried["items"] == 2
    page = tmp_path / "page.md"
    assert script.main(["--report", str(again), "--markdown", str(page)]) == 0
    assert "measured again (`--retry`)" in page.read_text()
