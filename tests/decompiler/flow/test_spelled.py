"""depyf.decompiler.flow.spelled (3.14): sequences that spell an older instruction come out
of ``normalize`` in their 3.13 form, and decompile back to the source."""
import pytest

import depyf
from depyf.bytecode import versions as V
from depyf.decompiler.flow.instructions import normalize

pytestmark = pytest.mark.skipif(V.PY < (3, 14), reason="3.14 spellings")


def _fn(src, name="f"):
    ns = {}
    exec(compile(src, "<spelled>", "exec"), ns)
    return ns[name]


def _ops(src):
    instrs, _ = normalize(_fn(src).__code__)
    return [i.opname for i in instrs]


def test_with_prologue_is_one_before_with():
    ops = _ops("def f(a):\n    with a as b:\n        return b\n")
    assert "LOAD_SPECIAL" not in ops and ops.count("BEFORE_WITH") == 1


def test_async_with_prologue_is_one_before_async_with():
    ops = _ops("async def f(a):\n    async with a:\n        pass\n")
    assert "LOAD_SPECIAL" not in ops and ops.count("BEFORE_ASYNC_WITH") == 1


@pytest.mark.parametrize("src, arg", [
    ("def f(g, a):\n    return g(*a)\n", 0),
    ("def f(g, a, k):\n    return g(*a, **k)\n", 1),
])
def test_call_ex_gets_the_argument_of_3_13(src, arg):
    instrs, _ = normalize(_fn(src).__code__)
    call = [i for i in instrs if i.opname == "CALL_FUNCTION_EX"]
    assert [c.arg for c in call] == [arg]
    assert [i.opname for i in instrs].count("PUSH_NULL") == 1  # g's, not the kwargs slot's


@pytest.mark.parametrize("builtin", ["all", "any", "tuple"])
def test_inlined_builtin_call_is_the_call(builtin):
    src = "def f(a):\n    return %s(x for x in a)\n" % builtin
    ops = _ops(src)
    assert "LOAD_COMMON_CONSTANT" not in ops and "FOR_ITER" not in ops
    out = depyf.decompile(_fn(src))
    assert "return %s((x for x in a))" % builtin in out


def test_inlined_call_of_a_local_name_is_the_call_too():
    src = "def f(a, tuple=tuple):\n    return tuple(x for x in a)\n"
    assert "FOR_ITER" not in _ops(src)


@pytest.mark.parametrize("src", [
    "def f(a):\n    return (a[1:3], a[::2, 0])\n",
    "def f(a, b):\n    a[1:] = b\n    del a[:2]\n",
    "def f(a):\n    assert a, 'no'\n",
    "def f(a):\n    x = {'k': 1, 'j': 2}\n    return (a[0], x)\n",
    "def f(a, n):\n    while a < n:\n        a += 1\n    return a\n",
    "def f(a, b):\n    if not (a in b):\n        b.append(a)\n",
    "def f(v):\n    return '' if v else v\n",
    "def f(a, b, c, d):\n    return a or (b and c) or d\n",  # b's jump threaded past `or`
    "def f(a, b, c):\n    x = (a or b) and c\n    return x\n",
])
def test_decompiles_back_to_the_same_text(src):
    assert depyf.decompile(_fn(src)).strip() == src.strip().replace("not (a in b)", "not a in b")
