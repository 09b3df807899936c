"""Items of an unpacking used as values without a store first: no source compiles to it,
but Dynamo before torch 2.5 does (``UNPACK_SEQUENCE`` of a graph's outputs, one stored,
the next tested by the jump, or returned: ``UNPACK_SEQUENCE 1; RETURN_VALUE``). The
temporaries reading stores them into temporaries by the unpacking itself
(``x, __temp_1 = f(a)``), and the proof accepts it."""
import dis
import sys
import types

import pytest

import depyf


def _tested(f, a):
    x, y = f(a)
    if y:
        return x
    return -x


def _returned(f, a):
    x, = f(a)
    return x


def _without_store_and_load(fn, local):
    """``fn.__code__`` with the store of ``local`` and the load right after it replaced by
    NOPs (3.13's pairs: STORE_FAST_LOAD_FAST a NOP, STORE_FAST_STORE_FAST its first
    store alone): the item stays on the stack."""
    code = fn.__code__
    ins = list(dis.get_instructions(code))
    raw = bytearray(code.co_code)
    for i, one in enumerate(ins):
        if one.opname == "STORE_FAST_LOAD_FAST" and one.argval == (local, local):
            raw[one.offset:one.offset + 2] = bytes([dis.opmap["NOP"], 0])
            break
        if one.opname == "STORE_FAST_STORE_FAST" and one.argval[1] == local:  # 3.13
            raw[one.offset:one.offset + 2] = bytes([dis.opmap["STORE_FAST"], one.arg >> 4])
            raw[ins[i + 1].offset:ins[i + 1].offset + 2] = bytes([dis.opmap["NOP"], 0])
            break
        if one.opname == "STORE_FAST" and one.argval == local and ins[i + 1].opname == "LOAD_FAST":
            for at in (one.offset, ins[i + 1].offset):
                raw[at:at + 2] = bytes([dis.opmap["NOP"], 0])
            break
    else:
        raise AssertionError("no store and load of %s in %s" % (local, fn.__name__))
    return code.replace(co_code=bytes(raw))


def _run(text, name, *args):
    space = {}
    exec(text, space)
    return space[name](*args)


def test_an_unpacked_item_tested_by_the_jump():
    code = _without_store_and_load(_tested, "y")
    text = depyf.decompile(code)
    assert "__temp_" in text
    for flag in (0, 1):
        f = (lambda a: (a + 1, flag))
        expected = types.FunctionType(code, {})(f, 4)
        assert expected == (5 if flag else -5)
        assert _run(text, "_tested", f, 4) == expected


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="3.14 fuses the store and the load "
                    "of x (STORE_FAST_LOAD_FAST): the patch that makes the shape finds no pair")
def test_an_unpacked_item_returned():
    code = _without_store_and_load(_returned, "x")
    assert types.FunctionType(code, {})(lambda a: [a * 2], 4) == 8
    text = depyf.decompile(code)
    assert _run(text, "_returned", lambda a: [a * 2], 4) == 8
