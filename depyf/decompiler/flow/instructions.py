"""Stage 1: bytecode -> one normalized instruction stream.

``normalize(code)`` hides the encoding differences between Python versions (see
``versions``): jump opcodes are unified, caches and bookkeeping dropped, super-instructions
split, calls carry their keyword names, and exception handling is expressed as one
exception table for every version (derived from the SETUP_* block stack up to 3.10).
Jump targets are instruction *indexes* into the normalized list.
"""
import dis
from collections import namedtuple

from ...bytecode import exctable
from ...bytecode import versions as V

ExcEntry = namedtuple("ExcEntry", "start end target depth lasti")  # indexes, end exclusive


class Instr:
    """One normalized instruction. ``target`` is an index for jumps, else None."""

    __slots__ = ("index", "offset", "opname", "arg", "argval", "line", "target", "extra")

    def __init__(self, opname, arg=None, argval=None, offset=-1, line=None, target=None, extra=None):
        self.index = -1
        self.offset = offset
        self.opname = opname
        self.arg = arg
        self.argval = argval
        self.line = line
        self.target = target  # raw offset until resolved, then an index
        self.extra = extra

    def __repr__(self):
        t = " ->%s" % self.target if self.target is not None else ""
        return "<%d %s %r%s>" % (self.index, self.opname, self.argval, t)


JUMPS = {"JUMP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
         "POP_JUMP_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
         "FOR_ITER", "SEND", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH",
         "CALL_FINALLY", "SETUP_CLEANUP", "JUMP_IF_NOT_EXC_MATCH", "END_ASYNC_FOR_TARGET"}
COND_JUMPS = {"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
              "POP_JUMP_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"}
# instructions after which control never falls through to the next one
TERMINATORS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"}
# ``extra`` of a conditional jump back to a loop head that stands for falling off the end
# of the loop body (see ``_fold_backward_cond_jumps``)
IMPLICIT_BACK = "implicit-back"
# ... and of one that stands for a `continue` statement of its own after the test
EXPLICIT_BACK = "explicit-back"


def _line_of(raw, last):
    line = getattr(raw, "line_number", None)
    if line is None and not isinstance(raw.starts_line, bool):
        line = raw.starts_line
    return line if line is not None else last


def _expand(raw, code, pending_kwnames):
    """Yield normalized Instr for one dis.Instruction (may be zero, one or several)."""
    op, arg, argval = raw.opname, raw.arg, raw.argval
    if op in V.DROPPED:
        return
    if op in V.JUMP_ALIASES:
        yield Instr("JUMP", arg, argval, target=argval)
        return
    if op in V.COND_JUMP_ALIASES or op in V.JUMP_OR_POP or op in ("POP_JUMP_IF_FALSE",
                                                              "POP_JUMP_IF_TRUE",
                                                              "POP_JUMP_IF_NONE",
                                                              "POP_JUMP_IF_NOT_NONE"):
        yield Instr(V.COND_JUMP_ALIASES.get(op, op), arg, argval, target=argval)
        return
    if op == "JUMP_IF_NOT_EXC_MATCH":  # 3.9/3.10: pops exc and type, jumps if no match
        yield Instr("EXC_MATCH_POP2")
        yield Instr("POP_JUMP_IF_FALSE", target=argval)
        return
    if op in ("FOR_ITER", "SEND", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH",
              "CALL_FINALLY"):
        yield Instr(op, arg, argval, target=argval)
        return
    if op.startswith(("BINARY_", "INPLACE_")) and op.split("_", 1)[1] in V.OLD_BINARY_OPS:
        sym = V.OLD_BINARY_OPS[op.split("_", 1)[1]]
        yield Instr("BINARY_OP", arg, sym + "=" if op.startswith("INPLACE_") else sym)
        return
    if op == "BINARY_OP":
        yield Instr("BINARY_OP", arg, raw.argrepr)
        return
    if op == "COMPARE_OP":
        name = V.compare_op_name(argval, raw.argrepr)
        if name == "exception match":  # 3.8: DUP_TOP; LOAD E; COMPARE_OP 10
            yield Instr("EXC_MATCH_POP2")
        else:
            yield Instr("COMPARE_OP", arg, name)
        return
    if op == "RETURN_CONST":
        yield Instr("LOAD_CONST", arg, argval)
        yield Instr("RETURN_VALUE", extra="const")  # a `return <constant>` statement
        return
    if op == "LOAD_GLOBAL" and V.LOAD_GLOBAL_NULL_BIT:
        load = Instr("LOAD_GLOBAL", arg, argval)
        if arg & 1:
            if V.NULL_AFTER_CALLABLE:
                yield load
                yield Instr("PUSH_NULL")
            else:
                yield Instr("PUSH_NULL")
                yield load
        else:
            yield load
        return
    if op == "LOAD_ATTR" and V.LOAD_ATTR_METHOD_BIT and arg & 1:
        yield Instr("LOAD_METHOD", arg, argval)
        return
    if op in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "STORE_FAST_LOAD_FAST"):
        first, second = argval
        a, b = op.split("_FAST_")[0], op.split("_FAST_")[1].replace("_FAST", "")
        yield Instr(a + "_FAST", arg, first)
        yield Instr(b + "_FAST", arg, second)
        return
    if op in ("LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR"):
        yield Instr("LOAD_FAST_AND_CLEAR" if op == "LOAD_FAST_AND_CLEAR" else "LOAD_FAST", arg, argval)
        return
    if op == "KW_NAMES":  # 3.11/3.12: names attach to the following CALL
        pending_kwnames.append(code.co_consts[arg])
        return
    if op in ("CALL", "CALL_METHOD", "CALL_FUNCTION"):
        kw = pending_kwnames.pop() if pending_kwnames else ()
        null = op != "CALL_FUNCTION"
        yield Instr("CALL", arg, argval, extra=(null, tuple(kw)))
        return
    if op == "CALL_FUNCTION_KW":
        yield Instr("CALL_KW", arg, argval, extra=(False, None))
        return
    if op == "CALL_KW":
        yield Instr("CALL_KW", arg, argval, extra=(True, None))
        return
    if op == "CALL_FUNCTION_EX":
        yield Instr("CALL_FUNCTION_EX", arg, argval, extra=(V.PY >= (3, 11),))
        return
    if op in ("DUP_TOP",):
        yield Instr("COPY", 1, 1)
        return
    if op == "ROT_TWO":
        yield Instr("SWAP", 2, 2)
        return
    if op == "CALL_INTRINSIC_1":
        yield Instr("CALL_INTRINSIC_1", arg, raw.argrepr)
        return
    if op == "CALL_INTRINSIC_2" and raw.argrepr == "INTRINSIC_PREP_RERAISE_STAR":
        yield Instr("PREP_RERAISE_STAR")  # 3.12+ spelling of 3.11's opcode (end of except*)
        return
    if op == "CALL_INTRINSIC_2":
        yield Instr("CALL_INTRINSIC_2", arg, raw.argrepr)
        return
    if op == "FORMAT_VALUE":  # up to 3.12: flags carry conversion and spec presence
        conv = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[arg & 3]
        yield Instr("FORMAT_VALUE", arg, (conv, bool(arg & 4)))
        return
    yield Instr(op, arg, argval)


def _exception_table_311(code, offset_to_index):
    """co_exceptiontable (3.11+) as ExcEntry with instruction indexes."""
    return [ExcEntry(offset_to_index(e.start), offset_to_index(e.end), offset_to_index(e.target),
                     e.depth, e.lasti) for e in exctable.parse(code)]


def _cover_cond_jumps(instrs, entries):
    """Join two ranges of one handler that only a conditional jump separates.

    A conditional jump raises nothing, so whether the table covers it is the compiler's
    choice: 3.13 leaves some out (after the dropped TO_BOOL), which would cut a try body
    (or an inlined comprehension) in two at every test."""
    entries = sorted(entries, key=lambda e: e.start)
    out = []
    for e in entries:
        prev = out[-1] if out else None
        if (prev is not None and (prev.target, prev.depth, prev.lasti) == (e.target, e.depth, e.lasti)
                and prev.end < e.start
                and all(ins.opname in COND_JUMPS for ins in instrs[prev.end:e.start])):
            out[-1] = prev._replace(end=e.end)
            continue
        out.append(e)
    return out


def _exception_table_blockstack(instrs):
    """Up to 3.10: derive handler ranges by simulating the SETUP_*/POP_BLOCK block stack."""
    n = len(instrs)
    state = [None] * n  # tuple of handler indexes (innermost last) at each instruction
    work = [(0, ())]
    while work:
        i, stack = work.pop()
        while i < n:
            if state[i] is not None:
                break
            state[i] = stack
            ins = instrs[i]
            op = ins.opname
            if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
                work.append((ins.target, stack))
                stack = stack + (ins.target,)
            elif op == "POP_BLOCK":
                stack = stack[:-1]
            elif op == "CALL_FINALLY":  # 3.8: runs the finally body as a subroutine
                work.append((ins.target, stack))
            if ins.target is not None and op in JUMPS and op not in (
                    "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "CALL_FINALLY"):
                work.append((ins.target, stack))
            if op in TERMINATORS:
                break
            i += 1
    for i in range(1, n):
        # `return x` inside try: POP_BLOCK comes before RETURN_VALUE, yet the return
        # belongs to the try body (3.11+ covers it with the handler too)
        if instrs[i].opname == "RETURN_VALUE" and instrs[i - 1].opname == "POP_BLOCK" and \
                state[i - 1] is not None:
            state[i] = state[i - 1]
    entries = []
    cur, start = None, 0
    for i in range(n + 1):
        h = state[i][-1] if i < n and state[i] else None
        if h != cur:
            if cur is not None:
                entries.append(ExcEntry(start, i, cur, 0, False))
            cur, start = h, i
    return entries


def _fold_backward_cond_jumps(out):
    """POP_JUMP_IF_X L; JUMP_BACKWARD H; L:  ->  POP_JUMP_IF_NOT_X H (targets are offsets).

    The pair comes from a conditional jump the compiler threaded to the loop head (a jump
    to the end of the loop body, whose jump back has no line) and then split because
    3.12+ has no backward conditional jumps: the jump back takes the test's line. An
    explicit `continue` after the test keeps its own line. The folded jump's ``extra``
    says which (IMPLICIT_BACK: the end of the body, no statement of its own;
    EXPLICIT_BACK: a `continue` only this test leads to)."""
    targeted = {ins.target for ins in out if ins.target is not None}
    keep = []
    i = 0
    while i < len(out):
        ins = out[i]
        if (ins.opname in V.INVERSE_COND and i + 2 < len(out) and out[i + 1].opname == "JUMP"
                and out[i + 1].target is not None and out[i + 1].target < out[i + 1].offset
                and out[i + 1].offset < ins.target <= out[i + 2].offset  # (past dropped NOPs)
                and out[i + 1].offset not in targeted
                and out[i + 1].offset != out[i + 2].offset):
            implicit = IMPLICIT_BACK if out[i + 1].line == ins.line else EXPLICIT_BACK
            keep.append(Instr(V.INVERSE_COND[ins.opname], ins.arg, ins.argval, ins.offset,
                              ins.line, out[i + 1].target, implicit))
            i += 2
            continue
        keep.append(ins)
        i += 1
    return keep


def _mark_finally_placeholders(out):
    """3.8: the None pushed right before SETUP_FINALLY is the finally body's placeholder
    (only a value of a statement in progress could sit there, and none is a bare None)."""
    for ins, nxt in zip(out, out[1:]):
        if ins.opname == "LOAD_CONST" and ins.argval is None and nxt.opname == "SETUP_FINALLY":
            ins.opname = "PUSH_FINALLY_PLACEHOLDER"


def normalize(code):
    """Return (instrs, exception_entries) for ``code``; jump targets are indexes."""
    out = []
    offset_first = {}  # raw offset -> index of first normalized instr at or after it
    pending_kwnames = []
    line = code.co_firstlineno
    raw_list = list(dis.get_instructions(code))
    skip = set()
    if V.END_FOR_THEN_POP_TOP:
        for a, b in zip(raw_list, raw_list[1:]):
            if a.opname == "END_FOR" and b.opname == "POP_TOP":
                skip.add(b.offset)
    # 3.13: TO_BOOL only matters as a value (`not not x` compiles to it); before a test
    # or a `not` it is bookkeeping and dropped
    value_to_bool = {a.offset for a, b in zip(raw_list, raw_list[1:])
                     if a.opname == "TO_BOOL" and b.opname != "UNARY_NOT"
                     and not b.opname.startswith("POP_JUMP_")}
    for raw in raw_list:
        if raw.offset in skip:
            offset_first[raw.offset] = len(out)
            continue
        offset_first[raw.offset] = len(out)
        line = _line_of(raw, line)
        expanded = [Instr("TO_BOOL")] if raw.offset in value_to_bool else \
            _expand(raw, code, pending_kwnames)
        for ins in expanded:
            ins.offset = raw.offset
            ins.line = line
            ins.index = len(out)
            out.append(ins)
    if V.FOLD_BACKWARD_COND_JUMPS:
        out = _fold_backward_cond_jumps(out)
    if V.FINALLY_PLACEHOLDER:
        _mark_finally_placeholders(out)
    offset_first = {}
    for idx, ins in enumerate(out):
        ins.index = idx
        offset_first.setdefault(ins.offset, idx)
    end = len(out)

    def offset_to_index(off):
        if off in offset_first:
            return offset_first[off]
        # offsets inside a dropped/cache region: next known offset
        later = [o for o in offset_first if o > off]
        return offset_first[min(later)] if later else end

    for ins in out:
        if ins.target is not None and ins.opname in JUMPS:
            ins.target = offset_to_index(ins.target)
        else:
            ins.target = None
    if V.HAS_EXCEPTION_TABLE:
        entries = _cover_cond_jumps(out, _exception_table_311(code, offset_to_index))
    else:
        entries = _exception_table_blockstack(out)
    return out, entries
