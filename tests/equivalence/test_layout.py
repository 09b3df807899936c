"""depyf.equivalence.layout: layout-equal accepts the same program laid out another way and
nothing else (each rejected pair below differs in what it does)."""
import pytest

from depyf.bytecode import versions as V

from depyf.equivalence import equivalent
from depyf.equivalence.layout import layout_equal
from depyf.equivalence.normalize import normalize


def _code(src, name="f"):
    module = compile(src, "<test>", "exec")
    return next(c for c in module.co_consts if hasattr(c, "co_code") and c.co_name == name)


def _equal(a, b):
    return layout_equal(normalize(_code(a)), normalize(_code(b)))


SAME = [
    ("if/else arms swapped with the test negated",
     "def f(c):\n    if c:\n        a()\n    else:\n        b()\n",
     "def f(c):\n    if not c:\n        b()\n    else:\n        a()\n"),
    ("is None test turned around",
     "def f(x):\n    if x is None:\n        a()\n    else:\n        b()\n    return 1\n",
     "def f(x):\n    if x is not None:\n        b()\n    else:\n        a()\n    return 1\n"),
    ("an extra local that is never used",
     "def f(x):\n    return x\n",
     "def f(x):\n    if 0:\n        y = 1\n    return x\n"),
]

DIFFERENT = [
    ("arms swapped without negating the test",
     "def f(c):\n    if c:\n        a()\n    else:\n        b()\n",
     "def f(c):\n    if c:\n        b()\n    else:\n        a()\n"),
    ("a constant changed",
     "def f(x):\n    return x + 1\n",
     "def f(x):\n    return x + 2\n"),
    ("a call moved out of the try body",
     "def f():\n    try:\n        a()\n        b()\n    except E:\n        pass\n",
     "def f():\n    try:\n        a()\n    except E:\n        pass\n    b()\n"),
    ("a loop body statement moved after the loop",
     "def f(xs):\n    for x in xs:\n        a(x)\n        b()\n",
     "def f(xs):\n    for x in xs:\n        a(x)\n    b()\n"),
    ("a test on truth made a test on None",
     "def f(x):\n    if x:\n        a()\n",
     "def f(x):\n    if x is not None:\n        a()\n"),
    ("an elif chain reordered",
     "def f(x):\n    if x == 1:\n        a()\n    elif x == 2:\n        b()\n",
     "def f(x):\n    if x == 2:\n        b()\n    elif x == 1:\n        a()\n"),
]


@pytest.mark.parametrize("what, a, b", SAME, ids=[s[0] for s in SAME])
def test_same_program_other_layout(what, a, b):
    if "None" in what and V.PY < (3, 11):
        pytest.skip("up to 3.10 `is None`/`is not None` are IS_OP 0/1 before one jump: "
                    "the instructions differ, not only the layout")
    assert _equal(a, b)
    assert _equal(b, a)


@pytest.mark.parametrize("what, a, b", DIFFERENT, ids=[d[0] for d in DIFFERENT])
def test_different_programs_are_not_layout_equal(what, a, b):
    assert not _equal(a, b)
    assert not _equal(b, a)


def test_the_checker_says_how():
    a = _code(SAME[0][1])
    b = _code(SAME[0][2])
    verdict = equivalent(a, b)
    assert verdict
    if normalize(a) != normalize(b):
        assert verdict.how == "layout-equal"


def test_same_code_ignores_where_not_what():
    from depyf.equivalence import _same_code
    a = _code("def f(x):\n    return x + 1\n")
    moved = _code("\n\n\ndef g(x):\n\n    return x + 1\n", "g")
    assert _same_code(a, moved)
    assert not _same_code(a, _code("def f(x):\n    return x + 2\n"))
    assert not _same_code(a, _code("def f(x):\n    return x - 1\n"))
    assert not _same_code(a, _code("def f(y):\n    return y + 1\n"))
