"""Turning compiler idioms in the structured statements back into the source constructs.

The structuring stage emits what the bytecode does (an ``if`` on an exception-type test,
a copy of a ``finally`` body before each ``return``, the exit call of a ``with`` on each
exit path, ``e = None; del e`` after an ``except ... as e`` body). These functions rebuild
``try``/``except``/``finally``, strip the copies, and tidy what the compiler adds
implicitly (a final ``return None``, a trailing ``continue``).
"""
import ast

from ..errors import DecompilationError
from . import symbolic as S
from . import versions as V

ESCAPES = (ast.Return, ast.Break, ast.Continue)


def dump(node):
    return ast.dump(node) if isinstance(node, ast.AST) else repr(node)


def same_stmts(a, b):
    return len(a) == len(b) and all(dump(x) == dump(y) for x, y in zip(a, b))


# ---- try / except / finally -----------------------------------------------------------------
# try/except and (3.11+) try/except*: both can take the finally of a try around them
_TRY_KINDS = (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def build_try(body, hstmts, fname):
    """Read handler statements back as except clauses (or a finally body)."""
    if hstmts and isinstance(hstmts[0], ast.If) and isinstance(hstmts[0].test, S.ExcMatch):
        handlers = _clauses(hstmts, fname)
        node = ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=[], finalbody=[])
        return node, False
    if hstmts and _is_exc_expr(hstmts[0]):
        node = ast.Try(body=body or [ast.Pass()], handlers=[_clause(None, hstmts, fname)],
                       orelse=[], finalbody=[])
        return node, False
    # finally: the handler ends by re-raising
    final = list(hstmts)
    if final and isinstance(final[-1], ast.Raise) and final[-1].exc is None:
        final.pop()
    final = _clean_finally_body(final)
    node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
    strip_copies(node.body, node.finalbody)
    return node, True


def _clean_finally_body(stmts):
    """A finally body left by return/break/continue drops the pending exception first
    (POP_TOP of it, POP_EXCEPT): no statements of the source."""
    out = []
    for s in stmts:
        if isinstance(s, S.PopExceptStmt) or _is_exc_expr(s):
            continue
        _recurse(s, _clean_finally_body)
        out.append(s)
    return out


def _is_exc_expr(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, S.ExcValue)


def _clauses(stmts, fname):
    handlers = []
    while stmts:
        first = stmts[0]
        if isinstance(first, ast.If) and isinstance(first.test, S.ExcMatch):
            handlers.append(_clause(first.test.type_expr, first.body, fname))
            stmts = first.orelse + stmts[1:]
            continue
        if len(stmts) == 1 and isinstance(first, ast.Raise) and first.exc is None:
            break  # no clause matched: re-raise
        if _is_exc_expr(first):
            handlers.append(_clause(None, stmts, fname))
            break
        raise DecompilationError("unrecognized exception handler", function=fname)
    return handlers


def _clause(type_expr, body, fname):
    name = None
    body = list(body)
    if body and isinstance(body[0], ast.Assign) and isinstance(body[0].value, S.ExcValue):
        tgt = body[0].targets[0]
        if not isinstance(tgt, ast.Name):
            raise DecompilationError("except target is not a name", function=fname)
        name = tgt.id
        body = body[1:]
    elif body and _is_exc_expr(body[0]):
        body = body[1:]
    body = _clean_handler_body(body, name)
    return ast.ExceptHandler(type=type_expr, name=name, body=body or [ast.Pass()])


def _clean_handler_body(stmts, name):
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, S.PopExceptStmt):
            i += 1
            continue
        if name is not None and _is_name_cleanup(stmts, i, name):
            i += 2
            continue
        _recurse(s, lambda body: _clean_handler_body(body, name))
        out.append(s)
        i += 1
    return out


def _is_name_cleanup(stmts, i, name):
    if i + 1 >= len(stmts):
        return False
    a, d = stmts[i], stmts[i + 1]
    return (isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
            and a.targets[0].id == name and isinstance(a.value, ast.Constant) and a.value.value is None
            and isinstance(d, ast.Delete) and len(d.targets) == 1 and isinstance(d.targets[0], ast.Name)
            and d.targets[0].id == name)


def _recurse(stmt, fn):
    """Apply ``fn`` to every statement list directly inside ``stmt`` (not nested defs)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    for field in ("body", "orelse", "finalbody"):
        val = getattr(stmt, field, None)
        if isinstance(val, list) and val and isinstance(val[0], ast.stmt):
            setattr(stmt, field, fn(val))
    for h in getattr(stmt, "handlers", []) or []:
        h.body = fn(h.body)
    for c in getattr(stmt, "cases", []) or []:
        c.body = fn(c.body)


def strip_copies(stmts, copy):
    """Remove ``copy`` (a finally body) where it precedes an escape inside ``stmts``."""
    n = len(copy)
    i = 0
    while i < len(stmts):
        s = stmts[i]
        # the copy sits right before the escape, or before the copies of enclosing
        # finally bodies that run after it (those are stripped by their own try)
        k = next((k for k in range(4) if i - k >= n and same_stmts(stmts[i - k - n:i - k], copy)), None) \
            if isinstance(s, ESCAPES) else None
        if k is not None:
            del stmts[i - k - n:i - k]
            i -= n
        else:
            _recurse(s, lambda body: (strip_copies(body, copy), body)[1])
        i += 1


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
        while stmts and _is_return_none(stmts[-1]):
            stmts.pop()
        _strip_tail_returns(stmts)
    stmts = _fix(stmts)
    if is_function and unreachable_tail_return:
        # the function ended in an if/else whose arms all leave: `if c: return a` `return b`
        # was `if c: return a` `else: return b` (the same code but for that tail)
        while len(stmts) >= 2 and _leaves(stmts[-1]) and not _is_return_none(stmts[-1]) and \
                isinstance(stmts[-2], ast.If) and not stmts[-2].orelse and stmts[-2].body and \
                _leaves(stmts[-2].body[-1]):
            last = stmts.pop()
            stmts[-1].orelse = [last]
        _tail_into_else(stmts)
    if is_function:
        if unreachable_tail_return and len(stmts) >= 2 and _is_return_none(stmts[-1]) and \
                isinstance(stmts[-2], ast.If):
            last_if = stmts[-2]
            while last_if.orelse and len(last_if.orelse) == 1 and isinstance(last_if.orelse[0], ast.If):
                last_if = last_if.orelse[0]
            if not last_if.orelse:
                last_if.orelse = [stmts.pop()]
                return stmts
        while stmts and _is_return_none(stmts[-1]):
            stmts.pop()
        if V.COPIES_IMPLICIT_RETURN:
            _strip_tail_returns(stmts)
        else:
            _strip_tail_returns(stmts, lambda s: _is_return_none(s) and getattr(s, "_at_end", False))
    return stmts or [ast.Pass()]


def _tail_into_else(stmts):
    """The unreachable `return None` after a function's end had a jump target before it:
    the end of an if statement whose last arm leaves. Statements that end the function
    after the nearest if whose body leaves were that if's `else` (the same code but for
    the label)."""
    if len(stmts) < 3 or not _leaves(stmts[-1]) or _is_return_none(stmts[-1]) or \
            isinstance(stmts[-1], ast.If):
        return
    for k in range(len(stmts) - 2, -1, -1):
        s = stmts[k]
        if isinstance(s, ast.If):
            while len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
                s = s.orelse[0]
            if not s.orelse and s.body and _leaves(s.body[-1]):
                s.orelse = stmts[k + 1:]
                del stmts[k + 1:]
            return
        if not isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
            return


def _leaves(stmt):
    """A statement after which control never goes on to the next one."""
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and _leaves(stmt.body[-1]) and _leaves(stmt.orelse[-1])
    return False


def _strip_tail_returns(stmts, is_implicit=None):
    """3.10+ copies the implicit `return None` into every arm that falls off the end;
    up to 3.9 an arm only ends in it when the structure took in the function's last
    instruction (``is_implicit`` tells those apart)."""
    is_implicit = is_implicit or _is_return_none
    if not stmts:
        return
    last = stmts[-1]
    if isinstance(last, ast.If):
        for field in ("body", "orelse"):
            arm = getattr(last, field)
            while arm and is_implicit(arm[-1]):
                arm.pop()
            _strip_tail_returns(arm, is_implicit)
        if not last.body:
            last.body = [ast.Pass()]
    elif isinstance(last, _TRY_KINDS):
        for arm in [last.body, last.orelse] + [h.body for h in last.handlers]:
            if last.finalbody:
                break
            while arm and is_implicit(arm[-1]):
                arm.pop()
            _strip_tail_returns(arm, is_implicit)
            if not arm and arm is last.body:
                arm.append(ast.Pass())
        for h in last.handlers:
            if not h.body:
                h.body = [ast.Pass()]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        while last.body and is_implicit(last.body[-1]):
            last.body.pop()
        _strip_tail_returns(last.body, is_implicit)
        if not last.body:
            last.body = [ast.Pass()]


def _is_return_none(s):
    return isinstance(s, ast.Return) and (s.value is None or
                                          isinstance(s.value, ast.Constant) and s.value.value is None)


def _fix(stmts):
    """Local clean-ups, applied bottom-up to every statement list."""
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        _recurse(s, _fix)
        if isinstance(s, S.WithExitStmt) or isinstance(s, S.RestoreStmt):
            i += 1
            continue
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            _drop_trailing_continue(s.body)
            if not s.body:
                s.body = [ast.Pass()]
        if isinstance(s, (ast.With, ast.AsyncWith)):
            _strip_with_exits(s.body, s._exit if hasattr(s, "_exit") else None)
            if len(s.body) == 1 and isinstance(s.body[0], type(s)) and not getattr(s, "_no_merge", False):
                s.items = s.items + s.body[0].items
                s.body = s.body[0].body
        kept = getattr(s, "_else_kept", None)
        if isinstance(s, ast.If) and s.orelse and s.body and not kept and (
                kept is False or isinstance(s.body[-1], ESCAPES + (ast.Raise,)) or
                _is_assert_false(s.body[-1])):
            # `if c: return x` `else: rest` compiles exactly like `if c: return x` `rest`
            rest = s.orelse
            s.orelse = []
            stmts = stmts[:i + 1] + rest + stmts[i + 1:]
        if isinstance(s, ast.Raise):
            s = _raise_as_assert(s) or s
        if isinstance(s, ast.If):
            s = _fix_if(s)
            if isinstance(s, list):
                out.extend(s)
                i += 1
                continue
        if isinstance(s, ast.Try) and len(s.body) == 1 and isinstance(s.body[0], _TRY_KINDS) and \
                s.finalbody and not s.handlers and not s.orelse and s.body[0].handlers and \
                not s.body[0].finalbody:
            inner = s.body[0]
            merged = type(inner)(body=inner.body, handlers=inner.handlers, orelse=inner.orelse,
                             finalbody=s.finalbody)
            merged._finally_copy = getattr(s, "_finally_copy", False)
            s = merged
        out.append(s)
        i += 1
    # the normal path after a try/finally runs a copy of the finally body: drop it
    # (compared once both sides are cleaned up)
    k = 0
    while k < len(out):
        s = out[k]
        if isinstance(s, _TRY_KINDS) and getattr(s, "_finally_copy", False):
            n = len(s.finalbody)
            if _same_modulo_exit(out[k + 1:k + 1 + n], s.finalbody):
                del out[k + 1:k + 1 + n]
        k += 1
    return out


def _as_assert(s):
    """`if not c: raise AssertionError(msg)` from LOAD_ASSERTION_ERROR is `assert c, msg`."""
    if s.orelse or len(s.body) != 1:
        return None
    node = s.body[0]
    if isinstance(node, ast.Raise):
        node = _raise_as_assert(node) or _global_raise_as_assert(s, node)
    elif not _is_assert_false(node):
        return None
    if node is not None:
        node.test = S.negate(s.test)
    return node


def _global_raise_as_assert(s, node):
    """3.8: `if not c: raise AssertionError(msg)` whose jump skips the raise when c is true
    is `assert c, msg`; written as an if, a negated comparison would compile to the
    opposite operator and jump (`not (a is b)` is folded into `a is not b`)."""
    if not V.ASSERT_LOADS_GLOBAL or not getattr(s, "_jumps_if_true", False) or node.cause is not None:
        return None
    exc, msg = node.exc, None
    if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords and \
            not isinstance(exc.args[0], ast.Starred):
        exc, msg = exc.func, exc.args[0]
    if not (isinstance(exc, ast.Name) and exc.id == "AssertionError"):
        return None
    return ast.Assert(test=S.const(False), msg=msg)


def _is_assert_false(s):
    return isinstance(s, ast.Assert) and isinstance(s.test, ast.Constant) and s.test.value is False


def _raise_as_assert(s):
    """`raise AssertionError(msg)` from LOAD_ASSERTION_ERROR is `assert False, msg` (the
    compiler drops the test of an assert that always fails)."""
    exc = s.exc
    msg = None
    if s.cause is not None:
        return None
    if isinstance(exc, ast.Call) and getattr(exc.func, "_assertion", False) and \
            len(exc.args) == 1 and not exc.keywords:
        msg = exc.args[0]
    elif not getattr(exc, "_assertion", False):
        return None
    return ast.Assert(test=S.const(False), msg=msg)


def _same_modulo_exit(a, b):
    """Equal statements, ignoring the implicit `return None` the compiler pasted at the
    end of the copy that runs on the way out of the function."""
    import copy
    a, b = copy.deepcopy(a), copy.deepcopy(b)
    for stmts in (a, b):
        while stmts and _is_return_none(stmts[-1]):
            stmts.pop()
        _strip_tail_returns(stmts)
    return same_stmts(a, b)


def _fix_if(s):
    node = _as_assert(s)
    if node is not None:
        return [node]
    if not s.body or all(isinstance(x, ast.Pass) for x in s.body):
        if s.orelse:
            s.test = S.negate(s.test)
            s.body, s.orelse = s.orelse, []
        else:
            s.body = [ast.Pass()]
    # 3.10+: `while c:` compiled as `if c: <do-while c>`
    if len(s.body) == 1 and not s.orelse and isinstance(s.body[0], ast.While) and \
            getattr(s.body[0], "_inverted", False) and dump(s.body[0].test) == dump(s.test):
        return [s.body[0]]
    return s


def _drop_trailing_continue(body):
    while body and isinstance(body[-1], ast.Continue):
        body.pop()
    if body and isinstance(body[-1], ast.If):
        last = body[-1]
        _drop_trailing_continue(last.body)
        _drop_trailing_continue(last.orelse)
        if not last.body:
            if last.orelse:
                last.test = S.negate(last.test)
                last.body, last.orelse = last.orelse, []
            else:
                last.body = [ast.Pass()]
    if body and isinstance(body[-1], _TRY_KINDS):
        last = body[-1]
        for arm in (last.body, last.orelse):
            _drop_trailing_continue(arm)
        for h in last.handlers:
            _drop_trailing_continue(h.body)
            if not h.body:
                h.body = [ast.Pass()]
        if not last.body:
            last.body = [ast.Pass()]
    if body and isinstance(body[-1], (ast.With, ast.AsyncWith)):
        last = body[-1]
        _strip_with_exits(last.body, getattr(last, "_exit", None))
        _drop_trailing_continue(last.body)
        if not last.body:
            last.body = [ast.Pass()]


def _strip_with_exits(stmts, exit_marker):
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, S.WithExitStmt) and (exit_marker is None or s.exit is exit_marker):
            del stmts[i]
            continue
        _recurse(s, lambda body: (_strip_with_exits(body, exit_marker), body)[1])
        i += 1


def returned_expression(stmts):
    """The one expression a statement list returns, when it is only returns under ifs.

    A lambda's conditional expression can come out as `if c: return a` + `return b`
    (both arms end in their own return); as an expression that is `a if c else b`."""
    if not stmts:
        return None
    first = stmts[0]
    if isinstance(first, ast.Return):
        return first.value if first.value is not None else S.const(None)
    if isinstance(first, ast.If):
        body = returned_expression(first.body)
        orelse = returned_expression(first.orelse + stmts[1:])
        if body is not None and orelse is not None:
            return ast.IfExp(test=first.test, body=body, orelse=orelse)
    return None
