"""if/else and condition layout: where two source forms behave the same, the decompiled
one must be the form the compiler's layout shows, so it compiles to the same bytecode
(behaviour is covered by the corpus)."""
import sys
import textwrap

import pytest

import depyf
from depyf.equivalence.normalize import first_difference, normalize

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

# if/elif/else: up to 3.9 the jump over an `else` survives a body that never goes on;
# it tells `else:` from a guard clause followed by the rest
ELSE_SOURCES = [
    # elif after a raise: one if statement, the dead jump goes to its end
    """
    def f(a, b, s):
        if a and b:
            raise ValueError(1)
        elif not a and not b:
            raise ValueError(2)
        elif a:
            s = a
        return s
    """,
    # a body ending in a try whose handler raises, then no else
    """
    def f(s):
        if isinstance(s, str):
            try:
                return s.encode('ascii')
            except UnicodeEncodeError:
                raise ValueError(s)
        if isinstance(s, bytes):
            return s
        return 3
    """,
    # ... and with an else: its jump follows the except chain
    """
    def f(s):
        if s and s < 0:
            try:
                return 1 / s
            except ValueError:
                return 2
        else:
            return 3
    """,
    # a `continue` whose jumps were threaded past it is no else jump
    """
    def f(obj, changes):
        for f in obj:
            if f.kind is None:
                continue
            if not f.init:
                if f.name in changes:
                    raise ValueError(f)
                continue
            if f.name not in changes:
                if f.kind and f.default:
                    raise ValueError(f)
                changes[f.name] = getattr(obj, f.name)
        return changes
    """,
    # `if c: break` `else: ...` ending a loop body: the else jump goes back to the head
    """
    def f(c):
        rv = False
        while c:
            if c.handlers:
                rv = True
                break
            if not c.propagate:
                break
            else:
                c = c.parent
        return rv
    """,
    # 3.8: an assert of a comparison (an if would negate the operator instead)
    """
    def f(T, S, memo):
        assert T is not bool, "initial type T is bool"
        assert id(S) not in memo
        assert isinstance(T, int) and T >= 0, "lineno"
        if T is None:
            raise AssertionError("kept an if")
        return T
    """,
    # a compound test at the end of a loop body: its false jumps go back to the head
    """
    def f(self, dest):
        for action in self._actions:
            if action.dest == dest and action.default is not None:
                return action.default
        return self._defaults.get(dest, None)
    """,
    # an if body ending in a nested if whose arms leave, then elif
    """
    def f(self, instance):
        if instance is None:
            if self.abstract:
                return self
            raise AttributeError()
        elif self.fget is None:
            raise AttributeError("unreadable attribute")
        return self.fget(instance)
    """,
    # if/else where only the if part goes on: the statement ends where its jump goes
    """
    def f(os, targetpath):
        if hasattr(os, "mkfifo"):
            os.mkfifo(targetpath)
        else:
            raise ValueError("fifo not supported by system")
    """,
    # an if/elif/else ending the function, its last arm several statements
    """
    def f(self, section, option):
        if not section or section == self.default_section:
            option = self.optionxform(option)
            return option in self._defaults
        elif section not in self._sections:
            return False
        else:
            option = self.optionxform(option)
            return option in self._sections[section] or option in self._defaults
    """,
    # up to 3.9 a `return None` in an arm was written, not copied
    """
    def f(self, endtime):
        if endtime is None:
            return None
        else:
            return endtime - self.now()
    """,
    # returns in every arm: the dead code after the last one shows the else
    """
    def f(a, b):
        if isinstance(b, int):
            if b == 1:
                power = b
                if power >= 0:
                    return a ** power
                elif a >= 0:
                    return a ** -power
                else:
                    return (-a) ** -power
            else:
                return float(a) ** float(b)
        else:
            return float(a) ** b
    """,
    """
    def f(domain, msgid1, msgid2, n):
        try:
            t = translation(domain)
        except OSError:
            if n == 1:
                return msgid1
            else:
                return msgid2
        return t.ngettext(msgid1, msgid2, n)
    """,
    # ... but not for the raise before an if/else that ends the function
    """
    def f(data):
        n = len(data)
        if n == 0:
            raise ValueError("no median for empty data")
        if n % 2 == 1:
            return data[n // 2]
        else:
            i = n // 2
            return (data[i - 1] + data[i]) / 2
    """,
    # an if/else ending a loop body whose if part raises
    """
    def f(obj, changes):
        for f in obj:
            if not f.init:
                raise ValueError(f)
            else:
                changes[f.name] = 1
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


@pytest.mark.parametrize("source", SOURCES + ELSE_SOURCES + [
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
