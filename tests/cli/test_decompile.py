"""``depyf decompile``: every kind of target, and every bad one, as a subprocess."""
import importlib.util
import os
import py_compile
import sys
import textwrap

import pytest

SOURCE = textwrap.dedent('''\
    """A module for the command line tests."""
    import os


    def add(a, b=2):
        return a + b


    class Box:
        def get(self, key):
            if key in self.items:
                return self.items[key]
            return None


    def outer(x):
        def inner(y):
            return x + y
        return inner


    print("side effect of running the module")
''')


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "sample_mod.py"
    path.write_text(SOURCE)
    return path


def _other_python_magic():
    """The magic number of a Python that is not this one (3.8's, or 3.13's on 3.8)."""
    number = 3550 if sys.version_info[:2] == (3, 8) else 3413
    version = "3.13" if sys.version_info[:2] == (3, 8) else "3.8"
    return number.to_bytes(2, "little") + b"\r\n", version


# ---- targets that work -----------------------------------------------------------------

def test_py_file_gives_back_its_module_source(depyf, src):
    r = depyf("decompile", str(src))
    assert r.rc == 0, r
    assert "def add(a, b=2):" in r.out and "class Box" in r.out and "def inner(y):" in r.out
    ns = {}
    exec(compile(r.out, "<out>", "exec"), ns)  # the output is a module that runs
    assert ns["add"](1) == 3 and ns["outer"](1)(2) == 3
    assert "\x1b[" not in r.out  # piped: plain text
    assert r.err == ""


def test_py_file_check_prints_the_verdict(depyf, src):
    r = depyf("decompile", str(src), "--check")
    assert r.rc == 0, r
    assert "--check: %s: proven equivalent to the bytecode" % src in r.err
    assert "proven" not in r.out  # stdout stays the source


def test_pyc_of_this_python(depyf, src, tmp_path):
    pyc = tmp_path / "compiled.pyc"
    py_compile.compile(str(src), cfile=str(pyc), doraise=True)
    r = depyf("decompile", str(pyc), "--check")
    assert r.rc == 0, r
    assert "def add(a, b=2):" in r.out and "proven equivalent" in r.err


@pytest.mark.parametrize("qualname, first", [
    ("add", "def add(a, b=2):"),  # as the module makes it: with its default values
    ("Box.get", "def get(self, key):"),
    ("outer.inner", "def inner(y):"),
    ("outer.<locals>.inner", "def inner(y):"),
])
def test_one_function_of_a_py_file(depyf, src, qualname, first):
    r = depyf("decompile", "%s:%s" % (src, qualname), "--check")
    assert r.rc == 0, r
    assert r.out.splitlines()[0] == first
    assert "side effect" not in r.out + r.err  # compiled, never run
    assert "proven equivalent" in r.err


def test_one_function_of_a_pyc_file(depyf, src, tmp_path):
    pyc = tmp_path / "compiled.pyc"
    py_compile.compile(str(src), cfile=str(pyc), doraise=True)
    r = depyf("decompile", "%s:Box.get" % pyc)
    assert r.rc == 0, r
    assert r.out.startswith("def get(self, key):")


def test_module_by_name_is_read_not_run(depyf, src):
    r = depyf("decompile", "sample_mod", cwd=str(src.parent),
              env={"PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(
                  os.path.dirname(os.path.abspath(__file__)))), str(src.parent)])})
    assert r.rc == 0, r
    assert "class Box" in r.out
    assert "print('side effect of running the module')" in r.out
    assert r.out.count("side effect") == 1  # the print is in the source, it did not run


def test_function_of_a_module_is_imported_with_its_defaults(depyf, src):
    r = depyf("decompile", "sample_mod:add", "--check", cwd=str(src.parent),
              env={"PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(
                  os.path.dirname(os.path.abspath(__file__)))), str(src.parent)])})
    assert r.rc == 0, r
    assert r.out.startswith("def add(a, b=2):")
    assert "side effect of running the module" in r.err  # it was imported; stdout is the source


@pytest.mark.parametrize("target, expected", [
    ("json.decoder", "class JSONDecoder"),
    ("json.decoder:JSONDecoder.decode", "def decode(self, s"),
    ("json.decoder:JSONDecoder", "def raw_decode(self, s"),  # a class: its body
    ("json:decoder", "class JSONDecoder"),  # an attribute that is a module
])
def test_stdlib_targets(depyf, target, expected):
    r = depyf("decompile", target)
    assert r.rc == 0, r
    assert expected in r.out


# ---- bad targets -----------------------------------------------------------------------

def _fails(r, status, *phrases):
    assert r.rc == status, r
    assert r.out == "", r
    assert r.err.startswith("depyf decompile: error: ") or r.err.startswith("usage:"), r
    assert "Traceback" not in r.err, r
    for phrase in phrases:
        assert phrase in r.err, r


def test_missing_files(depyf, tmp_path):
    _fails(depyf("decompile", str(tmp_path / "nope.py")), 1, "no such file", "nope.py")
    _fails(depyf("decompile", str(tmp_path / "nope.pyc")), 1, "no such file")
    _fails(depyf("decompile", str(tmp_path / "nope.py") + ":f"), 1, "no such file")


def test_a_directory(depyf, tmp_path):
    _fails(depyf("decompile", str(tmp_path)), 1, "is a directory", "give --out SRC")


def test_not_a_pyc(depyf, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not bytecode\n")
    _fails(depyf("decompile", str(text)), 1, "neither a .py nor a .pyc file")
    fake = tmp_path / "fake.pyc"
    fake.write_text("hello, this is not bytecode\n")
    _fails(depyf("decompile", str(fake)), 1, "is not a .pyc file")
    short = tmp_path / "short.pyc"
    short.write_bytes(b"\x00\x01")
    _fails(depyf("decompile", str(short)), 1, "too short to be a .pyc")


def test_pyc_of_another_python_with_none_installed(depyf, tmp_path):
    magic, version = _other_python_magic()
    pyc = tmp_path / "other.pyc"
    pyc.write_bytes(magic + bytes(12) + b"\xe3" + bytes(40))
    nothing = tmp_path / "empty"
    nothing.mkdir()
    env = {"PATH": str(nothing), "PYENV_ROOT": str(nothing)}  # no other Python to be found
    r = depyf("decompile", str(pyc), env=env)
    _fails(r, 1, "written by Python %s" % version, "only Python %s can decompile it" % version,
           "no Python %s was found" % version, "install Python %s" % version)
    assert len(r.err.splitlines()) == 1, r


def test_syntax_error(depyf, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\ndef f(:\n    pass\n")
    _fails(depyf("decompile", str(bad)), 1, "bad.py:2:", "SyntaxError")


@pytest.mark.parametrize("target, status, phrases", [
    ("no_such_module_xyz", 1, ["no module named 'no_such_module_xyz'"]),
    ("no_such_module_xyz:f", 1, ["no module named 'no_such_module_xyz'"]),
    ("json:no_such_thing", 1, ["json has no attribute 'no_such_thing'"]),
    ("json.decoder:JSONDecoder.nope", 1, ["json.decoder.JSONDecoder has no attribute 'nope'"]),
    ("builtins:len", 1, ["built-in", "no Python bytecode"]),
    ("builtins:dict", 1, ["built-in class"]),
    ("builtins:dict.get", 1, ["built-in", "no Python bytecode"]),
    ("sys", 1, ["no Python bytecode", "built in or a C extension"]),
    ("os:sep", 1, ["os:sep is a str, not a function, class or module"]),
    ("json:loads.<locals>.x", 2, ["exists only while its function runs"]),
    ("json:1", 2, ["expected FILE.py, FILE.pyc or MODULE"]),
    ("not a module", 1, ["neither an existing file nor a module name"]),
])
def test_bad_names(depyf, target, status, phrases):
    _fails(depyf("decompile", target), status if target != "not a module" else 2, *phrases)


def test_no_such_function_in_a_file(depyf, src):
    _fails(depyf("decompile", "%s:Box.put" % src), 1,
           "no function or class named 'put' in Box", "defined there: get")
    _fails(depyf("decompile", "%s:nope" % src), 1, "in the module", "add, Box, outer")


def test_a_module_that_fails_to_import(depyf, tmp_path):
    (tmp_path / "broken_mod.py").write_text("def f():\n    return 1\nraise RuntimeError('nope')\n")
    env = {"PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))), str(tmp_path)])}
    _fails(depyf("decompile", "broken_mod:f", env=env), 1,
           "importing broken_mod failed: RuntimeError: nope")
    r = depyf("decompile", "broken_mod", env=env)  # read, not run: works
    assert r.rc == 0 and "raise RuntimeError('nope')" in r.out, r


def test_usage_errors(depyf):
    r = depyf("decompile")
    assert r.rc == 2 and "the following arguments are required: TARGET" in r.err, r
    r = depyf("decompile", "x.py", "--color", "purple")
    assert r.rc == 2 and "invalid choice" in r.err, r
    r = depyf()
    assert r.rc == 2 and "usage: depyf" in r.err, r
    r = depyf("frobnicate")
    assert r.rc == 2 and "invalid choice" in r.err, r


# ---- verdicts and colour ---------------------------------------------------------------

_UNPROVEN = '''
import sys
import depyf.decompiler.api as api
from depyf.verify import Verdict
api.prove = lambda *a, **k: Verdict(False, "made-up difference", different=True)
import depyf.decompiler.modules as modules
from depyf.decompiler.output.prove_module import ModuleVerdict
modules.prove_module = lambda *a, **k: ModuleVerdict(
    Verdict(False, "made-up module difference", different=True))
from depyf.cli import main
sys.exit(main(sys.argv[1:]))
'''


def test_unproven_function_is_refused_unless_allowed(python, src):
    r = python(["-c", _UNPROVEN, "decompile", "%s:add" % src])
    assert r.rc == 1 and r.out == "", r
    assert "not proven" in r.err and "made-up difference" in r.err and "--allow-unproven" in r.err
    # the module is not proven either: the def is shown alone, and the note says so
    assert "shown as its code object alone, without the decorators and default values" in r.err
    assert "the module is not proven: made-up module difference" in r.err, r
    r = python(["-c", _UNPROVEN, "decompile", "%s:add" % src, "--allow-unproven"])
    assert r.rc == 1, r
    assert r.out.startswith("# depyf: NOT PROVEN") and "def add(a, b):" in r.out
    assert "warning" in r.err and "NOT proven" in r.err and "made-up difference" in r.err
    r = python(["-c", _UNPROVEN, "decompile", "%s:add" % src, "--check"])
    assert r.rc == 1, r
    assert "NOT proven: a difference was found: made-up difference" in r.err


# a module whose text comes back with one function wrong (the printed tree is changed
# after the stages): the module's proof names that function
_UNPROVEN_MODULE = '''
import ast, sys
import depyf.decompiler.modules as modules
real = modules.unparse
def wrong(tree, indentation=4):
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            node.op = ast.Sub()
    return real(tree, indentation)
modules.unparse = wrong
from depyf.cli import main
sys.exit(main(sys.argv[1:]))
'''


def test_unproven_module_is_refused_unless_allowed(python, src, tmp_path):
    r = python(["-c", _UNPROVEN_MODULE, "decompile", str(src)])
    assert r.rc == 1 and r.out == "", r
    assert "add: " in r.err and "outer.<locals>.inner: " in r.err, r
    r = python(["-c", _UNPROVEN_MODULE, "decompile", str(src), "--allow-unproven"])
    assert r.rc == 1, r
    lines = r.out.splitlines()
    assert lines[lines.index("def add(a, b=2):") - 1].startswith("# depyf: NOT PROVEN")
    assert lines[lines.index("    def inner(y):") - 1].startswith("    # depyf: NOT PROVEN")
    assert sum("NOT PROVEN" in line for line in lines) == 2
    r = python(["-c", _UNPROVEN_MODULE, "decompile", str(src), "--check"])
    assert r.rc == 1 and "--check: %s: NOT proven" % src in r.err, r


def test_color(depyf, src):
    r = depyf("decompile", "%s:add" % src, "--color", "never")
    assert r.rc == 0 and "\x1b[" not in r.out, r
    if importlib.util.find_spec("rich") is None:
        r = depyf("decompile", "%s:add" % src, "--color", "always")
        assert r.rc == 0 and r.out.startswith("def add(a, b=2):"), r  # plain without rich
    else:
        r = depyf("decompile", "%s:add" % src, "--color", "always")
        assert r.rc == 0 and "\x1b[" in r.out, r
        r = depyf("decompile", "%s:add" % src, "--color", "always", env={"NO_COLOR": "1"})
        assert "\x1b[" in r.out, r  # always wins over NO_COLOR


def test_importing_depyf_loads_no_cli(python):
    r = python(["-c", "import sys, depyf; print(sorted(m for m in sys.modules "
                      "if m.startswith(('depyf.cli', 'rich', 'pygments', 'argparse'))))"])
    assert r.rc == 0 and r.out.strip() == "[]", r
