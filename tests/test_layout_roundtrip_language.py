"""Layout snippets of the shapes found by CPython's language tests and torch's source
(``tests/corpus/language_shapes.py``): each, decompiled and compiled again, must give the
same normalized bytecode as the original (as in ``test_layout_roundtrip``)."""
import sys
import textwrap

import pytest

import depyf
from depyf.equivalence.normalize import first_difference, normalize

SNIPPETS = {
    # 3.11+ stores in reverse order; the `or` merges start with the other values waiting
    "parallel_assignment_of_or_values": '''
        def f(s):
            start, stop, step = s.start or 0, s.stop or 9, s.step or 1
            return start, stop, step
    ''',
    "parallel_assignment_of_conditional_expressions": '''
        def f(s, x, y):
            a, b = (s if x else y), (x.real if y else s)
            return a, b
    ''',
}

# the snippets whose syntax needs a newer Python than 3.8
MIN_PYTHON = {}
# not read back bytecode-equal on some versions
KNOWN = {}


def _function(source):
    ns = {}
    exec(compile(textwrap.dedent(source), "<layout>", "exec"), ns)
    return ns["f"]


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_round_trip_gives_the_same_bytecode(name, request):
    if sys.version_info < MIN_PYTHON.get(name, (3,)):
        pytest.skip("needs Python %d.%d" % MIN_PYTHON[name])
    if tuple(sys.version_info[:2]) in KNOWN.get(name, ()):
        request.applymarker(pytest.mark.xfail(reason="not fixed on this version", strict=True))
    fn = _function(SNIPPETS[name])
    text = depyf.decompile(fn)
    again = _function(text)
    diff = first_difference(normalize(fn.__code__), normalize(again.__code__))
    assert diff is None, "%s\n%s" % (diff.detail, text)
