"""depyf.utils: the original depyf's helpers, stdlib only (no torch imported)."""
import functools
import os
import subprocess
import sys
import types

import pytest

import depyf
from depyf import utils

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses under WebAssembly (3.14 via pyodide)")
def test_importing_it_imports_no_torch():
    code = ("import sys, depyf.utils, depyf; "
            "assert 'torch' not in sys.modules, 'torch imported'; "
            "assert depyf.utils.safe_create_directory; print('ok')")
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr


def test_public_names():
    assert depyf.utils is utils and sorted(utils.__all__) == sorted([
        "safe_create_directory", "get_function_signature", "collect_all_code_objects",
        "get_code_owner", "decompile_ensure"])


def test_safe_create_directory(tmp_path):
    target = tmp_path / "a" / "b"
    utils.safe_create_directory(str(target))
    assert target.is_dir()
    utils.safe_create_directory(str(target))  # exists: fine
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError):
        utils.safe_create_directory(str(tmp_path / "file"))  # a file in the way


def _sig(src, name="f", **kw):
    ns = {}
    exec(src, ns)
    return utils.get_function_signature(ns[name].__code__, **kw)


def test_function_signature_as_the_original_writes_it():
    assert _sig("def f(a, b=1):\n    c = a\n") == "def f(a, b):\n"
    assert _sig("def f(a, *args, **kw):\n    pass\n") == "def f(a, *args, **kw):\n"
    assert _sig("def f():\n    pass\n") == "def f():\n"
    assert _sig("f = lambda x, y: x\n") == "def <lambda>(x, y):\n"
    assert _sig("f = lambda x, y: x\n", overwite_fn_name="g") == "def g(x, y):\n"
    assert utils.get_function_signature(_code("def f():\n    pass\n"), "h") == "def h():\n"
    comp = [c for c in _code("def f(xs):\n    return [x for x in xs]\n").co_consts
            if isinstance(c, types.CodeType)]
    if comp:  # (3.12+ inlines list comprehensions)
        assert utils.get_function_signature(comp[0]) == "def <listcomp>(comp_arg_0):\n"


def test_keyword_and_positional_only_parameters_keep_their_kind():
    """(The original wrote keyword-only parameters as positional ones: ``def f(a, b,
    *args)`` for ``def f(a, *args, b)``.)"""
    assert _sig("def f(a, *, b, c=2):\n    pass\n") == "def f(a, *, b, c):\n"
    assert _sig("def f(a, *args, b, **kw):\n    pass\n") == "def f(a, *args, b, **kw):\n"
    assert _sig("def f(a, /, b, *, c):\n    pass\n") == "def f(a, /, b, *, c):\n"
    for src in ("def f(a, *, b, c=2):\n    pass\n", "def f(a, /, b, *args, c, **kw):\n    pass\n"):
        header = _sig(src)
        assert header.split("(")[1] == src.split("(")[1].replace("=2", "").split(":")[0] + ":\n"
        compile(header + "    pass\n", "<sig>", "exec")


def _code(src):
    return compile(src, "<test>", "exec").co_consts[0]


def test_collect_all_code_objects_is_depth_first_in_constant_order():
    src = ("def f():\n"
           "    def g():\n"
           "        def h():\n"
           "            pass\n"
           "    k = lambda: 1\n")
    module = compile(src, "<test>", "exec")
    names = [c.co_name for c in utils.collect_all_code_objects(module)]
    assert names == ["<module>", "f", "g", "h", "<lambda>"]
    leaf = utils.collect_all_code_objects(_code("def x():\n    pass\n"))
    assert [c.co_name for c in leaf] == ["x"]


def add(a, b):
    return a + b


class A:
    def func(self):
        return 1

    def __call__(self, a, b):
        return a + b


def test_get_code_owner_finds_the_function_whose_code_can_change():
    a = A()
    assert utils.get_code_owner(a.func) is A.func
    assert utils.get_code_owner(functools.partial(add, 1)) is add
    assert utils.get_code_owner(functools.lru_cache(None)(add)) is add
    assert utils.get_code_owner(a) is A.__call__
    assert utils.get_code_owner(add) is add

    @functools.wraps(add)
    def wrapper(*args):
        return add(*args)

    assert utils.get_code_owner(functools.partial(wrapper, 1)) is add
    assert utils.get_code_owner(staticmethod(add)) is add
    owner = utils.get_code_owner(a.func)
    owner.__code__ = owner.__code__  # the owner's code is writable
    with pytest.raises(AttributeError):
        a.func.__code__ = owner.__code__


def test_decompile_ensure_returns_proven_source_or_the_stub(monkeypatch):
    def f(a, b):
        c = a + b
        return c * 2 if c > 0 else -c

    text = utils.decompile_ensure(f.__code__)
    ns = {}
    exec(text, ns)
    assert [ns["f"](5, 3), ns["f"](-5, 3)] == [16, 2]
    assert utils.decompile_ensure(f.__code__, "g").startswith("def g(a, b):")
    assert utils.decompile_ensure(f) == text  # a function is accepted too

    def refuse(self, *args, **kwargs):
        raise depyf.UnprovenError("not proven (test)", function="f")

    monkeypatch.setattr(depyf.Decompiler, "decompile", refuse)
    assert utils.decompile_ensure(f.__code__) == "def f(a, b):\n    'Failed to decompile.'\n"
    assert utils.decompile_ensure(f.__code__, "h") == "def h(a, b):\n    'Failed to decompile.'\n"
    with pytest.raises(TypeError):
        utils.decompile_ensure(42)


def test_the_originals_example_comes_back_either_proven_or_as_the_stub():
    """The original's own example (a ``return`` in ``finally``): whatever the decompiler
    proves runs as the function does; what it does not prove is the stub, never text
    that was not proven."""
    def f(a, b):
        try:
            return a + b
        finally:
            return a - b

    text = utils.decompile_ensure(f.__code__)
    if text != "def f(a, b):\n    'Failed to decompile.'\n":
        ns = {}
        exec(text, ns)
        assert ns["f"](5, 3) == 2
