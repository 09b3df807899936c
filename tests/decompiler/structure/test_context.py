"""depyf.decompiler.structure.context: the blocks a statement sequence must not run into
(``Ctx.sinks``: its stop, the enclosing loop's continue targets, retest start and follow,
the region's exit), and ``Ctx.but`` as a copy with some fields changed."""
import pytest

from depyf.decompiler.structure.context import Ctx, Loop

LOOP = dict(header=2, follow=9, body={3, 4}, continue_targets={2})
CASES = [
    # name, Ctx arguments, Loop arguments or None, sinks
    ("nothing", {}, None, set()),
    ("a stop", {"stop": 5}, None, {5}),
    ("a region exit", {"region_exit": 7}, None, {7}),
    ("in a loop: continue targets and the follow", {}, LOOP, {2, 9}),
    ("a loop without follow (it never ends)", {}, dict(LOOP, follow=None), {2}),
    ("a retesting loop: its body start too", {}, dict(LOOP, retests={4}, body_start=3), {2, 3, 9}),
    ("retest blocks but no retests", {}, dict(LOOP, body_start=3), {2, 9}),
    ("all at once", {"stop": 5, "region_exit": 7}, dict(LOOP, continue_targets={2, 6}),
     {2, 5, 6, 7, 9}),
]


@pytest.mark.parametrize("name, ctx, loop, sinks", CASES, ids=[c[0] for c in CASES])
def test_sinks(name, ctx, loop, sinks):
    assert Ctx(loop=Loop(**loop) if loop else None, **ctx).sinks() == sinks


def test_but_copies_with_changes():
    loop = Loop(**LOOP)
    ctx = Ctx(stop=5, loop=loop, handler="h", region={1, 2}, region_exit=7, escape="e", clause_base=1)
    other = ctx.but(stop=6, clause_base=None)
    assert (ctx.stop, ctx.clause_base) == (5, 1)
    assert (other.stop, other.clause_base) == (6, None)
    assert all(getattr(other, f) is getattr(ctx, f)
               for f in ("loop", "handler", "region", "region_exit", "escape"))
    with pytest.raises(AttributeError):
        ctx.but(stpo=6)  # a misspelt field is refused (__slots__)
