"""if/else and condition layout: where two source forms behave the same, the decompiled
one must be the form the compiler's layout shows, so it compiles to the same bytecode
(behaviour is covered by the corpus)."""
import sys
import textwrap

import pytest

import depyf
from depyf.verify.normalize import first_difference, normalize

SOURCES = [
    # a conditional expression returned: 3.12+ copies the return into each arm, so a
    # constant arm is LOAD_CONST + RETURN_VALUE, never the RETURN_CONST of a statement
    """
    def f(a):
        return True if a else False
    """,
    """
    def f(val):
        return '' if val == 'unknown' else val
    """,
    """
    def f(result):
        return -2 if result == -1 else result
    """,
    """
    def f(a, b):
        if a:
            return 1
        return None if b else a
    """,
    # `if c: A else: return` + rest: A jumps forward over the else arm to the rest
    """
    def f(node, clean):
        if isinstance(node, str) and node:
            text = node
        else:
            return None
        if clean:
            text = text.strip()
        return text
    """,
    # an if/else ending the function: the arm that falls off the end gets a copy of the
    # implicit `return None`, which is no reason to take the else arm out of the if
    """
    def f(self, obj):
        if self.proto >= 2:
            self.write(1 if obj else 2)
        else:
            self.write(3 if obj else 4)
    """,
    # a one-line `if c: return`: its `return None` follows the test, so it is no copy
    # of the implicit one at the end
    """
    def f(self, file):
        if self.rolled: return
        max_size = self.max_size
        if max_size and file.tell() > max_size:
            self.rollover()
    """,
]

# layouts of 3.12+ (older versions still differ there, for other reasons)
SOURCES_312 = [
    # `if c: body` ending a loop body vs `if not c: continue` + body: 3.12+ lays both
    # out alike; the jump back has the test's line only in the first
    """
    def f(a, b):
        count = 0
        for i in a:
            if i is b or i == b:
                count += 1
        return count
    """,
    """
    def f(a, b):
        count = 0
        for i in a:
            if i is not b and i not in b:
                continue
            count += 1
        return count
    """,
    """
    def f(names, ns):
        for name in names:
            if name in ('None', 'True'):
                continue
            try:
                ns[name] = name
            except KeyError:
                pass
        return ns
    """,
    """
    def f(mro, ns):
        for base in mro:
            if base is not object:
                try:
                    doc = base.__doc__
                except AttributeError:
                    continue
                if doc is not None:
                    return doc
        return None
    """,
]


@pytest.mark.parametrize("source", SOURCES + [
    pytest.param(s, marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="3.12+ layout"))
    for s in SOURCES_312])
def test_round_trips_to_the_same_bytecode(source):
    namespace = {}
    exec(textwrap.dedent(source), namespace)
    fn = namespace["f"]
    text = depyf.decompile(fn)
    again = {}
    exec(text, again)
    diff = first_difference(normalize(fn.__code__), normalize(again["f"].__code__))
    assert diff is None, "%s\n%s" % (diff, text)
