"""Behaviour-changing mutants of a function's AST, for testing the equivalence checker.

``sites(fn, scope)`` lists every place one of the ``KINDS`` of mutation applies in the
``def`` node ``fn`` (its own statements and expressions: bodies of nested defs, lambdas
and classes are left alone), each marked *counted* or not; ``apply(fn, site)`` performs one
on a copy. A site is counted only when the mutant does something else for SOME
binding of the function's arguments and globals and SOME results of what it calls: the
checker must assume nothing about those, so such a mutant must be refused. Sites whose
mutant may be a no-op are listed but not counted (the rules err on the side of not
counting).

The rules rest on a few conservative facts about a statement or expression:

- ``runs``: it may run code outside the function or raise: a call, an attribute or
  subscript, an operator or comparison (other than ``not``/``is``) on a value that is not
  a literal, an ``await``/``yield``, an iteration (``for``, unpacking other than
  ``a, b = c, d``, ``*x``, comprehensions), a ``with``, an import, a class statement.
  Truth tests do not count: the checker takes ``__bool__`` to answer the same each time
  until the value is handed to user code, and to do nothing else (the compiler itself
  tests a value once or twice depending on layout); nor do dict/set
  displays (hashing), annotations, or lookups and method calls on a container of the
  function's own (a local only ever assigned displays and comprehensions: ``h.append``).
- ``shared``: it reads or writes a global name (what called code can see or change).
- ``may_exit``: it may leave the statement list (``return``, ``raise`` outside a ``try``
  of its own, ``break``/``continue`` of an enclosing loop).
- ``can_complete``: it may end normally (``return``/``raise``/``break``/``continue``,
  an ``if`` whose branches all leave, a ``while True`` without ``break``... cannot).
- a local is *read afterwards* when some path from the statement reads it before
  assigning it again (may-liveness over the AST; paths through exception handlers are
  not followed, which errs on the side of not counting).
- a *literal local* is a local variable only ever assigned constants and operators on
  literals (``n = 0``, ``n += 1``): operators on literals are pure. A *constant test*
  (a literal) takes one branch only, so tests must not be literals.
- *continuations* (what runs after a statement ends normally: the rest of its list, then
  what follows its enclosing statement, ``return None`` at the end, a loop's next round)
  are compared as AST dumps, with ``pass`` dropped and everything after a
  ``return``/``raise``/``break``/``continue`` cut off. Equal continuations mean equal code.

Kinds and when a site counts:

``swap``        two adjacent statements A; B -> B; A. Counted when A can complete, A and
                B differ, and one runs code on a path where it completes (a guard
                clause ``if c: raise E()`` does not) while the other ``runs``, is
                ``shared`` or ``may_exit`` (the order of the two is then observable).
                A local assigned a display earlier in the same list, and not since, is
                a container of the function's own there.
``move``        a simple statement S that ``runs`` (expression, assignment, augmented
                assignment, ``del``, ``import``, ``assert``) moved across the edge of an
                ``if``/``else``/loop/``with``/``try`` body: the first statement of a body
                out before the compound statement, the last one out after it, the
                statement before it in at the start of a body, the statement after it in
                at the end. Counted when S then runs under other conditions: an ``if``
                with a non-literal test (moving out after: only when the other branch can
                complete; moving in after: only when the compound statement can complete
                and the other branch can too); any ``for``; a ``while`` with a
                non-literal test or one that loops back; any ``with`` (enter and exit are
                calls); a ``try`` with a handler that is not a bare ``raise`` or a
                ``finally`` that runs code, is shared or cannot complete (moving out after
                also counts a try whose ``else`` does something). S must be reachable.
``duplicate``   a simple statement that ``runs`` (imports excepted: a second import
                finds the module in ``sys.modules``) written twice.
``invert``      ``if c`` -> ``if not c`` (non-literal test, the two branches followed by
                their continuation differ, and one of them ``runs``, is ``shared`` or
                ``may_exit``); ``while c`` -> ``while not c`` (body ``runs`` or is
                shared); ``a if c else b`` -> ``a if not c else b`` (a and b differ).
``drop-else``   the ``else`` body B of an ``if``/loop/``try`` written after the statement
                instead. Counted when B ``runs``/is ``shared``/``may_exit`` and B followed
                by the continuation differs from the continuation, and B then runs where it
                did not: ``if`` (non-literal test) whose body can complete; a loop with a
                ``break`` of its own; a ``try`` with a handler that can complete or a
                ``finally`` that matters.
``constant``    one constant changed so that both its value and its truth change
                (``0`` <-> ``1``, ``n`` -> ``0``, ``''`` <-> ``'?'``, ``True`` <->
                ``False``, ``None`` -> ``1``). Not counted: docstrings and other
                expression statements, ``...``, annotations, constants in an
                assignment that runs no code to locals not read afterwards.
``swap-args``   two adjacent positional arguments (no ``*``) or keyword values of a call
                swapped, when their expressions differ.

Sites in code that never runs (under a test a literal decides, ``if 0 and x:``; after
a literal that decides an ``and``/``or``; after a statement that cannot complete) or may
never run (under a test of literal locals and constants only, ``support = None`` ...
``if support is None:``, which a copied tail can make constant) are not counted. Mutants that compile to the same normalized bytecode as the original text are
no-ops by construction; the runner (``mutation``) drops those too.
"""
import ast
import copy
from collections import namedtuple

from .mutant_facts import (LOOPS, NESTED, SIMPLE, TRY_NODES, WITHS, Scope, _all_args,
                           _nodes, blocks, branch_differs, can_complete, catches,
                           does_something, finally_matters, has_own_break, is_const_test,
                           literal_locals, live_after, loops_back, may_exit, own_at, runs,
                           runs_completing, shared, unreachable)

KINDS = ("swap", "move", "duplicate", "invert", "drop-else", "constant", "swap-args")

# ``path``: where in ``fn`` (steps of (field, index or None)); ``detail``: what exactly,
# for ``apply``; ``counted``: whether the mutant surely changes behaviour; ``why``: the
# rule that decided it not counted (None when counted); ``nodes``: the nodes involved,
# for a description.
Site = namedtuple("Site", "kind path detail counted why nodes")

# -- sites -----------------------------------------------------------------------------------
def sites(fn, scope):
    """Every mutation site of ``fn`` (a def node), counted or not, in a fixed order."""
    scope.literal = literal_locals(fn, scope)
    found = []
    all_blocks = blocks(fn)
    for b in all_blocks:
        found.extend(_swap_sites(b, scope))
        found.extend(_move_sites(b, scope))
        found.extend(_duplicate_sites(b, scope))
        found.extend(_block_stmt_sites(b, scope))
    found.extend(_expression_sites(fn, scope))
    dead = unreachable(fn)
    guarded = literal_guarded(fn, scope)

    def why(site):
        if any(id(n) in dead for n in site.nodes):
            return "never runs"
        if any(id(n) in guarded for n in site.nodes):
            return "under a test of literals only"
        return None
    return [s._replace(counted=False, why=why(s)) if s.counted and why(s) else s for s in found]


def literal_guarded(fn, scope):
    """Ids of the nodes in the branches of a test of literal locals and constants only
    (``support = None`` ... ``if support is None:``): which branch runs may be fixed on
    every path that gets there, so the other may be dead code."""
    guarded = set()
    for n in ast.walk(fn):
        if isinstance(n, (ast.If, ast.IfExp, ast.While)) and is_const_test(n.test, scope):
            for part in (n.body, n.orelse):
                for item in (part if isinstance(part, list) else [part]):
                    guarded.update(id(m) for m in ast.walk(item))
    return guarded


def _at(block, i):
    return block.path[:-1] + ((block.path[-1][0], i),)


def _site(kind, path, detail, why, nodes):
    return Site(kind, path, detail, why is None, why, tuple(nodes))


def _swap_sites(b, scope):
    for i in range(len(b.stmts) - 1):
        a, c = b.stmts[i], b.stmts[i + 1]
        if isinstance(a, (ast.Global, ast.Nonlocal)) or isinstance(c, (ast.Global, ast.Nonlocal)):
            continue
        why = None
        if ast.dump(a) == ast.dump(c):
            why = "the same statement"
        elif not can_complete([a]):
            why = "the second statement is not reached"
        else:
            here = scope.with_own(own_at(b, i))
            if not (_orders(a, c, here) or _orders(c, a, here)):
                why = "the order of the two is not observable"
        yield _site("swap", _at(b, i), None, why, (a, c))


def _orders(first, other, scope):
    """``first`` runs code on a path where it completes, and ``other`` runs code, touches
    a global or may leave: the order of the two shows."""
    return runs_completing(first, scope) and (
        runs(other, scope) or shared(other, scope) or may_exit(other))


def _simple_runs(s, scope):
    return isinstance(s, SIMPLE) and runs(s, scope)


def _bodies(c):
    """The bodies a statement may be moved into or out of: (field, statements)."""
    if isinstance(c, ast.If):
        return [("body", c.body)] + ([("orelse", c.orelse)] if c.orelse else [])
    if isinstance(c, LOOPS + WITHS + TRY_NODES):
        return [("body", c.body)]
    return []


def _move_counts(c, field, direction, scope):
    """Why moving a statement that runs across this edge of ``c`` may be a no-op, or None."""
    if isinstance(c, ast.If):
        if is_const_test(c.test, scope):
            return "literal test"
        other = c.orelse if field == "body" else c.body
        if direction in ("out-after", "in-after") and not can_complete(other):
            return "the other branch cannot complete"
        return None
    if isinstance(c, LOOPS):
        return None if loops_back(c, scope) else "the loop body runs exactly once"
    if isinstance(c, WITHS):
        return None
    # try
    if catches(c) or finally_matters(c, scope):
        return None
    if direction == "out-after" and c.orelse and does_something(c.orelse, scope):
        return None
    return "no handler or finally that notices"


def _move_sites(b, scope):
    for i, c in enumerate(b.stmts):
        for field, body in _bodies(c):
            target = _at(b, i) + ((field, None),)
            # out-before / out-after
            for direction, j in (("out-before", 0), ("out-after", len(body) - 1)):
                s = body[j]
                if not _simple_runs(s, scope):
                    continue
                why = _move_counts(c, field, direction, scope)
                if why is None and direction == "out-after" and not can_complete(body[:-1]):
                    why = "the statement is not reached"
                yield _site("move", _at(b, i), (direction, field, j), why, (s, c))
            # in-before / in-after
            for direction, j in (("in-before", i - 1), ("in-after", i + 1)):
                if not 0 <= j < len(b.stmts) or not _simple_runs(b.stmts[j], scope):
                    continue
                why = _move_counts(c, field, direction, scope)
                if why is None and direction == "in-after" and not can_complete([c]):
                    why = "the statement after is not reached"
                yield _site("move", _at(b, i), (direction, field, j), why, (b.stmts[j], c))


def _duplicate_sites(b, scope):
    for i, s in enumerate(b.stmts):
        if not isinstance(s, SIMPLE) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)):
            continue
        why = None
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            why = "a second import finds the module imported"
        elif not runs(s, scope):
            why = "runs no code"
        elif not can_complete([s]):
            why = "the copy is not reached"
        yield _site("duplicate", _at(b, i), None, why, (s,))


def _block_stmt_sites(b, scope):
    """invert (if/while) and drop-else sites of the statements of one block."""
    for i, s in enumerate(b.stmts):
        here = _at(b, i)
        if isinstance(s, ast.If):
            why = None
            if is_const_test(s.test, scope):
                why = "literal test"
            elif not branch_differs(b, i, s.body, s.orelse):
                why = "the branches do the same"
            elif not (does_something(s.body, scope) or does_something(s.orelse, scope)):
                why = "the branches do nothing observable"
            yield _site("invert", here + (("test", None),), None, why, (s,))
        elif isinstance(s, ast.While):
            why = None if (runs(s.body, scope) or shared(s.body, scope)) else "the body does nothing observable"
            yield _site("invert", here + (("test", None),), None, why, (s,))
        if getattr(s, "orelse", None) and isinstance(s, (ast.If,) + LOOPS + TRY_NODES):
            yield _site("drop-else", here, None, _drop_else_why(b, i, s, scope), (s,))


def _drop_else_why(b, i, s, scope):
    if not does_something(s.orelse, scope):
        return "the else body does nothing observable"
    if not branch_differs(b, i, s.orelse, []):
        return "the else body is what follows anyway"
    if isinstance(s, ast.If):
        if is_const_test(s.test, scope):
            return "literal test"
        return None if can_complete(s.body) else "the body cannot complete"
    if isinstance(s, LOOPS):
        return None if has_own_break(s) else "the loop has no break"
    if any(can_complete(h.body) for h in s.handlers) or finally_matters(s, scope):
        return None
    return "no handler completes and no finally notices"


def _expression_sites(fn, scope):
    skip = set()
    for n in _nodes(fn.body):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant):
            skip.add(id(n.value))
        if isinstance(n, ast.AnnAssign):
            skip.update(id(m) for m in ast.walk(n.annotation))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for a in _all_args(n.args):
                if a.annotation is not None:
                    skip.update(id(m) for m in ast.walk(a.annotation))
            if n.returns is not None:
                skip.update(id(m) for m in ast.walk(n.returns))
    dead = _dead_constants(fn, scope)
    for path, node in _expr_paths(fn):
        if isinstance(node, (ast.If, ast.While)):
            pass
        elif isinstance(node, ast.IfExp):
            why = None if ast.dump(node.body) != ast.dump(node.orelse) else "the branches are the same"
            yield _site("invert", path + (("test", None),), None, why, (node,))
        elif isinstance(node, ast.Constant) and id(node) not in skip:
            new = changed_constant(node.value)
            if new is _NO_CHANGE:
                continue
            why = "a constant stored into a local not read afterwards" if id(node) in dead else None
            yield _site("constant", path, new, why, (node,))
        elif isinstance(node, ast.Call):
            for k in range(len(node.args) - 1):
                x, y = node.args[k], node.args[k + 1]
                if isinstance(x, ast.Starred) or isinstance(y, ast.Starred):
                    continue
                why = None if ast.dump(x) != ast.dump(y) else "the same argument"
                yield _site("swap-args", path, ("args", k), why, (node,))
            for k in range(len(node.keywords) - 1):
                x, y = node.keywords[k], node.keywords[k + 1]
                if x.arg is None or y.arg is None:
                    continue
                why = None if ast.dump(x.value) != ast.dump(y.value) else "the same argument"
                yield _site("swap-args", path, ("keywords", k), why, (node,))


def _dead_constants(fn, scope):
    """Ids of the constants in the value of an assignment that runs no code and binds
    only locals that are not read afterwards (a dead store: changing it changes
    nothing)."""
    dead = set()
    for b in blocks(fn):
        for i, s in enumerate(b.stmts):
            if isinstance(s, ast.Assign):
                targets, value = s.targets, s.value
            elif isinstance(s, ast.AugAssign):
                targets, value = [s.target], s.value
            else:
                continue
            names = []
            if runs(s, scope) or not all(_names_only(t, names) for t in targets):
                continue
            if any(scope.is_global(n) or scope.name(n) in scope.cells for n in names):
                continue  # a global or a cell: other code may read it
            if not any(live_after(b, i, n) for n in names):
                dead.update(id(n) for n in ast.walk(value))
    return dead


def _names_only(target, names):
    if isinstance(target, ast.Name):
        names.append(target.id)
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_names_only(t, names) for t in target.elts)
    return False


def _expr_paths(fn):
    """``(path, node)`` for every node of ``fn``'s own code, in source order."""
    todo = [((), fn, True)]
    while todo:
        path, node, top = todo.pop(0)
        if not top:
            yield path, node
            if isinstance(node, NESTED):
                fields = ("decorator_list", "args", "bases", "keywords")
            else:
                fields = node._fields
        else:
            fields = ("body",)
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not top and field == "args":
                for sub in ("defaults", "kw_defaults"):
                    for k, d in enumerate(getattr(value, sub)):
                        if d is not None:
                            todo.append((path + (("args", None), (sub, k)), d, False))
                continue
            if isinstance(node, ast.Lambda) and field == "args":
                for sub in ("defaults", "kw_defaults"):
                    for k, d in enumerate(getattr(value, sub)):
                        if d is not None:
                            todo.append((path + (("args", None), (sub, k)), d, False))
                continue
            if isinstance(value, list):
                for k, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        todo.append((path + ((field, k),), child, False))
            elif isinstance(value, ast.AST):
                todo.append((path + ((field, None),), value, False))


_NO_CHANGE = object()


def changed_constant(value):
    """A value of the same kind whose value and truth both differ, or ``_NO_CHANGE``."""
    if value is None:
        return 1
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float, complex)):
        if value != value:  # nan
            return _NO_CHANGE
        return type(value)(0) if value else type(value)(1)
    if isinstance(value, str):
        return "" if value else "?"
    if isinstance(value, bytes):
        return b"" if value else b"?"
    return _NO_CHANGE


# -- applying --------------------------------------------------------------------------------
def resolve(root, path):
    node = root
    for field, index in path:
        node = getattr(node, field)
        if index is not None:
            node = node[index]
    return node


def _parent_list(root, path):
    """The list that holds the node at ``path``, and its index there."""
    field, index = path[-1]
    return getattr(resolve(root, path[:-1]), field), index


def apply(fn, site):
    """Perform ``site`` on ``fn`` (modified in place; pass a copy)."""
    kind = site.kind
    if kind == "swap":
        stmts, i = _parent_list(fn, site.path)
        stmts[i], stmts[i + 1] = stmts[i + 1], stmts[i]
    elif kind == "duplicate":
        stmts, i = _parent_list(fn, site.path)
        stmts.insert(i + 1, copy.deepcopy(stmts[i]))
    elif kind == "move":
        _apply_move(fn, site)
    elif kind == "invert":
        owner = resolve(fn, site.path[:-1])
        owner.test = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=owner.test), owner.test)
    elif kind == "drop-else":
        stmts, i = _parent_list(fn, site.path)
        s = stmts[i]
        moved, s.orelse = s.orelse, []
        stmts[i + 1:i + 1] = moved
    elif kind == "constant":
        node = resolve(fn, site.path)
        node.value = site.detail
        if hasattr(node, "kind"):
            node.kind = None
    elif kind == "swap-args":
        call = resolve(fn, site.path)
        field, k = site.detail
        if field == "args":
            call.args[k], call.args[k + 1] = call.args[k + 1], call.args[k]
        else:
            a, b = call.keywords[k], call.keywords[k + 1]
            a.value, b.value = b.value, a.value
    else:
        raise ValueError("unknown mutation kind %r" % kind)
    ast.fix_missing_locations(fn)
    return fn


def _apply_move(fn, site):
    direction, field, j = site.detail
    stmts, i = _parent_list(fn, site.path)
    c = stmts[i]
    body = getattr(c, field)
    if direction == "out-before":
        s = body.pop(0)
        stmts.insert(i, s)
    elif direction == "out-after":
        s = body.pop()
        stmts.insert(i + 1, s)
    elif direction == "in-before":
        s = stmts.pop(j)
        body.insert(0, s)
    else:
        s = stmts.pop(j)
        body.append(s)
    if not body:
        body.append(ast.copy_location(ast.Pass(), c))


def describe(site, source=None):
    """One line saying what the mutation does (lines relative to the text given)."""
    def show(node):
        text = ast.get_source_segment(source, node) if source else None
        lines = (text or "").strip().splitlines()
        text = lines[0] if lines else ast.dump(node)
        return "L%d `%s`" % (node.lineno, text if len(text) <= 60 else text[:57] + "...")
    nodes = site.nodes
    if site.kind == "move":
        direction, field, _ = site.detail
        return "move %s %s the %s of %s" % (show(nodes[0]), direction.replace("-", " "),
                                           field, show(nodes[1]))
    if site.kind == "swap":
        return "swap %s with %s" % (show(nodes[0]), show(nodes[1]))
    if site.kind == "constant":
        return "constant %s -> %r" % (show(nodes[0]), site.detail)
    if site.kind == "swap-args":
        return "swap %s %d and %d of %s" % (site.detail[0], site.detail[1], site.detail[1] + 1,
                                           show(nodes[0]))
    return "%s %s" % (site.kind, show(nodes[0]))
