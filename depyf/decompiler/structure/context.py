"""Where a statement sequence is emitted (``Ctx``) and the loop around it (``Loop``)."""


class Ctx:
    """Where a statement sequence is being emitted: what ends it, what break/continue mean."""

    __slots__ = ("stop", "loop", "handler", "region", "region_exit", "escape", "clause_base")

    def __init__(self, stop=None, loop=None, handler=None, region=None, region_exit=None, escape=None,
                 clause_base=None):
        self.stop = stop
        self.loop = loop
        self.handler = handler
        self.region = region
        self.region_exit = region_exit
        self.escape = escape  # ctx to emit escaping paths (return/break through cleanup) in
        # in except clauses: the stack depth of the try statement (one value above it
        # where a clause ends is the value of a `return` in it, on its way out)
        self.clause_base = clause_base

    def but(self, **kw):
        c = Ctx(self.stop, self.loop, self.handler, self.region, self.region_exit, self.escape,
                self.clause_base)
        for k, v in kw.items():
            setattr(c, k, v)
        return c

    def sinks(self):
        s = set()
        if self.stop is not None:
            s.add(self.stop)
        if self.loop is not None:
            s.update(self.loop.continue_targets)
            if self.loop.retests:
                s.add(self.loop.body_start)
            if self.loop.follow is not None:
                s.add(self.loop.follow)
        if self.region_exit is not None:
            s.add(self.region_exit)
        return s


class Loop:
    __slots__ = ("header", "follow", "body", "continue_targets", "retests", "body_start")

    def __init__(self, header, follow, body, continue_targets, retests=(), body_start=None):
        self.header = header
        self.follow = follow
        self.body = body
        self.continue_targets = continue_targets
        # blocks that end the body by testing the loop's condition again (3.10+ `while`):
        # their statements, then `continue`; their jump back to ``body_start`` is one
        self.retests = frozenset(retests)
        self.body_start = body_start
