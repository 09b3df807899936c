"""``fix``: the local clean-ups applied bottom-up to every statement list, in order.

The structuring stage emits what the bytecode does; ``fix`` turns what is left of the
compiler's idioms into source constructs, one statement at a time: pseudo statements
(with exits, restores) dropped, finally-body and with-exit copies stripped
(``copies``), asserts and while forms rebuilt (``idioms``), two returns joined into one
of a conditional expression. Each clean-up is a named rule below; ``STATEMENT_RULES``
and ``LIST_RULES`` list them, and their order is behaviour: each assumes the ones before
it ran. ``finish_body`` (``bodies``) and ``build_try`` (``clauses``) call ``fix``.
"""
import ast
from collections import deque

from ..symbolic import markers as M
from .. import facts
from ..facts import Fact
from .copies import drop_finally_copies, drop_loop_end_finally_copy, strip_with_exits
from .idioms import (drop_trailing_continue, falls_off_end, fix_if, is_assert_false,
                     join_guarded_while_else, join_ifexp_returns, raise_as_assert)
from .tree import COMPOUND, ESCAPES, TRY_KINDS, recurse


LOOPS = (ast.For, ast.AsyncFor, ast.While)
WITHS = (ast.With, ast.AsyncWith)


def fix(stmts):
    """Local clean-ups, applied bottom-up to every statement list: each statement goes
    through ``STATEMENT_RULES`` in order, then the new list through ``LIST_RULES``.

    A rule takes the statement and ``todo`` (a deque of the statements after it, still
    to go through the rules; a rule may take the next one or put statements first) and
    returns the statement, its replacement, None (dropped) or a list of statements
    (final: they go through no more rules)."""
    out = []
    todo = deque(stmts)
    while todo:
        s = todo.popleft()
        kind = s.__class__
        rules = _rules_for(kind)
        k = 0
        while k < len(rules):
            position, rule = rules[k]
            s = rule(s, todo)
            if s is None or isinstance(s, list):
                break
            k += 1
            if s.__class__ is not kind:  # another kind of statement: the rules after
                kind = s.__class__       # this one that apply to it
                rules = tuple(r for r in _rules_for(kind) if r[0] > position)
                k = 0
        if isinstance(s, list):
            out.extend(s)
        elif s is not None:
            out.append(s)
    for rule in LIST_RULES:
        rule(out)
    return out


def loop_end_finally_copy(s, todo):
    """A loop body ending in a try/finally loses the finally copy before its jump back
    (before the body's own clean-ups, which would read the copy's `continue`s as ends)."""
    if isinstance(s, LOOPS):
        drop_loop_end_finally_copy(s.body)
    return s


def inner_lists(s, todo):
    """The statement lists inside ``s`` are fixed first (bottom-up)."""
    recurse(s, fix)
    return s


def markers(s, todo):
    """With-exit and restore markers left at this level are no statements: dropped."""
    if isinstance(s, M.WithExitStmt) or isinstance(s, M.RestoreStmt):
        return None
    return s


def loop_body_end(s, todo):
    """A loop body loses its trailing `continue` and then a finally copy that ends it
    (it jumps back to the head, no longer hidden by the `continue`); empty: `pass`."""
    if isinstance(s, LOOPS):
        drop_trailing_continue(s.body)
        drop_finally_copies(s.body)
        if not s.body:
            s.body = [ast.Pass()]
    return s


def with_exits(s, todo):
    """A with body loses the copies of its own exit call."""
    if isinstance(s, WITHS):
        s.body = strip_with_exits(s.body, facts.get(s, Fact.WITH_EXIT))
    return s


def nested_withs(s, todo):
    """A with whose body is only another with of its kind is one `with a, b:`."""
    if isinstance(s, WITHS) and len(s.body) == 1 and isinstance(s.body[0], type(s)):
        s.items = s.items + s.body[0].items
        s.body = s.body[0].body
    return s


def else_after_escape(s, todo):
    """`if c: return x` `else: rest` compiles exactly like `if c: return x` `rest`: the
    else arm goes after the if (and through the rules at this level)."""
    if not isinstance(s, ast.If):
        return s
    kept = facts.get(s, Fact.ELSE_KEPT, None)
    if s.orelse and s.body and not kept and (
            kept is False or isinstance(s.body[-1], ESCAPES + (ast.Raise,)) or
            is_assert_false(s.body[-1])) and not falls_off_end(s):
        todo.extendleft(reversed(s.orelse))
        s.orelse = []
    return s


def raise_to_assert(s, todo):
    """`raise AssertionError(msg)` as only `assert` loads it is `assert False, msg`."""
    if isinstance(s, ast.Raise):
        return raise_as_assert(s) or s
    return s


def if_forms(s, todo):
    """An if statement as `assert`, `while`, or with its empty arm gone (``fix_if``)."""
    if isinstance(s, ast.If):
        return fix_if(s)
    return s


def try_in_finally(s, todo):
    """`try: <try/except> finally: F` (nothing else in the outer try) is one
    try/except/finally statement."""
    if isinstance(s, ast.Try) and len(s.body) == 1 and isinstance(s.body[0], TRY_KINDS) and \
            s.finalbody and not s.handlers and not s.orelse and s.body[0].handlers and \
            not s.body[0].finalbody:
        inner = s.body[0]
        merged = type(inner)(body=inner.body, handlers=inner.handlers, orelse=inner.orelse,
                             finalbody=s.finalbody)
        facts.note(merged, Fact.FINALLY_COPY, facts.get(s, Fact.FINALLY_COPY, False))
        return merged
    return s


# The order is behaviour: each rule sees what the ones before it left. Each rule is
# paired with the kinds of statement it changes (it returns any other as it is): the
# rules are only called for those.
STATEMENT_RULES = (
    (LOOPS, loop_end_finally_copy),
    (COMPOUND, inner_lists),
    ((M.WithExitStmt, M.RestoreStmt), markers),
    (LOOPS, loop_body_end),
    (WITHS, with_exits),
    (WITHS, nested_withs),
    (ast.If, else_after_escape),
    (ast.Raise, raise_to_assert),
    (ast.If, if_forms),
    (ast.Try, try_in_finally),
)
_RULES_OF_KIND = {}  # statement class -> ((position, rule) of the rules for it)


def _rules_for(kind):
    """The rules of ``STATEMENT_RULES`` that apply to statements of class ``kind``, with
    their positions (worked out once per class, not tested per statement)."""
    rules = _RULES_OF_KIND.get(kind)
    if rules is None:
        rules = _RULES_OF_KIND[kind] = tuple(
            (k, rule) for k, (kinds, rule) in enumerate(STATEMENT_RULES) if issubclass(kind, kinds))
    return rules


# then over the list fixed at this level
LIST_RULES = (
    drop_finally_copies,    # the copy of a finally body on the try's normal path
    join_ifexp_returns,     # `if c: return a` `return b` -> `return a if c else b`
    join_guarded_while_else,  # `if c: [while c: B else: E; R]` `E; R` -> `while c: ...`
)
