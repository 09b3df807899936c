"""depyf.bytecode.raw: the linear reader of 3.8-3.10 gives dis's records exactly, and
``ops`` sees what dis sees (EXTENDED_ARG folded, caches skipped)."""
import dis

import pytest

from depyf.bytecode import raw
from depyf.bytecode import versions as V
from depyf.verify import stdlib_corpus


def _big_function():
    # over 256 constants and jumps past 256 instructions: EXTENDED_ARG everywhere
    body = "\n".join("    if x > %d:\n        y = y + %d.5\n    else:\n        y = -%d" % (i, i, i)
                     for i in range(400))
    namespace = {}
    exec(compile("def f(x, y):\n%s\n    return y\n" % body, "<big>", "exec"), namespace)
    return namespace["f"].__code__


def _codes():
    codes = [_big_function()]
    for name in ("argparse", "inspect", "tarfile"):
        codes.extend(c for c, _, _ in stdlib_corpus.iter_code_objects(stdlib_corpus.compile_module(name)[2]))
    return codes


@pytest.mark.skipif(not V.DIS_IS_QUADRATIC, reason="3.11+ keeps dis.get_instructions")
def test_old_reader_gives_dis_records():
    for code in _codes():
        assert list(raw._read_old(code)) == list(dis.get_instructions(code)), code.co_name


def test_instructions_are_dis_records_and_remembered():
    code = _big_function()
    first = raw.instructions(code)
    assert list(first) == list(dis.get_instructions(code))
    assert raw.instructions(code) is first


def test_ops_match_dis():
    code = _big_function()
    expected = [(i.offset, i.opcode, i.arg or 0) for i in dis.get_instructions(code)
                if i.opname not in ("EXTENDED_ARG", "CACHE")]
    assert [(o, op, arg or 0) for o, op, arg in raw.ops(code)] == expected
