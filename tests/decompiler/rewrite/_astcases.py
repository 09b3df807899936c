"""Shared by the rewrite tests: statements from source, their dumps, and set-ups that
record the facts the structuring stage would have recorded (``facts.note``)."""
import ast
import textwrap

from depyf.decompiler import facts
from depyf.decompiler.facts import Fact
from depyf.decompiler.symbolic import markers as M


def stmts_of(source):
    """The statements of ``source`` (dedented)."""
    return ast.parse(textwrap.dedent(source)).body


def dumps(stmts):
    """What the tests compare: ``ast.dump`` of each statement."""
    return [ast.dump(s) for s in stmts]


def note(fact, *path, value=True):
    """A set-up that records ``fact`` on the node at ``path`` (indexes and field names,
    from the statement list)."""
    def setup(stmts):
        node = stmts
        for step in path:
            node = node[step] if isinstance(step, int) else getattr(node, step)
        facts.note(node, fact, value)
    return setup


def none(stmts):
    """No facts."""


def all_of(*setups):
    """The set-ups one after the other."""
    def setup(stmts):
        for one in setups:
            one(stmts)
    return setup


def assertion(stmts):
    """The raised AssertionError was loaded the way only `assert` loads it."""
    facts.note(stmts[0].exc.func, Fact.ASSERTION)


def ifexp_arms(stmts):
    """Both returns' values were loaded in their own block (if-expression arms)."""
    facts.note(stmts[0].body[0], Fact.IFEXP_ARM)
    facts.note(stmts[1], Fact.IFEXP_ARM)


def with_exit_marker(stmts):
    """A with-exit marker of the with statement, left at the end of its body."""
    marker = M.WithExitStmt()
    facts.note(stmts[0], Fact.WITH_EXIT, marker)
    stmts[0].body.append(marker)
