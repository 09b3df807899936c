"""One code object, prepared once for symbolic execution: its instructions as ``dis``
gives them (every version's own opnames; nothing rewritten), jump targets and exception
handlers as instruction indexes, and the source line of each instruction for reports."""
import bisect

from ..bytecode import exctable
from ..bytecode import raw as raw_reader
from ..bytecode import versions as V

class Handler:
    """Where an exception raised at an instruction goes (3.11+ exception table)."""

    __slots__ = ("target", "depth", "lasti")

    def __init__(self, target, depth, lasti):
        self.target, self.depth, self.lasti = target, depth, lasti


class CodeInfo:
    __slots__ = ("code", "instrs", "index", "handlers", "lines", "nargs", "params",
                 "cells", "name")

    def __init__(self, code):
        self.code = code
        self.name = code.co_name
        self.instrs = list(raw_reader.instructions(code))
        self.index = {ins.offset: i for i, ins in enumerate(self.instrs)}
        self.lines = _lines(self.instrs, code.co_firstlineno)
        self.handlers = self._handlers() if V.HAS_EXCEPTION_TABLE else None
        self.nargs = self.count_params(code)
        self.params = code.co_varnames[:self.nargs]
        self.cells = frozenset(code.co_cellvars) | frozenset(code.co_freevars)

    @staticmethod
    def count_params(code):
        """Parameters, ``*args`` and ``**kwargs`` included."""
        return (code.co_argcount + code.co_kwonlyargcount
                + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08))

    def target(self, offset):
        """The instruction index of a jump target (given as a byte offset)."""
        try:
            return self.index[offset]
        except KeyError:
            later = [o for o in self.index if o > offset]
            if not later:
                raise ValueError("jump to offset %d past the end of %s" % (offset, self.name))
            return self.index[min(later)]

    def _handlers(self):
        """The handler of each instruction (entries of a 3.11+ table do not overlap)."""
        found = [None] * len(self.instrs)
        offsets = [ins.offset for ins in self.instrs]
        for e in exctable.parse(self.code):
            handler = Handler(self.target(e.target), e.depth, e.lasti)
            i = bisect.bisect_left(offsets, e.start)
            while i < len(offsets) and offsets[i] < e.end:
                found[i] = handler
                i += 1
        return found

    def line(self, i):
        return self.lines[i] if 0 <= i < len(self.lines) else None

    def describe(self, i):
        """``OPNAME argrepr (line N)`` for reports."""
        if i is None or not 0 <= i < len(self.instrs):
            return "<end of %s>" % self.name
        ins = self.instrs[i]
        text = ins.opname + (" " + ins.argrepr if ins.argrepr else "")
        line = self.line(i)
        return "%s at offset %d%s" % (text, ins.offset, " (line %d)" % line if line else "")


def _lines(instrs, first):
    lines, line = [], first
    for ins in instrs:
        start = getattr(ins, "line_number", None)
        if start is None:
            start = ins.starts_line
            if isinstance(start, bool):  # 3.13: a flag; line_number holds the number
                start = None
        if start is not None:
            line = start
        lines.append(line)
    return lines
