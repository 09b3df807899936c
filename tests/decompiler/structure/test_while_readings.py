"""depyf.decompiler.structure.whiles (and the helper of branches): `while` loops whose
reading depends on more than the head's block: a compound or chained test tested again
at the latches, a chained comparison at the end of the body, a `while` that never loops,
a `while True` that starts a `while` body: one head for both loops (each comes back as
the source that was compiled, on every version)."""
import ast
import textwrap

import pytest

import depyf
from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
from depyf.decompiler.structure.helpers import cancels_and_goes_on


def _fn(src):
    ns = {}
    exec(compile(textwrap.dedent(src), "<whiles>", "exec"), ns)
    return ns["f"]


SOURCES = {
    "compound head a continue jumps to": '''
        def f(a, b):
            while a() and b():
                if a():
                    continue
                b()
            a()
    ''',
    "head tests None one way, the latch the other": '''
        def f(prev, curr, g):
            while prev[curr] is not None:
                if g:
                    continue
                g()
    ''',
    "chained comparison": '''
        def f(x, n):
            while 0 <= x < n:
                x += 1
            return x
    ''',
    "operand and chained comparison, with a continue": '''
        def f(x, n):
            while x and 0 <= x < n:
                x += 1
                if x % 2:
                    continue
                x += 1
            return x
    ''',
    "a while that never loops: break in a finally body": '''
        def f(x):
            n = 0
            while n < 20:
                n += 10
                try:
                    return n
                finally:
                    if x:
                        break
            return ('end', n)
    ''',
    # 3.10+: the outer loop's test at the end jumps back to the inner loop's head
    "a while True starting a while body, continued": '''
        def f(a, b):
            while a():
                while True:
                    x = b()
                    if x:
                        b(x)
                        continue
                    break
            return a
    ''',
    "a while True starting a while body, code after it": '''
        def f(a, b):
            while a():
                while True:
                    x = b()
                    if x:
                        break
                    b(x)
                a(x)
            return a
    ''',
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_decompiles_back_to_the_source(name):
    src = textwrap.dedent(SOURCES[name])
    text = depyf.decompile(_fn(src))
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(src)), text


def _cancelled():
    return facts.note(ast.Expr(value=ast.Name(id="x", ctx=ast.Load())), Fact.RETURN_CANCELLED)


def test_a_cancelled_return_that_goes_on_is_found_in_nested_lists():
    inner = ast.If(test=ast.Name(id="c", ctx=ast.Load()), body=[_cancelled()], orelse=[])
    outer = ast.Try(body=[ast.Pass()], handlers=[], orelse=[], finalbody=[inner])
    assert cancels_and_goes_on([outer])


def test_a_cancelled_return_followed_by_a_break_does_not_go_on():
    assert not cancels_and_goes_on([_cancelled(), ast.Break()])
    assert not cancels_and_goes_on([ast.Expr(value=ast.Name(id="x", ctx=ast.Load()))])
