"""depyf.decompiler.output.printer: an ast built by hand (no positions, as the decompiler
builds them) -> source text.

The text is what users read and what the proof recompiles, so each case also checks
that it parses back to the very tree printed. 3.8 prints with the astunparse backport,
which parenthesizes every operation: expectations are keyed by the first version they
hold for."""
import ast

import pytest

from depyf.bytecode import versions as V
from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
from depyf.decompiler.mismatch import Mismatch
from depyf.decompiler.output.printer import unparse
from depyf.decompiler.symbolic.markers import NULL, PopExceptStmt


def for_version(table):
    return table[max(v for v in table if v <= V.PY)]


def name(n):
    return ast.Name(id=n, ctx=ast.Load())


def store(n):
    return ast.Name(id=n, ctx=ast.Store())


def const(value):
    return ast.Constant(value=value, kind=None)


def binop(left, op, right):
    return ast.BinOp(left=left, op=op, right=right)


def assign(target, value):
    return ast.Assign(targets=[store(target)], value=value, type_comment=None)


def module(*body):
    return ast.Module(body=list(body), type_ignores=[])


CASES = [
    # name, tree, {first version: text}
    ("precedence kept without parentheses in the tree",
     ast.Expr(binop(name("a"), ast.Add(), binop(name("b"), ast.Mult(), name("c")))),
     {(3, 8): "(a + (b * c))\n", (3, 9): "a + b * c\n"}),
    ("parentheses the tree needs",
     ast.Expr(binop(binop(name("a"), ast.Add(), name("b")), ast.Mult(), name("c"))),
     {(3, 8): "((a + b) * c)\n", (3, 9): "(a + b) * c\n"}),
    ("not / and / or",
     assign("x", ast.BoolOp(op=ast.Or(), values=[
         ast.BoolOp(op=ast.And(), values=[ast.UnaryOp(op=ast.Not(), operand=name("a")), name("b")]),
         name("c")])),
     {(3, 8): "x = (((not a) and b) or c)\n", (3, 9): "x = not a and b or c\n"}),
    ("a one-element tuple", assign("x", ast.Tuple(elts=[name("a")], ctx=ast.Load())),
     {(3, 8): "x = (a,)\n"}),
    ("if/else in a module", module(ast.If(test=name("a"), body=[assign("x", const(1))],
                                          orelse=[assign("x", const(2))])),
     {(3, 8): "if a:\n    x = 1\nelse:\n    x = 2\n"}),
    ("a call with star arguments and keywords",
     ast.Expr(ast.Call(func=name("f"), args=[ast.Starred(value=name("a"), ctx=ast.Load())],
                       keywords=[ast.keyword(arg="k", value=const(1)),
                                 ast.keyword(arg=None, value=name("kw"))])),
     {(3, 8): "f(*a, k=1, **kw)\n"}),
]


@pytest.mark.parametrize("label, tree, expected", CASES, ids=[c[0] for c in CASES])
def test_unparse(label, tree, expected):
    text = unparse(tree)
    assert text == for_version(expected)
    parsed = ast.parse(text).body
    want = tree.body if isinstance(tree, ast.Module) else [tree]
    assert [ast.dump(s) for s in parsed] == [ast.dump(s) for s in want]


def test_indentation():
    tree = ast.parse("if a:\n    if b:\n        c = 1\nelse:\n    d = 2\n")
    assert unparse(tree, indentation=2) == "if a:\n  if b:\n    c = 1\nelse:\n  d = 2\n"
    assert unparse(tree) == "if a:\n    if b:\n        c = 1\nelse:\n    d = 2\n"


@pytest.mark.skipif(not V.HAS_AST_UNPARSE, reason="3.8's astunparse has no hook for a filter on its own line")
def test_comprehension_filter_on_its_own_line():
    tree = ast.parse("[x for x in y if x if z]").body[0]
    first, second = tree.value.generators[0].ifs
    facts.note(second, Fact.OWN_LINE, True)
    text = unparse(tree)
    assert text == "[x for x in y if x\n if z]\n"
    assert ast.dump(ast.parse(text).body[0]) == ast.dump(tree)


@pytest.mark.parametrize("tree", [
    assign("x", NULL),  # a marker as a value
    module(assign("x", const(1)), PopExceptStmt()),  # a pseudo statement in a body
    ast.Expr(ast.Call(func=name("f"), args=[NULL], keywords=[])),
], ids=["marker value", "pseudo statement", "marker argument"])
def test_internal_values_are_a_mismatch(tree):
    with pytest.raises(Mismatch, match="internal value"):
        unparse(tree)
