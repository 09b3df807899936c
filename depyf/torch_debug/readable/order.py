"""In which order a statement evaluates its parts (``evaluation_steps``), and which of them
can be moved across (``free_of_effects``): what ``inline_single_use`` and ``hoist_walrus``
need to know that moving a value keeps every effect in its place. The steps come one at a
time: a rule that stops at the first step with an effect does not model the rest of the
statement (a statement with a construct that is not modelled raises ``Unknown`` when that
step is reached, so a rule that concludes reads every step)."""
import ast

from .facts import SCOPES, is_pure


class Unknown(Exception):
    """A construct whose evaluation order the rules do not model."""


_OPERANDS_FIRST = (ast.BinOp, ast.UnaryOp, ast.Attribute, ast.Subscript, ast.Slice, ast.List,
                   ast.Tuple, ast.Set, ast.Starred, ast.JoinedStr, ast.FormattedValue, ast.Await)


def _visit(n, cond):
    """The steps of evaluating expression ``n`` (``n`` itself last)."""
    if isinstance(n, (ast.Constant, ast.Name)):
        pass
    elif isinstance(n, ast.NamedExpr):
        yield from _visit(n.value, cond)
    elif isinstance(n, ast.BoolOp):
        yield from _visit(n.values[0], cond)
        for v in n.values[1:]:
            yield from _visit(v, True)
    elif isinstance(n, ast.Compare):
        yield from _visit(n.left, cond)
        yield from _visit(n.comparators[0], cond)
        for c in n.comparators[1:]:
            yield from _visit(c, True)
    elif isinstance(n, ast.IfExp):
        yield from _visit(n.test, cond)
        yield from _visit(n.body, True)
        yield from _visit(n.orelse, True)
    elif isinstance(n, ast.Call):
        if n.keywords and any(isinstance(a, ast.Starred) for a in n.args):
            raise Unknown()
        yield from _visit(n.func, cond)
        for a in n.args:
            yield from _visit(a, cond)
        for k in n.keywords:
            yield from _visit(k.value, cond)
    elif isinstance(n, ast.Dict):
        for k, v in zip(n.keys, n.values):
            if k is not None:
                yield from _visit(k, cond)
            yield from _visit(v, cond)
    elif isinstance(n, ast.Lambda):
        for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None]:
            yield from _visit(d, cond)
    elif isinstance(n, SCOPES):
        cond = True  # a comprehension: evaluated in its own scope, maybe many times
    elif isinstance(n, _OPERANDS_FIRST):
        for child in ast.iter_child_nodes(n):
            if isinstance(child, ast.expr):
                yield from _visit(child, cond)
    else:
        raise Unknown()
    yield n, cond


def _target(t):
    if isinstance(t, ast.Name):
        return
    if isinstance(t, (ast.Attribute, ast.Subscript)):
        for child in ast.iter_child_nodes(t):
            if isinstance(child, ast.expr) and not isinstance(child, ast.expr_context):
                yield from _visit(child, False)
        return
    raise Unknown()  # unpacking: iterates the value


def evaluation_steps(st):
    """(node, conditional) for the expressions statement ``st`` evaluates before it does
    its own work, one at a time, in the order CPython evaluates them (each node after its
    operands). Raises ``Unknown`` for statements it does not model (when the step that is
    not modelled is reached)."""
    if isinstance(st, (ast.Expr, ast.Return)):
        if st.value is not None:
            yield from _visit(st.value, False)
    elif isinstance(st, ast.Assign):
        yield from _visit(st.value, False)
        for t in st.targets:
            yield from _target(t)
    elif isinstance(st, ast.AugAssign):
        yield from _target(st.target)
        yield from _visit(st.value, False)
    elif isinstance(st, ast.If):
        yield from _visit(st.test, False)
    elif isinstance(st, (ast.For, ast.AsyncFor)):
        yield from _visit(st.iter, False)
    elif isinstance(st, ast.Raise):
        for part in (st.exc, st.cause):
            if part is not None:
                yield from _visit(part, False)
    elif isinstance(st, ast.Delete):
        for t in st.targets:
            yield from _target(t)
    else:
        raise Unknown()


def evaluation_order(st):
    """``list(evaluation_steps(st))``."""
    return list(evaluation_steps(st))


def free_of_effects(node, bound, facts, written):
    """``node`` (already evaluated operands aside) neither has an effect nor can raise, and
    does not read a name in ``written``."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id not in written and is_pure(node, bound, facts)
    if isinstance(node, (ast.List, ast.Tuple, ast.Slice)):
        return True  # building them is harmless; their parts were checked on their own
    if isinstance(node, ast.Starred):
        return isinstance(node.value, (ast.List, ast.Tuple))
    if isinstance(node, ast.Dict):
        return all(isinstance(k, ast.Constant) for k in node.keys)
    return False
