"""depyf.decompiler.structure.values: the value of two arms that meet (``and_or`` on
hand-built expressions; the layouts that need it are in test_layout_roundtrip)."""
import ast

import pytest

from depyf.decompiler.structure import values
from depyf.decompiler.symbolic.markers import Marker


def _e(src):
    return ast.parse(src, mode="eval").body


# test, true arm, false arm, `test and ... or ...` (None: no such reading)
AND_OR = [
    ("a", "b or c", "c", "a and b or c"),
    ("a", "b1 or b2 or c", "c", "a and (b1 or b2) or c"),
    ("a", "b or c or d", "c or d", "a and b or c or d"),
    ("a1 and a2", "b or c", "c", "a1 and a2 and b or c"),
    ("a", "b or c", "d", None),          # the false arm is not the true arm's end
    ("a", "b or c", "a or c", "a and b or c"),  # 3.14: a false `a` tested again (same node)
    ("a", "b and c", "c", None),         # not an `or`
    ("a", "c or d", "c or d", None),     # nothing left for the middle
    ("a", "b or x or d", "c or d", None),
]


@pytest.mark.parametrize("test, body, orelse, expected", AND_OR, ids=[" | ".join(c[:3]) for c in AND_OR])
def test_and_or(test, body, orelse, expected):
    t = _e(test)
    e = _e(orelse)
    if isinstance(e, ast.BoolOp) and ast.dump(e.values[0]) == ast.dump(t):
        e.values[0] = t  # the value the test took, not an expression computed again
    got = values.and_or(t, _e(body), e)
    if expected is None:
        assert got is None
    else:
        assert ast.dump(got) == ast.dump(_e(expected))


def test_and_or_needs_the_tested_value_itself_in_the_false_arm():
    # `a or c` with an `a` computed again (a call, say) is not the kept value of `a`
    assert values.and_or(_e("f()"), _e("b or c"), _e("f() or c")) is None


def test_and_or_leaves_internal_values_alone():
    assert values.and_or(Marker(), _e("b or c"), _e("c")) is None


def test_merge_stacks_joins_as_and_or_only_where_the_false_arm_is_shared():
    a, b = [_e("b or c")], [_e("c")]
    assert ast.dump(values.merge_stacks(_e("a"), a, b, lambda: True)[0]) == ast.dump(_e("a and b or c"))
    assert ast.dump(values.merge_stacks(_e("a"), a, b, lambda: False)[0]) == ast.dump(_e("(b or c) if a else c"))
