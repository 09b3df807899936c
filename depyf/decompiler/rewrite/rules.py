"""``fix``: the local clean-ups applied bottom-up to every statement list, in order.

The structuring stage emits what the bytecode does; ``fix`` turns what is left of the
compiler's idioms into source constructs, one statement at a time: pseudo statements
(with exits, restores) dropped, finally-body and with-exit copies stripped
(``copies``), asserts and while forms rebuilt (``idioms``), two returns joined into one
of a conditional expression. The order of the steps is behaviour: each assumes the ones
before it ran. ``finish_body`` (``bodies``) and ``build_try`` (``clauses``) call it.
"""
import ast

from ..symbolic import markers as M
from .. import facts
from ..facts import Fact
from .copies import drop_finally_copies, drop_loop_end_finally_copy, strip_with_exits
from .idioms import (drop_trailing_continue, falls_off_end, fix_if, is_assert_false,
                     join_ifexp_returns, raise_as_assert)
from .tree import ESCAPES, TRY_KINDS, recurse


def fix(stmts):
    """Local clean-ups, applied bottom-up to every statement list."""
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            drop_loop_end_finally_copy(s.body)
        recurse(s, fix)
        if isinstance(s, M.WithExitStmt) or isinstance(s, M.RestoreStmt):
            i += 1
            continue
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            drop_trailing_continue(s.body)
            # (a finally copy that ends the body jumps back to the head: no longer
            # hidden by its `continue`)
            drop_finally_copies(s.body)
            if not s.body:
                s.body = [ast.Pass()]
        if isinstance(s, (ast.With, ast.AsyncWith)):
            strip_with_exits(s.body, facts.get(s, Fact.WITH_EXIT))
            after = stmts[i + 1] if i + 1 < len(stmts) else None
            if isinstance(after, ast.Return) and after.value is not None and \
                    after.value is facts.get(s, Fact.WITH_RETURNS, None):
                # `with cm: return f()` returned by an enclosing try: the value was
                # computed inside the with, so the return goes there
                s.body = [b for b in s.body if not isinstance(b, ast.Pass)] + [after]
                stmts = stmts[:i + 1] + stmts[i + 2:]
            if len(s.body) == 1 and isinstance(s.body[0], type(s)):
                s.items = s.items + s.body[0].items
                s.body = s.body[0].body
        kept = facts.get(s, Fact.ELSE_KEPT, None)
        if isinstance(s, ast.If) and s.orelse and s.body and not kept and (
                kept is False or isinstance(s.body[-1], ESCAPES + (ast.Raise,)) or
                is_assert_false(s.body[-1])) and not falls_off_end(s):
            # `if c: return x` `else: rest` compiles exactly like `if c: return x` `rest`
            rest = s.orelse
            s.orelse = []
            stmts = stmts[:i + 1] + rest + stmts[i + 1:]
        if isinstance(s, ast.Raise):
            s = raise_as_assert(s) or s
        if isinstance(s, ast.If):
            s = fix_if(s)
            if isinstance(s, list):
                out.extend(s)
                i += 1
                continue
        if isinstance(s, ast.Try) and len(s.body) == 1 and isinstance(s.body[0], TRY_KINDS) and \
                s.finalbody and not s.handlers and not s.orelse and s.body[0].handlers and \
                not s.body[0].finalbody:
            inner = s.body[0]
            merged = type(inner)(body=inner.body, handlers=inner.handlers, orelse=inner.orelse,
                             finalbody=s.finalbody)
            facts.note(merged, Fact.FINALLY_COPY, facts.get(s, Fact.FINALLY_COPY, False))
            s = merged
        out.append(s)
        i += 1
    drop_finally_copies(out)
    join_ifexp_returns(out)
    return out
