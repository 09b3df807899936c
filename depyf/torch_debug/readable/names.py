"""Which names a statement binds (``_stores_of``: its targets and the ``:=`` it evaluates
unconditionally) and deletes (``_deleted_in``), and whether a statement list completes
(``terminates``): what ``bound.bound_before`` follows, statement by statement."""
import ast

from .facts import SCOPES, children, own_nodes


def target_names(target):
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        names = set()
        for elt in target.elts:
            names |= target_names(elt)
        return names
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()


def unconditional(node):
    """Sub-expressions of ``node`` (own scope) that are evaluated whenever ``node`` is:
    not the later operands of ``and``/``or``/chained comparisons, nor ternary branches."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, SCOPES):
            continue
        if isinstance(n, ast.BoolOp):
            stack.append(n.values[0])
        elif isinstance(n, ast.IfExp):
            stack.append(n.test)
        elif isinstance(n, ast.Compare):
            stack.extend([n.left, n.comparators[0]])
        else:
            stack.extend(children(n))


def _statement_exprs(st):
    """The expressions a simple statement evaluates (all of them, unconditionally)."""
    return [child for child in children(st) if isinstance(child, ast.expr)]


def _stores_of(st, walrus=True):
    """The names a simple statement binds (``walrus``: also the targets of the ``:=``
    it evaluates unconditionally; False when the function has none)."""
    names = set()
    if isinstance(st, ast.Assign):
        for target in st.targets:
            names |= target_names(target)
    elif isinstance(st, (ast.AugAssign, ast.AnnAssign)) and getattr(st, "value", None) is not None:
        names |= target_names(st.target)
    elif isinstance(st, (ast.Import, ast.ImportFrom)):
        names |= {(a.asname or a.name).split(".")[0] for a in st.names}
    elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(st.name)
    if walrus:
        _unconditional_walrus(_statement_exprs(st), names)
    return names


def _unconditional_walrus(exprs, names):
    """Add to ``names`` the targets of the ``:=`` among ``unconditional(expr)`` of each
    of ``exprs`` (the same walk, without a generator, leaves skipped)."""
    stack = list(exprs)
    while stack:
        n = stack.pop()
        cls = type(n)
        if cls is ast.Name or cls is ast.Constant:
            continue
        if cls is ast.NamedExpr:
            names.add(n.target.id)
        elif isinstance(n, SCOPES):
            continue
        if cls is ast.BoolOp:
            stack.append(n.values[0])
        elif cls is ast.IfExp:
            stack.append(n.test)
        elif cls is ast.Compare:
            stack.extend([n.left, n.comparators[0]])
        else:
            stack.extend(children(n))


def _deleted_in(st):
    names = set()
    for n in [st] + list(own_nodes(st)):
        if isinstance(n, ast.Delete):
            for target in n.targets:
                names |= target_names(target)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)  # unbound again when the handler ends
    return names


COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def terminates(body):
    """The statement list never completes normally (ends in return/raise, or in an ``if``
    whose branches all do)."""
    last = body[-1] if body else None
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return terminates(last.body) and bool(last.orelse) and terminates(last.orelse)
    return False
