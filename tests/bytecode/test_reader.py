"""``bytecode.reader.decode`` gives what ``dis.get_instructions`` gives, on every code object
of the stdlib corpus (module bodies, classes, functions, comprehensions, lambdas)."""
import dis
import types

import pytest

from depyf.bytecode import reader
from depyf.bytecode import versions as V
from depyf.verify import stdlib_corpus

FIELDS = ("opname", "opcode", "arg", "argval", "argrepr", "offset", "starts_line")
if V.STARTS_LINE_IS_FLAG:
    FIELDS += ("line_number",)


def _all_codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _all_codes(const)


def _record(ins):
    return tuple(getattr(ins, f) for f in FIELDS)


def _mismatch(code):
    ours = [_record(i) for i in reader.decode(code)]
    theirs = [_record(i) for i in dis.get_instructions(code)]
    if ours == theirs:
        return None
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return "%s: instruction #%d: %r != dis %r" % (code.co_name, k, a, b)
    return "%s: %d instructions, dis %d" % (code.co_name, len(ours), len(theirs))


@pytest.mark.parametrize("module", stdlib_corpus.MODULES)
def test_same_as_dis_on_the_stdlib(module):
    _, _, code = stdlib_corpus.compile_module(module)
    problems = [p for p in map(_mismatch, _all_codes(code)) if p is not None]
    assert not problems, problems[:5]


SNIPPETS = [
    "def f(x):\n    return g(a=x, b=[1.5, -0.0, 1j], *x, **x)\n",
    "def f(x):\n    def h():\n        nonlocal x\n        x = 1\n    return h, f'{x!r:>{x}}{x!a}{x}'\n",
    "class C:\n    def m(self):\n        return super().m(), self.a.b()\n",
    "def f(x):\n    for i in x:\n        while i:\n            if i > 2 or i is None: break\n"
    "            try:\n                i -= 1\n            except* E as e:\n                pass\n",
    "async def f(x):\n    async with x as y:\n        async for z in y:\n            await z\n",
    "def f():\n    x = 0\n" + "".join("    x = x + %d\n" % i for i in range(300))
    + "    if x:\n        return x\n",  # long jumps: EXTENDED_ARG
]


@pytest.mark.parametrize("text", SNIPPETS)
def test_same_as_dis_on_snippets(text):
    try:
        code = compile(text, "<snippet>", "exec")
    except SyntaxError:
        pytest.skip("not valid syntax on this version")
    problems = [p for p in map(_mismatch, _all_codes(code)) if p is not None]
    assert not problems, problems[:5]
