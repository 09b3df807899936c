"""depyf.decompiler.rewrite.comprehensions: the loop a comprehension's code runs, as the
symbolic stage reads it (``for`` over ``.0``, filters as ``if`` or ``if not c: continue``,
an append/add/setitem or a ``yield`` at the bottom) -> the comprehension expression.

Loops are written as source with a ``LEAF`` statement where the element is produced; the
leaf is put in by hand, since ``AppendStmt`` is the executor's pseudo statement."""
import ast

import pytest

from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
from depyf.decompiler.mismatch import Mismatch
from depyf.decompiler.rewrite.comprehensions import comprehension_from_body
from depyf.decompiler.symbolic.markers import AppendStmt


def _name(n):
    return ast.Name(id=n, ctx=ast.Load())


LEAVES = {
    "list": lambda: AppendStmt(acc=ast.List(elts=[], ctx=ast.Load()), value=_name("x"), key=None),
    "set": lambda: AppendStmt(acc=ast.Set(elts=[]), value=_name("x"), key=None),
    "dict": lambda: AppendStmt(acc=ast.Dict(keys=[], values=[]), value=_name("v"), key=_name("k")),
    "generator": lambda: ast.Expr(value=ast.Yield(value=_name("x"))),
}


def _body(source, leaf):
    """Parse the loop ``source``, put ``leaf`` where ``LEAF`` stands, iterate over ``.0``."""
    body = ast.parse(source).body
    body[0].iter = _name(".0")
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                stmts[:] = [LEAVES[leaf]() if isinstance(s, ast.Expr) and isinstance(s.value, ast.Name)
                            and s.value.id == "LEAF" else s for s in stmts]
    return body


FOR = "for x in _:\n    LEAF\n"
CASES = [
    # name, loop source, leaf, expected expression
    ("list", FOR, "list", "[x for x in seq]"),
    ("set", FOR, "set", "{x for x in seq}"),
    ("dict", "for k, v in _:\n    LEAF\n", "dict", "{k: v for k, v in seq}"),
    ("generator", FOR, "generator", "(x for x in seq)"),
    ("filter as an if", "for x in _:\n    if c:\n        LEAF\n", "list", "[x for x in seq if c]"),
    ("filter as if-not-continue", "for x in _:\n    if not c:\n        continue\n    LEAF\n",
     "list", "[x for x in seq if c]"),
    ("`if a or b: continue` is two filters", "for x in _:\n    if a or b:\n        continue\n    LEAF\n",
     "list", "[x for x in seq if not a if not b]"),
    ("an if-expression filter (its arms skip on their own)",
     "for x in _:\n    if t:\n        if not a:\n            continue\n    else:\n"
     "        if not b:\n            continue\n    LEAF\n",
     "list", "[x for x in seq if (a if t else b)]"),
    ("only one arm skips", "for x in _:\n    if t:\n        pass\n    else:\n"
     "        if not b:\n            continue\n    LEAF\n",
     "list", "[x for x in seq if t or b]"),
    ("an assignment is a `for` over one item (3.9+ compile it so)",
     "for x in _:\n    y = f(x)\n    if y:\n        LEAF\n", "list", "[x for x in seq for y in [f(x)] if y]"),
    ("nested loops, the inner one over the outer target",
     "for x in _:\n    for y in x:\n        if y:\n            LEAF\n", "generator",
     "(x for x in seq for y in x if y)"),
]


@pytest.mark.parametrize("name, source, leaf, expected", CASES, ids=[c[0] for c in CASES])
def test_comprehension_from_body(name, source, leaf, expected):
    got = comprehension_from_body(None, _body(source, leaf), _name("seq"))
    assert ast.dump(got) == ast.dump(ast.parse(expected, mode="eval").body)


def test_the_trailing_return_is_dropped():
    body = _body(FOR, "list") + [ast.Return(value=_name("acc"))]
    got = comprehension_from_body(None, body, _name("seq"))
    assert ast.dump(got) == ast.dump(ast.parse("[x for x in seq]", mode="eval").body)


@pytest.mark.parametrize("source, message", [
    ("for x in _:\n    LEAF\nelse:\n    pass\n", "loop with else"),
    ("for x in _:\n    f(x)\n    LEAF\n", "2 statements"),
    ("for x in _:\n    y = x\n", "unexpected statement"),
    ("for x in _:\n    if t:\n        y = 1\n    else:\n        continue\n    LEAF\n", "2 statements"),
], ids=["for-else", "two statements", "no element", "an if that does more than skip"])
def test_other_loops_are_a_mismatch(source, message):
    with pytest.raises(Mismatch, match=message):
        comprehension_from_body(None, _body(source, "list"), _name("seq"))


def test_a_filter_on_its_own_line_stays_there():
    body = _body("for x in _:\n    if c:\n        LEAF\n", "list")
    facts.note(body[0].body[0], Fact.TEST_OWN_LINE, True)
    got = comprehension_from_body(None, body, _name("seq"))
    assert facts.get(got.generators[0].ifs[0], Fact.OWN_LINE) is True
    plain = comprehension_from_body(None, _body("for x in _:\n    if c:\n        LEAF\n", "list"),
                                    _name("seq"))
    assert not facts.has(plain.generators[0].ifs[0], Fact.OWN_LINE)

