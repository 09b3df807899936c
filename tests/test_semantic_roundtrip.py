"""Semantic round trip over the corpus in ``tests/corpus``.

For every ``@case`` function of every corpus file allowed on the running Python:
``depyf.decompile(fn)`` -> exec the text in a fresh copy of the function's module globals
-> fetch the new function by name -> for every example input, call the original and the
new function on deep copies of the arguments and compare

- what came back (structurally: same types, equal values; objects without a structural
  equality by type name, repr with addresses removed, and attributes), or the exception
  raised (type, args, ``__cause__``/``__context__`` and ``__suppress_context__``);
- the arguments after the call (mutation side effects);
- what was printed to stdout;
- generators: the yielded values and the return value (``.send()`` where the case says
  so); coroutines and async generators: the same, run under ``asyncio.run``.

The signature, the docstring and the function kind (plain, generator, coroutine, async
generator) must match too, and the text must not ``return``/``break``/``continue`` out of
a ``finally`` block where the source does not (PEP 765: 3.14's compiler warns about each;
the warnings of the text and of the case's source are compared). One test id per case: ``file.py::function``.

Known failures live in ``tests/corpus/known_failures.txt`` as lines
``<python-version> <file.py::function> <reason>``; they are strict xfails for that
Python version only, so a fix forces the list to be updated.

A second test per corpus file checks that the inputs of its cases execute every line of
the case functions (and of the functions, lambdas and comprehensions nested in them), so
that every path is exercised; it does not need the decompiler.
"""
import __future__
import asyncio
import collections
import contextlib
import copy
import dis
import os
import importlib
import importlib.util
import inspect
import io
import re
import signal
import sys
import textwrap
import threading
import types
import warnings
from pathlib import Path

import pytest

import depyf

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
KNOWN_FAILURES = CORPUS_DIR / "known_failures.txt"
PACKAGE = "depyf_corpus"  # the corpus is imported under this name, whatever sys.path holds
PY = "%d.%d" % sys.version_info[:2]
CALL_TIME_LIMIT_S = 10  # per call; a wrong loop condition must fail, not hang the run

FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

_VERSION_LINE = re.compile(r"^#\s*(min|max)-python:\s*(\d+)\.(\d+)\s*$")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


# --- discovering the corpus -------------------------------------------------------------


def declared_versions(path):
    """``(min, max)`` version bounds declared in the first lines of a corpus file.

    Read as text, never compiled: the file may use syntax the running Python lacks.
    """
    bounds = {"min": (0, 0), "max": (99, 99)}
    with open(path, encoding="utf-8") as f:
        for _, line in zip(range(5), f):
            m = _VERSION_LINE.match(line.strip())
            if m:
                bounds[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return bounds["min"], bounds["max"]


def corpus_files():
    return sorted(p for p in CORPUS_DIR.glob("*.py") if not p.name.startswith("_"))


def allowed(bounds):
    low, high = bounds
    return low <= sys.version_info[:2] <= high


def _corpus_package():
    pkg = sys.modules.get(PACKAGE)
    if pkg is None:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, CORPUS_DIR / "__init__.py", submodule_search_locations=[str(CORPUS_DIR)]
        )
        pkg = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = pkg
        spec.loader.exec_module(pkg)
    return pkg


class Case:
    def __init__(self, file, fn, module, spec):
        self.file = file
        self.fn = fn
        self.module = module
        self.spec = spec
        self.id = "%s::%s" % (file, fn.__name__)

    def __repr__(self):
        return self.id


def load_file(path):
    """Import one corpus file and return its cases, in definition order."""
    _corpus_package()
    harness = importlib.import_module(PACKAGE + "._harness")
    module = importlib.import_module("%s.%s" % (PACKAGE, path.stem))
    cases, seen = [], set()
    for fn in harness.REGISTRY[module.__name__]:
        where = "%s::%s" % (path.name, fn.__name__)
        if fn.__name__ in seen:
            raise AssertionError("%s: two cases with the same name" % where)
        seen.add(fn.__name__)
        if getattr(module, fn.__name__, None) is not fn or fn.__qualname__ != fn.__name__:
            raise AssertionError("%s: a case must be a module-level function" % where)
        cases.append(Case(path.name, fn, module, fn.__corpus_case__))
    return cases


def read_known_failures(path=KNOWN_FAILURES):
    """``[(version, case id, reason)]`` from the known-failures file."""
    entries = []
    if not path.exists():
        return entries
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or not re.match(r"^\d+\.\d+$", parts[0]) or "::" not in parts[1]:
            raise ValueError(
                "%s:%d: expected '<python-version> <file.py::function> <reason>', got %r"
                % (path.name, number, line)
            )
        entries.append(tuple(parts))
    return entries


def _collect():
    # tools/update_known_failures.py sets this to see every failure as it is
    if os.environ.get("DEPYF_IGNORE_KNOWN_FAILURES"):
        known = {}
    else:
        known = {case_id: reason for version, case_id, reason in read_known_failures() if version == PY}
    params, files = [], []
    for path in corpus_files():
        if not allowed(declared_versions(path)):
            continue
        file_cases = load_file(path)
        files.append(pytest.param(file_cases, id=path.name))
        for case in file_cases:
            marks = []
            low = case.spec.options.get("min_python", (0, 0))
            high = case.spec.options.get("max_python", (99, 99))
            if not low <= sys.version_info[:2] <= high:
                marks.append(pytest.mark.skip(reason="case needs Python %s..%s" % (low, high)))
            elif case.id in known:
                marks.append(pytest.mark.xfail(strict=True, reason=known[case.id]))
            params.append(pytest.param(case, id=case.id, marks=marks))
    return params, files


CASE_PARAMS, FILE_PARAMS = _collect()


# --- making results comparable ----------------------------------------------------------

_PLAIN = (type(None), bool, int, str, bytes, complex, type(Ellipsis), type(NotImplemented))


def comparable(value, _seen=None):
    """A hashable, structural description of ``value`` that is equal across two runs.

    Builtin containers and scalars keep their type and contents (``1``, ``1.0`` and
    ``True`` differ; floats by repr so that NaN equals NaN). Other objects are described by
    type name, their repr with memory addresses removed and their attributes, because the
    two runs create distinct classes and objects that ``==`` alone cannot match.
    """
    if _seen is None:
        _seen = set()
    if isinstance(value, _PLAIN) and type(value) in _PLAIN:
        return (type(value).__name__, value)
    if type(value) is float:
        return ("float", repr(value))
    if id(value) in _seen:
        return ("<cycle>",)
    _seen = _seen | {id(value)}
    if type(value) in (list, tuple):
        return (type(value).__name__, tuple(comparable(v, _seen) for v in value))
    if type(value) in (set, frozenset):
        return (type(value).__name__, frozenset(comparable(v, _seen) for v in value))
    if type(value) is dict:
        return ("dict", tuple((comparable(k, _seen), comparable(v, _seen)) for k, v in value.items()))
    if isinstance(value, BaseException):
        return describe_exception(value, _seen)
    if isinstance(value, type):
        return ("class", value.__module__, value.__qualname__)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return ("callable", getattr(value, "__qualname__", repr(value)))
    attrs = getattr(value, "__dict__", None)
    return (
        "object",
        type(value).__module__,
        type(value).__qualname__,
        _ADDRESS.sub("", repr(value)),
        comparable(dict(attrs), _seen) if isinstance(attrs, dict) else None,
    )


def describe_exception(exc, _seen=None, chain=True):
    described = ("exception", type(exc).__qualname__, comparable(exc.args, _seen))
    if chain:
        links = tuple(
            None if link is None else describe_exception(link, _seen, chain=False)
            for link in (exc.__cause__, exc.__context__)
        )
        described += links + (exc.__suppress_context__,)
    return described


# --- running a case ---------------------------------------------------------------------


def drive_generator(gen, send=(), limit=1000):
    items, to_send = [], list(send)
    try:
        value = next(gen)
        while True:
            items.append(value)
            if len(items) >= limit:
                gen.close()
                return ("generator", items, "stopped at the limit")
            value = gen.send(to_send.pop(0)) if to_send else next(gen)
    except StopIteration as stop:
        return ("generator", items, ("returned", stop.value))
    except Exception as exc:
        return ("generator", items, describe_exception(exc))


async def drive_async_generator(agen, send=(), limit=1000):
    items, to_send = [], list(send)
    try:
        value = await agen.__anext__()
        while True:
            items.append(value)
            if len(items) >= limit:
                await agen.aclose()
                return ("async generator", items, "stopped at the limit")
            value = await (agen.asend(to_send.pop(0)) if to_send else agen.__anext__())
    except StopAsyncIteration:
        return ("async generator", items, "exhausted")
    except Exception as exc:
        return ("async generator", items, describe_exception(exc))


def drive(result, options):
    """Turn what a call returned into a value: run generators and coroutines to the end."""
    if "driver" in options:
        return options["driver"](result)
    send, limit = options.get("send", ()), options.get("limit", 1000)
    if inspect.isgenerator(result):
        return drive_generator(result, send, limit)
    if inspect.iscoroutine(result):
        return asyncio.run(result)
    if inspect.isasyncgen(result):
        return asyncio.run(drive_async_generator(result, send, limit))
    return result


class CallTimeout(BaseException):
    """Raised in a call that runs past ``CALL_TIME_LIMIT_S`` (not an ``Exception``, so
    that the ``except Exception`` clauses of the corpus do not swallow it)."""


@contextlib.contextmanager
def time_limit(seconds):
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise CallTimeout("call ran for more than %s s" % seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def observe(fn, call, case_options):
    """Call ``fn`` on copies of the inputs; describe everything the caller can see."""
    options = dict(case_options, **call.options)
    args, kwargs = copy.deepcopy((call.args, call.kwargs))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), time_limit(CALL_TIME_LIMIT_S):
        try:
            outcome = ("returned", comparable(drive(fn(*args, **kwargs), options)))
        except Exception as exc:
            outcome = ("raised", describe_exception(exc))
    return {
        "outcome": outcome,
        "args after the call": comparable(args),
        "kwargs after the call": comparable(kwargs),
        "stdout": out.getvalue(),
    }


def kind(fn):
    for name in ("isasyncgenfunction", "iscoroutinefunction", "isgeneratorfunction"):
        if getattr(inspect, name)(fn):
            return name[2:]
    return "function"


_FINALLY_EXIT = re.compile(r"'(return|break|continue)' in a 'finally' block")


def finally_exit_warnings(source, filename):
    """The PEP 765 warnings (3.14+: ``return``/``break``/``continue`` leaving a
    ``finally`` block) that compiling ``source`` gives, as a Counter of their texts
    (empty before 3.14, which does not warn)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SyntaxWarning)
        compile(source, filename, "exec")
    return collections.Counter(str(w.message) for w in caught
                               if issubclass(w.category, SyntaxWarning)
                               and _FINALLY_EXIT.search(str(w.message)))


def check_no_added_finally_exits(case, src):
    """The decompiled text has no exit out of a ``finally`` block that the source lacks:
    such an exit changes what the code does (it swallows the exception in flight), and
    3.14 warns about it; a structuring that moves a ``return`` into a ``finally`` would
    add one."""
    original = textwrap.dedent(inspect.getsource(case.fn))
    added = finally_exit_warnings(src, "<depyf: %s>" % case.id) - \
        finally_exit_warnings(original, case.file)
    assert not added, "the decompiled text exits a finally block where the source does " \
        "not (%s):\n%s" % (", ".join(sorted(added)), src)


def roundtrip(case):
    """Decompile ``case.fn`` and define the result in a copy of its module's globals."""
    src = depyf.decompile(case.fn)
    check_no_added_finally_exits(case, src)
    namespace = dict(case.module.__dict__)
    del namespace[case.fn.__name__]  # the new definition must provide it
    # under the case's `from __future__` imports, as it was compiled (and as it is proven)
    flags = case.fn.__code__.co_flags & FUTURE_FLAGS
    exec(compile(src, "<depyf: %s>" % case.id, "exec", flags=flags, dont_inherit=True), namespace)
    new = namespace.get(case.fn.__name__)
    assert isinstance(new, types.FunctionType), (
        "the decompiled text does not define function %r:\n%s" % (case.fn.__name__, src)
    )
    return src, new


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_roundtrip(case):
    src, new = roundtrip(case)
    shown = "\n--- decompiled %s ---\n%s" % (case.id, src)
    fn = case.fn
    assert kind(new) == kind(fn), shown
    assert str(inspect.signature(new)) == str(inspect.signature(fn)), shown
    assert new.__doc__ == fn.__doc__, shown
    for call in case.spec.calls:
        expected = observe(fn, call, case.spec.options)
        got = observe(new, call, case.spec.options)
        for aspect in expected:
            assert got[aspect] == expected[aspect], "%s differs for input %r%s\n%s\nexpected: %r\n     got: %r" % (
                aspect,
                call,
                shown,
                "-" * 20,
                expected[aspect],
                got[aspect],
            )


# --- checks on the corpus itself --------------------------------------------------------


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


# Under WebAssembly (3.14 via pyodide) asyncio.run resumes coroutines from the JavaScript
# event loop, where sys.settrace's tracer is not called: their lines cannot be counted
# there (they are on 3.8-3.13, with the same inputs).
UNTRACED_EVENT_LOOP = sys.platform == "emscripten"


def _lines(code):
    return {line for _, line in dis.findlinestarts(code) if line is not None}


@pytest.mark.parametrize("cases", FILE_PARAMS)
def test_inputs_cover_every_line(cases):
    """The inputs of each case run every line of it: each path is taken by some input."""
    missing = []
    for case in cases:
        if UNTRACED_EVENT_LOOP and (inspect.iscoroutinefunction(case.fn)
                                    or inspect.isasyncgenfunction(case.fn)):
            continue
        codes = set(_code_objects(case.fn.__code__))
        hit = set()

        def tracer(frame, event, arg):
            if frame.f_code not in codes:
                return None
            hit.add(frame.f_lineno)

            def local(frame, event, arg):
                if event == "line":
                    hit.add(frame.f_lineno)
                return local

            return local

        wanted = set().union(*map(_lines, codes)) - {case.fn.__code__.co_firstlineno}
        old = sys.gettrace()
        sys.settrace(tracer)
        try:
            for call in case.spec.calls:
                observe(case.fn, call, case.spec.options)
        finally:
            sys.settrace(old)
        if wanted - hit:
            missing.append("%s: lines %s never run" % (case.id, sorted(wanted - hit)))
    assert not missing, "\n".join(missing)


def test_corpus_is_large_enough():
    assert len(CASE_PARAMS) >= 250


def test_known_failures_name_real_cases():
    """Every known-failure line names a case that exists (stale lines must be removed)."""
    for version, case_id, _ in read_known_failures():
        file_name, fn_name = case_id.split("::", 1)
        path = CORPUS_DIR / file_name
        assert path.is_file(), "known_failures.txt: no corpus file %s" % file_name
        source = path.read_text(encoding="utf-8")
        assert re.search(r"^(async )?def %s\(" % re.escape(fn_name), source, re.M), (
            "known_failures.txt: no case %s" % case_id
        )


@pytest.mark.skipif(sys.version_info < (3, 14), reason="PEP 765's warning is new in 3.14")
def test_finally_exit_check_refuses_an_added_exit():
    """The check above fails on a text that moved the source's ``return`` after a
    ``finally`` into it, and accepts the text as the source wrote it."""
    (target,) = [c for c in load_file(CORPUS_DIR / "finally_exits.py")
                 if c.fn.__name__ == "return_constant_after_finally"]
    moved = ("def return_constant_after_finally(n, log):\n    try:\n        log.append(n)\n"
             "    finally:\n        log.append('finally')\n        return 5\n")
    with pytest.raises(AssertionError, match="exits a finally block"):
        check_no_added_finally_exits(target, moved)
    check_no_added_finally_exits(target, moved.replace("        return 5", "    return 5"))
    assert finally_exit_warnings(moved, "<moved>") == {"'return' in a 'finally' block": 1}
