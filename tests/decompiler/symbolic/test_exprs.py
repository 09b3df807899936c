"""depyf.decompiler.symbolic.exprs.negate folds `not` the way the compiler folds it into
jumps (keeping each `is`/`in` test the instruction the code used), and
depyf.decompiler.facts travels with deepcopies of a tree."""
import ast
import copy

import pytest

from depyf.bytecode import versions as V
from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
from depyf.decompiler.symbolic.exprs import NEGATABLE, negate

NEGATE = [
    ("not x", "x"),
    ("a is b", "a is not b"),
    ("a is not b", "a is b"),
    ("a in b", "a not in b"),
    ("a not in b", "a in b"),
    ("a < b", "not a < b"),
    ("x", "not x"),
]


# and/or: `not` is pushed inside (how people write it) unless that would print an `is`/`in`
# test as the other instruction than the code used (facts.CODE_OP on the comparison):
# code_ops "same" = the code computed each comparison as written, "opposite" = as its
# negation (a comparison negate already turned round)
NEGATE_BOOL = [
    ("a or b", None, "not a and not b"),
    ("a and not b", None, "not a or b"),
    ("a in b or c", None, "a not in b and not c"),
    # (3.14 keeps `not (a in b)` as `in` in a test: pushing the `not` in keeps the instruction)
    ("a in b or c", "same", "not (a in b or c)" if V.NOT_FOLDS_INTO_COMPARE_TESTS
     else "not a in b and not c"),
    ("a is b and c", "same", "not (a is b and c)" if V.NOT_FOLDS_INTO_COMPARE_TESTS
     else "not a is b or not c"),
    ("a not in b or c", "opposite", "a in b and not c"),
    ("a is not b and (c or d)", "opposite", "a is b or (not c and not d)"),
]


def _parse(source, code_ops=None):
    node = ast.parse(source, mode="eval").body
    for sub in ast.walk(node):
        if code_ops and isinstance(sub, ast.Compare):
            op = type(sub.ops[0])
            facts.note(sub, Fact.CODE_OP, op if code_ops == "same" else NEGATABLE[op])
    return node


@pytest.mark.parametrize("source, expected", NEGATE)
def test_negate(source, expected):
    assert ast.dump(negate(_parse(source))) == ast.dump(_parse(expected))


@pytest.mark.parametrize("source, code_ops, expected", NEGATE_BOOL)
def test_negate_and_or(source, code_ops, expected):
    assert ast.dump(negate(_parse(source, code_ops))) == ast.dump(_parse(expected))


def test_negated_comparison_keeps_the_instruction_the_code_used():
    node = negate(_parse("a is b", "same"))
    if V.NOT_FOLDS_INTO_COMPARE_TESTS:
        assert isinstance(node.ops[0], ast.IsNot) and facts.get(node, Fact.CODE_OP) is ast.Is
    else:  # 3.14: `not (a is b)` compiles to the `is` the code used, `a is not b` would not
        assert isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and \
            isinstance(node.operand.ops[0], ast.Is)
    assert not facts.has(negate(_parse("a is b")), Fact.CODE_OP)


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
    facts.note(with_, Fact.CHAIN, value)
    copied = copy.deepcopy(with_)
    assert facts.get(copied, Fact.CHAIN) is copied.body[0].value
    assert facts.get(copied, Fact.CHAIN) is not value
