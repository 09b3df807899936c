"""Small questions and edits on statement lists that every rewrite asks: are two
statement lists the same, do all paths end in an escape, drop a tail, visit nested
bodies.
"""
import ast
import copy as _copy

from ..symbolic import markers as M
from ..symbolic.exprs import same_tree as same  # ast.dump equality, without printing


ESCAPES = (ast.Return, ast.Break, ast.Continue)


def same_stmts(a, b):
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


# ---- try / except / finally -----------------------------------------------------------------
# try/except and (3.11+) try/except*: both can take the finally of a try around them
TRY_KINDS = (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def drop_tail(stmts, drop):
    """``stmts`` without the statements for which ``drop`` holds where they end a path
    through it (the last statement, the ends of its arms, recursively).

    ``stmts`` and its nodes are left as they were (callers compare the result with other
    code and keep the original): the statement whose arms change is copied, shallowly
    (what it shares with the original is not changed; its facts are the original's)."""
    real = [k for k, s in enumerate(stmts) if not M.is_pseudo(s)]
    if not real:
        return stmts
    k = real[-1]
    last = stmts[k]
    if drop(last):
        # what came before now ends the path, its own arms included
        rest = stmts[:k] + stmts[k + 1:]
        return drop_tail(rest, drop) if len(real) > 1 else [ast.Pass()] + rest
    new = _arms_dropped(last, drop)
    return stmts if new is None else stmts[:k] + [new] + stmts[k + 1:]


def _arms_dropped(last, drop):
    """A copy of ``last`` with ``drop_tail`` applied to the arms a path through it ends
    in (an `else` left with only `pass` is none); None if it has no such arms."""
    if isinstance(last, ast.If):
        arms = ["body", "orelse"]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        arms = ["body"]
    elif isinstance(last, TRY_KINDS) and not last.finalbody:
        arms = ["orelse"] if last.orelse else ["body"]
    else:
        return None
    new = _copy.copy(last)
    if isinstance(last, TRY_KINDS):
        new.handlers = []
        for h in last.handlers:
            h = _copy.copy(h)
            h.body = drop_tail(h.body, drop)
            new.handlers.append(h)
    for field in arms:
        arm = drop_tail(getattr(last, field), drop)
        if field == "orelse" and all(isinstance(x, ast.Pass) for x in arm):
            arm = []
        setattr(new, field, arm)
    return new


def all_paths_end(stmts, pred):
    """Every path through ``stmts`` ends in a statement for which ``pred`` holds."""
    real = [s for s in stmts if not M.is_pseudo(s)]
    if not real:
        return False
    last = real[-1]
    if pred(last):
        return True
    if isinstance(last, ast.If):
        return all_paths_end(last.body, pred) and all_paths_end(last.orelse, pred)
    if isinstance(last, TRY_KINDS) and not last.finalbody:
        return all_paths_end(last.orelse or last.body, pred) and all(
            all_paths_end(h.body, pred) for h in last.handlers)
    return False


def breaks_out_of_loop(stmts, is_end):
    """``stmts`` ending in a `while True:` left only where its paths end in a statement
    for which ``is_end`` holds (the end of the enclosing body: the compiler copied the
    small code after the loop and that end into each `break`): those paths are `break`s,
    and the code before the end (the same on each) comes after the loop. The loop is
    changed in place; ``stmts`` as it was when the loop is not of that form."""
    loop = stmts[-1] if stmts else None
    if not (isinstance(loop, ast.While) and not loop.orelse and isinstance(loop.test, ast.Constant)
            and loop.test.value is True):
        return stmts
    ends = []
    if not _loop_ends(loop.body, is_end, ends) or not ends:
        return stmts
    tails = [[x for x in drop_tail(arm[k:], is_end) if not isinstance(x, ast.Pass)] for arm, k in ends]
    if not all(same_stmts(t, tails[0]) for t in tails[1:]):
        return stmts
    for arm, k in ends:
        arm[k:] = [ast.Break()]
    else_breaks_into_bodies(loop.body)
    return stmts[:-1] + [loop] + tails[0]


def else_breaks_into_bodies(stmts, kinds=TRY_KINDS, into_loops=False):
    """``stmts``, changed in place: a `break` that is a try statement's whole else clause
    ends its body instead (they compile alike: the break in the body jumps past the
    handlers; the way out past POP_BLOCK that a handler's copy fell into is the source's
    `break`). ``kinds``: the try statements changed; ``into_loops``: also inside nested
    loops."""
    for s in stmts:
        if isinstance(s, kinds) and not s.finalbody and len(s.orelse) == 1 and \
                isinstance(s.orelse[0], ast.Break):
            s.body, s.orelse = s.body + s.orelse, []
        if into_loops or not isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            for body in child_lists(s):
                else_breaks_into_bodies(body, kinds, into_loops)
    return stmts


def _loop_ends(stmts, is_end, ends):
    """Collect into ``ends`` (list, index) for each statement list inside a loop body
    (not inside nested loops) whose statements from that index on end each path in
    ``is_end`` or leave (return, raise), some in ``is_end``. False if the body has a
    `break` of its own (the code after the loop is then not copied into every way out)
    or a nested loop an end."""
    k = next((k for k in range(len(stmts)) if _ends_there(stmts[k:], is_end)), None)
    for s in stmts if k is None else stmts[:k]:
        if isinstance(s, ast.Break):
            return False
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            if any(is_end(x) for x in _walk_stmts(s.body)) or not _loop_ends(s.orelse, is_end, ends):
                return False
            continue
        for body in child_lists(s):
            if not _loop_ends(body, is_end, ends):
                return False
    if k is not None:
        ends.append((stmts, k))
    return True


def _ends_there(stmts, is_end):
    found = []
    leaves = lambda x: is_end(x) and not found.append(x) or isinstance(x, (ast.Raise, ast.Return))
    return all_paths_end(stmts, leaves) and bool(found) and \
        not any(isinstance(x, (ast.Break, ast.Continue)) for x in _walk_stmts(stmts))


def _walk_stmts(stmts):
    for s in stmts:
        yield s
        for body in child_lists(s):
            yield from _walk_stmts(body)


def is_exc_expr(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, M.ExcValue)


# The statements with statement lists inside (``recurse`` and ``child_lists`` reach into
# them; defs and classes are bodies of their own)
COMPOUND = tuple(kind for kind in ast.stmt.__subclasses__()
                 if {"body", "orelse", "finalbody", "handlers", "cases"} & set(kind._fields)
                 and kind not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def child_lists(stmt):
    """The statement lists directly inside ``stmt`` (not inside nested defs or classes):
    the lists ``recurse`` would replace, for walks that change them in place."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    out = []
    for field in ("body", "orelse", "finalbody"):
        val = getattr(stmt, field, None)
        if isinstance(val, list) and val and isinstance(val[0], ast.stmt):
            out.append(val)
    out.extend(h.body for h in getattr(stmt, "handlers", []) or [])
    out.extend(c.body for c in getattr(stmt, "cases", []) or [])
    return out


def recurse(stmt, fn):
    """Replace every statement list directly inside ``stmt`` (not nested defs) by ``fn``
    of it."""
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


def leaves(stmt):
    """A statement after which control never goes on to the next one."""
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and leaves(stmt.body[-1]) and leaves(stmt.orelse[-1])
    return False


def is_return_none(s):
    return isinstance(s, ast.Return) and (s.value is None or
                                          isinstance(s.value, ast.Constant) and s.value.value is None)
