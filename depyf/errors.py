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
        super().__init__("cannot decompile %s: %s%s" % (", ".join(where), reason, self._advice()))

    def _advice(self):
        """What to do next, appended to the message (empty: the reason says it all)."""
        return ""


class UnsupportedInstruction(DecompilationError):
    """An instruction depyf has no reading for (``opname``, ``offset``): a bytecode feature
    this version of depyf does not handle. Please report it with the code object."""

    def _advice(self):
        return " (depyf does not handle this instruction yet: please report it with this " \
            "code object)"


class UnsupportedShape(DecompilationError):
    """Every instruction is known, but no way of reading the code as statements fits
    (``readings``: those tried; ``reason``: why the first one did not fit). Code no
    compiler writes (hand-made or heavily transformed bytecode) ends here; please report
    it if the code came from Python source."""

    def __init__(self, reason, *, readings=(), **where):
        self.readings = tuple(readings)
        super().__init__(reason, **where)

    def _advice(self):
        tried = "; readings tried: %s" % ", ".join(self.readings) if self.readings else ""
        return " (no reading of the bytecode as statements fits%s; please report it if " \
            "the code came from Python source)" % tried


class InternalError(DecompilationError):
    """A bug in depyf itself (an unexpected exception inside a stage, named in ``cause``).
    Please report it with the function or code object that triggered it."""

    def __init__(self, reason, *, cause=None, **where):
        self.cause = cause
        super().__init__(reason, **where)

    def _advice(self):
        return " (a bug in depyf: please report it with this code object)"


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
