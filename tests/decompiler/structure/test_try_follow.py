"""Where a try/except statement ends (``Emitter._emit_try``): the code after it is reached
from the body and, after POP_EXCEPT, from the clauses. Printed inside a clause it would
run while the exception is still being handled (``sys.exc_info()``, a new exception's
``__context__``), which the checker refuses."""
import ast

import depyf
from depyf.decompiler.output.prove import prove

SOURCE = '''
def f(width, env):
    if width is None:
        try:
            width = int(env["COLUMNS"])
        except (KeyError, ValueError):
            width = 80
        width -= 2
    return width
'''

INSIDE_THE_CLAUSE = '''
def f(width, env):
    if width is None:
        try:
            width = int(env["COLUMNS"])
        except (KeyError, ValueError):
            width = 80
            width -= 2
        else:
            width -= 2
    return width
'''


def _f():
    namespace = {}
    exec(compile(SOURCE, "<test>", "exec"), namespace)
    return namespace["f"]


def test_the_statement_after_the_try_is_printed_after_it():
    tree = ast.parse(depyf.decompile(_f()))
    body = tree.body[0].body[0].body  # the if's body
    assert [type(s).__name__ for s in body] == ["Try", "AugAssign"]
    assert [type(s).__name__ for s in body[0].handlers[0].body] == ["Assign"]
    assert body[0].orelse == []


def test_the_tail_copied_into_the_clause_is_refused():
    verdict = prove(_f().__code__, INSIDE_THE_CLAUSE, "f")
    assert not verdict and verdict.different
    assert "while handling different exceptions" in verdict.reason
