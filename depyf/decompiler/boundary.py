"""The public boundary of the decompiler: what leaves a public entry point.

Inside, the stages signal "this reading does not fit" with ``Mismatch`` and may fail in
other ways; every public entry (``api``, ``modules``) runs its work inside
``public_errors``, so that nothing but a ``DecompilationError`` (or a ``TypeError`` for
a wrong argument) leaves it.
"""
from ..errors import DecompilationError, InternalError, UnsupportedInstruction, UnsupportedShape
from .mismatch import Mismatch
from .session import READINGS_TRIED

TOO_DEEP = "nesting too deep to decompile"
# the first line of a text returned with ``allow_unproven`` (and of each unproven def
# in a module's text)
NOT_PROVEN = "# depyf: NOT PROVEN to do what the bytecode does: %s"


def public_error(err, function, readings=READINGS_TRIED):
    """The ``DecompilationError`` a user sees for an internal ``Mismatch``."""
    where = dict(function=err.function or function, opname=err.opname, offset=err.offset)
    if err.unsupported:
        return UnsupportedInstruction(err.reason, **where)
    return UnsupportedShape(err.reason, readings=readings, **where)


class public_errors:
    """The public boundary around the stages' work on ``function`` (a context manager):
    a ``Mismatch`` no reading got past becomes its ``public_error``, a ``RecursionError``
    (code nested deeper than the stages recurse) an ``UnsupportedShape``, and any other
    exception a stage lets out an ``InternalError`` whose ``cause`` is that exception.
    A plain class, not a generator: it is entered once per decompiled function."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or issubclass(kind, DecompilationError) or not issubclass(kind, Exception):
            return False
        if issubclass(kind, Mismatch):
            raise public_error(exc, self.function) from None
        if issubclass(kind, RecursionError):
            raise public_error(Mismatch(TOO_DEEP), self.function) from None
        raise InternalError("unexpected %s: %s" % (kind.__name__, exc), cause=exc,
                            function=self.function) from exc
