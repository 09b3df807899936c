"""The referee itself, tested: a fake module judged by a fake test module, with a
deliberately wrong "decompiled" text, must show exactly the outcomes that the wrong text
changes, and put a test that reads line numbers aside as source-text dependent."""
import importlib.util
import sys

import pytest

from depyf.verify.cpython_tests import compare, report
from depyf.verify.cpython_tests.launch import Run
from depyf.verify.cpython_tests.referee import Options, harness_problems, judge, substitution
from depyf.verify.cpython_tests.targets import Target, library_target, language_target, select

# the referee runs children and CPython's test package
needs_children = pytest.mark.skipif(
    sys.platform == "emscripten" or importlib.util.find_spec("test.support") is None,
    reason="no subprocesses under WebAssembly (3.14 via pyodide), or no test package")

FAKE = '''\
"""A module under test."""


def add(a, b):
    return a + b


def loop(n):
    total = 0
    for k in range(n):
        total += k
    return total


def where():
    return where.__code__.co_firstlineno
'''
# Wrong in two places: ``add`` subtracts, ``loop`` never ends.
WRONG = '''\
"""A module under test."""
def add(a, b):
    return a - b
def loop(n):
    while True:
        pass
def where():
    return where.__code__.co_firstlineno
'''
TESTS = '''\
import unittest
from test import support
import fakemod


class FakeTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(fakemod.add(2, 3), 5)

    def test_add_subtests(self):
        for a in range(3):
            with self.subTest(a=a):
                self.assertEqual(fakemod.add(0, a), a)

    def test_loop(self):
        self.assertEqual(fakemod.loop(4), 6)

    def test_lines(self):  # depends on the text: a line number
        self.assertEqual(fakemod.where(), 15)

    def test_same(self):
        self.assertTrue(fakemod.__file__.endswith("fakemod.py"))

    @unittest.skip("always")
    def test_skipped(self):
        pass

    @unittest.expectedFailure
    def test_xfail(self):
        self.assertEqual(fakemod.add(1, 1), 0)
'''


def _target(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "fakemod.py").write_text(FAKE)
    (src / "test_fakemod.py").write_text(TESTS)
    files = [("fakemod.py", str(src / "fakemod.py"), True),
             ("test_fakemod.py", str(src / "test_fakemod.py"), False)]
    return Target("fakemod", "library", files, ["test_fakemod"], ["fakemod"])


def _by_test(items):
    return {item["test"].rsplit(".", 1)[-1]: (item["original"], item["decompiled"])
            for item in items}


@needs_children
def test_a_wrong_text_changes_exactly_the_tests_it_breaks(tmp_path):
    options = Options(decompile=lambda code: WRONG, per_test=3.0, timeout=120.0)
    entry = judge(_target(tmp_path), str(tmp_path / "work"), options)
    assert entry["status"] == "proven"
    assert entry["substitution"]["decompiled"] == {"ok": 1}
    assert _by_test(entry["changed"]) == {
        "test_add": ("pass", "fail"), "test_add_subtests": ("pass", "fail"),
        "test_loop": ("pass", "timeout"), "test_xfail": ("xfail", "xpass")}
    assert all(item["proven_text"] for item in entry["changed"])
    assert _by_test(entry["source_text_dependent"]) == {"test_lines": ("pass", "fail")}
    # the import of the test module, test_same, test_skipped; nothing flaky or unreached
    assert entry["same"] == 3 and entry["total"] == 8
    assert not entry["flaky"] and not entry["not_reached"]
    assert report.failed([entry])
    result = {"python": "3.x", "mode": "library", "modules": [entry], "wall_seconds": 1.0,
              "totals": report.totals([entry])}
    assert "CHANGED fakemod [proven text]" in report.format_table(result)


@needs_children
def test_the_original_text_changes_nothing(tmp_path):
    options = Options(decompile=lambda code: FAKE, per_test=3.0, timeout=120.0)
    entry = judge(_target(tmp_path), str(tmp_path / "work"), options)
    assert entry["same"] == entry["total"] == 8
    assert not report.failed([entry])


def _run(outcomes, done=True):
    run = Run()
    run.outcomes = dict(outcomes)
    run.done = done
    return run


def test_compare_sorts_differences():
    orig = _run({"a": "pass", "b": "pass", "c": "pass", "d": "fail", "e": "pass"})
    deco = _run({"a": "fail", "b": "fail", "c": "error", "d": "fail"})
    ctrl = _run({"a": "pass", "b": "fail", "c": "pass", "d": "fail", "e": "pass"})
    orig2 = _run({"a": "pass", "b": "pass", "c": "skip", "d": "fail", "e": "pass"})
    deco2 = _run({"a": "fail", "b": "fail", "c": "error", "d": "fail"})
    result = compare.compare(orig, deco, ctrl, orig2, deco2)
    assert [i["test"] for i in result["changed"]] == ["a", "e"]  # e: missing when decompiled
    assert result["changed"][1]["decompiled"] == "missing"
    assert [i["test"] for i in result["source_text_dependent"]] == ["b"]
    assert [i["test"] for i in result["flaky"]] == ["c"]
    assert result["same"] == 1
    # a run that did not complete has not reached what it lacks
    unfinished = compare.compare(orig, _run({"a": "pass"}, done=False))
    assert unfinished["same"] == 1 and len(unfinished["not_reached"]) == 4


def test_substitution_names_imports_from_elsewhere():
    target = Target("m", "library", [], ["test_m"], ["m"])
    run = _run({})
    run.folder = "/tmp/x/lib"
    run.imports = [("m", "/tmp/x/lib/m.py")]
    assert substitution(target, run) == {"ok": 1}
    run.loaded = [("m", "/usr/lib/python3/m.py")]  # m.__file__ at the end
    assert substitution(target, run)["problem"] == "from elsewhere"
    run.loaded = []
    run.imports = [("m", "/usr/lib/python3/m.py")]
    assert substitution(target, run)["problem"] == "from elsewhere"
    run.imports = []
    assert substitution(target, run) == {"problem": "not exercised"}


def test_harness_problems_are_what_kept_tests_from_loading():
    run = _run({"test.test_a": "error", "test.test_b": "error", "test.test_c.<loading 0>": "error",
                "test.test_d": "error", "test.test_e.T.test_x": "error"})
    run.details = {"test.test_a": "import failed: ImportError: no module named x",
                   "test.test_b": "import failed: ResourceDenied: Use of the 'curses' resource",
                   "test.test_c.<loading 0>": "FileNotFoundError: ieee754.txt",
                   "test.test_d": "import failed: SkipTest: no _tkinter"}
    assert [p["test"] for p in harness_problems(run)] == ["test.test_a", "test.test_c.<loading 0>"]


@needs_children
def test_targets_of_this_interpreter():
    json_target, why = library_target("json")
    assert why is None and "test.test_json" in json_target.tests
    assert ("json/__init__.py", True) in {(rel, d) for rel, _, d in json_target.files}
    assert library_target("tkinter")[0] is None
    grammar, why = language_target("test_grammar")
    assert grammar.tests == ["test.test_grammar"] and grammar.files[0][0] == "test_grammar.py"
    # the data next to the test modules is linked in, never a module or a package
    assert grammar.links and not any(rel.endswith(".py") for rel, _ in grammar.links)
    assert "support" not in dict(grammar.links)
    chosen, excluded = select("library", ["codecs", "textwrap"])
    assert [t.name for t in chosen] == ["textwrap"]
    assert excluded[0][0] == "codecs" and "starts" in excluded[0][1]


def test_refusal_causes_group_alike_reasons():
    a = report.cause("cannot decompile function 'f', instruction STORE_FAST at offset 6, "
                     "Python 3.11: a branch while a value waits on the stack (no reading "
                     "of the bytecode as statements fits; readings tried: x)")
    b = report.cause("cannot decompile function 'g', instruction LOAD_FAST at offset 12, "
                     "Python 3.11: a branch while a value waits on the stack (no reading)")
    assert a == b == "a branch while a value waits on the stack"


def test_the_control_moves_lines_inside_functions():
    from depyf.verify.cpython_tests.texts import spread_statements
    text = ('def f():\n    s = """a\nb"""\n    return (s,\n        __import__("sys")._getframe().f_lineno'
            ' - f.__code__.co_firstlineno)\n')
    ns, spread = {}, {}
    exec(text, ns)
    exec(spread_statements(text), spread)
    assert ns["f"]() == ("a\nb", 4)
    assert spread["f"]() == ("a\nb", 6)  # the same program; the statement moved


@needs_children
def test_the_fast_library_subset_changes_nothing(tmp_path):
    """The CI subset of library mode (``--ci``: a few small modules under their own
    CPython tests): every module proven, every test's outcome the same as on the
    original text. The whole run: docs/cpython-tests.md."""
    from depyf.verify.cpython_tests import run, targets
    result = run("library", ci=True, options=Options(per_test=60.0, timeout=300.0),
                 workroot=str(tmp_path))
    assert [m["name"] for m in result["modules"]] == list(targets.CI["library"])
    totals = result["totals"]
    assert totals["proven"] == totals["modules"], report.format_table(result)
    assert totals["changed"] == 0 and totals["harness_problems"] == 0, report.format_table(result)
    assert totals["same"] > 0 and not report.failed(result["modules"]), report.format_table(result)


@needs_children
def test_decompile_only_prints_what_is_not_proven(monkeypatch, capsys):
    """``--decompile-only`` runs no test: it decompiles the chosen modules' files, exits 0
    when all are proven, and names each refused file with the checker's reason (exit 1)."""
    import depyf
    from depyf.errors import UnprovenError
    from depyf.verify.cpython_tests.__main__ import main

    assert main(["--decompile-only", "--modules", "colorsys,bisect"]) == 0
    out = capsys.readouterr().out
    assert "library: 2 files of 2 modules decompiled, 2 proven, 0 not proven" in out

    real = depyf.decompile_module

    def refuse_bisect(code):
        if code.co_filename.endswith("bisect.py"):
            raise UnprovenError("no", source="x = 1\n")
        return real(code)

    monkeypatch.setattr(depyf, "decompile_module", refuse_bisect)
    assert main(["--decompile-only", "--modules", "colorsys,bisect"]) == 1
    out = capsys.readouterr().out
    assert "library unproven bisect.py: " in out and out.count("\n") == 2
    assert "1 proven, 1 not proven" in out


@needs_children
def test_every_library_file_is_decompiled_and_proven(capsys):
    """Every file of the library mode (each pure-Python stdlib module with a test module
    of its own) comes back from ``decompile_module`` proven, on the running interpreter:
    the whole-library regression check that needs no test run (about a minute)."""
    from depyf.verify.cpython_tests.__main__ import main

    status = main(["--decompile-only", "--mode", "library"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert " 0 not proven " in out
