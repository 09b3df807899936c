"""The folding rules (see the package docstring; the dead temporaries rule is in ``dead``,
Dynamo's lists in ``lists``). Each takes ``(func, facts, bound)``
(the function node, its ``Facts`` and ``bound_before`` map), edits the function in place,
and returns whether it changed anything."""
import ast

from .printing import text
from .facts import DECOMPILER_TEMP, bodies, is_pure, own_nodes, parents, replace, walk
from .order import Unknown, evaluation_order, evaluation_steps, free_of_effects

PROFILING_CALLS = ("record_pregraph_bytecode_enter", "record_pregraph_bytecode_exit")
# torch 2.15+ makes the calls only while the profiler is on:
# `tmp_3 = profiler._is_profiler_enabled` ... `if tmp_3: tmp_1 = utils.record_..._enter()`
PROFILING_FLAGS = ("_is_profiler_enabled",)


def _set_body(body, kept):
    body[:] = kept or [ast.Pass()]


def drop_pure_statements(func, facts, bound):
    if not facts.bare_values:
        return False  # (no expression statement of a constant, name or display)
    changed = False
    for body in bodies(func):
        kept = [st for st in body
                if not (isinstance(st, ast.Expr) and is_pure(st.value, bound[id(st)], facts))]
        if len(kept) != len(body):
            _set_body(body, kept)
            changed = True
    return changed


def inline_single_use(func, facts, bound):
    """``t = value`` followed by the one statement reading ``t``: put ``value`` there. Also
    ``t = value; del a; del b; x = t`` -> ``x = value; del a; del b`` (only the store to
    ``x`` moves, before deletions of other names).
    Returns ``SETTLED`` (true) when the rule would change nothing more with the facts read
    again (see ``_inline``), so it need not be called again at once."""
    changed = moved = False
    for body in bodies(func):
        i = 0
        while i + 1 < len(body):
            st, nxt = body[i], body[i + 1]
            if _inline(st, nxt, facts, bound.get(id(nxt), frozenset())):
                # ``nxt`` now follows the statement before ``st``, which may hand it a
                # temporary too (a chain). Its facts still hold: the counts of every other
                # name are unchanged, and what was bound before ``st`` is bound before it
                del body[i]
                changed = True
                i = max(i - 1, 0)
                continue
            elif _store_earlier(body, i, facts):
                # what it leaves that this pass does not look at again: ``x = value``
                # followed by a ``del`` (another move if ``x`` is a single-use temporary),
                # and the statement before it with a line length that changed
                changed = True
                moved = moved or _single_use_temp(body[i], facts) is not None \
                    or i > 0 and _single_use_temp(body[i - 1], facts) is not None
                i += 1
            i += 1
    return changed and (True if moved else SETTLED)


class _Settled:
    """A change after which the rule that made it has nothing more to do."""

    def __bool__(self):
        return True

    def __repr__(self):
        return "SETTLED"


SETTLED = _Settled()


def _single_use_temp(st, facts):
    """The temporary ``st`` (``t = value``) assigns, if ``t`` is assigned only there and
    read exactly once."""
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
        return None
    name = st.targets[0].id
    if not facts.is_temp(name) or facts.stores.get(name) != 1 or facts.loads.get(name) != 1 \
            or facts.dels.get(name) or facts.aug.get(name):
        return None
    return name


def _inline(st, nxt, facts, bound):
    """Put ``st``'s value in ``nxt`` in place of the temporary it assigns, if it can go there.
    What it reads stays true once ``st`` is gone, except about the temporary (gone with it)
    and the names bound by a ``:=`` in the value (bound one statement later now): a name is
    never bound where it was not, every other name's counts are the same, and a pair of
    statements is looked at again once it changed, so with the facts read again the rule
    would inline nothing more. (``_store_earlier`` binds a name earlier, before ``del``
    statements only, where this rule reads nothing.)"""
    name = _single_use_temp(st, facts)
    if name is None:
        return False
    # the names ``st.value`` binds (with ``:=``; none without one in the function), found
    # when a step reads a name
    written = None if facts.walrus else ()
    steps = evaluation_steps(nxt)
    try:
        for node, conditional in steps:
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                for _ in steps:  # (the rest of the statement must be modelled too)
                    pass
                break
            if isinstance(node, ast.Name):
                if not is_pure(node, bound, facts):
                    return False
                if written is None:
                    written = {n.target.id for n in walk(st.value) if isinstance(n, ast.NamedExpr)}
            if not free_of_effects(node, bound, facts, written or ()):
                return False
        else:
            return False
    except Unknown:
        return False
    if conditional or not _short_enough(st, nxt):
        return False
    replace(parents(nxt)[id(node)], node, st.value)
    return True


def hoist_walrus(func, facts, bound):
    """``x = (n := value)[k]`` -> ``n = value; x = n[k]`` when the ``:=`` is the first
    thing the statement does (only constants, displays and bound local variables that are
    not ``n`` are evaluated before it): the same evaluations, in the same order."""
    if not facts.walrus:
        return False  # (no ``:=`` in the function's own scope)
    changed = False
    holders = facts.walrus_statements  # (the others evaluate no ``:=``)
    for body in bodies(func):
        new = []
        for st in body:
            hoisted = _hoist(st, facts, bound.get(id(st), frozenset())) if id(st) in holders else None
            if hoisted is not None:
                new.append(hoisted)
                changed = True
            new.append(st)
        if len(new) != len(body):
            body[:] = new
    return changed


def _hoist(st, facts, bound):
    try:
        order = evaluation_order(st)
    except Unknown:
        return None
    for node, conditional in order:
        if isinstance(node, ast.NamedExpr):
            name = node.target.id
            if conditional or name in facts.cells:
                return None
            inside = {id(n) for n in ast.walk(node.value)}
            before = [n for n, _ in order[:order.index((node, conditional))] if id(n) not in inside]
            if not all(free_of_effects(n, bound, facts, {name}) for n in before):
                return None
            replace(parents(st)[id(node)], node, ast.Name(id=name, ctx=ast.Load()))
            return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=node.value)
    return None


_LINE = 100


def _short_enough(st, nxt):
    """Inlining does not make a line longer than ``_LINE`` characters or than the longer of
    the two statements (a long argument list stays one argument per line)."""
    st_len, nxt_len = len(text(st)), len(text(nxt))
    merged = nxt_len - len(st.targets[0].id) + len(text(st.value))
    return merged <= max(_LINE, st_len, nxt_len)


def _store_earlier(body, i, facts):
    """``t = value; del a, b; x = t`` -> ``x = value; del a, b``."""
    st = body[i]
    name = _single_use_temp(st, facts)
    if name is None:
        return False
    deleted = set()
    j = i + 1
    while j < len(body) and isinstance(body[j], ast.Delete) \
            and all(isinstance(t, ast.Name) for t in body[j].targets):
        deleted.update(t.id for t in body[j].targets)
        j += 1
    if j == i + 1 or j >= len(body):
        return False
    last = body[j]
    if not (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)
            and isinstance(last.value, ast.Name) and last.value.id == name):
        return False
    target = last.targets[0].id
    if target in deleted or target == name or target in facts.cells:
        return False
    st.targets = [ast.Name(id=target, ctx=ast.Store())]
    del body[j]
    return True


def _profiling_names(func):
    """Names bound to the profiling helpers or to what they return (to a fixed point)."""
    names = set()

    def noisy(expr):
        if isinstance(expr, ast.Attribute):
            return expr.attr in PROFILING_CALLS + PROFILING_FLAGS
        if isinstance(expr, ast.Name):
            return expr.id in names
        if isinstance(expr, ast.NamedExpr):
            return noisy(expr.value)
        if isinstance(expr, ast.Call):
            return noisy(expr.func)
        return False

    bindings = []  # (target, value) of every one-target binding, walked once
    for node in own_nodes(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            bindings.append((node.targets[0], node.value))
        elif isinstance(node, ast.NamedExpr):
            bindings.append((node.target, node.value))
    changed = True
    while changed:
        changed = False
        for target, value in bindings:
            if isinstance(target, ast.Name) and target.id not in names and noisy(value):
                names.add(target.id)
                changed = True
    return names, noisy


def drop_profiling(func):
    """Remove the ``record_pregraph_bytecode_enter/exit`` calls and their temporaries (NOT
    behaviour-preserving: those calls open and close a profiler range); from torch 2.15
    also the tests of whether the profiler is on around them, the module the calls are
    read from and the handle's initial `None`."""
    names, noisy = _profiling_names(func)
    receivers = _profiling_receivers(func, names)

    def keep(st):
        if isinstance(st, ast.Expr):
            return not noisy(st.value)
        if isinstance(st, ast.Assign):
            bound = all(isinstance(t, ast.Name) and t.id in names | receivers for t in st.targets)
            return not (bound and (noisy(st.value) or isinstance(st.value, ast.Constant) or
                                   all(t.id in receivers for t in st.targets)))
        if isinstance(st, ast.Delete):
            return not all(isinstance(t, ast.Name) and t.id in names | receivers for t in st.targets)
        if isinstance(st, ast.If) and _profiling_test(st.test, names):
            return any(keep(x) and not isinstance(x, ast.Pass) for x in st.body + st.orelse)
        return True

    changed = False
    for body in reversed(list(bodies(func))):  # (an if's arms before the if)
        kept = [st for st in body if keep(st)]
        if len(kept) != len(body):
            _set_body(body, kept)
            changed = True
    return changed


def _profiling_test(test, names):
    """Whether ``test`` only asks about the profiling names (`tmp_3`, `tmp_1 is not None`)."""
    read = [n for n in ast.walk(test) if isinstance(n, ast.Name)]
    return bool(read) and all(n.id in names for n in read) and all(
        isinstance(n, (ast.Name, ast.Constant, ast.Compare, ast.UnaryOp, ast.BoolOp, ast.cmpop,
                       ast.unaryop, ast.boolop, ast.expr_context)) for n in ast.walk(test))


def _profiling_receivers(func, names):
    """Names read only to call the profiling helpers on (`tmp_2.record_..._enter()`, torch
    2.15+), each bound by plain assignments of a name or attribute only."""
    used, other = set(), set()
    nodes = list(own_nodes(func))
    plain = {id(t) for st in nodes if isinstance(st, ast.Assign)
             and isinstance(st.value, (ast.Name, ast.Attribute)) for t in st.targets}
    attr_of = {id(n.value): n for n in nodes if isinstance(n, ast.Attribute)}
    for node in nodes:
        if not isinstance(node, ast.Name):
            continue
        if isinstance(node.ctx, ast.Load):
            attr = attr_of.get(id(node))
            (used if attr is not None and attr.attr in PROFILING_CALLS else other).add(node.id)
        elif id(node) not in plain:
            other.add(node.id)
    return used - other - names


def renumber_temporaries(func, facts, printed):
    """``__temp_<n>`` names renumbered 1, 2, ... in order of appearance (only when every
    one of them is a local temporary the rules may touch). ``printed``: the Name nodes
    (of ``func`` and anything else) in the order the printed text shows them."""
    names = [n for n in own_nodes(func) if isinstance(n, ast.Name)]
    own = {id(n) for n in names}
    seen = {}  # (a dict: the names in order of appearance)
    for node in printed:
        if node.id not in seen and id(node) in own and DECOMPILER_TEMP.match(node.id):
            seen[node.id] = None
    if any(not facts.is_temp(name) or not facts.stores.get(name) for name in seen):
        return False
    mapping = {old: "__temp_%d" % (i + 1) for i, old in enumerate(seen)}
    if all(k == v for k, v in mapping.items()):
        return False
    for node in names:
        if node.id in mapping:
            node.id = mapping[node.id]
    return True


def split_display_unpack(func, facts, bound):
    """``t1, t2 = [a, b]`` (temporaries unpacking a display of certainly bound locals or
    constants, none of them a target: what is left of Dynamo rebuilding a caller's stack
    after a nested graph break) -> ``t1 = a; t2 = b``: the same values, nothing to raise."""
    if not facts.display_unpacks:
        return False
    changed = False
    for body in bodies(func):
        kept = []
        for st in body:
            parts = _display_parts(st, facts, bound.get(id(st), frozenset()))
            kept.extend(parts or [st])
            changed = changed or bool(parts)
        if len(kept) != len(body):
            body[:] = kept
    return changed


def _display_parts(st, facts, bound):
    if not (isinstance(st, ast.Assign) and len(st.targets) == 1
            and isinstance(st.targets[0], (ast.Tuple, ast.List))
            and isinstance(st.value, (ast.Tuple, ast.List))):
        return None
    targets, values = st.targets[0].elts, st.value.elts
    names = [t.id for t in targets if isinstance(t, ast.Name) and facts.is_temp(t.id)]
    if len(names) != len(targets) or len(set(names)) != len(names) or len(values) != len(names) \
            or any(isinstance(v, ast.Starred) for v in values) or not is_pure(st.value, bound, facts):
        return None
    if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(st.value)):
        return None  # `t1, t2 = [t2, t1]`: a swap
    return [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=v)
            for n, v in zip(names, values)]
