"""Turning compiler idioms in the structured statements back into the source constructs.

The structuring stage emits what the bytecode does (an ``if`` on an exception-type test,
a copy of a ``finally`` body before each ``return``, the exit call of a ``with`` on each
exit path, ``e = None; del e`` after an ``except ... as e`` body). These functions rebuild
``try``/``except``/``finally``, strip the copies, and tidy what the compiler adds
implicitly (a final ``return None``, a trailing ``continue``).
"""
import ast
import copy as _copy

from ..mismatch import Mismatch
from ..symbolic import markers as M
from ..symbolic import exprs as E
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact

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
    if hstmts and isinstance(hstmts[0], ast.If) and isinstance(hstmts[0].test, M.ExcMatch):
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
    final = _drop_tail_reraises(_clean_finally_body(final))
    node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
    strip_copies(node.body, node.finalbody)
    return node, True


def _clean_finally_body(stmts):
    """A finally body left by return/break/continue drops the pending exception first
    (POP_TOP of it, POP_EXCEPT): no statements of the source."""
    out = []
    for s in stmts:
        if isinstance(s, M.PopExceptStmt) or _is_exc_expr(s):
            continue
        _recurse(s, _clean_finally_body)
        out.append(s)
    return out


def _drop_tail_reraises(stmts):
    """The compiler's re-raise where a path reaches the end of a finally body (an arm
    beside one that returns, an except clause of a with statement at the end) is the
    finally's own re-raise: the source just ends there."""
    return _drop_tail(stmts, lambda s: isinstance(s, ast.Raise) and facts.get(s, Fact.IMPLICIT, False))


def _drop_tail(stmts, drop):
    """Remove the statements for which ``drop`` holds where they end a path through
    ``stmts`` (the last statement, the ends of its arms, recursively)."""
    real = [k for k, s in enumerate(stmts) if not M.is_pseudo(s)]
    if not real:
        return stmts
    last = stmts[real[-1]]
    if drop(last):
        # what came before now ends the path, its own arms included
        rest = stmts[:real[-1]] + stmts[real[-1] + 1:]
        return _drop_tail(rest, drop) if len(real) > 1 else [ast.Pass()] + rest
    arms = []
    if isinstance(last, ast.If):
        arms = ["body", "orelse"]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        arms = ["body"]
    elif isinstance(last, _TRY_KINDS) and not last.finalbody:
        arms = ["orelse"] if last.orelse else ["body"]
        for h in last.handlers:
            h.body = _drop_tail(h.body, drop)
    for field in arms:
        arm = _drop_tail(getattr(last, field), drop)
        if field == "orelse" and all(isinstance(x, ast.Pass) for x in arm):
            arm = []
        setattr(last, field, arm)
    return stmts


def _all_paths_end(stmts, pred):
    """Every path through ``stmts`` ends in a statement for which ``pred`` holds."""
    real = [s for s in stmts if not M.is_pseudo(s)]
    if not real:
        return False
    last = real[-1]
    if pred(last):
        return True
    if isinstance(last, ast.If):
        return _all_paths_end(last.body, pred) and _all_paths_end(last.orelse, pred)
    if isinstance(last, _TRY_KINDS) and not last.finalbody:
        return _all_paths_end(last.orelse or last.body, pred) and all(
            _all_paths_end(h.body, pred) for h in last.handlers)
    return False


def _is_exc_expr(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, M.ExcValue)


def _clauses(stmts, fname):
    handlers = []
    while stmts:
        first = stmts[0]
        if isinstance(first, ast.If) and isinstance(first.test, M.ExcMatch):
            handlers.append(_clause(first.test.type_expr, first.body, fname))
            stmts = first.orelse + stmts[1:]
            continue
        if len(stmts) == 1 and isinstance(first, ast.Raise) and first.exc is None:
            break  # no clause matched: re-raise
        if _is_exc_expr(first):
            handlers.append(_clause(None, stmts, fname))
            break
        raise Mismatch("unrecognized exception handler", function=fname)
    return handlers


def _clause(type_expr, body, fname):
    name = None
    body = list(body)
    if body and isinstance(body[0], ast.Assign) and isinstance(body[0].value, M.ExcValue):
        tgt = body[0].targets[0]
        if not isinstance(tgt, ast.Name):
            raise Mismatch("except target is not a name", function=fname)
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
        if isinstance(s, M.PopExceptStmt):
            i += 1
            continue
        if name is not None and _is_name_cleanup(stmts, i, name):
            i += 2
            continue
        _recurse(s, lambda body: _clean_handler_body(body, name))
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
        if facts.get(s, Fact.UNDER_PENDING_VALUE, False) and i + 1 >= n and \
                _strip_branching_copy(stmts, i - n + 1, copy):
            i -= n - 1
            continue
        # the copy sits right before the escape, or before the copies of enclosing
        # finally bodies that run after it (those are stripped by their own try)
        k = next((k for k in range(4) if i - k >= n and same_stmts(stmts[i - k - n:i - k], copy)), None) \
            if isinstance(s, ESCAPES) else None
        if k is not None:
            del stmts[i - k - n:i - k]
            i -= n
        elif i + n == len(stmts) and _strip_copy_ending_in_escape(stmts, i, copy):
            pass
        else:
            _recurse(s, lambda body: (strip_copies(body, copy), body)[1])
        i += 1


def _strip_copy_ending_in_escape(stmts, start, copy):
    """A copy that branches before a `break` or `continue`: each of its paths ends in
    that escape. Replace the copy and its escapes by the one escape."""
    rets = []
    _all_paths_end(stmts[start:], lambda x: isinstance(x, (ast.Break, ast.Continue)) and not rets.append(x))
    if not rets or not isinstance(stmts[start], ast.If):
        return False
    esc = rets[0]
    if not _all_paths_end(stmts[start:], lambda x: dump(x) == dump(esc)) or \
            not same_stmts(_drop_tail(_copy.deepcopy(stmts[start:]), lambda x: dump(x) == dump(esc)), copy):
        return False
    stmts[start:] = [esc]
    return True


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
        _all_paths_end(window, lambda x: isinstance(x, ast.Return) and not rets.append(x))
        if not rets:
            return False
        ret, keep = rets[0], True
        if not _all_paths_end(window, lambda x: dump(x) == dump(ret)):
            return False
    if not same_stmts(_drop_tail(_copy.deepcopy(window), lambda x: dump(x) == dump(ret)), copy):
        return False
    stmts[start:end] = [ret] if keep else []
    return True


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
        stmts = _drop_tail(stmts, _is_return_none)
    stmts = _fix(stmts)
    _refuse_pending_branches(stmts)
    if is_function and unreachable_tail_return:
        # the function ended in an if/else whose arms all leave: `if c: return a` `return b`
        # was `if c: return a` `else: return b` (the same code but for that tail)
        # (an if/else that ends the function already ends where that tail begins)
        while len(stmts) >= 2 and _leaves(stmts[-1]) and not _is_return_none(stmts[-1]) and \
                not (isinstance(stmts[-1], ast.If) and stmts[-1].orelse) and \
                isinstance(stmts[-2], ast.If) and not stmts[-2].orelse and stmts[-2].body and \
                _leaves(stmts[-2].body[-1]):
            last = stmts.pop()
            stmts[-1].orelse = [last]
        _tail_into_else(stmts)
        _tail_into_try_else(stmts)
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
        # 3.10+ copies the implicit `return None` into every arm that falls off the end;
        # up to 3.9 an arm only ends in it when the structure took in the function's
        # last instruction
        stmts = _drop_tail(stmts, _is_return_none if V.EXIT_BLOCKS_COPIED else
                           lambda s: _is_return_none(s) and facts.get(s, Fact.AT_END, False))
    return stmts or [ast.Pass()]


def _refuse_pending_branches(stmts):
    """A branch run while a value waited on the stack is only valid source as part of a
    finally body's copy, which is gone by now: elsewhere it would reorder evaluation."""
    for s in stmts:
        if facts.get(s, Fact.UNDER_PENDING_VALUE, False):
            raise Mismatch("a branch while a value waits on the stack")
        _recurse(s, lambda body: (_refuse_pending_branches(body), body)[1])


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


def _tail_into_try_else(stmts):
    """`try: A` `except: return x` `else: B; return y` ends the function with the try, so
    the compiler appends its `return None`; written after the try, B would end it. When
    every clause leaves, only the body goes on to B: B is the else (the same code)."""
    k = len(stmts) - 1
    while k >= 0 and not isinstance(stmts[k], _TRY_KINDS):
        if isinstance(stmts[k], (ast.If, ast.For, ast.While, ast.With, ast.AsyncFor, ast.AsyncWith)):
            return
        k -= 1
    if k < 0 or k == len(stmts) - 1 or not _leaves(stmts[-1]):
        return
    node = stmts[k]
    if node.orelse or node.finalbody or not node.handlers or \
            not all(h.body and _leaves(h.body[-1]) for h in node.handlers):
        return
    node.orelse = stmts[k + 1:]
    del stmts[k + 1:]


def _leaves(stmt):
    """A statement after which control never goes on to the next one."""
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and _leaves(stmt.body[-1]) and _leaves(stmt.orelse[-1])
    return False


def _is_return_none(s):
    return isinstance(s, ast.Return) and (s.value is None or
                                          isinstance(s.value, ast.Constant) and s.value.value is None)


def _fix(stmts):
    """Local clean-ups, applied bottom-up to every statement list."""
    out = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            _drop_loop_end_finally_copy(s.body)
        _recurse(s, _fix)
        if isinstance(s, M.WithExitStmt) or isinstance(s, M.RestoreStmt):
            i += 1
            continue
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            _drop_trailing_continue(s.body)
            # (a finally copy that ends the body jumps back to the head: no longer
            # hidden by its `continue`)
            _drop_finally_copies(s.body)
            if not s.body:
                s.body = [ast.Pass()]
        if isinstance(s, (ast.With, ast.AsyncWith)):
            _strip_with_exits(s.body, facts.get(s, Fact.WITH_EXIT))
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
                _is_assert_false(s.body[-1])) and not _falls_off_end(s):
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
            facts.note(merged, Fact.FINALLY_COPY, facts.get(s, Fact.FINALLY_COPY, False))
            s = merged
        out.append(s)
        i += 1
    _drop_finally_copies(out)
    _join_ifexp_returns(out)
    return out


def _drop_finally_copies(out):
    """The normal path after a try/finally runs a copy of the finally body: drop it
    (compared once both sides are cleaned up)."""
    k = 0
    while k < len(out):
        s = out[k]
        if isinstance(s, _TRY_KINDS) and facts.get(s, Fact.FINALLY_COPY, False):
            n = len(s.finalbody)
            copy = out[k + 1:k + 1 + n]
            after = out[k + 1 + n] if k + 1 + n < len(out) else None
            if not _same_modulo_exit(copy, s.finalbody) and isinstance(after, ast.Return):
                # 3.10 copies the return that follows into the copy's paths that reach it
                copy = _drop_tail(_copy.deepcopy(copy), lambda x: dump(x) == dump(after))
            if _same_modulo_exit(copy, s.finalbody):
                del out[k + 1:k + 1 + n]
                facts.note(s, Fact.FINALLY_COPY, False)  # (what follows now is the source's own)
        k += 1


def _join_ifexp_returns(stmts):
    """`if c: return a` + `return b` back into `return a if c else b` where a returned
    constant shows it was an arm of a conditional expression (``_ifexp_arm``). The two
    forms differ only there on 3.12+: a `return` statement of a constant is one
    RETURN_CONST, while a conditional expression's arm gets a copy of the shared return."""
    while len(stmts) >= 2 and isinstance(stmts[-1], ast.Return) and isinstance(stmts[-2], ast.If) \
            and not stmts[-2].orelse and len(stmts[-2].body) == 1 \
            and isinstance(stmts[-2].body[0], ast.Return):
        a, b = stmts[-2].body[0], stmts[-1]
        if a.value is None or b.value is None or facts.get(a, Fact.CONST_STMT, False) or \
                facts.get(b, Fact.CONST_STMT, False) or not (facts.get(a, Fact.IFEXP_ARM, False) or
                                                         facts.get(b, Fact.IFEXP_ARM, False)):
            return
        joined = ast.Return(value=ast.IfExp(test=stmts[-2].test, body=a.value, orelse=b.value))
        facts.note(joined, Fact.IFEXP_ARM, True)
        stmts[-2:] = [joined]


def _falls_off_end(s):
    """`if c: A else: B` at the end of a function, where A ends in the compiler's copy
    of the implicit `return None` (and B leaves too): an if/else in the source, which
    stays one (both returns go with the function's tail)."""
    last = s.body[-1]
    return facts.get(last, Fact.IMPLICIT, False) and _is_return_none(last) and \
        bool(s.orelse) and _leaves(s.orelse[-1])


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
        node.test = E.negate(s.test)
    return node


def _global_raise_as_assert(s, node):
    """3.8: `if not c: raise AssertionError(msg)` whose jump skips the raise when c is true
    is `assert c, msg`; written as an if, a negated comparison would compile to the
    opposite operator and jump (`not (a is b)` is folded into `a is not b`)."""
    if not V.ASSERT_LOADS_GLOBAL or not facts.get(s, Fact.JUMPS_IF_TRUE, False) or node.cause is not None:
        return None
    exc, msg = node.exc, None
    if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords and \
            not isinstance(exc.args[0], ast.Starred):
        exc, msg = exc.func, exc.args[0]
    if not (isinstance(exc, ast.Name) and exc.id == "AssertionError"):
        return None
    return ast.Assert(test=E.const(False), msg=msg)


def _is_assert_false(s):
    return isinstance(s, ast.Assert) and isinstance(s.test, ast.Constant) and s.test.value is False


def _raise_as_assert(s):
    """`raise AssertionError(msg)` from LOAD_ASSERTION_ERROR is `assert False, msg` (the
    compiler drops the test of an assert that always fails)."""
    exc = s.exc
    msg = None
    if s.cause is not None:
        return None
    if isinstance(exc, ast.Call) and facts.get(exc.func, Fact.ASSERTION, False) and \
            len(exc.args) == 1 and not exc.keywords:
        msg = exc.args[0]
    elif not facts.get(exc, Fact.ASSERTION, False):
        return None
    return ast.Assert(test=E.const(False), msg=msg)


def _same_modulo_exit(a, b):
    """Equal statements, ignoring the implicit `return None` the compiler pasted at the
    end of the copy that runs on the way out of the function."""
    return same_stmts(_drop_tail(_copy.deepcopy(a), _is_return_none),
                      _drop_tail(_copy.deepcopy(b), _is_return_none))


def _fix_if(s):
    node = _as_assert(s)
    if node is not None:
        return [node]
    if not s.body or all(isinstance(x, ast.Pass) for x in s.body):
        if s.orelse:
            s.test = E.negate(s.test)
            s.body, s.orelse = s.orelse, []
        else:
            s.body = [ast.Pass()]
    loop = _while_from_if(s)
    return s if loop is None else [loop]


def _while_from_if(s):
    """3.10+ compile `while c:` as `if c: <do-while c>`: the `while` loop when the if
    statement ``s`` is that, else None. `if a: while c:` compiles as `if a: if c:
    <do-while c>`, the two tests read as one `if a and c:`: that comes back as `if a:`
    around the loop (left as it was, the loop's first test would run twice). `while c:
    ... else: E` is `if c: <do-while c> else: E` `else: E`."""
    if len(s.body) != 1 or not isinstance(s.body[0], ast.While):
        return None
    loop = s.body[0]
    inverted = facts.get(loop, Fact.INVERTED, False)
    if inverted and dump(loop.test) == dump(s.test) and same_stmts(s.orelse, loop.orelse):
        return loop
    if s.orelse:
        return None
    compound = _compound_while(s)
    if compound is not None or not inverted:
        return compound
    head = _and_head(s.test, loop.test)
    return None if head is None else ast.If(test=head, body=[loop], orelse=[])


def _and_head(test, tail):
    """`a` when ``test`` is `a and tail` (a: one or more operands), else None."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return None
    ops = tail.values if isinstance(tail, ast.BoolOp) and isinstance(tail.op, ast.And) else [tail]
    k = len(test.values) - len(ops)
    if k < 1 or not same_stmts(test.values[k:], ops):
        return None
    return test.values[0] if k == 1 else ast.BoolOp(op=ast.And(), values=test.values[:k])


def _continues(node):
    """Whether ``node`` holds a `continue` of the loop around it."""
    if isinstance(node, ast.Continue):
        return True
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return any(_continues(x) for x in node.orelse)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) or \
            not isinstance(node, ast.stmt):
        return False
    return any(_continues(x) for x in ast.iter_child_nodes(node))


def _compound_while(s):
    """3.10+ `while a and b:` is `if a and b: do { body } while (a and b)`; the do-while's
    test at the end of the body comes back as `if not a: break` + the loop test `b`
    (`while a or b:` as `while True:` + `if not a and not b: break`). The `while` loop
    when ``s`` is that, else None."""
    if s.orelse or len(s.body) != 1 or not isinstance(s.body[0], ast.While):
        return None
    loop = s.body[0]
    if loop.orelse or len(loop.body) < 2 or any(_continues(x) for x in loop.body):
        return None  # (a `continue` would skip the test at the end of the body)
    stop = _if_break_test(loop.body[-1])
    if stop is None:
        return None
    test = s.test
    if isinstance(loop.test, ast.Constant) and loop.test.value is True:
        head = test
    elif facts.get(loop, Fact.INVERTED, False):
        head = _and_head(test, loop.test)
        if head is None:
            return None
    else:
        return None
    if dump(stop) != dump(E.negate(head)):
        return None
    node = ast.While(test=test, body=loop.body[:-1], orelse=[])
    facts.note(node, Fact.INVERTED, True)
    return node


def _if_break_test(stmt):
    """The test of ``stmt`` when it is `if c: break` (no else), else None."""
    if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and \
            isinstance(stmt.body[0], ast.Break):
        return stmt.test
    return None

def _drop_loop_end_finally_copy(body):
    """A try/finally that ends a loop body: the copy of the finally body on its normal
    path goes back to the loop head, so each of its paths ends in a `continue` (which
    the end of the body means anyway): drop the copy."""
    k = next((k for k in range(len(body) - 1, -1, -1) if isinstance(body[k], _TRY_KINDS)), None)
    if k is None or not facts.get(body[k], Fact.FINALLY_COPY, False):
        return
    final = body[k].finalbody
    copy = body[k + 1:]
    implicit = lambda x: isinstance(x, ast.Continue) and not facts.get(x, Fact.EXPLICIT, False)
    if copy and _all_paths_end(copy, implicit) and \
            same_stmts(_drop_tail(_copy.deepcopy(copy), implicit), final):
        del body[k + 1:]
        facts.note(body[k], Fact.FINALLY_COPY, False)  # (dropped: nothing after it is a copy any more)


def _drop_trailing_continue(body):
    while body and isinstance(body[-1], ast.Continue) and not facts.get(body[-1], Fact.EXPLICIT, False):
        body.pop()
    if body and isinstance(body[-1], ast.If):
        last = body[-1]
        if not facts.get(last, Fact.ELSE_KEPT, False):
            # (`if c: continue` `else: X` keeps its continue: up to 3.9 the dead jump over
            # the else shows it was written, see Emitter._dead_else_jump)
            _drop_trailing_continue(last.body)
        _drop_trailing_continue(last.orelse)
        if not last.body:
            if last.orelse:
                last.test = E.negate(last.test)
                last.body, last.orelse = last.orelse, []
            else:
                last.body = [ast.Pass()]
        loop = _while_from_if(last)  # (the `continue` after it hid the shape)
        if loop is not None:
            body[-1] = loop
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
        _strip_with_exits(last.body, facts.get(last, Fact.WITH_EXIT, None))
        _drop_trailing_continue(last.body)
        if not last.body:
            last.body = [ast.Pass()]


def _strip_with_exits(stmts, exit_marker):
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, M.WithExitStmt) and (exit_marker is None or s.exit is exit_marker):
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
        return first.value if first.value is not None else E.const(None)
    if isinstance(first, ast.If):
        body = returned_expression(first.body)
        orelse = returned_expression(first.orelse + stmts[1:])
        if body is not None and orelse is not None:
            return ast.IfExp(test=first.test, body=body, orelse=orelse)
    return None
