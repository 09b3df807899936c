"""try/except* (3.11+): rebuilt statements compile to the same bytecode as the original
(behaviour is covered by the corpus, tests/corpus/py311_except_star.py)."""
import sys
import textwrap

import pytest

import depyf
from depyf.equivalence.normalize import first_difference, normalize

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="except* needs Python 3.11")

SOURCES = [
    """
    def f(g, log):
        try:
            g()
        except* ValueError as eg:
            log.append(eg)
        except* (TypeError, KeyError):
            log.append(2)
        return log
    """,
    """
    def f(g, log):
        try:
            g()
        except* OSError:
            log.append(1)
        else:
            log.append(2)
        finally:
            log.append(3)
    """,
    """
    def f(g):
        for i in range(3):
            try:
                g(i)
            except* KeyError:
                raise RuntimeError(i)
    """,
]


@pytest.mark.parametrize("source", SOURCES)
def test_except_star_round_trips_to_the_same_bytecode(source):
    namespace = {}
    exec(textwrap.dedent(source), namespace)
    fn = namespace["f"]
    text = depyf.decompile(fn)
    assert "except*" in text
    again = {}
    exec(text, again)
    diff = first_difference(normalize(fn.__code__), normalize(again["f"].__code__))
    assert diff is None, "%s\n%s" % (diff, text)
