"""depyf.decompiler.rewrite.bodies: ``finish_body`` on hand-built function bodies (the
compiler's implicit returns dropped, an unreachable tail return put into an else).
"""
import pytest

from depyf.decompiler.facts import Fact
from depyf.decompiler.rewrite import bodies

from ._astcases import dumps, none, note, stmts_of


BODY_CASES = [
    # name, source in, set-up, finish_body keywords, source out
    ("the implicit return None goes",
     "f()\nreturn None\n", none, {},
     "f()\n"),
    ("a bare return at the end goes",
     "f()\nreturn\n", none, {},
     "f()\n"),
    ("the compiler's return at the end of an arm goes",
     "if c:\n    g()\n    return None\n", note(Fact.AT_END, 0, "body", 1), {},
     "if c:\n    g()\n"),
    ("a returned value stays",
     "f()\nreturn 1\n", none, {},
     "f()\nreturn 1\n"),
    ("an empty body is pass",
     "return None\n", none, {},
     "pass\n"),
    ("not a function: the return None stays",
     "f()\nreturn None\n", none, {"is_function": False},
     "f()\nreturn None\n"),
    ("an unreachable tail return None goes into the last if's else",
     "if c:\n    return 1\nreturn None\n", none, {"unreachable_tail_return": True},
     "if c:\n    return 1\nelse:\n    return None\n"),
    ("an unreachable tail return: the last return goes into an else",
     "if c:\n    return 1\nreturn 2\n", none, {"unreachable_tail_return": True},
     "if c:\n    return 1\nelse:\n    return 2\n"),
]


@pytest.mark.parametrize("name, source, setup, kwargs, expected", BODY_CASES,
                         ids=[c[0] for c in BODY_CASES])
def test_finish_body(name, source, setup, kwargs, expected):
    stmts = stmts_of(source)
    setup(stmts)
    assert dumps(bodies.finish_body(stmts, **kwargs)) == dumps(stmts_of(expected))
