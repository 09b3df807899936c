"""Reading ``co_code`` directly, for questions that need no full disassembly.

``dis.get_instructions`` builds a record with resolved argument, text and positions for
every instruction; a question like "which names are loaded this way" needs only opcode
and argument. ``ops`` yields ``(offset, opcode, arg)`` with ``EXTENDED_ARG`` folded into
the argument and 3.11+'s inline ``CACHE`` entries skipped.
"""
import contextlib
import dis
import threading
import types

from . import exctable, reader

EXTENDED_ARG = dis.EXTENDED_ARG
CACHE = dis.opmap.get("CACHE")
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))


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


class _Remembered:
    """The instruction records decoded inside ``remembered()`` blocks, dropped when the
    outermost block ends (a block may be entered by several threads at once)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.depth = 0
        # id(code) -> (code, instructions): the code is held, so its id stays its own
        self.found = {}


_REMEMBERED = _Remembered()
_REMEMBERED_SIZE = 64


@contextlib.contextmanager
def remembered():
    """Inside the block, ``instructions`` decodes each code object once. Its records are
    dropped when the block ends rather than kept for later: a transformed code object of
    a deep model has thousands of instructions, and kept alive after depyf's hook they
    join the collector's oldest generation, which every later full collection of torch's
    heap walks."""
    with _REMEMBERED.lock:
        _REMEMBERED.depth += 1
    try:
        yield
    finally:
        with _REMEMBERED.lock:
            _REMEMBERED.depth -= 1
            if not _REMEMBERED.depth:
                _REMEMBERED.found.clear()


def instructions(code):
    """``dis.get_instructions(code)``'s records (``reader.decode``: the fields depyf
    reads, without what ``dis`` computes besides). Inside a ``remembered()`` block, one
    decoding per code object: decompiling a function disassembles it, and proving the
    result disassembles it again (and once more for the checker). Keyed by identity, not
    by code equality, which ignores line numbers the decompiler reads."""
    found = _REMEMBERED.found
    hit = found.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    decoded = reader.decode(code)
    if _REMEMBERED.depth:
        if len(found) >= _REMEMBERED_SIZE:  # (a module's many functions: the latest ones)
            found.pop(next(iter(found)), None)
        found[id(code)] = (code, decoded)
    return decoded


def defined_codes(code):
    """``code`` and the code objects of the functions (classes, comprehensions) it
    defines, at any depth, in the order their definitions appear (depth first): what a
    run of ``code`` can execute of its own."""
    found = [code]
    for const in code.co_consts:
        if type(const) is types.CodeType:
            found.extend(defined_codes(const))
    return found


def runs_straight(code):
    """Whether ``code`` (its own instructions, not nested code) has no loop, so that a run
    of it ends without a step count: no jump goes back to an earlier or the same offset
    (the jump records' ``argval`` is the target's offset on every version) and no
    exception handler lies at or before an instruction it covers. (3.8's END_FINALLY goes
    back to just after the CALL_FINALLY that entered its finally block, which lies further
    on: a return from a subroutine, not a loop.)"""
    for ins in instructions(code):
        if ins.opcode in _JUMPS and not (isinstance(ins.argval, int) and ins.argval > ins.offset):
            return False
    return all(entry.target >= entry.end for entry in exctable.parse(code))
