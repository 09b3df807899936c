"""The round-trip harness itself: fed the original source back, everything must be equal.

A "decompiler" that returns each def's own source text checks the wrappers (closures,
methods using ``super()``, private names, nested qualnames, module imports) and the
normalization together: any difference it reports is a harness bug.
"""
import json
import sys
import time

import pytest

from depyf.verify import __main__ as cli
from depyf.verify import collect_targets, run, stdlib_corpus
from depyf.verify import roundtrip
from depyf.verify.roundtrip import check, original_source, time_limit, wrap_source

SAMPLE_MODULE = '''
import os.path
import re as _re
from functools import wraps

def plain(a, b=1, *args, k, **kw):
    """Doc
    string with
        indented lines."""
    return _re.compile(a).match(os.path.join(b, *args), **kw)

def closure(x):
    y = [x]
    def inner(z):
        nonlocal x
        x = z
        def innermost():
            return x, y, inner
        return [v for v in y if v], innermost
    return inner

class Base:
    __slots__ = ("__secret",)

    def method(self, value):
        self.__secret = value
        return super().method(value) if value else (lambda: self.__secret)

    class Nested:
        def deep(self):
            return {k: v for k, v in vars(self).items()}

def factory(n):
    class Local(Base):
        def __init__(self):
            super().__init__()
            self.n = n
            self.cls = Local
    return Local

def decorate(fn):
    @wraps(fn)
    def wrapper(*a, **k):
        try:
            return fn(*a, **k)
        except (TypeError, ValueError) as exc:
            raise RuntimeError(_re.escape(str(exc))) from exc
        finally:
            wrapper.calls = getattr(wrapper, "calls", 0) + 1
    return wrapper

def class_parameter(__class__, name):
    def annotate(fmt):
        return __class__.__mro__, name
    return annotate

async def agen(it):
    async with it as ctx:
        async for item in ctx:
            yield await item
'''


def source_decompiler(source):
    """A decompile(code) that returns the def's original text, dedented string-safely
    (the harness's own ``roundtrip.original_texts``)."""
    return roundtrip.original_texts(source)


@pytest.fixture
def sample(tmp_path):
    (tmp_path / "sample_mod.py").write_text(SAMPLE_MODULE)
    targets, unchecked = collect_targets(["sample_mod"], root=str(tmp_path))
    return targets, source_decompiler(SAMPLE_MODULE)


def test_original_source_round_trips_exactly(sample):
    targets, decompile = sample
    names = {t.qualname for t in targets}
    assert {"plain", "closure.<locals>.inner.<locals>.innermost", "Base.method",
            "Base.Nested.deep", "factory.<locals>.Local.__init__", "agen",
            "class_parameter.<locals>.annotate"} <= names
    results = [check(t, decompile) for t in targets]
    bad = [(r.qualname, r.reason) for r in results if not r.equal]
    assert not bad
    assert all(r.decompiled and r.compiles and r.temps == 0 for r in results)


def test_wrapper_rebuilds_scopes_binds_free_names_and_keeps_strings(sample):
    targets, decompile = sample
    by_name = {t.qualname: t for t in targets}
    text = wrap_source(decompile(by_name["closure.<locals>.inner"].code),
                       by_name["closure.<locals>.inner"])
    # innermost() uses inner, x and y: all three are free in inner and bound around it.
    assert "def closure():\n    inner = x = y = None\n    def inner(z):" in text
    assert "import _re\n" in text and "import os\n" in text
    doc = wrap_source(decompile(by_name["plain"].code), by_name["plain"])
    assert "string with\n        indented lines." in doc


def test_each_failure_stage_is_recorded(sample):
    targets, decompile = sample
    target = [t for t in targets if t.qualname == "plain"][0]

    def broken(code):
        raise NotImplementedError("opcode FOO at 12 in 'plain'")

    r = check(target, broken)
    assert (r.decompiled, r.stage) == (False, "decompile")
    assert r.category == "NotImplementedError: opcode FOO at N in '?'"

    def buggy(code):
        raise AttributeError("'Constant' object has no attribute 'kind'")

    # Names that are not the function's own stay: they say where the bug is.
    assert check(target, buggy).category == "AttributeError: 'Constant' object has no attribute 'kind'"
    r = check(target, lambda code: "def plain(:\n    pass\n")
    assert (r.decompiled, r.compiles, r.stage) == (True, False, "compile")
    r = check(target, lambda code: "def other():\n    pass\n")
    assert (r.compiles, r.equal, r.stage) == (True, False, "locate")
    r = check(target, lambda code: decompile(code).replace("os.path", "os.sep"))
    assert (r.compiles, r.equal, r.stage) == (True, False, "compare")
    r = check(target, lambda code: decompile(code).replace("*args", "*__temp_0"))
    assert r.temps == 1 and not r.equal


@pytest.mark.skipif(not time_limit(1).bounded,
                    reason="the per-call bound uses SIGALRM/setitimer (not on Windows, nor "
                           "under WebAssembly: pyodide's 3.14)")
def test_a_slow_decompile_is_cut_off(sample):
    targets, _ = sample

    def slow(code):
        try:
            time.sleep(5)
        except Exception:  # a decompiler's own fallback must not swallow the timeout
            pass
        return "def x(): pass"

    start = time.perf_counter()
    r = check(targets[0], slow, timeout=0.2)
    assert time.perf_counter() - start < 2
    assert r.stage == "decompile" and r.category.startswith("DecompileTimeout")


def test_the_original_source_of_corpus_defs_round_trips():
    # --decompiler depyf.verify.roundtrip:original_source: the harness and the
    # normalization without the decompiler, on this version's stdlib
    results, _, _ = run(["bisect", "textwrap"], decompile=original_source)
    assert results and all(r.equal for r in results), [
        (r.qualname, r.reason) for r in results if not r.equal]


def test_every_corpus_module_is_a_source_file_here():
    assert len(stdlib_corpus.MODULES) >= 60
    for name in stdlib_corpus.MODULES:
        assert stdlib_corpus.module_file(name).endswith(".py")


def test_sample_is_even_and_deterministic():
    items = list(range(100))
    assert stdlib_corpus.sample_evenly(items, 4) == [0, 25, 50, 75]
    assert stdlib_corpus.sample_evenly(items, 500) == items


def test_run_and_cli_outputs(tmp_path, capsys):
    results, unchecked, wall = run(["bisect", "keyword"], sample=3)
    assert len(results) == 3 and wall >= 0
    json_path, fail_path = tmp_path / "r.json", tmp_path / "f.txt"
    status = cli.main(["--modules", "bisect", "--quiet", "--json", str(json_path),
                       "--failures", str(fail_path)])
    out = capsys.readouterr().out
    assert status == 0 and "TOTAL" in out and "bytecode-equal" in out
    data = json.loads(json_path.read_text())
    assert data["total"]["objects"] == len(data["results"]) > 0
    assert set(data["modules"]) == {"bisect"}
    assert fail_path.read_text().startswith("# depyf.verify failures")
    assert cli.main(["--modules", "bisect", "--quiet", "--require-equal", "100.01"]) == 1


STANDALONE_MODULE = '''
TABLE = {k: v for k, v in zip("ab", range(2))}
total = sum(x * 2 for x in range(3))
key = lambda item: item[0]

class Holder:
    names = [n.upper() for n in TABLE]
    pick = lambda self, i: self.names[i]

    def method(self):
        return [n for n in self.names if n], lambda: 1
'''


def test_lambdas_and_comprehensions_outside_defs_are_checked_on_their_own(tmp_path):
    (tmp_path / "standalone_mod.py").write_text(STANDALONE_MODULE)
    targets, unchecked = collect_targets(["standalone_mod"], root=str(tmp_path))
    outside = {t.qualname for t in targets if stdlib_corpus.is_outside_defs(t.code, t.scopes)}
    expected = {"<genexpr>", "<lambda>", "Holder.<lambda>"}
    if sys.version_info < (3, 12):  # list/dict comprehensions are inlined from 3.12
        expected |= {"<dictcomp>", "Holder.<listcomp>"}
    assert outside == expected and unchecked == 0
    # the ones inside Holder.method are compared as part of it, not on their own
    assert "Holder.method" in {t.qualname for t in targets}
    results = [check(t) for t in targets]
    assert all(r.proven for r in results), [(r.qualname, r.reason, r.proof) for r in results]
    code = compile(STANDALONE_MODULE, "standalone_mod.py", "exec")
    defs = stdlib_corpus.def_positions(STANDALONE_MODULE)
    assert stdlib_corpus.count_unchecked(code, defs, standalone=False) == len(expected)
    assert len(list(stdlib_corpus.iter_targets("m", code, defs=defs, standalone=False))) == 1
