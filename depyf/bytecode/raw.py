"""Reading ``co_code`` directly, for questions that need no full disassembly.

``dis.get_instructions`` builds a record with resolved argument, text and positions for
every instruction; a question like "which names are loaded this way" needs only opcode
and argument. ``ops`` yields ``(offset, opcode, arg)`` with ``EXTENDED_ARG`` folded into
the argument and 3.11+'s inline ``CACHE`` entries skipped.
"""
import dis

from . import reader

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
    """``dis.get_instructions(code)``'s records (``reader.decode``: the fields depyf
    reads, without what ``dis`` computes besides), remembered for the few code objects seen
    last: decompiling a function disassembles it, and proving the result disassembles it
    again (and once more for the checker); one pass is enough. Keyed by identity, not by
    code equality, which ignores line numbers the decompiler reads."""
    hit = _RECENT.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    found = reader.decode(code)
    if len(_RECENT) >= _RECENT_SIZE:
        del _RECENT[next(iter(_RECENT))]
    _RECENT[id(code)] = (code, found)
    return found

