"""Small questions and edits on statement lists that every rewrite asks: are two
statement lists the same, do all paths end in an escape, drop a tail, visit nested
bodies.
"""
import ast

from ..symbolic import markers as M


ESCAPES = (ast.Return, ast.Break, ast.Continue)


def dump(node):
    return ast.dump(node) if isinstance(node, ast.AST) else repr(node)


def same_stmts(a, b):
    return len(a) == len(b) and all(dump(x) == dump(y) for x, y in zip(a, b))


# ---- try / except / finally -----------------------------------------------------------------
# try/except and (3.11+) try/except*: both can take the finally of a try around them
TRY_KINDS = (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def drop_tail(stmts, drop):
    """Remove the statements for which ``drop`` holds where they end a path through
    ``stmts`` (the last statement, the ends of its arms, recursively)."""
    real = [k for k, s in enumerate(stmts) if not M.is_pseudo(s)]
    if not real:
        return stmts
    last = stmts[real[-1]]
    if drop(last):
        # what came before now ends the path, its own arms included
        rest = stmts[:real[-1]] + stmts[real[-1] + 1:]
        return drop_tail(rest, drop) if len(real) > 1 else [ast.Pass()] + rest
    arms = []
    if isinstance(last, ast.If):
        arms = ["body", "orelse"]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        arms = ["body"]
    elif isinstance(last, TRY_KINDS) and not last.finalbody:
        arms = ["orelse"] if last.orelse else ["body"]
        for h in last.handlers:
            h.body = drop_tail(h.body, drop)
    for field in arms:
        arm = drop_tail(getattr(last, field), drop)
        if field == "orelse" and all(isinstance(x, ast.Pass) for x in arm):
            arm = []
        setattr(last, field, arm)
    return stmts


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


def is_exc_expr(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, M.ExcValue)


def recurse(stmt, fn):
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
