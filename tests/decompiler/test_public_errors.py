"""Every public entry lets out only ``DecompilationError`` subclasses that say what to do.

The internal ``Mismatch`` (``decompiler/mismatch.py``) is not a ``DecompilationError``:
``pytest.raises(DecompilationError)`` fails if one leaks. Each error kind is made to
happen through each entry: ``decompile``, ``Decompiler.decompile``, ``Decompiler.to_ast``,
``decompile_module``, ``decompile_pyc`` and the standalone forms (generator expression,
lambda, class body) that ``Decompiler.decompile`` gives nested code objects.
"""
import dis
import importlib.util
import marshal
import os
import sys
import types

import pytest

import depyf
from depyf import (DecompilationError, InternalError, UnsupportedInstruction,
                   UnsupportedPycError, UnsupportedShape)
from depyf.decompiler import session as session_module
from depyf.decompiler.mismatch import Mismatch
from depyf.decompiler.session import READINGS_TRIED

PY = "%d.%d" % sys.version_info[:2]

# Each subject: source, and the path of names (through co_consts) to the code object
# whose first UNARY_NEGATIVE is replaced (no inline caches on 3.8-3.13: the rest of the
# code stays well-formed). "" is the module itself.
SUBJECTS = {
    "function": ("def f(x):\n    return -x\n", ("f",)),
    "genexpr": ("def f(xs):\n    return (-x for x in xs)\n", ("f", "<genexpr>")),
    "lambda": ("g = lambda x: -x\n", ("<lambda>",)),
    "class body": ("class C:\n    y = -x\n", ("C",)),
    "module": ("y = -x\n", ()),
}


def _child(code, name):
    return next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _replace(code, path, opcode):
    """``code`` with the code object at ``path`` patched (each parent rebuilt around its
    new child); returns (new code, the patched code object, offset)."""
    if path:
        old = _child(code, path[0])
        new, patched, offset = _replace(old, path[1:], opcode)
        consts = tuple(new if c is old else c for c in code.co_consts)
        return code.replace(co_consts=consts), patched, offset
    ins = next(i for i in dis.get_instructions(code) if i.opname == "UNARY_NEGATIVE")
    raw = bytearray(code.co_code)
    raw[ins.offset] = opcode
    new = code.replace(co_code=bytes(raw))
    return new, new, ins.offset


def _unhandled_opcode():
    """(opcode, opname) of an instruction the executor has no handler for: GET_LEN (a
    match statement's, 3.10+; the structuring of match statements reads it, the executor
    does not) or, up to 3.9, an opcode number no instruction has ("<N>")."""
    if "GET_LEN" in dis.opmap:
        return dis.opmap["GET_LEN"], "GET_LEN"
    number = next(n for n in range(dis.HAVE_ARGUMENT, 256) if dis.opname[n] == "<%d>" % n)
    return number, "<%d>" % number


def _entries(kind):
    """The public entries that reach a code object of this kind."""
    if kind == "module":
        return ["decompile_module", "decompile_pyc"]
    if kind == "function":
        return ["decompile", "Decompiler.decompile", "Decompiler.to_ast"]
    return ["Decompiler.decompile"]  # the standalone form of nested code


CASES = [(kind, entry) for kind in SUBJECTS for entry in _entries(kind)]


def _run(entry, module_code, target, tmp_path):
    if entry == "decompile":
        return depyf.decompile(target)
    if entry == "Decompiler.decompile":
        return depyf.Decompiler(target).decompile()
    if entry == "Decompiler.to_ast":
        return depyf.Decompiler(target).to_ast()
    if entry == "decompile_module":
        return depyf.decompile_module(module_code)
    path = tmp_path / "subject.pyc"
    path.write_bytes(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(module_code))
    return depyf.decompile_pyc(str(path))


def _raise(kind, entry, opcode, tmp_path):
    source, path = SUBJECTS[kind]
    module_code, target, offset = _replace(compile(source, "<subject>", "exec"), path, opcode)
    with pytest.raises(DecompilationError) as info:
        _run(entry, module_code, target, tmp_path)
    return info.value, target, offset


def _function_name(kind, target):
    return "<module>" if kind == "module" else target.co_name


@pytest.mark.parametrize("kind,entry", CASES)
def test_unhandled_instruction_is_unsupported_instruction(kind, entry, tmp_path):
    opcode, opname = _unhandled_opcode()
    err, target, offset = _raise(kind, entry, opcode, tmp_path)
    assert type(err) is UnsupportedInstruction
    assert (err.opname, err.offset) == (opname, offset)
    assert err.function == target.co_name
    message = str(err)
    assert "does not handle this instruction" in message and "report" in message
    assert opname in message and PY in message


@pytest.mark.parametrize("kind,entry", CASES)
def test_shape_no_reading_fits_is_unsupported_shape(kind, entry, tmp_path):
    # END_ASYNC_FOR has a handler, but outside an `async for` no reading places it
    err, target, offset = _raise(kind, entry, dis.opmap["END_ASYNC_FOR"], tmp_path)
    assert type(err) is UnsupportedShape
    assert (err.opname, err.offset) == ("END_ASYNC_FOR", offset)
    assert err.function == target.co_name
    assert err.readings == READINGS_TRIED
    assert "readings tried: " + ", ".join(READINGS_TRIED) in str(err)


def _subject(kind):
    source, path = SUBJECTS[kind]
    module_code = compile(source, "<subject>", "exec")
    target = module_code
    for name in path:
        target = _child(target, name)
    return module_code, target


@pytest.mark.parametrize("kind,entry", CASES)
def test_unexpected_exception_in_a_stage_is_internal_error(kind, entry, tmp_path, monkeypatch):
    bug = KeyError("a bug")

    def broken(*args, **kwargs):
        raise bug

    monkeypatch.setattr(session_module, "finish_body", broken)
    module_code, target = _subject(kind)
    with pytest.raises(InternalError) as info:
        _run(entry, module_code, target, tmp_path)
    err = info.value
    assert err.cause is bug and err.__cause__ is bug
    assert err.function == _function_name(kind, target)
    assert "KeyError" in str(err) and "a bug in depyf" in str(err)


@pytest.mark.parametrize("kind,entry", CASES)
def test_recursion_too_deep_is_unsupported_shape(kind, entry, tmp_path, monkeypatch):
    def too_deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(session_module, "finish_body", too_deep)
    module_code, target = _subject(kind)
    with pytest.raises(UnsupportedShape) as info:
        _run(entry, module_code, target, tmp_path)
    assert info.value.reason == "nesting too deep to decompile"


def test_mismatch_is_internal_only():
    assert not issubclass(Mismatch, DecompilationError)
    for public in (UnsupportedInstruction, UnsupportedShape, InternalError):
        assert issubclass(public, DecompilationError) and public.__module__ == "depyf.errors"


def test_the_subjects_decompile_unpatched(tmp_path):
    # the patched cases above fail because of the patch, not the subject
    for kind in SUBJECTS:
        module_code, target = _subject(kind)
        for entry in _entries(kind):
            assert _run(entry, module_code, target, tmp_path) is not None


def test_module_with_annotations():
    # SETUP_ANNOTATIONS starts a module with annotations; it is the compiler's, not a statement
    code = compile("x: int = 1\ny: str\n", "<m>", "exec")
    assert depyf.decompile_module(code) == "x: int = 1\ny: str\n"


# --- .pyc files -----------------------------------------------------------------------------


def _pyc(tmp_path, data):
    path = tmp_path / "m.pyc"
    path.write_bytes(data)
    return str(path)


def test_pyc_round_trip(tmp_path):
    code = compile("import os\nx = os.sep\n", "<m>", "exec")
    data = importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code)
    assert depyf.decompile_pyc(_pyc(tmp_path, data)) == "import os\nx = os.sep\n"


def _other_version_magic():
    number = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "little")
    other = 3413 if number >= 3420 else 3425  # a 3.8 number, or a 3.9 one on 3.8
    return other.to_bytes(2, "little") + b"\r\n", "3.8" if other == 3413 else "3.9"


@pytest.mark.parametrize("what", ["too short", "not a pyc", "other version", "corrupt",
                                  "not code"])
def test_bad_pyc_is_unsupported_pyc_error(what, tmp_path):
    header = importlib.util.MAGIC_NUMBER + bytes(12)
    expected = {"too short": "too short", "not a pyc": "not a .pyc", "corrupt": "corrupt .pyc",
                "not code": "does not contain a code object"}
    if what == "too short":
        data = header[:10]
    elif what == "not a pyc":
        data = b"#!/usr/bin/env python\nprint(1)\n"
    elif what == "other version":
        magic, version = _other_version_magic()
        data = magic + bytes(12) + marshal.dumps(compile("x = 1", "<m>", "exec"))
        expected[what] = "written by Python %s" % version
    elif what == "corrupt":
        data = header + marshal.dumps(compile("x = 1", "<m>", "exec"))[:-5]
    else:
        data = header + marshal.dumps((1, 2))
    with pytest.raises(UnsupportedPycError, match=expected[what]):
        depyf.decompile_pyc(_pyc(tmp_path, data))


# A real .pyc written by CPython 3.14.2 (pyodide; regenerate with
#   tools/pyodide/python3.14 -c "import py_compile; py_compile.compile('tests/data/py314_example.py',
#       cfile='tests/data/py314_example.cpython-314.pyc', invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)")
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
PYC_314 = os.path.join(DATA, "py314_example.cpython-314.pyc")


def test_a_314_pyc_is_recognised():
    with open(PYC_314, "rb") as handle:
        magic = handle.read(4)
    if magic == importlib.util.MAGIC_NUMBER:
        with open(os.path.join(DATA, "py314_example.py")) as handle:
            assert depyf.decompile_pyc(PYC_314) == handle.read()
    else:
        with pytest.raises(UnsupportedPycError,
                           match=r"written by Python 3\.14; .* decompile it with Python 3\.14"):
            depyf.decompile_pyc(PYC_314)


@pytest.mark.parametrize("number,version", [(3413, "3.8"), (3495, "3.11"), (3571, "3.13"),
                                            (3627, "3.14"), (3662, "3.15"), (3700, "3.16")])
def test_magic_numbers_name_their_version(number, version):
    # ranges from CPython's pycore_magic_number.h: 3.14 is 3600-3649, 3.15 3650-3699
    from depyf.decompiler.modules import _version_of_magic
    assert _version_of_magic(number.to_bytes(2, "little") + b"\r\n") == version
