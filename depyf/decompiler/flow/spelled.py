"""3.14 sequences that spell one older instruction (or call): put back in their 3.13 form.

``instructions.normalize`` calls these on 3.14 only (see the facts in ``versions``):

- ``drop_inlined_calls``: `all(<genexpr>)`, `any(...)` and `tuple(...)` are compiled as an
  identity test of the builtin, a loop inlined for when it is the builtin, and the ordinary
  call otherwise. Both compute the same; the inlined loop is dropped, leaving the call.
- ``fuse``: the LOAD_SPECIAL prologue of a with statement becomes BEFORE_WITH (or
  BEFORE_ASYNC_WITH) with ``extra`` "self" (it leaves the manager between the exit and the
  ``__enter__`` result); CALL_FUNCTION_EX gets 3.13's argument (1: keyword mapping on the
  stack; 0: none, where 3.14 pushes a NULL in its place).
"""
import dis

from ...bytecode import exctable
from ...bytecode import versions as V

_JUMP_OPS = frozenset(getattr(dis, "hasjump", ())) | frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_TEST = ("COPY", "LOAD_COMMON_CONSTANT", "IS_OP", "POP_JUMP_IF_FALSE")
_NAME_LOADS = V.NAME_LOADS | frozenset(["LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"])


def _inlined_range(raw_list, k):
    """(first offset, end offset) of the inlined loop whose builtin LOAD_GLOBAL is
    ``raw_list[k]``, or None."""
    ins = raw_list[k]  # the name's load: global, or local (maybe the second of a pair),
    # cell or class-body name
    name = ins.argval[1] if ins.opname in V.SUPER_INSTRUCTIONS else ins.argval
    if not (ins.opname in _NAME_LOADS and name in V.INLINED_BUILTIN_CALLS
            and not (ins.opname == "LOAD_GLOBAL" and ins.arg & 1)):
        return None
    test = raw_list[k + 1:k + 1 + len(_TEST)]
    if tuple(i.opname for i in test) != _TEST or test[1].argrepr not in (name, "<built-in function %s>" % name) or \
            test[0].arg != 1 or test[2].arg != 0:
        return None
    end = test[3].argval
    after = next((i for i in raw_list if i.offset == end), None)
    if after is None or after.opname != "PUSH_NULL":
        return None
    return test[0].offset, end


def drop_inlined_calls(raw_list, code):
    """``raw_list`` without the inlined loops of builtin calls (see the module doc), where
    nothing outside a loop's range jumps or unwinds into it."""
    if not V.INLINED_BUILTIN_CALLS:
        return raw_list
    ranges = [r for r in (_inlined_range(raw_list, k) for k in range(len(raw_list))) if r]
    if not ranges:
        return raw_list
    handlers = [e.target for e in exctable.parse(code)]
    kept = []
    for start, end in ranges:
        inside = lambda off: start < off < end  # noqa: E731 (the range's first one is no target)
        outside_jumps = [i.argval for i in raw_list if i.opcode in _JUMP_OPS
                         and not start <= i.offset < end]
        if not any(inside(t) for t in outside_jumps + handlers):
            kept.append((start, end))
    return [i for i in raw_list if not any(s <= i.offset < e for s, e in kept)]


def _with_prologue(out, k):
    """The BEFORE_WITH opname that ``out[k:k + 6]`` spells, or None."""
    window = out[k:k + 6]
    if [i.opname for i in window] != ["COPY", "LOAD_SPECIAL", "SWAP", "SWAP", "LOAD_SPECIAL",
                                      "CALL"]:
        return None
    enter_op = V.WITH_PROLOGUE_EXITS.get(window[1].argval)
    if enter_op is None or window[4].argval != enter_op[0] or \
            [i.arg for i in window] != [1, window[1].arg, 2, 3, window[4].arg, 0]:
        return None
    return enter_op[1]


def fuse(out, instr_cls):
    """``out`` (normalized Instrs, targets still offsets) with the 3.14 spellings above
    replaced by their 3.13 instruction."""
    if not (V.WITH_PROLOGUE or V.CALL_FUNCTION_EX_KWARGS_SLOT or V.VALUE_TESTS_THREADED):
        return out
    fused = []
    k = 0
    while k < len(out):
        ins = out[k]
        op = _with_prologue(out, k) if V.WITH_PROLOGUE else None
        if op is not None:
            fused.append(instr_cls(op, offset=ins.offset, line=ins.line, extra="self"))
            k += 6
            continue
        if ins.opname == "CALL_FUNCTION_EX" and V.CALL_FUNCTION_EX_KWARGS_SLOT:
            no_kwargs = bool(fused) and fused[-1].opname == "PUSH_NULL"
            if no_kwargs:
                fused.pop()
            ins.arg = 0 if no_kwargs else 1
        fused.append(ins)
        k += 1
    if V.VALUE_TESTS_THREADED:
        _unthread_value_tests(fused)
    return fused


_OPPOSITE = {"POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE", "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE"}


def _unthread_value_tests(out):
    """3.14 threads a kept value's test (`b` of `b and c or d`: COPY 1; POP_JUMP_IF_FALSE)
    past the next test of the value, which must fail, to the POP_TOP after it; 3.13
    jumps to that test (COPY 1; POP_JUMP_IF_TRUE; POP_TOP), as the and/or reading
    expects. Retargets such jumps there (edits ``out``, targets still offsets)."""
    at = {ins.offset: k for k, ins in reversed(list(enumerate(out)))}
    for k, ins in enumerate(out):
        if ins.opname not in _OPPOSITE or k == 0 or out[k - 1].opname != "COPY" or \
                out[k - 1].arg != 1:
            continue
        t = at.get(ins.target)
        if t is not None and t >= 2 and out[t].opname == "POP_TOP" and \
                out[t - 1].opname == _OPPOSITE[ins.opname] and out[t - 2].opname == "COPY" and \
                out[t - 2].arg == 1 and out[t - 1].target != ins.target:
            ins.target = out[t - 2].offset


def loop_head_nops(raw_list):
    """Offsets of the NOPs to keep (3.14, ``V.NOP_KEEPS_LOOP_HEAD``): a NOP that a loop
    jumps back to, right before the head of another loop (`while True:` starting with a
    `while c:`, both tested at the head); dropped, the two loops would share one head."""
    if not V.NOP_KEEPS_LOOP_HEAD:
        return frozenset()
    back = {i.argval for i in raw_list if i.opcode in _JUMP_OPS and isinstance(i.argval, int)
            and i.argval <= i.offset}
    return frozenset(a.offset for a, b in zip(raw_list, raw_list[1:])
                     if a.opname == "NOP" and a.offset in back and b.offset in back)


def successive(raw_list):
    """Each instruction of ``raw_list`` with the one that runs after it, EXTENDED_ARG
    prefixes skipped (a jump's when the jump is long: the instruction before a long jump
    is followed by that jump). The prefixes stay in ``raw_list``, where a line may start."""
    pairs = [(a, b) for a, b in zip(raw_list, raw_list[1:]) if a.opname != "EXTENDED_ARG"]
    if any(b.opname == "EXTENDED_ARG" for _, b in pairs):
        after = {}
        for ins in reversed(raw_list):
            if ins.opname != "EXTENDED_ARG":
                nxt = ins
            after[ins.offset] = nxt
        pairs = [(a, after[b.offset]) for a, b in pairs]
    return pairs
