"""depyf.bytecode.exctable: the varint format of co_exceptiontable, decoded by hand."""
import pytest

from depyf.bytecode import exctable
from depyf.bytecode import versions as V


class _Code:
    co_name = "f"

    def __init__(self, table):
        self.co_exceptiontable = bytes(table)


# each entry: start, length, target (in 2-byte units), depth << 1 | lasti; 0x80 starts an
# entry, 0x40 means "more bytes of this number follow"
CASES = [
    ("empty", [], []),
    ("one entry", [0x80 | 1, 3, 10, 2 << 1 | 1], [(2, 8, 20, 2, True)]),
    ("two entries", [0x80 | 0, 2, 5, 0, 0x80 | 4, 1, 9, 3 << 1],
     [(0, 4, 10, 0, False), (8, 10, 18, 3, False)]),
    ("a number over 63 takes two bytes", [0x80 | 0, 0x40 | 1, 6, 7, 1 << 1],
     [(0, 140, 14, 1, False)]),
]


@pytest.mark.parametrize("name, table, expected", CASES, ids=[c[0] for c in CASES])
def test_parse(name, table, expected):
    assert [tuple(e) for e in exctable.parse(_Code(table))] == expected


def test_truncated_table_is_an_error():
    with pytest.raises(ValueError, match="malformed"):
        exctable.parse(_Code([0x80 | 1, 3, 10]))


@pytest.mark.skipif(not V.HAS_EXCEPTION_TABLE, reason="no exception table before 3.11")
def test_real_try_has_an_entry_to_its_handler():
    def f():
        try:
            g()  # noqa: F821
        except ValueError:
            return 1
    entries = exctable.parse(f.__code__)
    assert entries and all(e.start < e.end <= len(f.__code__.co_code) for e in entries)
