"""Reading ``co_code`` directly, for questions that need no full disassembly.

``dis.get_instructions`` builds a record with resolved argument, text and positions for
every instruction; a question like "which names are loaded this way" needs only opcode
and argument. ``ops`` yields ``(offset, opcode, arg)`` with ``EXTENDED_ARG`` folded into
the argument and 3.11+'s inline ``CACHE`` entries skipped.
"""
import dis

from . import versions as V

EXTENDED_ARG = dis.EXTENDED_ARG
CACHE = dis.opmap.get("CACHE")


def ops(code):
    raw = code.co_code
    extended = 0
    for offset in range(0, len(raw), 2):
        op, arg = raw[offset], raw[offset + 1] | extended
        if op == EXTENDED_ARG:
            extended = arg << 8
            continue
        extended = 0
        if op == CACHE:
            continue
        yield offset, op, arg


_RECENT = {}  # id(code) -> (code, instructions): the code is held, so its id stays its own
_RECENT_SIZE = 64


def instructions(code):
    """``dis.get_instructions(code)`` as a tuple, remembered for the few code objects seen
    last: decompiling a function disassembles it, and proving the result disassembles it
    again (and once more for the checker); one pass is enough. Keyed by identity, not by
    code equality, which ignores line numbers the decompiler reads."""
    hit = _RECENT.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    found = tuple(_read_old(code) if V.DIS_IS_QUADRATIC else dis.get_instructions(code))
    if len(_RECENT) >= _RECENT_SIZE:
        del _RECENT[next(iter(_RECENT))]
    _RECENT[id(code)] = (code, found)
    return found


_CONVERSIONS = ((None, ""), (str, "str"), (repr, "repr"), (ascii, "ascii"))
_FUNCTION_FLAGS = ("defaults", "kwdefaults", "annotations", "closure")
_HASJREL, _HASJABS = frozenset(dis.hasjrel), frozenset(dis.hasjabs)
_HASCONST, _HASNAME = frozenset(dis.hasconst), frozenset(dis.hasname)
_HASLOCAL, _HASFREE = frozenset(dis.haslocal), frozenset(dis.hasfree)
_HASCOMPARE = frozenset(dis.hascompare)


def _opargs(raw_code):
    """``(offset, opcode, arg or None)`` of every instruction, EXTENDED_ARG included, with
    its bits carried into the next argument (3.8-3.10 layout: no caches)."""
    extended = 0
    for offset in range(0, len(raw_code), 2):
        op = raw_code[offset]
        if op >= dis.HAVE_ARGUMENT:
            arg = raw_code[offset + 1] | extended
            extended = (arg << 8) if op == EXTENDED_ARG else 0
        else:
            arg = None
            if not V.EXTENDED_ARG_SURVIVES_NO_ARG:
                extended = 0
        yield offset, op, arg


def _target(offset, op, arg):
    if op in _HASJREL:
        return offset + 2 + arg * V.JUMP_ARG_UNIT
    return arg * V.JUMP_ARG_UNIT


def _read_old(code):
    """``dis.get_instructions(code)`` for 3.8-3.10, the same records, in linear time."""
    raw_code = code.co_code
    ops = list(_opargs(raw_code))
    labels = {_target(o, op, arg) for o, op, arg in ops if op in _HASJREL or op in _HASJABS}
    starts = dict(dis.findlinestarts(code))
    cells = code.co_cellvars + code.co_freevars
    out = []
    for offset, op, arg in ops:
        argval, argrepr = _resolve(code, cells, offset, op, arg)
        out.append(dis.Instruction(dis.opname[op], op, arg, argval, argrepr, offset,
                                   starts.get(offset), offset in labels))
    return out


def _resolve(code, cells, offset, op, arg):
    """``(argval, argrepr)`` as 3.8-3.10's dis gives them."""
    if arg is None:
        return None, ""
    if op in _HASCONST:
        value = code.co_consts[arg]
        return value, repr(value)
    if op in _HASNAME:
        return code.co_names[arg], code.co_names[arg]
    if op in _HASJREL or op in _HASJABS:
        target = _target(offset, op, arg)
        shown = op in _HASJREL or V.ABSOLUTE_JUMP_ARGREPR
        return target, "to " + repr(target) if shown else ""
    if op in _HASLOCAL:
        return code.co_varnames[arg], code.co_varnames[arg]
    if op in _HASCOMPARE:
        return dis.cmp_op[arg], dis.cmp_op[arg]
    if op in _HASFREE:
        return cells[arg], cells[arg]
    if op == dis.opmap["FORMAT_VALUE"]:
        convert, text = _CONVERSIONS[arg & 3]
        if arg & 4:
            text += ", with format" if text else "with format"
        return (convert, bool(arg & 4)), text
    if op == dis.opmap["MAKE_FUNCTION"]:
        return arg, ", ".join(s for i, s in enumerate(_FUNCTION_FLAGS) if arg & (1 << i))
    return arg, ""
