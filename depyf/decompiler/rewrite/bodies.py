"""Finishing a function body: the compiler's implicit returns dropped, code after an if
whose body always leaves moved into its else, branches left waiting for a value
refused, and the expression a lambda or comprehension body returns.
"""
import ast

from ..mismatch import Mismatch
from ..symbolic import exprs as E
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from .body_ends import ends_into_else
from .rules import fix
from .tree import COMPOUND, TRY_KINDS, child_lists, drop_tail, is_return_none, leaves


# ---- whole-body passes ------------------------------------------------------------------------
def finish_body(stmts, is_function=True, unreachable_tail_return=False, can_return=True):
    """Final clean-up of a function body.

    ``unreachable_tail_return``: up to 3.10 the compiler appends `return None` even after
    an if/else whose arms all return; such code had its explicit `return None` in the
    last `else`, so it is put back there to compile the same.
    """
    if is_function and not can_return:
        # class and module bodies: the implicit `return None` 3.11+ copies into trailing
        # arms goes before the clean-ups, which would read those returns as early exits
        stmts = drop_tail(stmts, is_return_none)
    stmts = fix(stmts)
    if not can_return:
        ends_into_else(stmts)
    _refuse_pending_branches(stmts)
    if is_function and unreachable_tail_return:
        # the function ended in an if/else whose arms all leave: `if c: return a` `return b`
        # was `if c: return a` `else: return b` (the same code but for that tail)
        # (an if/else that ends the function already ends where that tail begins)
        while len(stmts) >= 2 and leaves(stmts[-1]) and not is_return_none(stmts[-1]) and \
                not (isinstance(stmts[-1], ast.If) and stmts[-1].orelse) and \
                isinstance(stmts[-2], ast.If) and not stmts[-2].orelse and stmts[-2].body and \
                leaves(stmts[-2].body[-1]):
            last = stmts.pop()
            stmts[-1].orelse = [last]
        _tail_into_else(stmts)
        _tail_into_try_else(stmts)
    if is_function:
        if unreachable_tail_return and len(stmts) >= 2 and is_return_none(stmts[-1]) and \
                isinstance(stmts[-2], ast.If):
            last_if = stmts[-2]
            while last_if.orelse and len(last_if.orelse) == 1 and isinstance(last_if.orelse[0], ast.If):
                last_if = last_if.orelse[0]
            if not last_if.orelse:
                last_if.orelse = [stmts.pop()]
                return stmts
        while stmts and is_return_none(stmts[-1]):
            stmts.pop()
        # 3.10+ copies the implicit `return None` into every arm that falls off the end;
        # up to 3.9 an arm only ends in it when the structure took in the function's
        # last instruction
        stmts = drop_tail(stmts, is_return_none if V.EXIT_BLOCKS_COPIED else
                           lambda s: is_return_none(s) and facts.get(s, Fact.AT_END, False))
    return stmts or [ast.Pass()]


def _refuse_pending_branches(stmts):
    """A branch run while a value waited on the stack is only valid source as part of a
    finally body's copy, which is gone by now: elsewhere it would reorder evaluation."""
    for s in stmts:
        if not isinstance(s, COMPOUND):
            continue  # (the branches are if statements; simple statements hold no list)
        if facts.get(s, Fact.UNDER_PENDING_VALUE, False):
            raise Mismatch("a branch while a value waits on the stack")
        for body in child_lists(s):
            _refuse_pending_branches(body)


def _tail_into_else(stmts):
    """The unreachable `return None` after a function's end had a jump target before it:
    the end of an if statement whose last arm leaves. Statements that end the function
    after the nearest if whose body leaves were that if's `else` (the same code but for
    the label)."""
    if len(stmts) < 3 or not leaves(stmts[-1]) or is_return_none(stmts[-1]) or \
            isinstance(stmts[-1], ast.If):
        return
    for k in range(len(stmts) - 2, -1, -1):
        s = stmts[k]
        if isinstance(s, ast.If):
            while len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
                s = s.orelse[0]
            if not s.orelse and s.body and leaves(s.body[-1]):
                s.orelse = stmts[k + 1:]
                del stmts[k + 1:]
            return
        if not isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
            return


def _tail_into_try_else(stmts):
    """`try: A` `except: return x` `else: B; return y` ends the function with the try, so
    the compiler appends its `return None`; written after the try, B would end it. When
    every clause leaves, only the body goes on to B: B is the else (the same code)."""
    k = len(stmts) - 1
    while k >= 0 and not isinstance(stmts[k], TRY_KINDS):
        if isinstance(stmts[k], (ast.If, ast.For, ast.While, ast.With, ast.AsyncFor, ast.AsyncWith)):
            return
        k -= 1
    if k < 0 or k == len(stmts) - 1 or not leaves(stmts[-1]):
        return
    node = stmts[k]
    if node.orelse or node.finalbody or not node.handlers or \
            not all(h.body and leaves(h.body[-1]) for h in node.handlers):
        return
    node.orelse = stmts[k + 1:]
    del stmts[k + 1:]


def returned_expression(stmts):
    """The one expression a statement list returns, when it is only returns under ifs.

    A lambda's conditional expression can come out as `if c: return a` + `return b`
    (both arms end in their own return); as an expression that is `a if c else b`. The
    clean-up of function bodies has dropped a `return None` at the end: an arm that
    falls off the end returns None (`a if c else None`)."""
    if not stmts:
        return None
    first = stmts[0]
    if isinstance(first, ast.Return):
        return first.value if first.value is not None else E.const(None)
    if isinstance(first, ast.If):
        body = returned_expression(first.body)
        rest = first.orelse + stmts[1:]
        orelse = returned_expression(rest) if rest else E.const(None)
        if body is not None and orelse is not None:
            return ast.IfExp(test=first.test, body=body, orelse=orelse)
    return None
