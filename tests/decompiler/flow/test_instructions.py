"""depyf.decompiler.flow.instructions: small functions -> the normalized stream.

The point of ``normalize`` is that later stages see one spelling whatever the version:
each case lists the (opname, argval) pairs it must give, with jump targets as indexes
into the normalized list. Where the versions still differ after normalization (the
compiler emits different code, not just a different spelling) the expectation is a
table keyed by the first version it holds for. The helpers that work on hand-built
instructions (the block-stack exception table, joining ranges split by a test) are
checked on hand-built input.
"""
import pytest

from depyf.bytecode import versions as V
from depyf.decompiler.flow import instructions as I
from depyf.decompiler.flow import ranges
from depyf.decompiler.flow.instructions import ExcEntry, Instr, normalize


def for_version(table):
    """The entry of ``table`` ({first version: value}) for the running version."""
    return table[max(v for v in table if v <= V.PY)]


def _fn(src):
    ns = {}
    exec(compile(src, "<case>", "exec"), ns)
    return ns["f"]


def _stream(instrs):
    out = []
    for ins in instrs:
        argval = ins.argval
        if hasattr(argval, "co_code"):
            argval = "<code %s>" % argval.co_name
        out.append((ins.opname, argval) if ins.target is None else
                   (ins.opname, "->%d" % ins.target))
    return out


L, C = "LOAD_FAST", "LOAD_CONST"
RET = ("RETURN_VALUE", None)
# the normalized NULL of a call of a global: before the callable up to 3.12, after it on 3.13
NULL_GLOBAL = {(3, 8): lambda g: [("LOAD_GLOBAL", g)],
               (3, 11): lambda g: [("PUSH_NULL", None), ("LOAD_GLOBAL", g)],
               (3, 13): lambda g: [("LOAD_GLOBAL", g), ("PUSH_NULL", None)]}

CASES = [
    # name, source of f, {first version: expected stream}
    ("binary operator", "def f(a, b):\n    return a + b\n",
     {(3, 8): [(L, "a"), (L, "b"), ("BINARY_OP", "+"), RET]}),
    ("in-place operator", "def f(a):\n    a += 1\n    return a\n",
     {(3, 8): [(L, "a"), (C, 1), ("BINARY_OP", "+="), ("STORE_FAST", "a"), (L, "a"), RET]}),
    ("return of a constant (RETURN_CONST split on 3.12+)", "def f():\n    return 1\n",
     {(3, 8): [(C, 1), RET]}),
    ("comparison", "def f(a, b):\n    return a < b\n",
     {(3, 8): [(L, "a"), (L, "b"), ("COMPARE_OP", "<"), RET]}),
    ("not (3.13's TO_BOOL before it dropped)", "def f(a):\n    return not a\n",
     {(3, 8): [(L, "a"), ("UNARY_NOT", None), RET]}),
    ("method call (3.12+ LOAD_ATTR with the method bit)", "def f(o):\n    return o.m(1)\n",
     {(3, 8): [(L, "o"), ("LOAD_METHOD", "m"), (C, 1), ("CALL", 1), RET]}),
    ("attribute (3.12+ LOAD_ATTR without the bit)", "def f(o):\n    return o.x\n",
     {(3, 8): [(L, "o"), ("LOAD_ATTR", "x"), RET]}),
    ("if: every conditional jump spelled POP_JUMP_IF_*", "def f(a):\n    if a:\n        a = 1\n    return a\n",
     {(3, 8): [(L, "a"), ("POP_JUMP_IF_FALSE", "->4"), (C, 1), ("STORE_FAST", "a"), (L, "a"), RET]}),
    ("is None: a test of its own from 3.11", "def f(a):\n    if a is None:\n        a = 1\n    return a\n",
     {(3, 8): [(L, "a"), (C, None), ("COMPARE_OP", "is"), ("POP_JUMP_IF_FALSE", "->6"),
               (C, 1), ("STORE_FAST", "a"), (L, "a"), RET],
      (3, 9): [(L, "a"), (C, None), ("IS_OP", 0), ("POP_JUMP_IF_FALSE", "->6"),
               (C, 1), ("STORE_FAST", "a"), (L, "a"), RET],
      (3, 11): [(L, "a"), ("POP_JUMP_IF_NOT_NONE", "->4"), (C, 1), ("STORE_FAST", "a"),
                (L, "a"), RET]}),
    ("and as a value: JUMP_IF_FALSE_OR_POP, COPY + jump from 3.12", "def f(a, b):\n    return a and b\n",
     {(3, 8): [(L, "a"), ("JUMP_IF_FALSE_OR_POP", "->3"), (L, "b"), RET],
      (3, 12): [(L, "a"), ("COPY", 1), ("POP_JUMP_IF_FALSE", "->5"), ("POP_TOP", None),
                (L, "b"), RET]}),
    ("swap: ROT_TWO is SWAP 2; 3.11+ swaps the stores instead", "def f(a, b):\n    a, b = b, a\n    return a\n",
     {(3, 8): [(L, "b"), (L, "a"), ("SWAP", 2), ("STORE_FAST", "a"), ("STORE_FAST", "b"), (L, "a"), RET],
      (3, 11): [(L, "b"), (L, "a"), ("STORE_FAST", "b"), ("STORE_FAST", "a"), (L, "a"), RET]}),
    ("for: FOR_ITER jumps past END_FOR, the NULL in its place", "def f(a):\n    for x in a:\n        g(x)\n",
     {v: [(L, "a"), ("GET_ITER", None), ("FOR_ITER", "->%d" % (9 + (v >= (3, 11)))), ("STORE_FAST", "x")]
      + mk("g") + [(L, "x"), ("CALL", 1), ("POP_TOP", None), ("JUMP", "->2"), (C, None), RET]
      for v, mk in NULL_GLOBAL.items()}),
    ("while: the test repeated at the end from 3.10 (not 3.14)",
     "def f(a):\n    while a:\n        a = a - 1\n    return a\n",
     {(3, 8): [(L, "a"), ("POP_JUMP_IF_FALSE", "->7"), (L, "a"), (C, 1), ("BINARY_OP", "-"),
               ("STORE_FAST", "a"), ("JUMP", "->0"), (L, "a"), RET],
      (3, 10): [(L, "a"), ("POP_JUMP_IF_FALSE", "->8"), (L, "a"), (C, 1), ("BINARY_OP", "-"),
                ("STORE_FAST", "a"), (L, "a"), ("POP_JUMP_IF_TRUE", "->2"), (L, "a"), RET],
      (3, 14): [(L, "a"), ("POP_JUMP_IF_FALSE", "->7"), (L, "a"), (C, 1), ("BINARY_OP", "-"),
                ("STORE_FAST", "a"), ("JUMP", "->0"), (L, "a"), RET]}),
    ("f-string conversion and spec (3.13: CONVERT_VALUE + FORMAT_WITH_SPEC)", "def f(a):\n    return f'{a!r:>3}'\n",
     {(3, 8): [(L, "a"), (C, ">3"), ("FORMAT_VALUE", (ord("r"), True)), RET],
      (3, 13): [(L, "a"), ("CONVERT_VALUE", repr), (C, ">3"), ("FORMAT_WITH_SPEC", None), RET]}),
]


def _call_kw_case():
    head = {(3, 8): [("LOAD_GLOBAL", "g")], (3, 11): [("PUSH_NULL", None), ("LOAD_GLOBAL", "g")],
            (3, 13): [("LOAD_GLOBAL", "g"), ("PUSH_NULL", None)]}
    # 3.11/3.12: KW_NAMES dropped, the names carried by the CALL (checked below)
    tail = {(3, 8): [(C, ("k",)), ("CALL_KW", 2)], (3, 11): [("CALL", 2)],
            (3, 13): [(C, ("k",)), ("CALL_KW", 2)]}
    return ("call with a keyword", "def f(a):\n    return g(a, k=1)\n",
            {v: head[v] + [(L, "a"), (C, 1)] + tail[v] + [RET] for v in head})


CASES.append(_call_kw_case())


@pytest.mark.parametrize("name, src, expected", CASES, ids=[c[0] for c in CASES])
def test_normalized_stream(name, src, expected):
    instrs, _ = normalize(_fn(src).__code__)
    assert _stream(instrs) == for_version(expected)
    assert [i.index for i in instrs] == list(range(len(instrs)))


def test_call_carries_its_keyword_names():
    instrs, _ = normalize(_fn("def f(a):\n    return g(a, k=1)\n").__code__)
    call = [i for i in instrs if i.opname in ("CALL", "CALL_KW")]
    assert len(call) == 1
    if call[0].opname == "CALL":  # 3.11/3.12: the names of KW_NAMES, the NULL slot
        assert call[0].extra == (True, ("k",))
    else:  # the names are a constant on the stack; a NULL slot only on 3.13
        assert call[0].extra == (V.PY >= (3, 13), None)


def test_nothing_dropped_survives():
    src = "def f(a):\n    def h():\n        return a\n    for x in a:\n        if not x:\n            h()\n    return h\n"
    instrs, _ = normalize(_fn(src).__code__)
    left = {i.opname for i in instrs} & (V.DROPPED - {"TO_BOOL"})
    assert not left
    assert all(i.target is None or 0 <= i.target <= len(instrs) for i in instrs)


TRY = "def f():\n    try:\n        g()\n    except E:\n        return 1\n    return 2\n"
# (start, end, target, depth, lasti) in indexes of the normalized stream
TRY_ENTRIES = {
    (3, 8): [(1, 5, 6, 0, False)],
    (3, 10): [(1, 5, 7, 0, False)],  # the body's `return 2` copied before the handler
    (3, 11): [(0, 4, 5, 0, False), (5, 10, 14, 1, True), (13, 14, 14, 1, True)],
    (3, 12): [(0, 4, 6, 0, False), (6, 11, 15, 1, True), (14, 15, 15, 1, True)],
}


def test_try_exception_entries():
    instrs, entries = normalize(_fn(TRY).__code__)
    assert [tuple(e) for e in entries] == for_version(TRY_ENTRIES)
    handler = instrs[entries[0].target]
    # the handler starts with the exception pushed: the block stack's SETUP_FINALLY
    # target up to 3.10 (COPY of the exception), PUSH_EXC_INFO from 3.11
    assert handler.opname == ("PUSH_EXC_INFO" if V.HAS_EXCEPTION_TABLE else "COPY")


def _instrs(ops):
    """Hand-built normalized instructions: (opname, target index or None)."""
    out = []
    for k, (op, target) in enumerate(ops):
        ins = Instr(op, target=target, offset=2 * k)
        ins.index = k
        out.append(ins)
    return out


BLOCKSTACK = [
    ("no setup: no entry", [("LOAD_CONST", None), ("RETURN_VALUE", None)], []),
    ("one try body", [("SETUP_FINALLY", 4), ("NOP", None), ("POP_BLOCK", None), ("JUMP", 5),
                      ("POP_TOP", None), ("LOAD_CONST", None), ("RETURN_VALUE", None)],
     [(1, 3, 4, 0, False)]),
    ("nested: the innermost handler covers", [
        ("SETUP_FINALLY", 7), ("SETUP_FINALLY", 5), ("NOP", None), ("POP_BLOCK", None),
        ("JUMP", 6), ("POP_TOP", None), ("POP_BLOCK", None), ("LOAD_CONST", None),
        ("RETURN_VALUE", None)],
     [(1, 2, 7, 0, False), (2, 4, 5, 0, False), (4, 7, 7, 0, False)]),
    ("return right after POP_BLOCK belongs to the body", [
        ("SETUP_FINALLY", 4), ("LOAD_CONST", None), ("POP_BLOCK", None), ("RETURN_VALUE", None),
        ("POP_TOP", None), ("LOAD_CONST", None), ("RETURN_VALUE", None)],
     [(1, 4, 4, 0, False)]),
]


@pytest.mark.parametrize("name, ops, expected", BLOCKSTACK, ids=[c[0] for c in BLOCKSTACK])
def test_block_stack_exception_table(name, ops, expected):
    assert [tuple(e) for e in ranges.from_block_stack(_instrs(ops))] == expected


COVER = [
    ("a test between two ranges of one handler joins them",
     [("NOP", None), ("POP_JUMP_IF_FALSE", 3), ("NOP", None), ("RETURN_VALUE", None)],
     [ExcEntry(0, 1, 9, 0, False), ExcEntry(2, 3, 9, 0, False)], [(0, 3, 9, 0, False)]),
    ("a non-test between them: kept apart",
     [("NOP", None), ("POP_TOP", None), ("NOP", None), ("RETURN_VALUE", None)],
     [ExcEntry(0, 1, 9, 0, False), ExcEntry(2, 3, 9, 0, False)],
     [(0, 1, 9, 0, False), (2, 3, 9, 0, False)]),
    ("different handlers: kept apart",
     [("NOP", None), ("POP_JUMP_IF_TRUE", 3), ("NOP", None), ("RETURN_VALUE", None)],
     [ExcEntry(0, 1, 9, 0, False), ExcEntry(2, 3, 8, 0, False)],
     [(0, 1, 9, 0, False), (2, 3, 8, 0, False)]),
    ("different depth: kept apart",
     [("NOP", None), ("POP_JUMP_IF_TRUE", 3), ("NOP", None), ("RETURN_VALUE", None)],
     [ExcEntry(0, 1, 9, 0, False), ExcEntry(2, 3, 9, 1, False)],
     [(0, 1, 9, 0, False), (2, 3, 9, 1, False)]),
    ("a test before a range whose handler runs under the first one: the first covers it",
     [("NOP", None), ("POP_JUMP_IF_TRUE", 3), ("NOP", None), ("RETURN_VALUE", None),
      ("NOP", None), ("RERAISE", None)],
     [ExcEntry(0, 1, 5, 1, True), ExcEntry(2, 3, 4, 2, False), ExcEntry(4, 5, 5, 1, True)],
     [(0, 2, 5, 1, True), (2, 3, 4, 2, False), (4, 5, 5, 1, True)]),
]


@pytest.mark.parametrize("name, ops, entries, expected", COVER, ids=[c[0] for c in COVER])
def test_ranges_split_by_a_test_are_joined(name, ops, entries, expected):
    assert [tuple(e) for e in ranges.cover_cond_jumps(_instrs(ops), entries)] == expected
