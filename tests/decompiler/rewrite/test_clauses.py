"""depyf.decompiler.rewrite.clauses: handler code read back as a finally body or an
except clause (``build_try``, ``clause``).
"""
import ast

from depyf.decompiler.rewrite import clauses
from depyf.decompiler.symbolic import markers as M

from ._astcases import stmts_of


def test_build_try_reads_a_reraising_handler_as_finally():
    body = stmts_of("g()\nc()\nreturn x\n")
    handler = stmts_of("c()\nraise\n")
    node, is_finally = clauses.build_try(body, handler, "f")
    assert is_finally
    assert ast.dump(node) == ast.dump(stmts_of("try:\n    g()\n    return x\nfinally:\n    c()\n")[0])


def test_clause_drops_the_name_clean_up():
    body = [ast.Assign(targets=[ast.Name(id="e", ctx=ast.Store())], value=M.ExcValue())] + \
        stmts_of("h(e)\ne = None\ndel e\n")
    handler = clauses.clause(ast.Name(id="E", ctx=ast.Load()), body, "f")
    expected = stmts_of("try:\n    pass\nexcept E as e:\n    h(e)\n")[0].handlers[0]
    assert ast.dump(handler) == ast.dump(expected)
