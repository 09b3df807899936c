"""The end of a class or module body, copied where control falls into it.

A class or module body has no ``return`` of its own: one there is the compiler's copy of
the body's end (3.10+ copies the closing ``return None``, with a class body's closing
bookkeeping, into an if arm, an except handler or a ``break`` that jumps to it). Where
the arm stands decides the source it was: in a statement list that ends the body, the
statements after an if whose body ends in it, or after a try (no else, no finally)
whose handlers all leave, one of them through it, were its ``else`` (that arm went past
them); in a loop, it was a ``break`` (and the statements after the loop its ``else``).
"""
import ast

from ...bytecode import versions as V
from .tree import TRY_KINDS, leaves

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def ends_into_else(stmts):
    """``stmts``, a statement list that ends a class or module body, without the copies
    of the body's end it can do without (edited in place)."""
    for k in range(len(stmts) - 1, -1, -1):
        s = stmts[k]
        last = k == len(stmts) - 1
        if isinstance(s, ast.If) and not s.orelse and _ends_body(s.body) and not last:
            _drop_end(s.body)
        elif isinstance(s, TRY_KINDS) and not s.orelse and not s.finalbody and s.handlers and \
                all(h.body and (leaves(h.body[-1]) or _ends_body(h.body)) for h in s.handlers) \
                and any(_ends_body(h.body) for h in s.handlers) and not last:
            for h in s.handlers:
                if _ends_body(h.body):
                    _drop_end(h.body)
        elif isinstance(s, _LOOPS) and (last or not _exits(s.body, ast.Break)) and \
                _exits(s.body, ast.Return):
            _returns_to_breaks(s.body)
            s.orelse = s.orelse + stmts[k + 1:]  # a break goes past both
            if not last:
                del stmts[k + 1:]
                ends_into_else(s.orelse)
            continue
        else:
            continue
        s.orelse = stmts[k + 1:]
        del stmts[k + 1:]
    last = stmts[-1] if stmts else None
    ends = []
    if isinstance(last, ast.If):
        ends = [last.body, last.orelse]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        ends = [last.body]
    elif isinstance(last, TRY_KINDS) and not last.finalbody:
        ends = [last.orelse or last.body] + [h.body for h in last.handlers]
    elif isinstance(last, _LOOPS):
        ends = [last.orelse]
    for block in ends:
        ends_into_else(block)


def _ends_body(block):
    return bool(block) and isinstance(block[-1], ast.Return)


def _drop_end(block):
    """``block`` without the copy of the body's end it ends in: the return, a class
    body's closing bookkeeping before it (``V.CLASS_TAIL_BOOKKEEPING``)."""
    block.pop()
    _drop_tail_bookkeeping(block)
    if not block:
        block.append(ast.Pass())


def _drop_tail_bookkeeping(block):
    while block and isinstance(block[-1], ast.Assign) and len(block[-1].targets) == 1 and \
            isinstance(block[-1].targets[0], ast.Name) and \
            block[-1].targets[0].id in V.CLASS_TAIL_BOOKKEEPING:
        block.pop()


def _lists(block):
    """``block`` and the statement lists inside it that belong to the same loop level
    (not those of nested loops, defs or classes)."""
    yield block
    for s in block:
        if isinstance(s, _LOOPS):
            yield from _lists(s.orelse)  # (a loop's else is outside it)
            continue
        if isinstance(s, _SCOPES):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _lists(inner)
        for h in getattr(s, "handlers", None) or []:
            yield from _lists(h.body)
        for c in getattr(s, "cases", None) or []:
            yield from _lists(c.body)


def _exits(block, kind):
    """Whether a statement of ``kind`` leaves the loop whose body is ``block``."""
    return any(isinstance(s, kind) for inner in _lists(block) for s in inner)


def _returns_to_breaks(block):
    """Each return that leaves the loop whose body is ``block`` made a ``break`` (without
    a class body's closing bookkeeping copied before it)."""
    for inner in list(_lists(block)):
        i = next((i for i, s in enumerate(inner) if isinstance(s, ast.Return)), None)
        if i is not None:  # (a return ends its list)
            head = inner[:i]
            _drop_tail_bookkeeping(head)
            inner[:] = head + [ast.Break()] + inner[i + 1:]
