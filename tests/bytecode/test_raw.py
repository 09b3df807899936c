"""depyf.bytecode.raw: ``instructions`` gives dis's records (``test_reader`` compares every
field on the whole corpus) and remembers them inside a ``remembered()`` block only, and
``ops`` sees what dis sees (EXTENDED_ARG folded, caches skipped)."""
import dis

import pytest

from depyf.bytecode import raw


def _big_function():
    # over 256 constants and jumps past 256 instructions: EXTENDED_ARG everywhere
    body = "\n".join("    if x > %d:\n        y = y + %d.5\n    else:\n        y = -%d" % (i, i, i)
                     for i in range(400))
    namespace = {}
    exec(compile("def f(x, y):\n%s\n    return y\n" % body, "<big>", "exec"), namespace)
    return namespace["f"].__code__


def test_instructions_are_dis_records_and_remembered_inside_a_block_only():
    code = _big_function()
    with raw.remembered():
        first = raw.instructions(code)
        fields = ("opname", "opcode", "arg", "argval", "argrepr", "offset", "starts_line")
        assert [tuple(getattr(i, f) for f in fields) for i in first] == \
            [tuple(getattr(i, f) for f in fields) for i in dis.get_instructions(code)]
        with raw.remembered():  # (nested: the same records)
            assert raw.instructions(code) is first
        assert raw.instructions(code) is first
        assert raw.instructions(code.replace(co_name="g")) is not first
    # the block's end drops them: nothing decoded is kept alive for later
    assert not raw._REMEMBERED.found
    again = raw.instructions(code)
    assert again is not first and raw.instructions(code) is not again


def test_a_block_remembers_the_latest_code_objects_only():
    codes = [compile("x = %d" % i, "<m>", "exec") for i in range(raw._REMEMBERED_SIZE + 5)]
    with raw.remembered():
        for code in codes:
            raw.instructions(code)
        assert len(raw._REMEMBERED.found) == raw._REMEMBERED_SIZE
        assert id(codes[-1]) in raw._REMEMBERED.found and id(codes[0]) not in raw._REMEMBERED.found


def test_ops_match_dis():
    code = _big_function()
    expected = [(i.offset, i.opcode, i.arg or 0) for i in dis.get_instructions(code)
                if i.opname not in ("EXTENDED_ARG", "CACHE")]
    assert [(o, op, arg or 0) for o, op, arg in raw.ops(code)] == expected
