"""depyf.decompiler.rewrite.tree: ``drop_tail`` drops what ends each path and leaves its
input as it was (callers compare its result with other code and keep the original).
"""
import pytest

from depyf.decompiler.rewrite import tree

from ._astcases import dumps, stmts_of


DROP_TAIL_CASES = [
    ("the last statement", "f()\nreturn None\n", "f()\n"),
    ("the ends of both arms", "if c:\n    return None\nelse:\n    g()\n    return None\n",
     "if c:\n    pass\nelse:\n    g()\n"),
    ("an else left with pass is none", "if c:\n    g()\nelse:\n    return None\n",
     "if c:\n    g()\n"),
    ("the end of a with body and a handler",
     "with m:\n    try:\n        a()\n        return None\n    except E:\n        return None\n",
     "with m:\n    try:\n        a()\n    except E:\n        pass\n"),
    ("not before the end", "return None\nf()\n", "return None\nf()\n"),
]


@pytest.mark.parametrize("name, source, expected", DROP_TAIL_CASES, ids=[c[0] for c in DROP_TAIL_CASES])
def test_drop_tail_leaves_its_input_as_it_was(name, source, expected):
    stmts = stmts_of(source)
    before = dumps(stmts)
    assert dumps(tree.drop_tail(stmts, tree.is_return_none)) == dumps(stmts_of(expected))
    assert dumps(stmts) == before
