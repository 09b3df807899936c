"""if/elif/else layout: the decompiled statements compile to the same bytecode as the
original (behaviour is covered by the corpus, tests/corpus/control_flow.py). Up to 3.9
the jump over an `else` survives a body that never goes on; it tells `else:` from a
guard clause followed by the rest."""
import textwrap

import pytest

import depyf
from depyf.verify.normalize import first_difference, normalize


def _function(source, name="f"):
    namespace = {}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)
    return namespace[name]


SOURCES = [
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


@pytest.mark.parametrize("source", SOURCES)
def test_if_layout_round_trips_to_the_same_bytecode(source):
    fn = _function(source)
    text = depyf.decompile(fn)
    again = _function(text)
    diff = first_difference(normalize(fn.__code__), normalize(again.__code__))
    assert diff is None, "%s\n%s" % (diff, text)
