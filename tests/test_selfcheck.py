"""The self-check refuses output that touches the same things but does something else."""
import pytest

from depyf.decompiler.selfcheck import check
from depyf.errors import DecompilationError


def _code(source, name):
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace[name].__code__


def test_one_await_more_is_a_difference():
    code = _code("async def f(g):\n    return [v async for v in g]\n", "f")
    check(code, "async def f(g):\n    return [v async for v in g]\n", "f")
    with pytest.raises(DecompilationError, match="awaits"):
        check(code, "async def f(g):\n    return await [v async for v in g]\n", "f")


def test_async_with_exits_are_not_counted():
    # the same statements, with `return` inside or after the with: more exit awaits
    code = _code("async def f(m, x):\n    async with m:\n        x.append(1)\n    return x\n", "f")
    check(code, "async def f(m, x):\n    async with m:\n        x.append(1)\n        return x\n", "f")


def test_a_lost_cell_is_a_difference():
    # without `nonlocal a` the outer `a` is a plain local: `f.__closure__` is None
    source = "def g(v):\n    a = v\n    def f():\n        nonlocal a\n    return f.__closure__\n"
    code = _code(source, "g")
    check(code, source, "g")
    with pytest.raises(DecompilationError, match="cell"):
        check(code, source.replace("        nonlocal a\n", "        pass\n"), "g")


def test_is_none_test_folded_into_a_jump_is_the_same_test():
    # 3.11+ compiles the condition `x is None` to POP_JUMP_IF_NOT_NONE (no IS_OP), the
    # value `x is None` to IS_OP: both test the same
    code = _code("def f(a, b, r):\n    return (a is None and b) or r\n", "f")
    check(code, "def f(a, b, r):\n    return (b or r) if a is None else r\n", "f")
    with pytest.raises(DecompilationError, match="IS_OP|COMPARE_OP"):  # (3.8: COMPARE_OP)
        check(code, "def f(a, b, r):\n    return (b or r) if a else r\n", "f")
