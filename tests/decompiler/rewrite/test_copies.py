"""depyf.decompiler.rewrite.copies: ``strip_copies`` removes a finally body's copy where
it precedes an escape, and nothing else.
"""
import pytest

from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
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


def _finally_copy(stmts, *path):
    node = stmts
    for step in path:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    facts.note(node, Fact.FINALLY_COPY, True)
    return stmts


def test_normal_path_copy_with_nested_ifs_is_the_handlers_and():
    # the handler's copy goes to one re-raise: it reads `assert not c or not s`; the
    # copy on the normal path keeps the nested if, which becomes the finally body
    out = _finally_copy(stmts_of("try:\n    yield\nfinally:\n    f()\n    assert not c or not s, 'm'\n"
                                 "f()\nif c:\n    assert not s, 'm'\n"), 0)
    copies.drop_finally_copies(out)
    assert dumps(out) == dumps(stmts_of("try:\n    yield\nfinally:\n    f()\n    if c:\n"
                                        "        assert not s, 'm'\n"))


def test_other_normal_path_code_stays():
    source = "try:\n    yield\nfinally:\n    if a and b:\n        f()\nif a:\n    if c:\n        f()\n"
    out = _finally_copy(stmts_of(source), 0)
    copies.drop_finally_copies(out)
    assert dumps(out) == dumps(stmts_of(source))


def test_try_finally_ending_a_loop_arm_loses_its_copy():
    # the arm goes back to the head: the copy ends in `continue` on each path, and the
    # code after the if is its else
    body = _finally_copy(stmts_of("if x:\n    try:\n        g()\n    finally:\n        if d:\n            h()\n"
                                  "    if d:\n        h()\n        continue\n    continue\nk()\n"), 0, "body", 0)
    copies.drop_loop_end_finally_copy(body)
    assert dumps(body) == dumps(stmts_of("if x:\n    try:\n        g()\n    finally:\n        if d:\n"
                                         "            h()\nelse:\n    k()\n"))
