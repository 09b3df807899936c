"""What a ``.pyc`` file is, read from its name and its first 16 bytes: which Python
wrote it, and which source file it stands for.

A ``.pyc`` starts with its Python version's magic number (the table is in
``depyf.decompiler.modules``). ``pkg/__pycache__/mod.cpython-311.pyc`` (and its
``.opt-1``/``.opt-2`` variants, written with ``-O``/``-OO``) stands for
``pkg/mod.py``, as does a ``pkg/mod.pyc`` beside it (the layout of
``compileall -b`` and of sourceless distributions).
"""
import importlib.util
import os
import re

from ..decompiler.modules import SUPPORTED_VERSIONS, pyc_version
from ..errors import PY_VERSION

RUNNING, OTHER, UNSUPPORTED, BAD = "running", "other", "unsupported", "bad"
_TAGGED = re.compile(r"^(?P<name>[^.]+)\.(?P<tag>[A-Za-z]+-?\d+)(?:\.opt-(?P<opt>\d+))?\.pyc$")


class Header:
    """``kind``: RUNNING (this Python's), OTHER (another version depyf reads:
    ``version``), UNSUPPORTED (a version depyf does not read) or BAD (no .pyc, or not
    readable); ``problem``: for the last two, a sentence naming the file."""

    def __init__(self, kind, version=None, problem=None):
        self.kind, self.version, self.problem = kind, version, problem


def header(path):
    """The ``Header`` of the file at ``path``."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(16)
    except OSError as exc:
        return Header(BAD, problem="cannot read %s: %s" % (path, exc.strerror or exc))
    if len(data) < 16:
        return Header(BAD, problem="%s is too short to be a .pyc file (%d bytes)"
                      % (path, len(data)))
    if data[:4] == importlib.util.MAGIC_NUMBER:
        return Header(RUNNING, PY_VERSION)
    version = pyc_version(data[:4])
    if version is None:
        return Header(BAD, problem="%s is not a .pyc file (bad magic number %r)" % (path, data[:4]))
    if version not in SUPPORTED_VERSIONS:
        newer = " (a newer depyf may)" if version.startswith("newer") or \
            _key(version) > _key(SUPPORTED_VERSIONS[-1]) else ""
        return Header(UNSUPPORTED, version, "%s was written by Python %s, whose bytecode depyf "
                      "does not read%s: it reads Python %s to %s" % (
                          path, version, newer, SUPPORTED_VERSIONS[0], SUPPORTED_VERSIONS[-1]))
    if version == PY_VERSION:
        number = int.from_bytes(data[:2], "little")
        mine = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "little")
        return Header(UNSUPPORTED, version, "%s was written by a pre-release of Python %s (magic "
                      "number %d; this Python's is %d): depyf reads released versions only"
                      % (path, version, number, mine))
    return Header(OTHER, version)


def _key(version):
    """``"3.10"`` -> ``(3, 10)``; other words sort first."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return (0,)


def newest_first(versions):
    """``versions`` ("3.8", "3.11") sorted newest first."""
    return sorted(versions, key=_key, reverse=True)


def source_path(relative):
    """``(source path, optimization level)`` that the .pyc at ``relative`` (a path
    inside the folder being rebuilt) stands for: ``pkg/__pycache__/mod.cpython-311.pyc``
    and ``pkg/mod.pyc`` -> ``pkg/mod.py``."""
    folder, name = os.path.split(relative)
    match = _TAGGED.match(name)
    if match:
        module, level = match.group("name"), int(match.group("opt") or 0)
    else:
        module, level = name[:-len(".pyc")], 0
    if os.path.basename(folder) == "__pycache__":
        folder = os.path.dirname(folder)
    return os.path.join(folder, module + ".py"), level
