"""The one parser of CPython 3.11+ exception tables (``co_exceptiontable``).

Each entry says: an exception raised by an instruction in ``[start, end)`` (byte
offsets) unwinds the value stack to ``depth`` items, pushes the offset of the raising
instruction when ``lasti`` is set, then the exception, and jumps to ``target``.
Before 3.11 there is no table (the ``SETUP_*`` block stack does this at run time), and
the parser returns no entries.
"""
from collections import namedtuple

ExceptionEntry = namedtuple("ExceptionEntry", "start end target depth lasti")


def _varints(data):
    """Yield the table's numbers: 6 value bits a byte, 0x40 = more bytes follow, 0x80
    marks the first byte of an entry (not needed to decode)."""
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        i += 1
        value = b & 63
        while b & 64:
            b = data[i]
            i += 1
            value = (value << 6) | (b & 63)
        yield value


def parse(code):
    """The entries of ``code``'s exception table, in byte offsets (end exclusive)."""
    data = getattr(code, "co_exceptiontable", b"") or b""
    numbers = list(_varints(data))
    if len(numbers) % 4:
        raise ValueError("malformed exception table in %r" % getattr(code, "co_name", code))
    entries = []
    for k in range(0, len(numbers), 4):
        start, length, target, depth_lasti = numbers[k:k + 4]
        entries.append(ExceptionEntry(start * 2, (start + length) * 2, target * 2,
                                      depth_lasti >> 1, bool(depth_lasti & 1)))
    return entries
