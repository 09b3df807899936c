"""depyf.decompiler.symbolic.exprs.negate folds `not` the way the compiler folds it into
jumps, and depyf.decompiler.facts travels with deepcopies of a tree."""
import ast
import copy

import pytest

from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
from depyf.decompiler.symbolic.exprs import negate

NEGATE = [
    ("not x", "x"),
    ("a is b", "a is not b"),
    ("a is not b", "a is b"),
    ("a in b", "a not in b"),
    ("a not in b", "a in b"),
    ("a < b", "not a < b"),
    ("x", "not x"),
]


@pytest.mark.parametrize("source, expected", NEGATE)
def test_negate(source, expected):
    node = ast.parse(source, mode="eval").body
    assert ast.dump(negate(node)) == ast.dump(ast.parse(expected, mode="eval").body)


def test_facts_note_get_has():
    node = ast.Return(value=None)
    assert not facts.has(node, Fact.IMPLICIT) and facts.get(node, Fact.IMPLICIT, "no") == "no"
    facts.note(node, Fact.IMPLICIT, False)
    assert facts.has(node, Fact.IMPLICIT) and facts.get(node, Fact.IMPLICIT) is False
    with pytest.raises(AttributeError):
        Fact.IMPLICT  # a misspelt fact fails loudly  # noqa: B018


def test_facts_travel_with_deepcopy_and_keep_identity():
    value = ast.Name(id="x", ctx=ast.Load())
    ret = ast.Return(value=value)
    with_ = ast.With(items=[], body=[ret])
    facts.note(with_, Fact.WITH_RETURNS, value)
    copied = copy.deepcopy(with_)
    assert facts.get(copied, Fact.WITH_RETURNS) is copied.body[0].value
    assert facts.get(copied, Fact.WITH_RETURNS) is not value
