"""exprs.same_tree answers what ``ast.dump(a) == ast.dump(b)`` answers, without printing:
checked against ``ast.dump`` itself on every pair of neighbouring expressions and
statements of a stdlib module, and on pairs built to differ only where ``ast.dump``'s text
could still agree (absent fields, None and empty lists, equal numbers of other types)."""
import ast
import copy
import inspect
import itertools
import textwrap

import pytest

from depyf.decompiler.symbolic.exprs import same_tree


def _dump_equal(a, b):
    text = lambda n: ast.dump(n) if isinstance(n, ast.AST) else repr(n)  # noqa: E731
    return text(a) == text(b)


def _nodes():
    tree = ast.parse(inspect.getsource(textwrap))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.expr, ast.stmt))]


def test_agrees_with_dump_on_real_code():
    nodes = _nodes()
    pairs = list(zip(nodes, nodes[1:])) + [(n, copy.deepcopy(n)) for n in nodes[:300]]
    # the same kinds side by side, where the dumps agree more often
    by_kind = {}
    for n in nodes:
        by_kind.setdefault(type(n), []).append(n)
    for group in by_kind.values():
        pairs += list(itertools.combinations(group[:25], 2))
    equal = 0
    for a, b in pairs:
        assert same_tree(a, b) == _dump_equal(a, b), ast.dump(a)
        equal += _dump_equal(a, b)
    assert equal > 300 and len(pairs) - equal > 300  # both answers are exercised


def _name(id_, ctx=ast.Load):
    return ast.Name(id=id_, ctx=ctx())


def _without(node, field):
    delattr(node, field)
    return node


TRICKY = [
    (ast.Constant(value=1, kind=None), ast.Constant(value=True, kind=None)),
    (ast.Constant(value=1, kind=None), ast.Constant(value=1.0, kind=None)),
    (ast.Constant(value=float("nan"), kind=None), ast.Constant(value=float("nan"), kind=None)),
    (ast.Constant(value=(1, 2), kind=None), ast.Constant(value=(1, 2), kind=None)),
    (_name("x"), _name("x", ast.Store)),
    (ast.Constant(value=1, kind=None), _without(ast.Constant(value=1, kind=None), "kind")),
    (ast.Constant(value=1, kind=None), ast.Constant(value=1, kind="u")),
    (ast.Return(value=None), _without(ast.Return(value=None), "value")),
    (ast.Tuple(elts=[], ctx=ast.Load()), _without(ast.Tuple(elts=[], ctx=ast.Load()), "elts")),
    (ast.Call(func=_name("f"), args=[], keywords=[]), ast.Call(func=_name("f"), args=[_name("x")], keywords=[])),
    (ast.Call(func=_name("f"), args=[_name("x")], keywords=[]),
     ast.Call(func=_name("f"), args=[_name("x")], keywords=[])),
    (ast.Expr(value=_name("x")), _name("x")),
    (_name("x"), "x"),
    ("x", "x"),
]


@pytest.mark.parametrize("a, b", TRICKY, ids=[str(k) for k in range(len(TRICKY))])
def test_agrees_with_dump_where_the_text_could_hide_a_difference(a, b):
    assert same_tree(a, b) == _dump_equal(a, b)
    assert same_tree(b, a) == _dump_equal(b, a)
