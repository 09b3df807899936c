"""Symbolic execution of one side up to its next *event*.

An event is anything user code could observe or take part in: a call, an attribute or
global access, an operator, a truth test, an iteration step, a raise, a yield, an
import... Everything else (moving values between the stack and local variables, building
tuples, jumps, exception-table bookkeeping, list appends on lists the code made itself)
is run here without stopping. Opcode semantics live in the ``ops_*`` modules; this module
is the loop around them, the forks on undecided booleans, and exception unwinding.

A handler is ``handler(machine, frame, ins, i)``. It either changes the frame and returns
None (``frame.pc`` was already set to ``i + 1``; jumps overwrite it), or returns an
``Event`` *without having changed the frame*, or a ``Fork`` on a boolean it cannot
decide. ``Event.apply(frame, label, results)`` later performs the instruction for one
outcome of the event.
"""
from .terms import FALSE, NONE, TRUE, bool_atom, code_of, const, identity_test

OK = (("ok", "s"), ("raise", ""))  # an operation with one result that may raise
OK0 = (("ok", ""), ("raise", ""))  # ... with no result
OKB = (("ok", "b"), ("raise", ""))  # ... whose result is a bool
RAISES = (("raise", ""),)

_STEP_LIMIT = 20000


def opcode_table():
    """``(TABLE, op)`` for one ``ops_*`` module: ``@op("NAME", ...)`` registers a handler
    ``(machine, frame, instruction, index) -> Event | None`` in ``TABLE`` under each name
    (the package merges the modules' tables into one)."""
    table = {}

    def op(*names):
        def register(fn):
            for name in names:
                table[name] = fn
            return fn
        return register
    return table, op


class ModelLimit(Exception):
    """The code does something the checker cannot reason about; nothing is proven."""


class Event:
    __slots__ = ("kind", "operands", "outcomes", "apply", "exc")

    def __init__(self, kind, operands, apply, outcomes=OK, exc=None):
        self.kind = kind  # a tuple of plain values: what is done
        self.operands = tuple(operands)  # terms: to what
        self.outcomes = outcomes  # ((label, result kinds), ...)
        self.apply = apply  # apply(frame, label, results) for non-raising outcomes
        self.exc = exc  # the exception of the "raise" outcome, if it is a known term


class Fork:
    """Execution depends on a boolean no decision covers yet: run both ways."""

    __slots__ = ("atom",)

    def __init__(self, atom):
        self.atom = atom


def pop_apply(n, push_results=True):
    """``apply`` for the common shape: pop ``n`` operands, push the results."""
    def apply(f, label, results):
        f.pop(n)
        if push_results:
            f.push(*results)
    return apply


class Machine:
    """Runs the frames of one side. ``facts``: the version facts (``versions``);
    ``registry``: objects behind constant terms; ``global_term(name)``: a pure term for a
    global name the caller bound (the candidate's ``__depyf_const_<n>``), else None;
    ``global_name(name)``: the name as compared (the original's renamed globals)."""

    def __init__(self, side, table, facts, registry, global_term, global_name):
        self.side = side
        self.table = table
        self.facts = facts
        self.registry = registry
        self.global_term = global_term
        self.global_name = global_name
        self.decisions = {}
        self.pairing = None  # the product state's, set while this side runs
        self.aliases = {}  # id(code object) -> the term of an equivalent one of the original

    def const(self, value):
        alias = self.aliases.get(id(value))
        return alias if alias is not None else const(value, self.registry)

    def code_of(self, term):
        return code_of(term, self.registry)

    def run(self, frame, decisions):
        """All the ways ``frame`` reaches its next event or its end:
        ``[(frame, decisions, event or None)]`` (None: ``frame.result`` is set)."""
        out = []
        work = [(frame, decisions)]
        while work:
            f, dec = work.pop()
            self.decisions = dec
            self._run_one(f, dec, out, work)
        return out

    def _run_one(self, f, dec, out, work):
        loops = set()
        for _ in range(_STEP_LIMIT):
            if f.result is not None:
                out.append((f, dec, None))
                return
            i = f.pc
            try:
                ins = f.info.instrs[i]
            except IndexError:
                raise ModelLimit("execution runs past the end of %s" % f.info.name) from None
            handler = self.table.get(ins.opname)
            if handler is None:
                raise ModelLimit("instruction %s is not modelled" % f.info.describe(i))
            f.pc = i + 1
            r = handler(self, f, ins, i)
            if r is None:
                if f.pc <= i and f.ready is None:  # a jump back: stop pure loops
                    snapshot = _snapshot(f, dec)
                    if snapshot in loops:
                        f.result = ("diverge",)
                    loops.add(snapshot)
                continue
            f.pc = i
            if isinstance(r, Fork):
                for value in (True, False):
                    g = f.copy() if value else f
                    d = dict(dec)
                    d[r.atom] = value
                    work.append((g, d))
                return
            out.append((f, dec, r))
            return
        raise ModelLimit("more than %d steps without an event in %s" % (_STEP_LIMIT, f.info.name))

    def event_at(self, f):
        """The event of the instruction ``f`` stands at (a stop found by ``run``)."""
        i = f.pc
        ins = f.info.instrs[i]
        probe = f.copy()
        probe.pc = i + 1
        r = self.table[ins.opname](self, probe, ins, i)
        if not isinstance(r, Event):
            raise ModelLimit("instruction %s is no longer an event after a merge"
                             % f.info.describe(i))
        return r

    def resume(self, f, event, label, results, exc):
        """``f`` after ``event`` ended with outcome ``label``."""
        i = f.pc
        if label == "raise":
            f.ready = None
            self.unwind(f, exc if event.exc is None else event.exc, i)
            return f
        f.pc = i + 1
        f.ready = None  # the handler read it when it made the event
        event.apply(f, label, results)
        return f

    def identity(self, f, a, b):
        """``a is b`` as a term, decided where the heap tells: the same object of the
        code's is itself; two of its objects are different; an object nobody outside
        has seen is no value from outside."""
        oa, ob = f.obj(a), f.obj(b)
        if oa is not None or ob is not None:
            if a == b:
                return TRUE
            if oa is not None and ob is not None:
                return FALSE
            obj, other = (oa, b) if oa is not None else (ob, a)
            if not obj.escaped or other[0] not in ("s", "b", "u"):
                return FALSE
        return identity_test(self.canonical(a), self.canonical(b))

    def canonical(self, term):
        """A term of this side as the original side names it (a candidate's object
        the outside world has seen is named after its partner)."""
        if self.side == "A" or self.pairing is None or term[0] != "ref":
            return term
        partner = self.pairing.b2a.get(term[2])
        return ("ref", "A", partner) if partner is not None else term

    def known_truth(self, f, term):
        """``term``'s truth as a bool term when no user code is needed to tell (see
        ``decide``), else None."""
        if bool_atom(term) is not None:
            return term
        known = literal_truth(f, term)
        if known is not None:
            return TRUE if known else FALSE
        if term[0] != "ref":
            return self.decisions.get(("truth of", term))
        return own_truth_atom(f, term)

    def decide(self, f, term, decisions):
        """True/False when ``term``'s truth is known without user code on this path,
        a ``Fork`` when it is a bool nobody decided yet, None when a truth test (an
        event) is needed first.

        Known without user code: bools, literal constants, tuples and the code's own
        containers with known items, and a value whose truth was already asked on this
        path (``__bool__``/``__len__`` are taken to answer the same each time and to do
        nothing else: the compiler itself tests a value once or twice depending on line
        numbers)."""
        found = bool_atom(term)
        if found is None:
            known = literal_truth(f, term)
            if known is not None:
                return known
            if term[0] == "ref":
                found = own_truth_atom(f, term)
            else:
                found = decisions.get(("truth of", term))
            if found is None:
                return None
            found = bool_atom(found)
        atom, polarity = found
        if atom[0] == "c":
            return bool(atom[2]) == polarity
        value = decisions.get(atom)
        if value is None:
            return Fork(atom)
        return value == polarity

    # -- exceptions ------------------------------------------------------------------
    def unwind(self, f, exc, i):
        """Raise ``exc`` at instruction ``i``: go to the handler, or end the frame."""
        if f.info.handlers is not None:
            self._unwind_table(f, exc, i)
        else:
            self._unwind_blocks(f, exc)

    def _unwind_table(self, f, exc, i):
        h = f.info.handlers[i]
        if h is None:
            f.result = ("raise", exc)
            return
        if h.depth > len(f.stack):
            raise ModelLimit("handler of %s expects a deeper stack" % f.info.describe(i))
        del f.stack[h.depth:]
        if h.lasti:
            f.push(("lasti",))
        f.push(exc)
        f.pc = h.target

    def _unwind_blocks(self, f, exc):
        from .frame import Block
        while f.blocks:
            b = f.blocks.pop()
            if b.kind == "except":
                unwind_except_handler(f, b)
                continue
            if b.level > len(f.stack):
                raise ModelLimit("block of %s expects a deeper stack" % f.info.name)
            del f.stack[b.level:]
            f.blocks.append(Block("except", -1, len(f.stack)))
            old = f.exc
            f.push(("op", "tb", old), old, ("op", "exctype", old))
            f.exc = exc
            f.push(("op", "tb", exc), exc, ("op", "exctype", exc))
            f.pc = b.handler
            return
        f.result = ("raise", exc)


_LITERAL_TRUTH = frozenset(["int", "str", "bytes", "float", "complex", "NoneType", "ellipsis"])


def literal_truth(f, term):
    """The truth of a value that needs no user code to tell: a literal constant, a
    tuple, or a list/dict/set of the code's with known items. None otherwise."""
    tag = term[0]
    if tag == "c" and term[1] in _LITERAL_TRUTH:
        value = term[2]
        return bool(float(value) if term[1] == "float" else complex(value) if term[1] == "complex" else value)
    if tag == "t":
        return bool(term[1])
    obj = f.obj(term)
    if obj is None:
        return None
    if obj.kind == "function":
        return True
    return _contents_truth(obj.contents)


def own_truth_atom(f, term):
    """The truth of a list, dict or set of the code's own whose contents are unknown, as
    a bool atom on its contents: telling it runs no user code, and it stays the same as
    long as the contents term does (an append or user code gives a new one)."""
    obj = f.obj(term)
    if obj is None or obj.kind == "function":
        return None
    return ("b", ("nonempty", obj.contents))


def _contents_truth(contents):
    """Whether a container with these contents is non-empty, when that is known (not
    after user code could have changed it: its contents are then an unknown)."""
    if contents[0] in ("t", "d"):
        return bool(contents[1])
    if contents[:2] == ("op", "set"):
        return bool(contents[2])
    if contents[:2] == ("op", "extend"):
        items = contents[3]
        if items[0] == "t" and items[1]:
            return True
        return True if _contents_truth(contents[2]) else None
    return None


def unwind_except_handler(f, block):
    """3.8-3.10: leave an exception handler block, restoring the exception that was
    being handled before it (three values saved on the stack)."""
    if len(f.stack) < block.level + 3:
        raise ModelLimit("except handler block of %s lost its saved exception" % f.info.name)
    del f.stack[block.level + 3:]
    _type, value, _tb = f.pop(), f.pop(), f.pop()
    f.exc = value


def _snapshot(f, dec):
    return (f.pc, tuple(f.stack), tuple(sorted(f.locals.items())),
            tuple(b.key() for b in f.blocks), f.exc, tuple(sorted(dec.items(), key=repr)))


def generator_start_stack(info, version_pushes_first_send):
    """The value stack a generator frame starts with (3.10 pushes the first ``send``'s
    None, which GEN_START pops)."""
    flags = info.code.co_flags
    if version_pushes_first_send and flags & (0x20 | 0x80 | 0x200):
        return [NONE]
    return []
