"""The control-dependence fingerprint: blind to layout, not to moved statements."""
import pytest

from depyf.verify.control_deps import compare


def _code(source):
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace["f"].__code__


SAME = [
    # an inverted test with swapped arms
    ("def f(c):\n    if not c:\n        a()\n    else:\n        b()\n",
     "def f(c):\n    if c:\n        b()\n    else:\n        a()\n"),
    # `is not` / `not ... is`, a guard clause for an else
    ("def f(x):\n    if x is not None:\n        return a()\n    return b()\n",
     "def f(x):\n    if not x is None:\n        return a()\n    else:\n        return b()\n"),
    # a tail copied into both arms
    ("def f(c):\n    if c:\n        a()\n    else:\n        b()\n    z()\n",
     "def f(c):\n    if c:\n        a()\n        z()\n    else:\n        b()\n        z()\n"),
    # `if not c: continue` + rest at the end of a loop body
    ("def f(xs):\n    for x in xs:\n        if x:\n            a(x)\n",
     "def f(xs):\n    for x in xs:\n        if not x:\n            continue\n        a(x)\n"),
]

DIFFERENT = [
    # the return value computed after the try: a raise there skips the handler
    ("def f(m):\n    with m as p:\n        try:\n            return p.wait()\n        except:\n"
     "            p.kill()\n            raise\n",
     "def f(m):\n    with m as p:\n        try:\n            pass\n        except:\n"
     "            p.kill()\n            raise\n        return p.wait()\n"),
    # a statement moved under the condition
    ("def f(c):\n    if c:\n        a()\n    b()\n",
     "def f(c):\n    if c:\n        a()\n        b()\n"),
    # the test negated
    ("def f(c):\n    if c:\n        a()\n", "def f(c):\n    if not c:\n        a()\n"),
    # code after the try moved into it (its handler would catch it)
    ("def f():\n    try:\n        a()\n    except OSError:\n        return\n    b()\n",
     "def f():\n    try:\n        a()\n        b()\n    except OSError:\n        return\n"),
]


@pytest.mark.parametrize("original,output", SAME)
def test_layout_differences_are_the_same(original, output):
    same, missing, extra = compare(_code(original), _code(output))
    assert same, (missing, extra)


@pytest.mark.parametrize("original,output", DIFFERENT)
def test_moved_statements_differ(original, output):
    same, _, _ = compare(_code(original), _code(output))
    assert not same
