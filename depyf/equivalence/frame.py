"""The machine state of one side (original "A" or candidate "B") during symbolic
execution: program counter, value stack, local variables, the 3.8-3.10 block stack,
the exception being handled (``sys.exc_info()``), and a heap of the lists, dicts, sets
and functions the code created itself (so aliasing and in-place changes are exact)."""
from .terms import UNBOUND

_new = object.__new__


class Obj:
    """A container or function created by the code. ``contents`` is a term: ``("t",
    items)`` for a list or set with known items, ``("d", pairs)`` for a dict with known
    keys, ``("fn", ...)`` for a function, or an unknown term once user code may have
    changed it. ``escaped``: user code may hold a reference to it."""

    __slots__ = ("kind", "contents", "escaped")

    def __init__(self, kind, contents, escaped=False):
        self.kind, self.contents, self.escaped = kind, contents, escaped

    def copy(self):
        return Obj(self.kind, self.contents, self.escaped)


class Block:
    """One entry of the 3.8-3.10 block stack: ``kind`` is "finally" (SETUP_FINALLY,
    SETUP_WITH, SETUP_ASYNC_WITH) or "except" (an exception being handled)."""

    __slots__ = ("kind", "handler", "level")

    def __init__(self, kind, handler, level):
        self.kind, self.handler, self.level = kind, handler, level

    def key(self):
        return (self.kind, self.handler, self.level)


class Frame:
    __slots__ = ("side", "info", "pc", "stack", "locals", "blocks", "exc", "heap",
                 "next_oid", "kwnames", "result", "ready", "shared")

    def __init__(self, side, info, locals_, exc):
        self.side = side
        self.info = info
        self.pc = 0
        self.stack = []
        self.locals = locals_  # written through ``set_local`` only
        self.shared = False  # ``locals`` may be another frame's too: copied before a write
        self.blocks = []
        self.exc = exc
        self.heap = {}
        self.next_oid = 0
        self.kwnames = None  # 3.11/3.12: names from KW_NAMES for the next CALL
        self.result = None  # ("return", v) / ("raise", e) / ("diverge",) once finished
        self.ready = None  # the instruction at pc was run up to its event: skip the pure part

    def copy(self, heap=True, slots=True):
        """An independent copy (``heap=False``: with an empty heap, for a join to fill;
        ``slots=False``: sharing the stack, which the join replaces). The local variables
        are shared until one of the two frames writes one (``set_local``): a deep
        model's code has hundreds, and most steps copy a frame a few times."""
        f = _new(Frame)
        f.side, f.info, f.pc = self.side, self.info, self.pc
        f.stack = self.stack[:] if slots else self.stack
        f.locals = self.locals
        f.shared = self.shared = True
        f.blocks = self.blocks[:]
        f.exc = self.exc
        f.heap = {k: o.copy() for k, o in self.heap.items()} if heap and self.heap else {}
        f.next_oid = self.next_oid
        f.kwnames = self.kwnames
        f.result = self.result
        f.ready = self.ready
        return f

    # -- stack ---------------------------------------------------------------------
    def push(self, *terms):
        self.stack.extend(terms)

    def pop(self, n=None):
        """Pop one term, or the top ``n`` as a list (deepest first)."""
        if n is None:
            if not self.stack:
                raise StackUnderflow(self)
            return self.stack.pop()
        if n == 0:
            return []
        if n > len(self.stack):
            raise StackUnderflow(self)
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def peek(self, depth=1):
        if depth > len(self.stack):
            raise StackUnderflow(self)
        return self.stack[-depth]

    # -- heap ----------------------------------------------------------------------
    def new(self, kind, contents):
        oid = self.next_oid
        self.next_oid += 1
        self.heap[oid] = Obj(kind, contents)
        return ("ref", self.side, oid)

    def obj(self, term):
        """The heap object ``term`` refers to, or None when it is no reference."""
        if term[0] == "ref" and term[1] == self.side:
            return self.heap.get(term[2])
        return None

    def local(self, name):
        return self.locals.get(name, UNBOUND)

    def set_local(self, name, value):
        if self.shared:
            self.locals = self.locals.copy()
            self.shared = False
        self.locals[name] = value


class StackUnderflow(Exception):
    def __init__(self, frame):
        super().__init__("stack underflow at instruction %s of %s"
                         % (frame.info.describe(frame.pc), frame.info.name))
