"""Stage 1: bytecode -> one normalized instruction stream.

``normalize(code)`` hides the encoding differences between Python versions (see
``versions``): jump opcodes are unified, caches and bookkeeping dropped, super-instructions
split, calls carry their keyword names, and exception handling is expressed as one
exception table for every version (derived from the SETUP_* block stack up to 3.10).
Jump targets are instruction *indexes* into the normalized list.
"""
import bisect

from ...bytecode import raw as raw_reader
from ...bytecode import versions as V
from . import ranges, spelled
# the vocabulary of normalized instructions: the later stages import it from here
from .opsets import COND_JUMPS, EXPLICIT_BACK, IMPLICIT_BACK, JUMPS, TERMINATORS  # noqa: F401
from .ranges import ExcEntry  # noqa: F401


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




# -- one dis.Instruction -> normalized Instrs: one small function per family -------------
# Each takes (raw dis.Instruction, code, pending keyword names) and returns the Instrs.

def _dropped(raw, code, kw):
    return ()


def _jump(raw, code, kw):
    return (Instr("JUMP", raw.arg, raw.argval, target=raw.argval),)


def _cond_jump(raw, code, kw):
    op = V.COND_JUMP_ALIASES.get(raw.opname, raw.opname)
    return (Instr(op, raw.arg, raw.argval, target=raw.argval),)


def _exc_match_jump(raw, code, kw):
    # 3.9/3.10 JUMP_IF_NOT_EXC_MATCH: pops exc and type, jumps if no match
    return (Instr("EXC_MATCH_POP2"), Instr("POP_JUMP_IF_FALSE", target=raw.argval))


def _with_target(raw, code, kw):
    return (Instr(raw.opname, raw.arg, raw.argval, target=raw.argval),)


def _old_binary(raw, code, kw):
    kind, sym = raw.opname.split("_", 1)
    sym = V.OLD_BINARY_OPS[sym] + ("=" if kind == "INPLACE" else "")
    # (the argument too, as on 3.11+: copies of code compare by it, `a / b` vs `a // b`)
    return (Instr("BINARY_OP", sym, sym),)


def _binary_op(raw, code, kw):
    if raw.arg == V.NB_SUBSCR:  # 3.14: `a[b]`
        return (Instr("BINARY_SUBSCR"),)
    return (Instr("BINARY_OP", raw.arg, raw.argrepr),)


def _compare_op(raw, code, kw):
    name = V.compare_op_name(raw.argval, raw.argrepr)
    if name == "exception match":  # 3.8: DUP_TOP; LOAD E; COMPARE_OP 10
        return (Instr("EXC_MATCH_POP2"),)
    return (Instr("COMPARE_OP", raw.arg, name),)


def _return_const(raw, code, kw):
    # a `return <constant>` statement
    return (Instr("LOAD_CONST", raw.arg, raw.argval), Instr("RETURN_VALUE", extra="const"))


def _load_global(raw, code, kw):
    load = Instr("LOAD_GLOBAL", raw.arg, raw.argval)
    if not (V.LOAD_GLOBAL_NULL_BIT and raw.arg & 1):
        return (load,)
    return (load, Instr("PUSH_NULL")) if V.NULL_AFTER_CALLABLE else (Instr("PUSH_NULL"), load)


def _load_attr(raw, code, kw):
    if V.LOAD_ATTR_METHOD_BIT and raw.arg & 1:
        return (Instr("LOAD_METHOD", raw.arg, raw.argval),)
    return _as_is(raw, code, kw)


def _fast_pair(raw, code, kw):
    ops = [V.BORROWED_LOADS.get(op, op) for op in V.SUPER_INSTRUCTIONS[raw.opname]]
    return tuple(Instr(op, raw.arg, value) for op, value in zip(ops, raw.argval))


def _load_fast_variant(raw, code, kw):
    op = "LOAD_FAST_AND_CLEAR" if raw.opname == "LOAD_FAST_AND_CLEAR" else "LOAD_FAST"
    return (Instr(op, raw.arg, raw.argval),)


def _renamed(raw, code, kw):
    # 3.14: LOAD_SMALL_INT (its argument is the value), POP_ITER, LOAD_SPECIAL (by name)
    op = {"LOAD_SMALL_INT": "LOAD_CONST", "POP_ITER": "POP_TOP"}.get(raw.opname, raw.opname)
    return (Instr(op, raw.arg, raw.argrepr if op == "LOAD_SPECIAL" else raw.argval),)


def _common_constant(raw, code, kw):
    op = V.COMMON_CONSTANT_OPS.get(raw.argrepr, "LOAD_COMMON_CONSTANT")
    return (Instr(op, raw.arg, raw.argrepr),)


def _kw_names(raw, code, kw):
    kw.append(code.co_consts[raw.arg])  # 3.11/3.12: names attach to the following CALL
    return ()


def _call(raw, code, kw):
    names = kw.pop() if kw else ()
    null = raw.opname != "CALL_FUNCTION"
    return (Instr("CALL", raw.arg, raw.argval, extra=(null, tuple(names))),)


def _call_kw(raw, code, kw):
    null = raw.opname == "CALL_KW"  # 3.13's CALL_KW has a NULL slot; CALL_FUNCTION_KW not
    return (Instr("CALL_KW", raw.arg, raw.argval, extra=(null, None)),)


def _call_ex(raw, code, kw):
    return (Instr("CALL_FUNCTION_EX", raw.arg, raw.argval, extra=(V.CALL_PUSHES_NULL,)),)


def _dup_top(raw, code, kw):
    return (Instr("COPY", 1, 1),)


def _rot_two(raw, code, kw):
    return (Instr("SWAP", 2, 2),)


def _intrinsic(raw, code, kw):
    if raw.opname == "CALL_INTRINSIC_2" and raw.argrepr == "INTRINSIC_PREP_RERAISE_STAR":
        return (Instr("PREP_RERAISE_STAR"),)  # 3.12+ spelling of 3.11's opcode (end of except*)
    return (Instr(raw.opname, raw.arg, raw.argrepr),)


def _format_value(raw, code, kw):
    # up to 3.12: flags carry conversion and spec presence
    conv = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}[raw.arg & 3]
    return (Instr("FORMAT_VALUE", raw.arg, (conv, bool(raw.arg & 4))),)


def _as_is(raw, code, kw):
    return (Instr(raw.opname, raw.arg, raw.argval),)


def _expanders():
    """opname -> its expander; an opname in no family is kept as it is (``_as_is``). An
    expander gives the normalized Instrs for one instruction (zero, one or several): where
    the versions differ in how an instruction is spelled, this is where it is answered."""
    table = {}
    families = [
        (V.DROPPED, _dropped),
        (V.JUMP_ALIASES, _jump),
        (set(V.COND_JUMP_ALIASES) | V.JUMP_OR_POP | COND_JUMPS, _cond_jump),
        (("JUMP_IF_NOT_EXC_MATCH",), _exc_match_jump),
        (("FOR_ITER", "SEND", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH",
          "CALL_FINALLY"), _with_target),
        (["BINARY_" + k for k in V.OLD_BINARY_OPS] + ["INPLACE_" + k for k in V.OLD_BINARY_OPS],
         _old_binary),
        (("BINARY_OP",), _binary_op),
        (("COMPARE_OP",), _compare_op),
        (("RETURN_CONST",), _return_const),
        (("LOAD_GLOBAL",), _load_global),
        (("LOAD_ATTR",), _load_attr),
        (V.SUPER_INSTRUCTIONS, _fast_pair),
        (("LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_BORROW"), _load_fast_variant),
        (("LOAD_SMALL_INT", "POP_ITER", "LOAD_SPECIAL"), _renamed),
        (("LOAD_COMMON_CONSTANT",), _common_constant),
        (("KW_NAMES",), _kw_names),
        (("CALL", "CALL_METHOD", "CALL_FUNCTION"), _call),
        (("CALL_FUNCTION_KW", "CALL_KW"), _call_kw),
        (("CALL_FUNCTION_EX",), _call_ex),
        (("DUP_TOP",), _dup_top),
        (("ROT_TWO",), _rot_two),
        (("CALL_INTRINSIC_1", "CALL_INTRINSIC_2"), _intrinsic),
        (("FORMAT_VALUE",), _format_value),
    ]
    for names, fn in families:
        for n in names:
            table.setdefault(n, fn)  # the first family that names an opcode wins
    return table


_EXPANDERS = _expanders()


def _fold_backward_cond_jumps(out):
    """POP_JUMP_IF_X L; JUMP_BACKWARD H; L:  ->  POP_JUMP_IF_NOT_X H (targets are offsets).

    The pair comes from a conditional jump the compiler threaded to the loop head (a jump
    to the end of the loop body, whose jump back has no line) and then split because
    3.12+ has no backward conditional jumps: the jump back takes the test's line. An
    explicit `continue` after the test keeps its own line. The folded jump's ``extra``
    says which (IMPLICIT_BACK: the end of the body, no statement of its own;
    EXPLICIT_BACK: a `continue` only this test leads to)."""
    if not any(ins.opname == "JUMP" and ins.target is not None and ins.target < ins.offset
               for ins in out):
        return out  # no jump back, nothing to fold
    targeted = {ins.target for ins in out if ins.target is not None}
    keep = []
    i = 0
    while i < len(out):
        ins = out[i]
        if (ins.opname in V.INVERSE_COND and i + 2 < len(out) and out[i + 1].opname == "JUMP"
                and out[i + 1].target is not None and out[i + 1].target < out[i + 1].offset
                and out[i + 1].offset < ins.target <= out[i + 2].offset  # (past dropped NOPs)
                and not any(t in targeted  # (the jump back, or its EXTENDED_ARG prefix)
                            for t in range(ins.offset + 1, out[i + 1].offset + 1))
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
    pending_kwnames = []
    line = code.co_firstlineno
    raw_list = spelled.drop_inlined_calls(list(raw_reader.instructions(code)), code)
    skip, heads = set(), spelled.loop_head_nops(raw_list)
    pairs = spelled.successive(raw_list) if V.END_FOR_THEN_POP_TOP or V.HAS_TO_BOOL else ()
    if V.END_FOR_THEN_POP_TOP:
        for a, b in pairs:
            if a.opname == "END_FOR" and b.opname == V.ITER_POP:
                skip.add(b.offset)
    # 3.13: TO_BOOL only matters as a value (`not not x` compiles to it); before a test
    # or a `not` it is bookkeeping and dropped
    value_to_bool = {a.offset for a, b in pairs
                     if a.opname == "TO_BOOL" and b.opname != "UNARY_NOT"
                     and not b.opname.startswith("POP_JUMP_")} if V.HAS_TO_BOOL else set()
    special = skip | value_to_bool | heads
    expanders, line_flag = _EXPANDERS, V.STARTS_LINE_IS_FLAG
    for raw in raw_list:
        opname, _, arg, argval, _, offset, starts_line, line_number = raw  # (reader.Instruction)
        if special and offset in skip:
            continue
        # up to 3.12 ``starts_line`` holds the number where a line starts; 3.13+
        # ``line_number`` holds it for every instruction with a line
        raw_line = line_number if line_flag else starts_line
        if raw_line is not None:
            line = raw_line
        if special and offset in special:
            expanded = [Instr("TO_BOOL")] if offset in value_to_bool else [Instr("NOP")]
        else:
            expand = expanders.get(opname)
            if expand is None:  # ``_as_is``, inlined: most instructions are kept as they are
                out.append(Instr(opname, arg, argval, offset, line))
                continue
            expanded = expand(raw, code, pending_kwnames)
        for ins in expanded:
            ins.offset = offset
            ins.line = line
            out.append(ins)
    out = spelled.fuse(out, Instr)
    if V.FOLD_BACKWARD_COND_JUMPS:
        out = _fold_backward_cond_jumps(out)
    if V.FINALLY_PLACEHOLDER:
        _mark_finally_placeholders(out)
    offset_first = {}  # raw offset -> index of first normalized instr at or after it
    for idx, ins in enumerate(out):
        ins.index = idx
        offset_first.setdefault(ins.offset, idx)
    end = len(out)

    known = sorted(offset_first)

    def offset_to_index(off):
        if off in offset_first:
            return offset_first[off]
        # offsets inside a dropped/cache region: next known offset
        k = bisect.bisect_right(known, off)
        return offset_first[known[k]] if k < len(known) else end

    for ins in out:
        if ins.target is not None:
            ins.target = offset_to_index(ins.target) if ins.opname in JUMPS else None
    if V.HAS_EXCEPTION_TABLE:
        entries = ranges.cover_cond_jumps(out, ranges.from_table_311(code, offset_to_index))
    else:
        entries = ranges.from_block_stack(out)
    return out, entries
