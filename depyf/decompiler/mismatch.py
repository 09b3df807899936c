"""The decompiler's internal signal: this reading of the bytecode does not fit.

Structuring tries readings (a value branch, then a statement branch; one order of copied
tails, then the other; temporaries) and backs off when one does not fit. ``Mismatch`` is
that signal. It never leaves the package: at the public entry points
(``api.public_errors``) one that no reading got past becomes a ``DecompilationError``
subclass that says what to do (``UnsupportedInstruction``, ``UnsupportedShape``), and
anything else that escapes a stage is a bug in depyf (``InternalError``).
"""


class Mismatch(Exception):
    """``reason`` why the reading does not fit, and where (function, opname, offset).

    ``unsupported``: the instruction itself has no reading in depyf (no handler)."""

    def __init__(self, reason, *, function=None, opname=None, offset=None, unsupported=False):
        super().__init__(reason)
        self.reason = reason
        self.function = function
        self.opname = opname
        self.offset = offset
        self.unsupported = unsupported
