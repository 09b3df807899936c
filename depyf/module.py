"""Whole modules and ``.pyc`` files.

A module's code object is decompiled like a function body (imports, class and function
definitions, top-level statements), without the ``def`` around it. A ``.pyc`` is a
16-byte header followed by the marshalled module code; marshal's format and the
bytecode are specific to one Python version, so a file from another version is refused
with the version it needs.
"""
import ast
import importlib.util
import marshal
import sys
import types

from .decompiler.api import _Nested, annotated_assignments, public_error
from .decompiler.mismatch import Mismatch
from .decompiler.output.printer import unparse
from .errors import DecompilationError, UnsupportedPycError

# First magic number of each version's range (Lib/importlib/_bootstrap_external.py).
_MAGIC_RANGES = [
    (3400, "3.8"), (3420, "3.9"), (3430, "3.10"), (3450, "3.11"), (3500, "3.12"),
    (3550, "3.13"), (3600, "3.14"), (3700, "3.15"),
]


def _version_of_magic(magic):
    number = int.from_bytes(magic[:2], "little")
    found = None
    for start, version in _MAGIC_RANGES:
        if number >= start:
            found = version
    return found


def decompile_module(code, indentation=4):
    """Decompile a module-level code object into the source of the whole module."""
    if not isinstance(code, types.CodeType):
        raise TypeError("decompile_module expects a code object, got %s" % type(code).__name__)
    nested = _Nested({}, "__temp_")
    try:
        body = nested.body_of(code, kind="module")
    except Mismatch as err:
        raise public_error(err, "<module>") from None
    if body and isinstance(body[-1], ast.Return) and (
            body[-1].value is None or isinstance(body[-1].value, ast.Constant) and body[-1].value.value is None):
        body = body[:-1]
    if body and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 and \
            isinstance(body[0].targets[0], ast.Name) and body[0].targets[0].id == "__doc__" and \
            isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body[0] = ast.Expr(value=body[0].value)
    body = [s for s in annotated_assignments(body)
            if not type(s).__name__ == "_SetupAnnotations"]
    tree = ast.Module(body=body or [ast.Pass()], type_ignores=[])
    return unparse(tree, indentation)


def decompile_pyc(path, indentation=4):
    """Decompile a ``.pyc`` written by the running interpreter back to module source."""
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 16:
        raise UnsupportedPycError("%s is too short to be a .pyc file (%d bytes)" % (path, len(data)))
    magic = data[:4]
    running = "%d.%d" % sys.version_info[:2]
    if magic != importlib.util.MAGIC_NUMBER:
        if magic[2:4] != b"\r\n":
            raise UnsupportedPycError("%s is not a .pyc file (bad magic number %r)" % (path, magic))
        version = _version_of_magic(magic)
        raise UnsupportedPycError(
            "%s was written by Python %s; bytecode is version-specific, so decompile it with "
            "Python %s (this is Python %s)" % (path, version or "(unknown version)",
                                                version or "of that version", running))
    try:
        code = marshal.loads(data[16:])
    except (ValueError, EOFError, TypeError) as exc:
        raise UnsupportedPycError("%s: corrupt .pyc (%s)" % (path, exc)) from None
    if not isinstance(code, types.CodeType):
        raise UnsupportedPycError("%s does not contain a code object" % path)
    try:
        return decompile_module(code, indentation)
    except DecompilationError:
        raise
