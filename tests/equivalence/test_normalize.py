"""The normalization must keep real differences and drop only positions and padding."""
import sys

import pytest

from depyf.equivalence import equivalent
from depyf.equivalence.normalize import first_difference, normalize, normalize_const


def func(source, name="f", prefix=""):
    """The code object of function ``name`` compiled from ``prefix + source``."""
    module = compile(prefix + source, "<test>", "exec")
    for const in module.co_consts:
        if hasattr(const, "co_code") and const.co_name == name:
            return const
    raise LookupError(name)


def same(a, b):
    return normalize(a) == normalize(b) and first_difference(normalize(a), normalize(b)) is None


def differ(a, b):
    diff = first_difference(normalize(a), normalize(b))
    return normalize(a) != normalize(b) and diff is not None and diff.detail


def test_add_and_subtract_differ():
    detail = differ(func("def f(a, b):\n    return a + b\n"), func("def f(a, b):\n    return a - b\n"))
    assert detail
    assert "#" in detail  # says which instruction


def test_same_source_at_other_lines_is_equal():
    source = (
        "def f(a, b=2, *c, d, **e):\n"
        '    """doc"""\n'
        "    class K:\n"
        "        def m(self):\n"
        "            return [x for x in c if x]\n"
        "    try:\n"
        "        for i in range(a):\n"
        "            if i > b:\n"
        "                break\n"
        "        else:\n"
        "            return lambda: a + d\n"
        "    except ValueError as exc:\n"
        "        raise RuntimeError(b) from exc\n"
        "    finally:\n"
        "        print(e)\n"
        "    with open(a) as fh, open(b):\n"
        "        return fh.read()\n"
    )
    assert same(func(source), func(source, prefix="\n" * 300 + "x = 1\n\n"))


def test_nested_code_objects_are_compared_by_content():
    a = func("def f():\n    return lambda x: x + 1\n")
    b = func("def f():\n    return lambda x: x + 2\n")
    detail = differ(a, b)
    assert detail and "<lambda>" in detail
    assert same(a, func("\n\ndef f():\n    return lambda x: x + 1\n"))


@pytest.mark.parametrize("one, other", [("1", "1.0"), ("1", "True"), ("0.0", "-0.0"),
                                         ("(1, 2)", "(1.0, 2)"), ("'a'", "b'a'")])
def test_constants_compare_by_type_and_value(one, other):
    assert normalize_const(eval(one)) != normalize_const(eval(other))
    a = func("def f():\n    return %s\n" % one)
    b = func("def f():\n    return %s\n" % other)
    assert differ(a, b)


def test_names_compare_by_string():
    a = func("def f(x):\n    return x.real\n")
    b = func("def f(x):\n    return x.imag\n")
    assert differ(a, b)
    # A local and a global of the same name are different instructions.
    assert differ(func("def f(a):\n    return a\n"), func("def f(b):\n    return a\n"))


def test_jump_targets_are_indexes_not_offsets():
    # A long body pushes jump offsets past 255 (EXTENDED_ARG); the same code at other
    # line numbers normalizes equal, while a different branch structure does not.
    body = "".join("    x%d = a + %d\n" % (i, i) for i in range(200))
    source = "def f(a):\n    while a:\n" + body.replace("    x", "        x") + "        a -= 1\n"
    assert same(func(source), func(source, prefix="\n\n\n"))
    with_break = "def f(a):\n    for i in a:\n        if i:\n            break\n        g()\n"
    with_continue = "def f(a):\n    for i in a:\n        if i:\n            continue\n        g()\n"
    assert differ(func(with_break), func(with_continue))
    jumps = [i for i in normalize(func(with_break)).instructions
             if isinstance(i.arg, tuple) and i.arg and i.arg[0] == "jump"]
    assert jumps and all(isinstance(i.arg[1], int) for i in jumps)


def test_docstring_flags_and_variables_are_compared():
    assert differ(func('def f():\n    "one"\n'), func('def f():\n    "two"\n'))
    assert differ(func("def f():\n    yield 1\n"), func("def f():\n    return 1\n"))
    assert differ(func("def f(a, *b):\n    pass\n"), func("def f(a, b):\n    pass\n"))
    assert differ(func("def f(a, *, b):\n    pass\n"), func("def f(a, b):\n    pass\n"))
    assert differ(func("def f():\n    x = 1\n    y = 2\n    return x, y\n"),
                  func("def f():\n    y = 2\n    x = 1\n    return x, y\n"))
    assert differ(func("async def f():\n    pass\n"), func("def f():\n    pass\n"))


def test_cells_and_free_variables_are_compared():
    a = func("def f(a):\n    def g():\n        return a\n    return g\n")
    b = func("def f(a):\n    def g():\n        return 1\n    return g\n")
    assert differ(a, b)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception table is 3.11+")
def test_exception_table_is_compared_as_indexes():
    a = func("def f():\n    try:\n        g()\n    except E:\n        h()\n")
    norm = normalize(a)
    assert norm.exception_table
    n = len(norm.instructions)
    for entry in norm.exception_table:
        assert 0 <= entry.start < entry.end <= n and 0 <= entry.target < n
    # Same instructions, but only the try body is protected in one of them.
    b = func("def f():\n    try:\n        g()\n    except E:\n        h()\n", prefix="\n" * 50)
    assert same(a, b)


def test_try_except_and_try_finally_differ():
    a = func("def f():\n    try:\n        g()\n    except Exception:\n        pass\n")
    b = func("def f():\n    try:\n        g()\n    finally:\n        pass\n")
    assert differ(a, b)


def test_class_body_first_line_is_not_compared():
    source = "def f():\n    class K:\n        x = 1\n    return K\n"
    assert same(func(source), func(source, prefix="\n" * 40))
    # 3.14 loads a first line below 256 with LOAD_SMALL_INT, from 256 with LOAD_CONST
    assert same(func(source), func(source, prefix="\n" * 300))
    other = "def f():\n    class K:\n        x = 2\n    return K\n"
    assert differ(func(source), func(other))


def test_a_borrowed_read_is_a_read():
    # 3.14 borrows the reference in the first (LOAD_FAST_BORROW), not after a dead test
    plain = func("def f(x):\n    return x\n")
    assert same(plain, func("def f(x):\n    if 0:\n        pass\n    return x\n"))
    assert differ(plain, func("def f(x, y):\n    return y\n", ))
    pair = func("def f(x, y):\n    return x + y\n")
    assert same(pair, func("def f(x, y):\n    if 0:\n        pass\n    return x + y\n"))
    assert differ(pair, func("def f(x, y):\n    return y + x\n"))


def test_the_docstring_slot_holds_a_docstring_only():
    # 3.14: without CO_HAS_DOCSTRING, co_consts[0] is the first constant the compiler met,
    # here 2 or the 1 that folding left unreferenced; the instructions are the same
    assert same(func("def f():\n    return 2\n"), func("def f():\n    return 1 + 1\n"))
    assert differ(func('def f():\n    "2"\n    return 2\n'), func("def f():\n    return 2\n"))
    assert differ(func('def f():\n    "1"\n'), func('def f():\n    "2"\n'))


def test_only_the_nested_flag_is_not_compared():
    # a module-level comprehension decompiled alone is recompiled inside a def
    top = [c for c in compile("[x for x in y]", "<test>", "exec").co_consts if hasattr(c, "co_code")]
    if not top:
        pytest.skip("3.12+ inlines the comprehension: no code object")
    inner = func("def w(y):\n    return [x for x in y]\n", "w").co_consts
    nested = [c for c in inner if hasattr(c, "co_code")][0]
    assert top[0].co_flags != nested.co_flags
    assert same(top[0], nested)
    assert differ(func("def f():\n    yield\n"), func("async def f():\n    yield\n"))



def test_keyword_names_of_a_call_are_compared():
    # 3.11 passes them in KW_NAMES, whose constant its dis leaves unresolved
    call_a = func("def f(x):\n    return g(a=x)\n")
    assert differ(call_a, func("def f(x):\n    return g(b=x)\n"))
    assert same(call_a, func("def f(x):\n    return g(a=x)\n", prefix="\n\n"))
    assert not equivalent(call_a, func("def f(x):\n    return g(b=x)\n", prefix="\n"))
