"""Reading a handler's structured code back as except clauses and a finally body
(``build_try``): the exception-type tests, ``as name`` and its clean-up, re-raises.
"""
import ast
import copy

from ..mismatch import Mismatch
from ..symbolic import markers as M
from .. import facts
from ..facts import Fact
from .copies import drop_finally_copies, has_cancelled_return, strip_copies
from .tree import TRY_KINDS, all_paths_end, breaks_out_of_loop, drop_tail, is_exc_expr, recurse


def build_try(body, hstmts, fname, is_finally=False):
    """Read handler statements back as except clauses (or a finally body: also where
    the handler is known to be one, ``is_finally``)."""
    if is_finally:
        return _finally(body, hstmts)
    if hstmts and isinstance(hstmts[0], ast.If) and isinstance(hstmts[0].test, M.ExcMatch):
        handlers = _clauses(hstmts, fname)
        node = ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=[], finalbody=[])
        return node, False
    if hstmts and is_exc_expr(hstmts[0]):
        if has_cancelled_return(body, deep=True):
            # `try: return x` `finally: break`: such a finally body drops the exception
            # as a bare `except: break` would; its copy on the way out of the body
            # dropped the value of x (read so, the copy goes back to that return)
            node, _ = _finally(copy.deepcopy(body), hstmts)
            if not has_cancelled_return(node.body, deep=True):
                return node, True
        node = ast.Try(body=body or [ast.Pass()], handlers=[clause(None, hstmts, fname)],
                       orelse=[], finalbody=[])
        return node, False
    return _finally(body, hstmts)


def _finally(body, hstmts):
    """A finally body: the handler ends by re-raising (or leaves, dropping the
    exception), and its copies in the body are dropped."""
    final = list(hstmts)
    if final and isinstance(final[-1], ast.Raise) and final[-1].exc is None:
        final.pop()
    final = _drop_tail_reraises(_rest_into_arm(_loop_end_out(_clean_finally_body(final))))
    node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
    strip_copies(node.body, node.finalbody)  # (the copies are compared as they were read)
    node.finalbody = _tail_try_reraises(final) or [ast.Pass()]
    return node, True


def _clean_finally_body(stmts):
    """A finally body left by return/break/continue drops the pending exception first
    (POP_TOP of it, POP_EXCEPT): no statements of the source."""
    out = []
    for s in stmts:
        if isinstance(s, M.PopExceptStmt) or is_exc_expr(s):
            continue
        recurse(s, _clean_finally_body)
        out.append(s)
    return out


def _is_reraise(s):
    return isinstance(s, ast.Raise) and facts.get(s, Fact.IMPLICIT, False)


def _rest_into_arm(final):
    """`if c: A` `else: <re-raise>` `B` in a finally body: the re-raise is the end of
    the finally body (3.10 copied it into the arm), so only A's path runs B: it is
    `if c: A; B` (a break after the if: `if c: break`)."""
    for k, s in enumerate(final[:-1]):
        if not isinstance(s, ast.If):
            continue
        if len(s.orelse) == 1 and _is_reraise(s.orelse[0]) and not all_paths_end(s.body, _is_reraise):
            s.body = s.body + final[k + 1:]
            s.orelse = []
            return final[:k + 1]
    return final


def _loop_end_out(final):
    """`while True:` ending a finally body and left only where its paths reach the end
    of the finally body: 3.9+ copies the small code after the loop, with the re-raise,
    into each `break` (``breaks_out_of_loop``)."""
    return breaks_out_of_loop(final, _is_reraise)


def _drop_tail_reraises(stmts):
    """The compiler's re-raise where a path reaches the end of a finally body (an arm
    beside one that returns, an except clause of a with statement at the end) is the
    finally's own re-raise: the source just ends there."""
    return drop_tail(stmts, lambda s: isinstance(s, ast.Raise) and facts.get(s, Fact.IMPLICIT, False))


def _tail_try_reraises(final):
    """A try/finally that ends a finally body (once the copy of its own finally body on
    its normal path is dropped): the end of its body runs its finally body and then
    reaches the end of this one, where 3.10 copied the re-raise (after the copy that
    ``strip_copies`` took out): the source just ends there."""
    final = list(final)
    drop_finally_copies(final)
    last = final[-1] if final else None
    if isinstance(last, TRY_KINDS) and last.finalbody and not facts.get(last, Fact.FINALLY_COPY, False):
        last.body = _tail_try_reraises(_drop_tail_reraises(last.body)) or [ast.Pass()]
    return final


def _clauses(stmts, fname):
    handlers = []
    while stmts:
        first = stmts[0]
        if isinstance(first, ast.If) and isinstance(first.test, M.ExcMatch):
            handlers.append(clause(first.test.type_expr, first.body, fname))
            stmts = first.orelse + stmts[1:]
            continue
        if len(stmts) == 1 and isinstance(first, ast.Raise) and first.exc is None:
            break  # no clause matched: re-raise
        if is_exc_expr(first):
            handlers.append(clause(None, stmts, fname))
            break
        raise Mismatch("unrecognized exception handler", function=fname)
    return handlers


def clause(type_expr, body, fname):
    name = None
    body = list(body)
    if body and isinstance(body[0], ast.Assign) and isinstance(body[0].value, M.ExcValue):
        tgt = body[0].targets[0]
        if not isinstance(tgt, ast.Name):
            raise Mismatch("except target is not a name", function=fname)
        name = tgt.id
        body = body[1:]
    elif body and is_exc_expr(body[0]):
        body = body[1:]
    body = _clean_handler_body(body, name)
    return ast.ExceptHandler(type=type_expr, name=name, body=body or [ast.Pass()])


def _clean_handler_body(stmts, name):
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, M.PopExceptStmt):
            i += 1
            continue
        if name is not None and _is_name_cleanup(stmts, i, name):
            i += 2
            continue
        recurse(s, lambda body: _clean_handler_body(body, name))
        _pad_bodies(s)
        out.append(s)
        i += 1
    return out


def _pad_bodies(stmt):
    """A body left empty by the clean-ups (an inner `except: pass` whose only code was
    the outer clause's `del name`) is a `pass`."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    if hasattr(stmt, "body") and isinstance(stmt.body, list) and not stmt.body:
        stmt.body = [ast.Pass()]
    for h in getattr(stmt, "handlers", []) or []:
        if not h.body:
            h.body = [ast.Pass()]


def _is_name_cleanup(stmts, i, name):
    if i + 1 >= len(stmts):
        return False
    a, d = stmts[i], stmts[i + 1]
    return (isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
            and a.targets[0].id == name and isinstance(a.value, ast.Constant) and a.value.value is None
            and isinstance(d, ast.Delete) and len(d.targets) == 1 and isinstance(d.targets[0], ast.Name)
            and d.targets[0].id == name)
