"""depyf.decompiler.structure.patterns: which code is taken for a `match` statement, and that the
statements rebuilt from it compile to the same bytecode (behaviour is covered by the
corpus, tests/corpus/py310_match*.py)."""
import sys
import textwrap

import pytest

import depyf
from depyf.decompiler.structure import patterns
from depyf.decompiler.flow.instructions import normalize as normalize_instructions
from depyf.equivalence.normalize import first_difference, normalize

needs_match = pytest.mark.skipif(sys.version_info < (3, 10), reason="match needs Python 3.10")


def _function(source, name="f"):
    namespace = {}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)
    return namespace[name]


def _matches(fn):
    instrs, _ = normalize_instructions(fn.__code__)
    return patterns.find_matches(instrs)


@pytest.mark.parametrize("source", [
    # a chained assignment and a walrus also copy the top of the stack
    "def f(g):\n    a = b = g()\n    return a, b\n",
    "def f(g):\n    if (n := g()) == 1:\n        return n\n    return 0\n",
    "def f(x):\n    return x is None or x == 2\n",
    "def f(a, b, c):\n    return a < b < c\n",
])
def test_ordinary_code_is_not_a_match(source):
    assert _matches(_function(source)) == {}


@needs_match
def test_a_match_is_found_with_its_cases():
    fn = _function("""
        def f(v):
            match v:
                case {"k": x} if x:
                    return x
                case [a, b]:
                    return a
                case _:
                    return None
    """)
    found = list(_matches(fn).values())
    assert len(found) == 1
    assert len(found[0].cases) == 2  # `case _:` is the code a failed match goes to
    assert found[0].cases[0].guard is not None


SHAPES = [
    "1 | 2", "[a, b, *rest]", "[1, *_, 2]", "{'a': 1, **kw}", "str() | bytes() as s",
    "P(1, y=[q, 2])", "(x, 3) | (3, x)", "None", "[*_]", "{}", "P.Q.R(a=1)",
]


@needs_match
@pytest.mark.parametrize("shape", SHAPES)
def test_match_round_trips_to_the_same_bytecode(shape):
    source = ("def f(v):\n    r = 0\n    match v:\n        case %s:\n            r = 1\n"
              "        case 7:\n            r = 7\n    return r\n" % shape)
    fn = _function(source)
    text = depyf.decompile(fn)
    assert "match v:" in text
    again = _function(text)
    diff = first_difference(normalize(fn.__code__), normalize(again.__code__))
    assert diff is None, "%s\n%s" % (diff, text)


@needs_match
def test_rest_of_a_tested_copy_is_not_a_pattern():
    """`case 1 as n` binds only on success; a walrus binds first: never the same."""
    fn = _function("def f(g):\n    if (n := g()) == 1:\n        return n\n    return 0\n")
    text = depyf.decompile(fn)
    assert "match" not in text and ":=" in text
