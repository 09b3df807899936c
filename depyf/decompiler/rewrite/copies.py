"""Stripping the copies the compiler makes: a finally body copied before each way
out of the try, a with's exit call on each exit path.
"""
import ast
import copy as _copy

from ..symbolic import markers as M
from ..symbolic import exprs as E
from .. import facts
from ..facts import Fact
from .tree import (ESCAPES, TRY_KINDS, all_paths_end, breaks_out_of_loop, child_lists, drop_tail,
                   else_breaks_into_bodies, same, is_return_none, recurse, same_stmts)


def strip_copies(stmts, copy):
    """Remove ``copy`` (a finally body) where it precedes an escape inside ``stmts`` (in
    place: ``stmts`` is the try's body, compared with the copies as it is changed)."""
    n = len(copy)
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if facts.get(s, Fact.UNDER_PENDING_VALUE, False) and i + 1 >= n and \
                _strip_branching_copy(stmts, i - n + 1, copy):
            i -= n - 1
            continue
        # the copy sits right before the escape, or before the copies of enclosing
        # finally bodies that run after it (those are stripped by their own try)
        k = next((k for k in range(4) if i - k >= n and _is_copy_before(stmts[i - k - n:i - k], copy, s)),
                 None) if isinstance(s, ESCAPES) or _is_reraise(s) or _copy_then_escape(s) else None
        if k is None and all_paths_end([s], _drops_pending_return) and _strip_cancelled_return(stmts, i, copy):
            i = i - n + 2  # (past the `return` left in place of the copy)
            continue
        if k is not None:
            del stmts[i - k - n:i - k]
            i -= n
        elif i + n == len(stmts) and _strip_copy_ending_in_escape(stmts, i, copy):
            pass
        elif i + 1 == len(stmts) and _strip_loop_copy_ending_in_escape(stmts, i, copy):
            pass
        else:
            for body in child_lists(s):
                strip_copies(body, copy)
        i += 1


def _copy_then_escape(s):
    """An if statement every path of which ends in one same return (break, continue): the
    copy of an enclosing finally body that branches on the way out of that return (the
    compiler copies the return to each path; the copy is stripped by its own try)."""
    if not isinstance(s, ast.If):
        return False
    ends = []
    return all_paths_end([s], lambda x: isinstance(x, ESCAPES) and not ends.append(x)) and \
        all(same(e, ends[0]) for e in ends[1:])


def _is_reraise(s):
    """The compiler's re-raise that ends an enclosing finally body (3.10 copies it to
    where the paths of a try nested there leave, each after the copy of that try's own
    finally body): the way out of the try like a return."""
    return isinstance(s, ast.Raise) and facts.get(s, Fact.IMPLICIT, False)


def _strip_copy_ending_in_escape(stmts, start, copy):
    """A copy that branches before a `break`, `continue` or `return` of a constant (whose
    value does not wait on the stack while the copy runs): each of its paths ends in that
    escape. Replace the copy and its escapes by the one escape. So too a copy that is a
    try statement before a `return` (3.11 pastes the return into its body's end and its
    except clauses)."""
    rets = []
    if isinstance(stmts[start], TRY_KINDS):
        escape = lambda x: isinstance(x, (ast.Break, ast.Continue, ast.Return))
    else:
        escape = _plain_escape
    all_paths_end(stmts[start:], lambda x: escape(x) and not rets.append(x))
    if not rets or not isinstance(stmts[start], (ast.If,) + TRY_KINDS):
        return False
    esc = rets[0]
    if not all_paths_end(stmts[start:], lambda x: same(x, esc)) or \
            not same_stmts(drop_tail(stmts[start:], lambda x: same(x, esc)), copy):
        return False
    stmts[start:] = [esc]
    return True


def _strip_loop_copy_ending_in_escape(stmts, start, copy):
    """A copy that ends in a `while True:` whose breaks end in a `return` of a constant
    (3.12+ copies the small code after the loop and the return after the try into each
    `break`): read back with those breaks (``breaks_out_of_loop``), it is the copy.
    Replace it by the one return."""
    ret = _loop_copy_escape(stmts[start:], copy)
    if ret is None:
        return False
    stmts[start:] = [ret]
    return True


def _loop_copy_escape(window, copy):
    """The `return` of a constant that ``window``, a copy of the finally body ``copy``
    ending in a `while True:`, has at the end of each way out of the loop (in place of
    a `break`, after the code that follows the loop), or None."""
    if not window or not isinstance(window[-1], ast.While):
        return None
    rets = [x for x in ast.walk(ast.Module(body=window[-1].body, type_ignores=[]))
            if isinstance(x, ast.Return)]
    if not rets or not _plain_escape(rets[0]) or not all(same(r, rets[0]) for r in rets):
        return None
    read = breaks_out_of_loop(_copy.deepcopy(window), lambda x: same(x, rets[0]))
    return rets[0] if _same_modulo_exit(read, copy) else None


def _plain_escape(s):
    return isinstance(s, (ast.Break, ast.Continue)) or isinstance(s, ast.Return) and (
        s.value is None or isinstance(s.value, ast.Constant)) and \
        not facts.get(s, Fact.UNDER_PENDING_VALUE, False)


def _strip_branching_copy(stmts, start, copy):
    """A copy that branches while the value of `return x` waits on the stack (3.9+) ends
    in that return: after the copy, or (3.11+ copies it) at the end of each of its paths.
    Replace the copy and its returns by the one `return x`."""
    end = start + len(copy)
    after = stmts[end] if end < len(stmts) else None
    window = stmts[start:end]
    if isinstance(after, ast.Return):
        ret, keep = after, False
    else:
        rets = []
        # (or in a break/continue of the copy, which dropped the value of x: a path
        # where the return is cancelled)
        all_paths_end(window, lambda x: isinstance(x, ast.Return) and not rets.append(x) or
                      isinstance(x, (ast.Break, ast.Continue)))
        if not rets:
            return False
        ret, keep = rets[0], True
        if not all_paths_end(window, lambda x: same(x, ret) or isinstance(x, (ast.Break, ast.Continue))):
            return False
    if not _is_copy(drop_tail(window, lambda x: same(x, ret)), copy):
        return False
    stmts[start:end] = [ret] if keep else []
    return True


def _is_copy_before(window, copy, escape):
    """``window`` is ``copy`` (``_is_copy``), or is it with the `return` ``escape`` that
    follows also at the ends of its paths: 3.10+ pastes the return into the copy where
    a path of it goes on to the return (the except clause of a try statement in the
    finally body, after its POP_EXCEPT); 3.13 so pastes the jump of a `break` or
    `continue` (with the iterator's POP_TOP of a `break` out of a for)."""
    return _is_copy(window, copy) or isinstance(escape, (ast.Return, ast.Break, ast.Continue)) and \
        _is_copy(drop_tail(window, lambda x: same(x, escape)), copy)


def _is_copy(window, copy):
    """``window`` is ``copy``, but for the values of returns that copy drops (by a
    break/continue) while they wait on the stack, and for nested ifs read as one `if a
    and b` in one of them (``_flat``: 3.12+ gives the copies of the return that waits
    through it the lines of the tests before them, which tell the tests of a multi-line
    `if a and b` apart there)."""
    return same_stmts(window, copy) or has_cancelled_return(window) and \
        same_stmts(_without_cancelled(window), copy) or same_stmts(_flat(window), _flat(copy)) or \
        _same_but_breaks(window, copy)


def _same_but_breaks(a, b):
    """Equal statements once a try statement whose else clause is only `break` is read
    with the `break` at the end of its body (they compile alike: the break in the body
    jumps past the handlers; the copy of a finally body on one path reads one way, the
    handler's copy, whose break falls into the code after the loop, the other)."""
    def moved(stmts):
        return else_breaks_into_bodies(_copy.deepcopy(stmts), (ast.Try,), into_loops=True)
    return same_stmts(moved(a), moved(b))


def _drops_pending_return(s):
    """A way out of a finally body that drops the value of a `return` waiting in the
    try body: a break, a continue, or the finally body's own return."""
    return isinstance(s, (ast.Break, ast.Continue, ast.Return))


def _loop_escape(s):
    return isinstance(s, (ast.Break, ast.Continue))


def _cancelled(s):
    return isinstance(s, ast.Expr) and facts.get(s, Fact.RETURN_CANCELLED, False)


def has_cancelled_return(stmts, deep=False):
    """A `return` in ``stmts`` (or in the arms of its if statements: the copy of a
    finally body branches there; ``deep``: in any statement inside) whose value a
    break/continue of a finally body dropped."""
    return any(_cancelled(s) or (deep or isinstance(s, ast.If)) and
               any(has_cancelled_return(body, deep) for body in child_lists(s)) for s in stmts)


def _without_cancelled(stmts):
    """``stmts`` without the dropped values of cancelled returns (the statements that
    held them copied, shallowly)."""
    out = []
    for s in stmts:
        if _cancelled(s):
            continue
        if isinstance(s, ast.If) and has_cancelled_return([s]):
            s = _copy.copy(s)
            s.body = _without_cancelled(s.body) or [ast.Pass()]
            s.orelse = _without_cancelled(s.orelse)
        out.append(s)
    return out


def _strip_cancelled_return(stmts, i, copy):
    """`try: return x` `finally: ...; break` (or continue): the copy of the finally body
    ends at ``i`` in the break (or an if whose arms all break or continue), the value of
    x dropped on its way (before the break, or in an arm that breaks). Replace the copy
    by the `return x` it cancels."""
    n = len(copy)
    if not n:
        return False
    start, count = i, 1
    while start > 0 and (count < n or _cancelled(stmts[start - 1])):
        start -= 1
        count += not _cancelled(stmts[start])
    window = stmts[start:i + 1]
    if count != n or not has_cancelled_return(window) or not same_stmts(_without_cancelled(window), copy):
        return False
    value = next(x.value for s in window for x in ast.walk(s) if _cancelled(x))
    stmts[start:i + 1] = [ast.Return(value=value)]
    return True


def drop_finally_copies(out):
    """The normal path after a try/finally runs a copy of the finally body: drop it
    (compared once both sides are cleaned up; nested ifs as one `if a and b`, the
    implicit `return None` the copy's paths end in dropped first where it kept them
    apart). From the last statement back: a copy of a finally body holding a try/finally
    is followed by that try's own copy, dropped first."""
    for k in range(len(out) - 1, -1, -1):
        s = out[k]
        if isinstance(s, TRY_KINDS) and facts.get(s, Fact.FINALLY_COPY, False):
            n = len(s.finalbody)
            copy = out[k + 1:k + 1 + n]
            after = out[k + 1 + n] if k + 1 + n < len(out) else None
            if not _same_modulo_exit(copy, s.finalbody) and isinstance(after, ast.Return):
                # 3.10 copies the return that follows into the copy's paths that reach it
                copy = drop_tail(copy, lambda x: same(x, after))
            if _same_modulo_exit(copy, s.finalbody):
                del out[k + 1:k + 1 + n]
                facts.note(s, Fact.FINALLY_COPY, False)  # (what follows now is the source's own)
            elif _strip_loop_copy_ending_in_escape(out, k + 1, s.finalbody):
                # (3.12+: the return after the try pasted into the breaks of the copy's loop)
                facts.note(s, Fact.FINALLY_COPY, False)
            elif _same_modulo_exit(_flat(copy), _flat(s.finalbody)) or same_stmts(
                    _flat(drop_tail(copy, is_return_none)), _flat(drop_tail(s.finalbody, is_return_none))):
                # the tests of the handler's copy all go to its one re-raise: nested ifs
                # read there as one; the copy on the normal path tells them apart
                s.finalbody = drop_tail(copy, is_return_none)
                del out[k + 1:k + 1 + n]
                facts.note(s, Fact.FINALLY_COPY, False)


def _flat(stmts):
    """``stmts`` with an assert read as the if statement that raises (`if not c: <fail>`)
    and an if statement (without else) whose body is one such if as one `if a and b`
    (copies, not changed in place): code that compiles alike whichever way it is read."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Assert):
            s = ast.If(test=E.negate(s.test), body=[ast.Assert(test=E.const(False), msg=s.msg)], orelse=[])
        elif isinstance(s, ast.If):
            s = ast.If(test=s.test, body=_flat(s.body), orelse=_flat(s.orelse))
        if isinstance(s, ast.If) and not s.orelse and len(s.body) == 1 and \
                isinstance(s.body[0], ast.If) and not s.body[0].orelse:
            s = ast.If(test=_and(s.test, s.body[0].test), body=s.body[0].body, orelse=[])
        out.append(s)
    return out


def _and(a, b):
    values = lambda x: x.values if isinstance(x, ast.BoolOp) and isinstance(x.op, ast.And) else [x]
    return ast.BoolOp(op=ast.And(), values=values(a) + values(b))


def _same_modulo_exit(a, b):
    """Equal statements, ignoring the implicit `return None` the compiler pasted at the
    end of the copy that runs on the way out of the function."""
    a, b = drop_tail(a, is_return_none), drop_tail(b, is_return_none)
    return same_stmts(a, b) or _same_but_breaks(a, b)


def drop_loop_end_finally_copy(body, nested=False):
    """A try/finally that ends a loop body: the copy of the finally body on its normal
    path goes back to the loop head, so each of its paths ends in a `continue` (which
    the end of the body means anyway): drop the copy. So too where the try/finally ends
    an arm of a statement in the loop body (``nested``; not in a loop inside it) that
    goes back to the head: the copy becomes the one `continue` it ends in, and an if
    statement of the loop body whose arm that is has the code after it as its else (the
    arm jumps back, the code after it is only reached from the test). Whether a copy
    was dropped."""
    for k, s in enumerate(body):
        if isinstance(s, _LOOPS):
            continue
        for arm in child_lists(s):
            if not drop_loop_end_finally_copy(arm, nested=True) or nested or \
                    not isinstance(s, ast.If) or arm is not s.body:
                continue
            if k + 1 == len(body):
                arm.pop()  # (the if/else ends the loop body)
                if s.orelse:
                    facts.note(s, Fact.ELSE_KEPT, True)  # (no `continue` ends its body now)
            elif not s.orelse:
                arm.pop()
                s.orelse = body[k + 1:]
                del body[k + 1:]
                drop_loop_end_finally_copy(s.orelse, nested=True)
                break
    k = next((k for k in range(len(body) - 1, -1, -1) if isinstance(body[k], TRY_KINDS)), None)
    if k is None or not facts.get(body[k], Fact.FINALLY_COPY, False):
        return False
    final = body[k].finalbody
    copy = body[k + 1:]
    ends = []
    implicit = lambda x: isinstance(x, ast.Continue) and not facts.get(x, Fact.EXPLICIT, False) \
        and not ends.append(x)
    if not (copy and all_paths_end(copy, implicit) and same_stmts(drop_tail(copy, implicit), final)):
        return False
    body[k + 1:] = ends[-1:] if nested else []
    facts.note(body[k], Fact.FINALLY_COPY, False)  # (dropped: nothing after it is a copy any more)
    return True


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def strip_with_exits(stmts, exit_marker):
    """``stmts`` without the with-exit markers of ``exit_marker`` (None: of any with);
    those in statements inside are removed too (their lists replaced)."""
    out = []
    for s in stmts:
        if isinstance(s, M.WithExitStmt) and (exit_marker is None or s.exit is exit_marker):
            continue
        recurse(s, lambda body: strip_with_exits(body, exit_marker))
        out.append(s)
    return out
