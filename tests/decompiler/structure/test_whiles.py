"""depyf.decompiler.structure.whiles on 3.14, which tests `while c:` at the head again
(as up to 3.9): compound tests and a `while True:` whose body starts with a `while`."""
import pytest

import depyf
from depyf.bytecode import versions as V

pytestmark = pytest.mark.skipif(V.PY < (3, 14), reason="3.14 while layouts")


def _fn(src):
    ns = {}
    exec(compile(src, "<whiles>", "exec"), ns)
    return ns["f"]


@pytest.mark.parametrize("src", [
    "def f(a, b):\n    while a or b:\n        a = g(a)\n    return a\n",
    "def f(a, b):\n    while a and (b or a):\n        a = g(a)\n    return a\n",
    "def f(a, b):\n    while True:\n        while a or b:\n            a = g(a)\n        b = g(b)\n",
    "def f(a, b):\n    while True:\n        if a and b:\n            raise E\n        a = g(a)\n",
    # the body's own `if c: break` is not folded into the loop's test (another line)
    "def f(a, b, stop):\n    while a and b:\n        if stop is not None and stop(a):\n"
    "            break\n        a = g(a)\n    return a\n",
])
def test_decompiles_back_to_the_same_text(src):
    assert depyf.decompile(_fn(src)).strip() == src.strip()
