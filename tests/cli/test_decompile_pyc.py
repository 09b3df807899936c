"""``depyf decompile`` of .pyc files as a user of them meets them: another Python
version's (run by that version's interpreter), a folder of them rebuilt into a source
tree (``DIR --out SRC``), a def or class of a file as its module makes it, and every
bad input with its one line."""
import compileall
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from depyf.cli import pythons

RUNNING = "%d.%d" % sys.version_info[:2]

SOURCE = textwrap.dedent('''\
    import functools


    def twice(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            return 2 * f(*args, **kwargs)
        return wrapper


    @twice
    def add(a: int, b=2, *, c=[1]) -> int:
        return a + b + len(c)


    @functools.total_ordering
    class Box(dict, metaclass=type):
        size = 3

        def __lt__(self, other):
            return len(self) < len(other)


    def outer(x):
        def inner(y=x):
            return x + y
        return inner
''')


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "deco_mod.py"
    path.write_text(SOURCE)
    return path


# ---- a def or class of a file, as its module makes it -----------------------------------

@pytest.mark.parametrize("qualname, expected", [
    ("add", "@twice\ndef add(a: int, b=2, *, c=[1]) -> int:\n"),
    ("Box", "@functools.total_ordering\nclass Box(dict, metaclass=type):\n"),
    ("outer.inner", "def inner(y=x):\n"),
    ("twice.<locals>.wrapper", "@functools.wraps(f)\ndef wrapper(*args, **kwargs):\n"),
])
def test_def_of_a_file_as_its_module_makes_it(depyf, src, tmp_path, qualname, expected):
    pyc = tmp_path / "deco_mod.pyc"
    py_compile.compile(str(src), cfile=str(pyc), doraise=True)
    for target in (src, pyc):
        r = depyf("decompile", "%s:%s" % (target, qualname), "--check")
        assert r.rc == 0, r
        assert r.out.startswith(expected), r
        assert "--check: %s:%s: proven equivalent" % (target, qualname) in r.err, r
        assert "note" not in r.err, r


# ---- another Python version's .pyc ------------------------------------------------------

def _env_with_python(version):
    """``(env, executable)``: an environment in which depyf finds a Python ``version``
    with what depyf needs there; where pyenv's lacks a package (astunparse on 3.8), the
    nox session of that version beside the running one (tests-3-8 beside tests-3-11)
    comes first on PATH. Skips the test when there is none."""
    if version == RUNNING:
        pytest.skip("this is Python %s: its .pyc needs no other interpreter" % version)
    env = dict(os.environ)
    session = re.sub(r"\d+-\d+$", version.replace(".", "-"), os.path.basename(sys.prefix))
    beside = os.path.join(os.path.dirname(sys.prefix), session, "bin")
    if pythons.NEEDS.get(version) and os.path.isdir(beside):
        env["PATH"] = os.pathsep.join([beside, env.get("PATH", "")])
    executable, why = pythons.find(version, env)
    if executable is None:
        pytest.skip("no usable Python %s here: %s" % (version, why))
    return env, executable


def _compile_with(executable, source, pyc):
    subprocess.run([executable, "-c", "import py_compile, sys; py_compile.compile("
                    "sys.argv[1], cfile=sys.argv[2], doraise=True)", str(source), str(pyc)],
                   check=True)


@pytest.mark.parametrize("version", ["3.8", "3.11"])
def test_pyc_of_another_version_is_decompiled_by_that_python(depyf, src, tmp_path, version):
    env, executable = _env_with_python(version)
    pyc = tmp_path / ("other-%s.pyc" % version)
    _compile_with(executable, src, pyc)
    r = depyf("decompile", str(pyc), "--check", env=env)
    assert r.rc == 0, r
    assert "def add(a: int, b=2, *, c=[1]) -> int:" in r.out, r
    assert "was written by Python %s: decompiled by %s" % (version, executable) in r.err, r
    assert "--check: %s: proven equivalent" % pyc in r.err, r
    r = depyf("decompile", "%s:Box" % pyc, env=env)
    assert r.rc == 0 and r.out.startswith("@functools.total_ordering\nclass Box(dict"), r
    assert r.err == "", r
    r = depyf("decompile", "%s:nope" % pyc, env=env)  # its errors and exit status come back
    assert r.rc == 1 and r.out == "", r
    assert r.err.startswith("depyf decompile: error: ")
    assert "no function or class named 'nope'" in r.err, r


def test_a_python_that_lacks_a_package_is_named_with_the_install_line(depyf, src, tmp_path):
    if os.name != "posix":
        pytest.skip("the stand-in interpreter is a shell script")
    if "3.8" == RUNNING:
        pytest.skip("this is Python 3.8: its .pyc needs no other interpreter")
    fake = tmp_path / "bin" / "python3.8"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 3.8; echo %s; echo astunparse\n" % fake)
    fake.chmod(0o755)
    pyc = tmp_path / "old.pyc"
    pyc.write_bytes((3413).to_bytes(2, "little") + b"\r\n" + bytes(12) + b"\xe3" + bytes(40))
    r = depyf("decompile", str(pyc), env={"PATH": str(fake.parent), "PYENV_ROOT": str(tmp_path)})
    assert r.rc == 1 and r.out == "" and len(r.err.splitlines()) == 1, r
    assert "lacks the astunparse package depyf needs on Python 3.8: install it with: " \
        "%s -m pip install astunparse" % fake in r.err, r


@pytest.mark.parametrize("number, phrase", [
    (3700, "written by Python 3.16, whose bytecode depyf does not read (a newer depyf may): "
           "it reads Python 3.8 to 3.14"),
    (3800, "written by Python newer than 3.16"),
    (62211, "written by Python 2.7 or older, whose bytecode depyf does not read: it reads"),
])
def test_pyc_of_a_version_depyf_does_not_read(depyf, tmp_path, number, phrase):
    pyc = tmp_path / "odd.pyc"
    pyc.write_bytes(number.to_bytes(2, "little") + b"\r\n" + bytes(12) + b"\xe3" + bytes(40))
    r = depyf("decompile", str(pyc))
    assert r.rc == 1 and r.out == "" and len(r.err.splitlines()) == 1, r
    assert phrase in r.err, r


def test_corrupt_and_truncated_pyc(depyf, src, tmp_path):
    pyc = tmp_path / "whole.pyc"
    py_compile.compile(str(src), cfile=str(pyc), doraise=True)
    data = pyc.read_bytes()
    cut = tmp_path / "cut.pyc"
    cut.write_bytes(data[:len(data) // 2])
    r = depyf("decompile", str(cut))
    assert r.rc == 1 and "corrupt .pyc" in r.err and len(r.err.splitlines()) == 1, r
    header_only = tmp_path / "header.pyc"
    header_only.write_bytes(data[:16])
    r = depyf("decompile", str(header_only))
    assert r.rc == 1 and "corrupt .pyc" in r.err and len(r.err.splitlines()) == 1, r


# ---- a folder of .pyc files back to a source tree ----------------------------------------

PACKAGE = {
    "shop/__init__.py": "from .cart import Cart\n\nVERSION = (1, 2)\n",
    "shop/cart.py": textwrap.dedent('''\
        from .prices import price


        class Cart:
            def __init__(self, *items):
                self.items = list(items)

            def total(self, discount=0):
                return sum(price(i) for i in self.items) - discount
    '''),
    "shop/prices.py": "PRICES = {'apple': 3, 'pear': 5}\n\n\ndef price(name):\n"
                      "    return PRICES.get(name, 0)\n",
    "shop/util/__init__.py": "",
    "shop/util/text.py": "def shout(s):\n    return s.upper() + '!'\n",
}
_USE = ("import shop, shop.util.text as t; "
        "print(shop.__file__, shop.Cart('apple', 'pear').total(1), t.shout('hi'), shop.VERSION)")


def _package(folder, legacy=False, other=None):
    """The package under ``folder``, compiled by this Python (and by the interpreter
    ``other``), sources removed."""
    for name, text in PACKAGE.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert compileall.compile_dir(str(folder), quiet=1, legacy=legacy)
    if other:
        subprocess.run([other, "-m", "compileall", "-q", str(folder)], check=True)
    for name in PACKAGE:
        (folder / name).unlink()
    return folder


def _uses_the_rebuilt_package(python, out):
    r = python(["-c", _USE], cwd=str(out), env={"PYTHONPATH": str(out)})
    assert r.rc == 0, r
    assert r.out.split() == [str(out / "shop" / "__init__.py"), "7", "HI!", "(1,", "2)"], r


@pytest.mark.parametrize("legacy", [False, True])
def test_folder_of_pycs_back_to_a_package_that_works(depyf, python, tmp_path, legacy):
    pycs = _package(tmp_path / "pycs", legacy)
    out = tmp_path / "src"
    r = depyf("decompile", str(pycs), "--out", str(out))
    assert r.rc == 0, r
    assert r.out == "", r
    written = sorted(os.path.relpath(os.path.join(d, f), str(out)).replace(os.sep, "/")
                     for d, _, files in os.walk(str(out)) for f in files)
    assert written == sorted(PACKAGE), r
    for name in PACKAGE:
        assert "  proven      %s" % name in r.err.replace("proven       ", "proven      "), r
    assert r.err.splitlines()[-1] == "total: 5 proven and written", r
    _uses_the_rebuilt_package(python, out)


def test_a_pycache_folder_itself(depyf, tmp_path):
    pycs = _package(tmp_path / "pycs")
    out = tmp_path / "src"
    r = depyf("decompile", str(pycs / "shop" / "util" / "__pycache__"), "--out", str(out))
    assert r.rc == 0, r
    assert sorted(os.listdir(str(out))) == ["__init__.py", "text.py"], r


def test_the_running_pythons_pyc_is_picked_and_said(depyf, tmp_path):
    pycs = _package(tmp_path / "pycs")
    cache = pycs / "shop" / "__pycache__"
    mine = next(p for p in os.listdir(str(cache)) if p.startswith("prices."))
    number, other = (3413, "prices.cpython-38.pyc") if RUNNING != "3.8" else \
        (3495, "prices.cpython-311.pyc")
    data = (cache / mine).read_bytes()  # a second .pyc of the module, of another version
    (cache / other).write_bytes(number.to_bytes(2, "little") + b"\r\n" + data[4:])
    shutil.copy(str(cache / mine), str(cache / mine.replace(".pyc", ".opt-1.pyc")))
    r = depyf("decompile", str(pycs), "--out", str(tmp_path / "src"))
    assert r.rc == 0, r
    assert "shop/prices.py: picked %s (Python %s, the running Python's) over " % (mine, RUNNING) \
        in r.err.replace(os.sep, "/"), r


def test_another_versions_pycs_are_decompiled_by_that_python(depyf, python, tmp_path):
    version = "3.11" if RUNNING != "3.11" else "3.8"
    env, executable = _env_with_python(version)
    pycs = _package(tmp_path / "pycs", other=executable)
    for folder, _, files in os.walk(str(pycs)):  # only the other version's, in places
        for name in files:
            if name.startswith(("cart.", "text.")) and "-%s" % version.replace(".", "") not in name:
                os.unlink(os.path.join(folder, name))
    out = tmp_path / "src"
    r = depyf("decompile", str(pycs), "--out", str(out), "--check", env=env)
    assert r.rc == 0, r
    assert r.err.splitlines()[-1] == "total: 5 proven and written", r
    _uses_the_rebuilt_package(python, out)


def test_a_folder_is_never_written_over(depyf, tmp_path):
    pycs = _package(tmp_path / "pycs")
    out = tmp_path / "src"
    (out / "shop" / "util").mkdir(parents=True)
    (out / "shop" / "util" / "text.py").write_text("mine\n")
    (out / "notes.txt").write_text("mine too\n")
    r = depyf("decompile", str(pycs), "--out", str(out))
    assert r.rc == 1 and len(r.err.splitlines()) == 1, r
    assert "%s already exists; nothing was written" % (out / "shop" / "util" / "text.py") in r.err
    assert "--force" in r.err
    assert sorted(os.listdir(str(out))) == ["notes.txt", "shop"]
    assert os.listdir(str(out / "shop")) == ["util"]
    r = depyf("decompile", str(pycs), "--out", str(out), "--force")
    assert r.rc == 0, r
    assert "def shout(s):" in (out / "shop" / "util" / "text.py").read_text()
    assert (out / "notes.txt").read_text() == "mine too\n"


def test_bad_folders_and_files_in_them(depyf, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    _one_line(depyf("decompile", str(empty), "--out", str(tmp_path / "o")), "no .pyc file in",
              "it is empty")
    (empty / "a.txt").write_text("x")
    _one_line(depyf("decompile", str(empty), "--out", str(tmp_path / "o")),
              "no .pyc file in", "it holds 1 other file")
    _one_line(depyf("decompile", str(empty)), "is a directory", "give --out SRC")
    pycs = _package(tmp_path / "pycs")
    _one_line(depyf("decompile", str(pycs), "--out", str(empty / "a.txt")), "is not a directory")
    r = depyf("decompile", str(empty / "a.txt"), "--out", str(tmp_path / "o"))
    assert r.rc == 2 and "--out and --force are for a folder of .pyc files" in r.err, r
    (pycs / "shop" / "junk.pyc").write_bytes(b"not a pyc at all, not at all")
    r = depyf("decompile", str(pycs), "--out", str(tmp_path / "src"))
    assert r.rc == 1, r
    assert re.search(r"not a \.pyc +shop.junk\.py: .*junk\.pyc is not a \.pyc file", r.err), r
    assert "total: 5 proven and written, 1 not a .pyc depyf reads" in r.err, r


def _one_line(r, *phrases):
    assert r.rc == 1 and r.out == "" and len(r.err.splitlines()) == 1, r
    assert r.err.startswith("depyf decompile: error: "), r
    for phrase in phrases:
        assert phrase in r.err, r


_WRONG_ADD = '''
import ast, sys
import depyf.decompiler.modules as modules
real = modules.unparse
def wrong(tree, indentation=4):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "shout":
            node.body[0].value.right.value = "?"
    return real(tree, indentation)
modules.unparse = wrong
from depyf.cli import main
sys.exit(main(sys.argv[1:]))
'''


def test_unproven_modules_in_a_folder(python, tmp_path):
    pycs = _package(tmp_path / "pycs")
    r = python(["-c", _WRONG_ADD, "decompile", str(pycs), "--out", str(tmp_path / "a")])
    assert r.rc == 1, r
    assert re.search(r"refused +shop.util.text\.py: not proven: shout: ", r.err), r
    assert not (tmp_path / "a" / "shop" / "util" / "text.py").exists()
    assert "total: 4 proven and written, 1 refused" in r.err, r
    r = python(["-c", _WRONG_ADD, "decompile", str(pycs), "--out", str(tmp_path / "b"),
                "--allow-unproven"])
    assert r.rc == 1, r
    assert re.search(r"NOT PROVEN +shop.util.text\.py: not proven: shout: ", r.err), r
    text = (tmp_path / "b" / "shop" / "util" / "text.py").read_text()
    assert text.startswith("# depyf: NOT PROVEN") and "'?'" in text, text
    assert "total: 4 proven and written, 1 written with NOT PROVEN marks" in r.err, r


# ---- a stdlib package rebuilt, then tested by CPython's own tests -----------------------

_TEST_JSON = '''
import json, sys, unittest
suite = unittest.defaultTestLoader.loadTestsFromName("test.test_json")
result = unittest.TextTestRunner(stream=open(__import__("os").devnull, "w")).run(suite)
print(json.dumps([json.__file__, result.testsRun, len(result.failures), len(result.errors),
                  len(result.skipped), len(result.expectedFailures)]))
'''


def test_json_package_rebuilt_passes_cpythons_test_json(depyf, python, tmp_path):
    pytest.importorskip("test.test_json")
    original = os.path.dirname(json.__file__)
    copy = tmp_path / "orig" / "json"
    shutil.copytree(original, str(copy), ignore=shutil.ignore_patterns("__pycache__"))
    pycs = tmp_path / "pycs"
    shutil.copytree(str(copy), str(pycs / "json"))
    assert compileall.compile_dir(str(pycs), quiet=1)
    for name in os.listdir(str(pycs / "json")):
        if name.endswith(".py"):
            os.unlink(str(pycs / "json" / name))
    out = tmp_path / "src"
    r = depyf("decompile", str(pycs), "--out", str(out))
    assert r.rc == 0, r
    runs = {}
    for name, where in (("rebuilt", out), ("original", tmp_path / "orig")):
        r = python(["-c", _TEST_JSON], cwd=str(tmp_path), env={"PYTHONPATH": str(where)},
                   timeout=300)
        assert r.rc == 0, r
        runs[name] = json.loads(r.out.splitlines()[-1])
        assert runs[name][0] == str(where / "json" / "__init__.py"), r
    assert runs["rebuilt"][1:] == runs["original"][1:], runs
    assert runs["rebuilt"][1] > 100 and runs["rebuilt"][2:4] == [0, 0], runs
