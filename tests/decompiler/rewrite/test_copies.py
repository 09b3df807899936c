"""depyf.decompiler.rewrite.copies: ``strip_copies`` removes a finally body's copy where
it precedes an escape, and nothing else.
"""
import pytest

from depyf.decompiler.rewrite import copies

from ._astcases import dumps, stmts_of


STRIP_CASES = [
    # name, body, finally body, body after
    ("a copy before a return",
     "g()\nc()\nreturn x\n", "c()\n", "g()\nreturn x\n"),
    ("a two-statement copy before a break, in a loop",
     "for i in y:\n    if i:\n        c()\n        d()\n        break\n", "c()\nd()\n",
     "for i in y:\n    if i:\n        break\n"),
    ("other statements before a return stay",
     "g()\nh()\nreturn x\n", "c()\n", "g()\nh()\nreturn x\n"),
]


@pytest.mark.parametrize("name, body, final, expected", STRIP_CASES, ids=[c[0] for c in STRIP_CASES])
def test_strip_copies(name, body, final, expected):
    stmts = stmts_of(body)
    copies.strip_copies(stmts, stmts_of(final))
    assert dumps(stmts) == dumps(stmts_of(expected))
