"""Small ``ast`` builders shared by every stage: constants and names, store targets,
comparisons and their negation as the compiler folds it into jumps, f-string parts; and
tree equality (``same_tree``: ``ast.dump`` equality without printing). Imports only
``ast`` and the markers."""
import ast

from ..mismatch import Mismatch
from ...bytecode import versions as V

from .. import facts
from ..facts import Fact
from .markers import CellRef, Marker, WithExitCall, YieldFromIter
from .numbers import number_expr


# ---- helpers -------------------------------------------------------------------------------
BINOPS = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "@": ast.MatMult, "/": ast.Div,
    "//": ast.FloorDiv, "%": ast.Mod, "**": ast.Pow, "<<": ast.LShift, ">>": ast.RShift,
    "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor,
}


CMPOPS = {
    "<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE,
    # 3.8 spells these as COMPARE_OP too
    "is": ast.Is, "is not": ast.IsNot, "in": ast.In, "not in": ast.NotIn,
}


UNARY = {"-": ast.USub, "+": ast.UAdd, "~": ast.Invert, "not": ast.Not}


# One context node of each kind, shared as ``ast.parse`` shares them (nothing changes a
# context node; building one per name is a third of the cost of ``name``)
LOAD, STORE = ast.Load(), ast.Store()


# (positional: the fields of Constant are (value, kind), of Name (id, ctx) on every version;
# keyword arguments cost a third more to build the most frequent nodes)
def const(value):
    return ast.Constant(value, None)


def name(id_, ctx=None):
    return ast.Name(id_, ctx or LOAD)


def as_store(node):
    """Turn a load expression into the same expression in store context."""
    if isinstance(node, ast.Name):
        return ast.Name(id=node.id, ctx=STORE)
    if isinstance(node, ast.Attribute):
        return ast.Attribute(value=node.value, attr=node.attr, ctx=STORE)
    if isinstance(node, ast.Subscript):
        return ast.Subscript(value=node.value, slice=node.slice, ctx=STORE)
    if isinstance(node, (ast.Tuple, ast.List)):
        return type(node)(elts=[as_store(e) for e in node.elts], ctx=STORE)
    if isinstance(node, ast.Starred):
        return ast.Starred(value=as_store(node.value), ctx=STORE)
    raise Mismatch("cannot assign to %s" % type(node).__name__)


def same_expr(a, b):
    if a is b:
        return True
    if isinstance(a, Marker) or isinstance(b, Marker):
        return False
    return same_tree(a, b)


class _Unsure(Exception):
    """Two trees differ in a way whose ``ast.dump`` texts only the texts can compare."""


_MISSING = object()


def same_tree(a, b):
    """``ast.dump(a) == ast.dump(b)`` (``repr`` for what is no node), compared node by
    node instead of printing both: the class, then every field in order, leaves by their
    ``repr`` as ``ast.dump`` writes them. Where the printed forms could still agree
    (a field one side lacks, which ``ast.dump`` may leave out like a None or an empty
    list; a node against a value) the printed forms decide."""
    if not isinstance(a, ast.AST) or not isinstance(b, ast.AST):
        return _printed(a) == _printed(b)
    try:
        return _same_node(a, b)
    except _Unsure:
        return _printed(a) == _printed(b)


def _printed(node):
    return ast.dump(node) if isinstance(node, ast.AST) else repr(node)


def _same_node(a, b):
    if a is b:
        return True
    if type(a) is not type(b):
        if type(a).__name__ != type(b).__name__:
            return False
        raise _Unsure
    for field in a._fields:
        x, y = getattr(a, field, _MISSING), getattr(b, field, _MISSING)
        if x is y:
            continue
        if x is _MISSING or y is _MISSING:
            raise _Unsure
        if not _same_value(x, y):
            return False
    return True


def _same_value(x, y):
    if isinstance(x, ast.AST):
        if not isinstance(y, ast.AST):
            raise _Unsure
        return _same_node(x, y)
    if isinstance(x, list):
        if not isinstance(y, list):
            raise _Unsure
        return len(x) == len(y) and all(_same_value(p, q) for p, q in zip(x, y))
    if isinstance(y, (ast.AST, list)):
        raise _Unsure
    return repr(x) == repr(y)


INF = float("inf")


def is_literal(value):
    """Whether ``value`` has source that evaluates back to it: its ``repr`` (inf and nan
    as expressions the compiler folds; a complex number: ``numbers.number_expr``). Of
    exactly those types: an instance of a subclass (Dynamo's ``torch.Size``, a tuple) is
    no literal, its repr gives back another type."""
    kind = type(value)
    if value is None or value is Ellipsis or kind in (bool, int, float, complex, str, bytes):
        if kind is complex:  # (signed zeros and NaNs: ``numbers``)
            return number_expr(value) is not None
        return True  # inf and nan are written as expressions the compiler folds
    if kind in (tuple, frozenset):
        return all(is_literal(v) for v in value)
    return False


def yield_from_expr(it):
    if isinstance(it, YieldFromIter):
        if it.kind == "anext":
            return it.value  # the loop variable of an `async for`
        if it.kind == "comprehension":
            # the await that runs an async comprehension is part of it; a further
            # await of its value is a real one
            facts.note(it.value, Fact.AWAITED_BY_CALLER, False)
            return it.value
        if isinstance(it.value, WithExitCall):
            return it.value  # `async with` awaits its exit call
        if it.kind == "await":
            return ast.Await(value=it.value)
        return ast.YieldFrom(value=it.value)
    raise Mismatch("yield from without an iterator")


def is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


def none_to_absent(node):
    return None if is_none(node) else node


def index_expr(node):
    """Subscript index node in the form the running ast expects (3.8 wraps in ast.Index)."""
    if V.SUBSCRIPT_INDEX_WRAPPED:
        if isinstance(node, ast.Slice):
            return node
        if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
            return ast.ExtSlice(dims=[e if isinstance(e, ast.Slice) else ast.Index(value=e) for e in node.elts])
        return ast.Index(value=node)
    return node


def formatted(value, conversion, spec):
    """One formatted field, as the f-string that holds only it (BUILD_STRING joins the
    parts of several; 3.11+ formats a lone field without one)."""
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[spec])
    field = ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)
    return ast.JoinedStr(values=[field])


def compare(left, op, right):
    return ast.Compare(left=left, ops=[op], comparators=[right])


NEGATABLE = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def code_compare(left, op, right):
    """A comparison the code computed as a value: an `is`/`in` one remembers which of
    the two instructions (`is` or `is not`, ...) the code used (``_code_op``)."""
    node = compare(left, op, right)
    if type(op) in NEGATABLE:
        facts.note(node, Fact.CODE_OP, type(op))
    return node


def as_in_code(expr):
    """Whether the `is`/`in` tests in the and/or tree ``expr`` compile to the instructions
    the code used: `not (a in b)` compiles as `a not in b`, but the `not` of
    `not (a in b and c)` only turns the jumps around."""
    if isinstance(expr, ast.BoolOp):
        return all(as_in_code(v) for v in expr.values)
    flip = False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        if not isinstance(expr.operand, ast.Compare):
            return as_in_code(expr.operand)
        expr, flip = expr.operand, V.NOT_FOLDS_INTO_COMPARE_TESTS
    code_op = facts.get(expr, Fact.CODE_OP, None)
    if code_op is None or not isinstance(expr, ast.Compare) or len(expr.ops) != 1:
        return True
    op = type(expr.ops[0])
    return (NEGATABLE[op] if flip else op) is code_op


def negate(expr):
    """``not expr``, folded the way the compiler folds it into jumps."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return expr.operand
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and type(expr.ops[0]) in NEGATABLE \
            and (V.NOT_FOLDS_INTO_COMPARE_TESTS or
                 facts.get(expr, Fact.CODE_OP, None) is not type(expr.ops[0])):
        node = ast.Compare(left=expr.left, ops=[NEGATABLE[type(expr.ops[0])]()],
                           comparators=expr.comparators)
        if facts.has(expr, Fact.CODE_OP):
            facts.note(node, Fact.CODE_OP, facts.get(expr, Fact.CODE_OP))
        return node
    if isinstance(expr, ast.BoolOp):
        # `not (a or b)` in a test compiles to the same jumps as `not a and not b`; the
        # second is how people write it (and how `x not in y` comes back), unless that
        # turns an `is`/`in` test of the code into its opposite instruction
        op = ast.And() if isinstance(expr.op, ast.Or) else ast.Or()
        pushed = ast.BoolOp(op=op, values=[negate(v) for v in expr.values])
        if as_in_code(pushed) or not as_in_code(expr):
            return pushed
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def cell_expr(node):
    """A cell used as a value (Dynamo passes cells to helpers): ``(lambda: x).__closure__[0]``
    is that very cell, and keeps ``x`` a cell variable of the function."""
    if isinstance(node, CellRef):
        lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                            kw_defaults=[], kwarg=None, defaults=[]),
                         body=name(node.name))
        clo = ast.Attribute(value=lam, attr="__closure__", ctx=ast.Load())
        return ast.Subscript(value=clo, slice=index_expr(const(0)), ctx=ast.Load())
    if isinstance(node, ast.Tuple) and any(isinstance(e, CellRef) for e in node.elts):
        return ast.Tuple(elts=[cell_expr(e) for e in node.elts], ctx=ast.Load())
    return node
