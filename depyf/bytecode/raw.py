"""Reading ``co_code`` directly, for questions that need no full disassembly.

``dis.get_instructions`` builds a record with resolved argument, text and positions for
every instruction; a question like "which names are loaded this way" needs only opcode
and argument. ``ops`` yields ``(offset, opcode, arg)`` with ``EXTENDED_ARG`` folded into
the argument and 3.11+'s inline ``CACHE`` entries skipped.
"""
import dis

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
