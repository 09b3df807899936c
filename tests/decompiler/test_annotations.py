"""Deferred annotations (PEP 649/749, 3.14+): the compiler's ``__annotate__`` functions
read back as the annotations the source wrote, in defs, class bodies and modules, and
never printed as a def of their own (behaviour: tests/corpus/py314_language.py)."""
import sys
import textwrap

import pytest

import depyf
from depyf.decompiler.api import Decompiler
from depyf.decompiler.modules import decompile_module
from depyf.decompiler.output.printer import unparse

pytestmark = pytest.mark.skipif(sys.version_info < (3, 14), reason="__annotate__ is new in 3.14")


def _define(source, name):
    namespace = {}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)
    return namespace[name]


def test_function_signature_as_written():
    f = _define("def f(x: int, *a: 'T', k: str = 's', **kw: dict) -> list[int]:\n    return k\n", "f")
    text = depyf.decompile(f)
    assert text.splitlines()[0] == "def f(x: int, *a: 'T', k: str='s', **kw: dict) -> list[int]:"


def test_function_annotations_are_read_not_run():
    """An annotation naming what does not exist yet: ``f.__annotations__`` would raise."""
    f = _define("def f(x: Missing) -> Later[int]:\n    return x\n", "f")
    assert unparse(Decompiler(f).to_ast()).splitlines()[0] == "def f(x: Missing) -> Later[int]:"


NESTED = """
def outer(n):
    T = int

    def inner(a: T, b: 'str' = '') -> list[T]:
        return a

    class C:
        \"\"\"doc\"\"\"
        a: int = 1
        b: 'str'
        if n:
            c: int
        else:
            c: float = 2.5
        d: list[int]

        def m(self, x: list[int]) -> int:
            return 1
    return (inner, C)
"""


def test_nested_def_and_class_body():
    outer = _define(NESTED, "outer")
    text = unparse(Decompiler(outer).to_ast())
    assert "def inner(a: T, b: 'str'='') -> list[T]:" in text
    body = [line.strip() for line in text.splitlines()]
    start = body.index("class C:")
    assert body[start + 1:start + 11] == [
        '"""doc"""', "a: int = 1", "b: 'str'", "if n:", "c: int", "else:", "c: float = 2.5",
        "d: list[int]", "", "def m(self, x: list[int]) -> int:"]
    assert "__annotate" not in text and "__conditional_annotations__" not in text


def test_class_body_standalone_form():
    outer = _define(NESTED, "outer")
    (cls_code,) = [c for c in outer.__code__.co_consts if getattr(c, "co_name", None) == "C"]
    text = Decompiler(cls_code).decompile(allow_unproven=True)
    assert "    a: int = 1\n    b: 'str'\n" in text and "__annotate" not in text


MODULE = '''\
"""mod doc"""
from __future__ import division
x: int = 3
y: str
if x:
    z: float = 2.0
else:
    x = 4
try:
    w: 'list[int]' = [x]
except NameError:
    pass

def g(q: int) -> None:
    pass

class D:
    u: int
    v: str = 'v'
'''


def test_module_annotations_in_place():
    text = decompile_module(compile(MODULE, "<m>", "exec"))
    assert text == MODULE.replace("'list[int]'", "'list[int]'"), text


def test_future_annotations_module():
    source = "from __future__ import annotations\ndef f(x: int) -> str:\n    pass\ny: int = 2\n"
    text = decompile_module(compile(source, "<m>", "exec"))
    assert "__conditional_annotations__" not in text and "__annotate" not in text
    # the text of each annotation is the source it was made from, written back as is
    assert "y: int = 2" in text and "def f(x: int) -> str:" in text


GENERIC_CLASSES = '''class A:
    """Doc."""
    x: int
    y: str = 'a'

class B[T]:
    """Doc."""
    item: T
    z: int = 1

    def get(self) -> T:
        return self.item
'''


def test_generic_class_annotations_after_its_bookkeeping():
    # `__type_params__ = .type_params` opens a generic class body: the annotations (and
    # the docstring) come after it
    text = decompile_module(compile(GENERIC_CLASSES, "<m>", "exec"))
    assert text.rstrip() == GENERIC_CLASSES.rstrip(), text


def test_user_function_named_annotate_stays_a_def():
    source = "def __annotate__(format, /):\n    return {}\n"
    text = decompile_module(compile(source, "<m>", "exec"))
    assert text.startswith("def __annotate__(format, /):")
