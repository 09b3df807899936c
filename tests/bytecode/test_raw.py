"""depyf.bytecode.raw: ``instructions`` gives dis's records (``test_reader`` compares every
field on the whole corpus) and remembers them inside a ``remembered()`` block only, and
``ops`` sees what dis sees (EXTENDED_ARG folded, caches skipped)."""
import dis
import sys

import pytest

from depyf.bytecode import exctable, raw


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


def _code_of(source):
    namespace = {}
    exec(compile(source, "<straight>", "exec"), namespace)
    return namespace["f"].__code__


STRAIGHT = {  # source -> whether the code has no loop (3.8: a finally block entered twice is none)
    "def f(x):\n    return g(x) + 1\n": True,
    "def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n    return y and x or g\n": True,
    "def f(x):\n    try:\n        return g(x)\n    except E as e:\n        return e\n    finally:\n        h()\n": True,
    "def f(x):\n    return [y for y in x]\n": True,  # (the loop is nested code, or inlined: 3.12+)
    "def f(x):\n    for y in x:\n        g(y)\n": False,
    "def f(x):\n    while x:\n        x = g(x)\n": False,
    "def f(x):\n    while True:\n        pass\n": False,
    "def f(x):\n    while True:\n        try:\n            return g(x)\n        except E:\n            continue\n": False,
}


@pytest.mark.parametrize("source", sorted(STRAIGHT))
def test_runs_straight_sees_every_loop(source):
    code = _code_of(source)
    expected = STRAIGHT[source]
    if "for y in x]" in source and any(i.opname == "FOR_ITER" for i in dis.get_instructions(code)):
        expected = False  # 3.12+ inlines the comprehension's loop
    assert raw.runs_straight(code) is expected


def test_runs_straight_sees_a_handler_before_what_it_covers():
    """A handler at or before an instruction it covers makes a loop without any jump
    (no compiler writes one; a bytecode generator may): refused. 3.11+ only (the handler
    of a 3.8-3.10 ``SETUP_FINALLY`` is a forward jump)."""
    code = _code_of("def f(x):\n    try:\n        return g(x)\n    except E:\n        return h()\n")
    entries = exctable.parse(code)
    if not entries:
        pytest.skip("no exception table before 3.11")
    entry = entries[0]
    # the same table with the first entry's handler moved to the start of its own range
    moved = _table([(e.start, e.end, entry.start if e is entry else e.target, e.depth, e.lasti)
                    for e in entries])
    assert raw.runs_straight(code) and not raw.runs_straight(code.replace(co_exceptiontable=moved))


def _table(entries):
    """``co_exceptiontable`` bytes of (start, end, target, depth, lasti) in byte offsets."""
    out = bytearray()

    def varint(value, first):
        chunks = []
        while True:
            chunks.append(value & 63)
            value >>= 6
            if not value:
                break
        chunks.reverse()
        for i, chunk in enumerate(chunks):
            out.append(chunk | (64 if i < len(chunks) - 1 else 0) | (128 if first and i == 0 else 0))

    for start, end, target, depth, lasti in entries:
        varint(start // 2, True)
        varint((end - start) // 2, False)
        varint(target // 2, False)
        varint(depth << 1 | int(lasti), False)
    return bytes(out)


def test_runs_straight_agrees_with_dis_on_stdlib_modules():
    """On every code object of some stdlib modules (the interpreter's own source), the
    answer is what ``dis`` says: no jump record targets its own or an earlier offset, and
    (3.11+) no entry of ``dis``'s exception table sends an instruction back."""
    import inspect
    import types

    import ast as ast_module
    import collections
    import tokenize
    import typing

    checked = straight = 0
    for module in (ast_module, collections, dis, inspect, tokenize, typing):
        todo = [compile(inspect.getsource(module), module.__file__, "exec")]
        while todo:
            code = todo.pop()
            todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
            jumps = set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ()))
            back = any(i.opcode in jumps and i.argval <= i.offset for i in dis.get_instructions(code))
            entries = getattr(dis.Bytecode(code), "exception_entries", ())
            expected = not back and all(e.target >= e.end for e in entries)
            assert raw.runs_straight(code) is expected, (module.__name__, code.co_name, code.co_firstlineno)
            checked += 1
            straight += expected
    assert checked > 500 and 0 < straight < checked


def test_defined_codes_lists_every_nested_code_depth_first():
    src = "def a():\n    def b():\n        return [x for x in ()]\n    return b\nclass C:\n    pass\n"
    code = compile(src, "<test>", "exec")
    names = [c.co_name for c in raw.defined_codes(code)]
    assert names[0] == "<module>" and names[1:3] == ["a", "b"] and names[-1] == "C"
    assert len(names) == (5 if sys.version_info < (3, 12) else 4)  # (3.12 inlines the list comprehension)
