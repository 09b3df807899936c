"""Whole modules and ``.pyc`` files.

A module's code object is decompiled like a function body (imports, class and function
definitions, top-level statements), without the ``def`` around it. A ``.pyc`` is a
16-byte header followed by the marshalled module code; marshal's format and the
bytecode are specific to one Python version, so a file from another version is refused
with the version it needs.
"""
import importlib.util
import marshal
import sys
import types

from .api import public_errors
from .output.printer import unparse
from .session import DecompileSession
from ..errors import UnsupportedPycError

# First magic number of each version's range (Lib/importlib/_bootstrap_external.py).
_MAGIC_RANGES = [
    (3400, "3.8"), (3420, "3.9"), (3430, "3.10"), (3450, "3.11"), (3500, "3.12"),
    (3550, "3.13"), (3600, "3.14"), (3650, "3.15"), (3700, "3.16"),
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
    with public_errors("<module>"):
        return unparse(DecompileSession({}, "__temp_").make_module(code), indentation)


def decompile_pyc(path, indentation=4):
    """Decompile a ``.pyc`` written by the running interpreter back to module source."""
    return decompile_module(read_pyc(path), indentation)


def read_pyc(path):
    """The module code object of a ``.pyc`` written by the running interpreter
    (``UnsupportedPycError`` for another version's file, or no .pyc at all)."""
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
    return code
