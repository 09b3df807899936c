"""Error types a user can act on: each says what failed, where, and on which Python."""
import sys

PY_VERSION = "%d.%d" % sys.version_info[:2]


class DecompilationError(Exception):
    """Raised when a code object cannot be turned back into equivalent source.

    Carries the function name, the offending instruction (opname and offset) and the
    running Python version, so a bug report holds everything needed to reproduce it.
    """

    def __init__(self, reason, *, function=None, opname=None, offset=None):
        self.reason = reason
        self.function = function
        self.opname = opname
        self.offset = offset
        self.python_version = PY_VERSION
        where = []
        if function:
            where.append("function %r" % function)
        if opname is not None:
            where.append("instruction %s at offset %s" % (opname, offset))
        where.append("Python %s" % PY_VERSION)
        super().__init__("cannot decompile %s: %s" % (", ".join(where), reason))


class UnprovenError(DecompilationError):
    """The decompiled source could not be proven to do what the bytecode does.

    ``verdict`` is the equivalence checker's answer (``verdict.different``: a path on
    which the two behave differently was found; otherwise the check could not decide),
    ``source`` the text that was refused. ``decompile(..., allow_unproven=True)``
    returns that text instead, with a first-line comment saying it is unproven."""

    def __init__(self, reason, *, source=None, verdict=None, **where):
        super().__init__(reason, **where)
        self.source = source
        self.verdict = verdict


class UnsupportedPycError(DecompilationError):
    """A .pyc file written by another Python version, or not a .pyc at all."""


class TorchNotAvailableError(ImportError):
    """The torch integration was used but torch cannot be imported."""

    def __init__(self, feature, cause=None):
        msg = (
            "depyf.%s needs PyTorch, which could not be imported%s. "
            "Install it with `pip install depyf[torch]` (or `pip install torch`)."
            % (feature, " (%s)" % cause if cause else "")
        )
        super().__init__(msg)
