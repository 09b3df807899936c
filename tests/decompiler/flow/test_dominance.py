"""depyf.decompiler.flow.dominance: postdominator trees on hand-built graphs, and the
tree-based ``CFG.postdominator_merge`` agreeing with the bit-set computation it replaced
on every question structuring asks over the semantic corpus."""
import sys
from pathlib import Path

import pytest

import depyf
from depyf.decompiler.flow import cfg as cfg_module
from depyf.decompiler.flow.dominance import PostDominators

# graph: block -> successors; an empty list is a return/raise
DIAMOND = {0: [1, 2], 1: [3], 2: [3], 3: []}
LOOP = {0: [1], 1: [2, 4], 2: [3, 1], 3: [1], 4: []}
ONE_ARM_RETURNS = {0: [1, 2], 1: [], 2: [3], 3: []}
ENDLESS = {0: [1, 2], 1: [1], 2: [3], 3: []}
NESTED = {0: [1, 4], 1: [2, 3], 2: [3], 3: [5], 4: [5], 5: []}
# while 1: if 2: break (3 -> 5) else: continue (4 -> 1); 5 after the loop
LOOP_BREAK = {0: [1], 1: [2, 5], 2: [3, 4], 3: [5], 4: [1], 5: []}
ALL_RETURN = {0: [1, 2], 1: [], 2: []}
TWO_ENTRIES = {0: [2], 1: [2], 2: [3], 3: []}

CASES = [
    # graph, roots, sources, sinks, limit, ignore_terminal, expected nearest common
    ("diamond", DIAMOND, [0], [1, 2], set(), None, False, 3),
    ("diamond, merge is a sink", DIAMOND, [0], [1, 2], {3}, None, False, None),
    ("diamond, limit cuts the merge off", DIAMOND, [0], [1, 2], set(), {0, 1, 2}, False, None),
    # a lone source with a straight run to the end answers the block after it (as the
    # bit-set computation did): the merge of a branch is never the branch itself
    ("lone source, straight run", DIAMOND, [0], [1], set(), None, False, 3),
    ("lone source at the end", DIAMOND, [0], [3], set(), None, False, None),
    ("loop: the test is reached from both", LOOP, [0], [2, 3], set(), None, False, 1),
    ("arm that returns: no merge", ONE_ARM_RETURNS, [0], [1, 2], set(), None, False, None),
    ("arm that returns, ignored", ONE_ARM_RETURNS, [0], [1, 2], {3}, None, True, 2),
    ("endless arm does not constrain", ENDLESS, [0], [1, 2], set(), None, False, 2),
    ("nested diamond, inner arms", NESTED, [0], [2, 3], set(), None, False, 3),
    ("nested diamond, outer arms", NESTED, [0], [1, 4], set(), None, False, 5),
    ("nested diamond, limited to the outer arm", NESTED, [1], [2, 3], set(), {1, 2, 3}, False, 3),
    ("break and continue: they meet after the loop", LOOP_BREAK, [0], [3, 4], set(), None, False, 5),
    ("break and continue, both targets sinks", LOOP_BREAK, [0], [3, 4], {1, 5}, None, False, None),
    ("every arm returns, ignored: nothing goes on", ALL_RETURN, [0], [1, 2], set(), None, True, None),
    ("every arm returns", ALL_RETURN, [0], [1, 2], set(), None, False, None),
    ("two roots", TWO_ENTRIES, [0, 1], [0, 1], set(), None, False, 2),
    ("a source on another's path", TWO_ENTRIES, [0], [0, 2], set(), None, False, 2),
]


@pytest.mark.parametrize("name, graph, roots, sources, sinks, limit, ignore, expected", CASES,
                         ids=[c[0] for c in CASES])
def test_nearest_common_postdominator(name, graph, roots, sources, sinks, limit, ignore, expected):
    tree = PostDominators(lambda b: graph[b], roots, sinks, limit, ignore)
    inside = [s for s in sources if tree.inside(s)]
    got = tree.nearest_common(inside) if len(inside) == len(sources) else None
    assert got == expected


def test_blocks_that_never_reach_the_exit_are_not_in_the_tree():
    tree = PostDominators(lambda b: ENDLESS[b], [0], set(), None, False)
    assert tree.covers(1) and not tree.reaches_exit(1)
    assert tree.reaches_exit(0) and tree.reaches_exit(2)
    returns = PostDominators(lambda b: ALL_RETURN[b], [0], set(), None, True)
    assert not any(returns.reaches_exit(b) for b in ALL_RETURN)


def test_tree_grows_for_sources_it_has_not_seen():
    graph = {0: [2], 1: [2], 2: []}
    tree = PostDominators(lambda b: graph[b], [0], set(), None, False)
    assert not tree.covers(1)
    tree.extend([1])
    assert tree.covers(1) and tree.nearest_common([0, 1]) == 2


def _corpus_functions():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import test_semantic_roundtrip as corpus
    return [p.values[0].fn for p in corpus.CASE_PARAMS if not p.marks]


def test_tree_answers_as_the_bit_sets_did(monkeypatch):
    fast = cfg_module.CFG.postdominator_merge
    asked = []

    def both(self, sources, sinks, limit=None, ignore_terminal=False):
        got = fast(self, sources, sinks, limit, ignore_terminal)
        if all(s not in sinks and (limit is None or s in limit) for s in sources):
            want = self._postdominator_merge_slow(sources, sinks, limit, ignore_terminal)
            asked.append((got, want))
            assert got == want, (sources, sinks, got, want)
        return got

    monkeypatch.setattr(cfg_module.CFG, "postdominator_merge", both)
    for fn in _corpus_functions():
        try:
            depyf.decompile(fn, allow_unproven=True)
        except depyf.DecompilationError:
            pass
    assert len(asked) > 500  # the comparison really ran
