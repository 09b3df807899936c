"""Values of arms that meet: the conditional expression (or and/or, chained
comparison) standing for two values, and two copies of a return/raise merged into one."""
import ast

from ..mismatch import Mismatch
from ..symbolic import exprs as E
from ..symbolic.markers import FuncMarker, Marker

# nodes that only stand inside their parent, no value of their own: a conditional
# expression cannot stand for one (a field of an f-string or, 3.14+, a t-string, a
# starred argument, a slice), only for what they hold or for the parent; like keyword
# arguments they are split where they differ, at any depth (the arms built them)
_PARTS = (ast.FormattedValue, ast.Starred, ast.Slice) + \
    ((ast.Interpolation,) if hasattr(ast, "Interpolation") else ())


def merge_arms(test, a, b, false_arm_shared=None):
    """The statements of two arms that are copies of each other but for the value the
    arms of a conditional expression computed: 3.10+ copies a short exit block into each
    arm (`f(a if c else b); raise E` leaves twice; the copies of a `return x` are joined
    again after the call), 3.11+ the end of the statement (`return g(a if c else b)`).
    The statements with ``a if test else b`` where the first of them differs
    (``false_arm_shared``: see ``merge_stacks``), or None.

    The first statement takes the waiting value: what was evaluated before the test is the
    same node in both (it came from the stack); what comes after the differing value is
    evaluated after the test either way and must read the same, as must every statement
    after it."""
    if not a or len(a) != len(b) or not all(E.same_tree(x, y) for x, y in zip(a[1:], b[1:])):
        return None
    first = _merge_statement(test, a[0], b[0], false_arm_shared)
    return None if first is None else [first] + list(a[1:])


def _merge_statement(test, a, b, false_arm_shared):
    """``a`` and ``b`` as one statement with a conditional expression where they differ,
    or None when they differ in more than one place."""
    if isinstance(a, ast.Return) and isinstance(b, ast.Return) and a.value is not None \
            and b.value is not None and E.same_expr(a.value, b.value):
        return ast.Return(value=_either(test, a.value, b.value, false_arm_shared))
    return _descend(test, a, b, false_arm_shared, True)


def _descend(test, x, y, false_arm_shared, copies=False):
    """``x`` and ``y`` as one node with the conditional expression down where they
    differ, when that is one child and every child evaluated before it is the same node
    in both (it was on the stack before the test: the arms only finished building ``x``,
    `f(k=a if c else b)` as `f(k=a)` and `f(k=b)`); else None. ``copies``: ``x`` and
    ``y`` are copies of one statement, split at any depth (`return -(a if c else b)`);
    else only a node with such a child before the difference is split (`-a if c else
    -b` stays whole: the compiler folds `-1`, not `-(1 if c else 2)`)."""
    if x is test or y is test or isinstance(x, Marker) or isinstance(y, Marker) or \
            not isinstance(x, ast.AST) or type(x) is not type(y):
        return None
    if isinstance(x, ast.Slice):
        return _descend_slice(test, x, y, false_arm_shared)
    xs, ys = _eval_children(x), _eval_children(y)
    if xs is None or ys is None or len(xs) != len(ys) or _shape(x) != _shape(y):
        return None
    diff = [k for k, (cx, cy) in enumerate(zip(xs, ys)) if not E.same_expr(cx, cy)]
    if not diff:
        return None
    k = diff[0]
    if (k == 0 and not copies and not isinstance(x, _PARTS + (ast.keyword,))) or \
            any(not _same_node(xs[j], ys[j]) for j in range(k)) or \
            any(not E.same_expr(xs[j], ys[j]) for j in diff[1:]):
        return None
    inner = _descend(test, xs[k], ys[k], false_arm_shared, copies)
    if inner is None:
        if not isinstance(xs[k], ast.expr) or isinstance(xs[k], _PARTS):
            return None
        inner = _flat_either(test, xs[k], ys[k], false_arm_shared)
    return _replace_child(x, xs[k], inner)


def _descend_slice(test, x, y, false_arm_shared):
    """``_descend`` for two slices, whose bounds may be left out: one left out in one arm
    only is None there (`s[i:j if c else None]`)."""
    bounds = ("lower", "upper", "step")
    xs, ys = [getattr(x, f) for f in bounds], [getattr(y, f) for f in bounds]
    diff = [k for k in range(3) if not (xs[k] is None and ys[k] is None or
                                        None not in (xs[k], ys[k]) and E.same_expr(xs[k], ys[k]))]
    if len(diff) != 1 or any(xs[j] is not ys[j] for j in range(diff[0])):
        return None
    k = diff[0]
    a, b = (v if v is not None else E.const(None) for v in (xs[k], ys[k]))
    inner = _descend(test, a, b, false_arm_shared, True)
    xs[k] = inner if inner is not None else _flat_either(test, a, b, false_arm_shared)
    return ast.Slice(**dict(zip(bounds, xs)))


def _same_node(a, b):
    """The same value, from the stack: the same node, or a keyword argument (built by the
    call in each copy) that names it."""
    if isinstance(a, ast.keyword) and isinstance(b, ast.keyword):
        return a.arg == b.arg and a.value is b.value
    return a is b


def _eval_children(node):
    """The sub-expressions of ``node`` in the order they are evaluated, or None for a node
    whose children are not simply evaluated once, left to right."""
    if isinstance(node, ast.Dict):
        return [c for kv in zip(node.keys, node.values) for c in kv if c is not None]
    if isinstance(node, ast.Assign):
        return [node.value] + node.targets  # (the value first, then each target in turn)
    if isinstance(node, (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.SetComp,
                         ast.DictComp, ast.GeneratorExp, ast.NamedExpr)):
        return None
    out = []
    for _, value in ast.iter_fields(node):
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (ast.expr, ast.keyword)):
                out.append(item)
    return out


def _shape(node):
    """What ``node`` is apart from its sub-expressions (operators, names, constants)."""
    return [(f, ast.dump(v) if isinstance(v, ast.AST) else v) for f, v in ast.iter_fields(node)
            if not isinstance(v, (ast.expr, ast.keyword, list))] + \
        [(f, [ast.dump(i) if isinstance(i, ast.AST) else i for i in v
              if not isinstance(i, (ast.expr, ast.keyword))])
         for f, v in ast.iter_fields(node) if isinstance(v, list)]


def _replace_child(node, old, new):
    """A shallow copy of ``node`` with the child ``old`` (by identity) replaced by ``new``."""
    fields = {}
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            value = [new if item is old else item for item in value]
        elif value is old:
            value = new
        fields[name] = value
    copy = type(node)(**fields)
    for attr in type(node)._attributes:  # positions (lineno, ...); not the facts
        if hasattr(node, attr):
            setattr(copy, attr, getattr(node, attr))
    return copy


def merge_stacks(test, a_stack, b_stack, false_arm_shared=None):
    """The stack where two arms of a value branch meet: where they differ, the value is
    the conditional expression (or and/or, chained comparison) of the two.
    ``false_arm_shared``: None, or a function answering whether the false arm's code is
    also where the true arm goes on (see ``and_or``), asked only where that could matter:
    a CFG walk, not worth making for every branch."""
    return [x if x is y else _either(test, x, y, false_arm_shared) for x, y in zip(a_stack, b_stack)]


def _either(test, body, orelse, false_arm_shared):
    """The value that is ``body`` when ``test`` holds, else ``orelse``: the conditional
    expression where the two differ (``_descend``), else of the whole."""
    inner = _descend(test, body, orelse, false_arm_shared)
    return inner if inner is not None else _flat_either(test, body, orelse, false_arm_shared)


def _flat_either(test, body, orelse, false_arm_shared):
    if false_arm_shared is not None and isinstance(body, ast.BoolOp) and \
            isinstance(body.op, ast.Or) and false_arm_shared():
        joined = and_or(test, body, orelse)
        if joined is not None:
            return joined
    return ifexp(test, body, orelse)


def and_or(test, body, orelse):
    """`a and b or c` for the arms `b or c` (true) and `c` (false) of a test of `a`, when
    both arms' `c` is one piece of code (up to 3.11: `a; POP_JUMP_IF_FALSE L; b;
    JUMP_IF_TRUE_OR_POP end; L: c`), else None. `(b or c) if a else c` computes the same
    but compiles `c` twice. ``b`` and ``c`` may be several operands (`a and (b1 or b2) or
    c1 or c2`)."""
    if not (isinstance(body, ast.BoolOp) and isinstance(body.op, ast.Or)) or \
            any(isinstance(v, Marker) for v in (test, body, orelse)):
        return None
    tail = orelse.values if isinstance(orelse, ast.BoolOp) and isinstance(orelse.op, ast.Or) \
        else [orelse]  # (`a and b or c or d`: both arms end in `c or d`)
    if len(tail) > 1 and tail[0] is test:
        tail = tail[1:]  # 3.14 keeps a false `a` and tests it again: `a or c` (`a` is falsy there)
    kept = body.values[:-len(tail)]
    if not kept or not all(E.same_expr(x, y) for x, y in zip(body.values[-len(tail):], tail)):
        return None
    middle = kept[0] if len(kept) == 1 else ast.BoolOp(op=ast.Or(), values=kept)
    return ast.BoolOp(op=ast.Or(), values=[boolop(ast.And, test, middle)] + list(tail))


def ifexp(test, body, orelse):
    if body is test or (not isinstance(body, Marker) and not isinstance(test, Marker)
                        and E.same_expr(body, test) and body is test):
        return boolop(ast.Or, test, orelse)
    if orelse is test:
        return _chain_or_and(test, body)
    if isinstance(test, Marker) or _internal(body) or _internal(orelse):
        raise Mismatch("conditional expression over an internal value")
    return ast.IfExp(test=test, body=body, orelse=orelse)


def _internal(value):
    """Whether ``value`` has no source form as an arm of a conditional expression. A
    lambda's function (a FuncMarker until it is used) is a value there: the session
    makes it into the lambda expression (``session._materialize``)."""
    if isinstance(value, FuncMarker):
        return value.code.co_name != "<lambda>"
    return isinstance(value, Marker)


def _chain_or_and(left, right):
    # `a < b < c`: the middle operand was duplicated, so it is the same node on both sides
    if isinstance(left, ast.Compare) and isinstance(right, ast.Compare) and \
            right.left is left.comparators[-1]:
        return ast.Compare(left=left.left, ops=left.ops + right.ops,
                           comparators=left.comparators + right.comparators)
    return boolop(ast.And, left, right)


def boolop(op, a, b):
    values = []
    for v in (a, b):
        if isinstance(v, ast.BoolOp) and isinstance(v.op, op):
            values.extend(v.values)
        else:
            values.append(v)
    node = ast.BoolOp(op=op(), values=values)
    return node
