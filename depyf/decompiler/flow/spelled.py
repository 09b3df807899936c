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


def _inlined_range(raw_list, k):
    """(first offset, end offset) of the inlined loop whose builtin LOAD_GLOBAL is
    ``raw_list[k]``, or None."""
    ins = raw_list[k]
    if not (ins.opname == "LOAD_GLOBAL" and ins.argval in V.INLINED_BUILTIN_CALLS
            and not ins.arg & 1):
        return None
    test = raw_list[k + 1:k + 1 + len(_TEST)]
    if tuple(i.opname for i in test) != _TEST or test[1].argrepr not in (ins.argval, "<built-in function %s>" % ins.argval) or \
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
    if not (V.WITH_PROLOGUE or V.CALL_EX_KWARGS_ALWAYS):
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
        if ins.opname == "CALL_FUNCTION_EX" and V.CALL_EX_KWARGS_ALWAYS:
            no_kwargs = bool(fused) and fused[-1].opname == "PUSH_NULL"
            if no_kwargs:
                fused.pop()
            ins.arg = 0 if no_kwargs else 1
        fused.append(ins)
        k += 1
    return fused
