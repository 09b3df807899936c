"""depyf.decompiler.output.printer: an ast built by hand (no positions, as the decompiler
builds them) -> source text.

The text is what users read and what the proof recompiles, so each case also checks
that it parses back to the very tree printed. 3.8 prints with the astunparse backport,
which parenthesizes every operation: expectations are keyed by the first version they
hold for."""
import ast
import copy

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


# Strings whose printing the printer's shortcut (no character to escape) answers, and
# strings the base class must answer: every kind of quote inside and at the end, line
# breaks, tabs, backslashes, characters that are not printable.
STRINGS = ["", "plain", "it's", 'say "hi"', "both ' and \"", "ends with '", 'ends with "',
           "line\nbreak", "tab\there", "line\nends with \"", "line\nends with '",
           "'''\n\"\"\" both triples", "back\\slash", "bell\a", "nul\0", "\u00e9t\u00e9",
           "\u200b zero width", "ends in \"\"\"", "''' and '", "\n", "\t", "'", '"',
           "a\nb'''c\"", "tab\tand 'quote'"]


@pytest.mark.skipif(not V.HAS_AST_UNPARSE, reason="3.8 prints with astunparse")
@pytest.mark.parametrize("text", STRINGS)
def test_string_literals_as_the_base_printer_writes_them(text):
    from depyf.decompiler.output.printer import Unparser, _BaseUnparser
    ours, base = Unparser(), _BaseUnparser()
    for quote_types in (None, ('"""', "'''"), ("'", '"')):
        for whitespace in (False, True):
            kwargs = {"escape_special_whitespace": whitespace}
            if quote_types is not None:
                kwargs["quote_types"] = quote_types
            assert ours._str_literal_helper(text, **kwargs) == base._str_literal_helper(text, **kwargs)
    # docstrings and constants end to end
    doc = ast.FunctionDef(name="f", args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                          kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                          body=[ast.Expr(ast.Constant(text)), ast.Pass()], decorator_list=[],
                          returns=None, type_comment=None)
    if hasattr(ast, "TypeVar"):
        doc.type_params = []
    tree = ast.Module(body=[doc, ast.Expr(ast.Constant(text))], type_ignores=[])
    expected = _BaseUnparser().visit(ast.fix_missing_locations(copy.deepcopy(tree)))
    assert Unparser().visit(tree) == expected
