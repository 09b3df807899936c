"""3.14+ deferred annotations (PEP 649/749) back to the annotations the source wrote.

3.14 compiles annotations into an ``__annotate__(format, /)`` function instead of
evaluating them where they stand:

- a function's: ``return {'x': int, 'return': str}`` after the compiler's format check,
  attached to the function with SET_FUNCTION_ATTRIBUTE 0x10 (``FuncMarker.annotate``);
- a class or module body's: ``d = {}; d['x'] = int; ...; return d``, each entry under
  ``if <index> in __conditional_annotations__`` when the body marks the annotations that
  ran (every one in a module, those under if/for/while/with/try/match in a class): the
  body runs ``__conditional_annotations__.add(<index>)`` where the annotation stood. The
  body keeps the function as ``__annotate__`` (a module) or ``__annotate_func__`` (a class);
  the executor reads that store as an ``AnnotateDef``.

``read`` turns the ``__annotate__`` code into ``Entry``s; ``function_annotations`` gives
a def's annotations; ``place`` puts a body's annotations back into its statements: an
annotation with an index where the body marks it (joined with the assignment right before
it: ``x: int = 3``), the others onto the first assignment of their name after the
annotation placed before them, or as ``x: int`` right after that one. The annotations
stay in their order; unconditional ones of a class body compile to no code of the body,
so where they stand between other statements is not in the bytecode.
"""
import ast

from ..bytecode import versions as V
from .flow.instructions import normalize
from .mismatch import Mismatch
from .symbolic import deferred
from .symbolic import markers as M
from .symbolic import exprs as E
from .symbolic import executor as S


class Entry:
    """One annotation: ``name: expr``; ``index``: its number in
    ``__conditional_annotations__``, or None for one the body does not mark."""

    def __init__(self, name, expr, index=None):
        self.name, self.expr, self.index = name, expr, index

    def __repr__(self):
        return "Entry(%r, %s, %r)" % (self.name, ast.dump(self.expr), self.index)


def read(session, code):
    """The ``Entry``s of the compiler's ``__annotate__`` code, in order."""
    if not deferred.is_annotate_code(code):
        raise Mismatch("%r is not an __annotate__ function the compiler wrote" % code.co_name)
    instrs, _ = normalize(code)
    start = next((i + 1 for i, ins in enumerate(instrs) if ins.opname == "RAISE_VARARGS"), None)
    if start is None or instrs[-1].opname != "RETURN_VALUE":
        raise Mismatch("__annotate__ without its format check", function=code.co_name)
    body = instrs[start:-1]
    if body and body[0].opname == "BUILD_MAP" and body[0].arg == 0:
        return _stored_entries(session, code, body[1:])
    value = _expression(session, code, body)
    if not isinstance(value, ast.Dict) or not all(_is_name_const(k) for k in value.keys):
        raise Mismatch("__annotate__ returns no dict of annotations", function=code.co_name)
    return [Entry(k.value, v) for k, v in zip(value.keys, value.values)]


def function_annotations(session, fm):
    """``fm.annotations`` for a def (name -> expression, as an ``ast.Dict``) from its
    ``__annotate__`` function ``fm.annotate``."""
    entries = read(session, fm.annotate.code)
    if any(e.index is not None for e in entries):
        raise Mismatch("a function's annotations are not conditional")
    return ast.Dict(keys=[E.const(e.name) for e in entries], values=[e.expr for e in entries])


def _is_name_const(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _expression(session, code, instrs):
    """The one expression straight-line ``instrs`` compute (no statement)."""
    if any(ins.target is not None for ins in instrs):
        raise Mismatch("an annotation with control flow of its own", function=code.co_name)
    stack, out = [], []
    S.Executor(code, session, session.bindings, session.temp_prefix).run(instrs, stack, out)
    if out or len(stack) != 1 or not isinstance(stack[0], ast.expr):
        raise Mismatch("an annotation that is not one expression", function=code.co_name)
    return stack[0]


def _conditional_index(instrs, i):
    """The index ``instrs[i:i + 4]`` tests (``if <index> in __conditional_annotations__``),
    or None."""
    head = instrs[i:i + 4]
    if [ins.opname for ins in head][1:] == ["LOAD_GLOBAL", "CONTAINS_OP", "POP_JUMP_IF_FALSE"] \
            or [ins.opname for ins in head][1:] == ["LOAD_DEREF", "CONTAINS_OP", "POP_JUMP_IF_FALSE"]:
        if head[1].argval == V.CONDITIONAL_ANNOTATIONS and isinstance(head[0].argval, int) \
                and head[2].arg == 0:
            return head[0].argval
    return None


def _stored_entries(session, code, instrs):
    """The entries of a body's ``__annotate__``: ``[if i in __conditional_annotations__:]
    <value>; COPY 2; LOAD_CONST name; STORE_SUBSCR`` one after the other."""
    entries, i = [], 0
    while i < len(instrs):
        index = _conditional_index(instrs, i)
        if index is not None:
            i += 4
        end = i
        while end + 2 < len(instrs) and not (
                instrs[end].opname == "COPY" and instrs[end].arg == 2 and
                instrs[end + 1].opname == "LOAD_CONST" and isinstance(instrs[end + 1].argval, str)
                and instrs[end + 2].opname == "STORE_SUBSCR"):
            end += 1
        if end + 2 >= len(instrs):
            raise Mismatch("__annotate__ stores something else than annotations",
                           function=code.co_name)
        entries.append(Entry(instrs[end + 1].argval, _expression(session, code, instrs[i:end]),
                             index))
        i = end + 3
    return entries


# -- putting a body's annotations back ----------------------------------------------------


def place(session, body):
    """``body`` (a class or module body's statements) with its ``AnnotateDef`` and the
    ``__conditional_annotations__`` bookkeeping replaced by the annotations they stand for;
    unchanged when it has neither (before 3.14, or no annotations)."""
    if not V.DEFERRED_ANNOTATIONS:
        return body
    defs = [s for s in body if isinstance(s, M.AnnotateDef)]
    body = [s for s in body if not isinstance(s, M.AnnotateDef) and not _makes_conditional_set(s)]
    entries = read(session, defs[0].fm.code) if defs else []
    if len(defs) > 1:
        raise Mismatch("a body with two __annotate__ functions")
    marked = {e.index: e for e in entries if e.index is not None}
    body = _resolve_marks(body, marked)
    if marked:
        raise Mismatch("annotations %s marked nowhere in the body" % sorted(marked))
    cursor = _prologue(body)
    for entry in entries:
        if entry.index is not None:
            cursor = max(cursor, _top_position(body, entry) + 1)
            continue
        cursor = _place_one(body, entry, cursor) + 1
    return body


_PROLOGUE = frozenset(["__module__", "__qualname__", "__firstlineno__", "__type_params__",
                       "__classdict__", "__doc__"])


def _prologue(body):
    """How many statements the body starts with that no annotation comes before: a class
    body's bookkeeping, a docstring, ``from __future__`` imports."""
    n = 0
    while n < len(body) and (
            isinstance(body[n], ast.Assign) and len(body[n].targets) == 1 and
            isinstance(body[n].targets[0], ast.Name) and body[n].targets[0].id in _PROLOGUE or
            isinstance(body[n], ast.ImportFrom) and body[n].module == "__future__" or
            isinstance(body[n], M.SetupAnnotations)):
        n += 1
    return n


def _makes_conditional_set(stmt):
    """``__conditional_annotations__ = set()``: the body's own bookkeeping."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == V.CONDITIONAL_ANNOTATIONS


def _mark_index(stmt):
    """The index ``__conditional_annotations__.add(<index>)`` (an ``AppendStmt`` of the
    set's name) marks, or None."""
    if isinstance(stmt, M.AppendStmt) and isinstance(stmt.acc, ast.Name) and \
            stmt.acc.id == V.CONDITIONAL_ANNOTATIONS and stmt.key is None and \
            isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, int):
        return stmt.value.value
    return None


def _is_set_dropped(stmt):
    """The set SET_ADD leaves on the stack, dropped after the mark."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name) and \
        stmt.value.id == V.CONDITIONAL_ANNOTATIONS


def _resolve_marks(stmts, marked):
    """``stmts`` (and the statement lists nested in them) with each mark replaced by its
    annotation (taken out of ``marked``)."""
    out = []
    for stmt in stmts:
        index = _mark_index(stmt)
        if index is not None:
            entry = marked.pop(index, None)
            if entry is None:
                raise Mismatch("annotation %d marked twice or unknown" % index)
            prev = out[-1] if out else None
            value = out.pop().value if _assigns(prev, entry.name) else None
            out.append(_ann_assign(entry, value))
            continue
        if _is_set_dropped(stmt) and out and isinstance(out[-1], ast.AnnAssign):
            continue
        for field, value in ast.iter_fields(stmt):
            if isinstance(value, list) and value and isinstance(value[0], ast.AST):
                setattr(stmt, field, _resolve_nested(value, marked))
        out.append(stmt)
    return out


def _resolve_nested(items, marked):
    if isinstance(items[0], ast.stmt):
        return _resolve_marks(items, marked)
    for item in items:  # except handlers, match cases: their bodies
        if isinstance(item, (ast.excepthandler, getattr(ast, "match_case", ast.excepthandler))):
            item.body = _resolve_marks(item.body, marked)
    return items


def _assigns(stmt, name):
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name


def _ann_assign(entry, value):
    return ast.AnnAssign(target=E.name(entry.name, ast.Store()), annotation=entry.expr,
                         value=value, simple=1)


def _top_position(body, entry):
    """The top-level statement of ``body`` that holds ``entry``'s annotation."""
    for i, stmt in enumerate(body):
        for node in ast.walk(stmt):
            if isinstance(node, ast.AnnAssign) and node.annotation is entry.expr:
                return i
    return -1


def _place_one(body, entry, cursor):
    """Put an unmarked annotation onto the first ``name = value`` at or after ``cursor``
    (or as ``name: T`` at ``cursor``); its position."""
    for i in range(cursor, len(body)):
        if _assigns(body[i], entry.name):
            body[i] = _ann_assign(entry, body[i].value)
            return i
    body.insert(cursor, _ann_assign(entry, None))
    return cursor
