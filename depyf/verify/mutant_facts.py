"""What the mutation rules know about statements and expressions of a function's AST
(``mutants`` uses these to decide which mutants surely change behaviour; see its
docstring for the definitions): whether code ``runs``, touches ``shared`` state,
``may_exit`` or ``can_complete``; literal locals and containers of the function's own;
statement lists (``blocks``), what follows a statement (``continuation``) and whether a
local may be read after it (``live_after``)."""
import ast
import copy

NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
WITHS = (ast.With, ast.AsyncWith)
COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Import,
          ast.ImportFrom, ast.Assert)
TERMINATORS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_RUNS = (ast.Call, ast.Attribute, ast.Subscript, ast.Await, ast.Yield, ast.YieldFrom,
         ast.FormattedValue, ast.Starred, ast.comprehension, ast.For, ast.AsyncFor,
         ast.With, ast.AsyncWith, ast.Import, ast.ImportFrom, ast.ClassDef)
DISPLAYS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp)
TRY_NODES = tuple(getattr(ast, n) for n in ("Try", "TryStar") if hasattr(ast, n))


# -- scope ---------------------------------------------------------------------------------
class Scope:
    """What the analysis knows of the function: its non-global names (from the original
    code object: locals, cells, free variables) and its private-name mangling."""

    def __init__(self, local_names=(), class_name=None):
        self.locals = frozenset(local_names)
        stripped = (class_name or "").lstrip("_")
        self.prefix = "_" + stripped if stripped else None
        self.literal = frozenset()
        self.own = frozenset()

    @classmethod
    def of(cls, code, class_name=None):
        names = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
        scope = cls(names, class_name)
        scope.cells = frozenset(code.co_cellvars) | frozenset(code.co_freevars)
        return scope

    cells = frozenset()

    def with_own(self, names):
        """A copy that also counts ``names`` as containers of the function's own."""
        other = copy.copy(self)
        other.own = self.own | frozenset(names)
        return other

    def name(self, ident):
        if self.prefix and ident.startswith("__") and not ident.endswith("__") and "." not in ident:
            return self.prefix + ident
        return ident

    def is_global(self, ident):
        return self.name(ident) not in self.locals


def own_nodes(node):
    """``node`` and what it contains, without the bodies of nested defs, lambdas and
    classes (their decorators, defaults and bases do run here)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, NESTED):
            if isinstance(n, ast.Lambda):
                todo.extend(n.args.defaults + [d for d in n.args.kw_defaults if d])
            elif isinstance(n, ast.ClassDef):
                todo.extend(n.decorator_list + n.bases + [k.value for k in n.keywords])
            else:
                todo.extend(n.decorator_list + n.args.defaults
                            + [d for d in n.args.kw_defaults if d])
            continue
        todo.extend(ast.iter_child_nodes(n))


def _nodes(x):
    for item in (x if isinstance(x, list) else [x]):
        for n in own_nodes(item):
            yield n


def literal_locals(fn, scope):
    """Locals only ever assigned literal values (constants and operators on literals);
    sets ``scope.own`` to the locals only ever assigned displays and comprehensions."""
    binds = {}
    for n in _nodes(fn.body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            binds.setdefault(scope.name(n.id), [])
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.setdefault(scope.name(n.name), []).append(None)
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                binds.setdefault(scope.name((a.asname or a.name).split(".")[0]), []).append(None)
        if isinstance(n, ast.ExceptHandler) and n.name:
            binds.setdefault(scope.name(n.name), []).append(None)
    for n in _nodes(fn.body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            binds[scope.name(n.id)].append(n)
    values = {}
    for n in _nodes(fn.body):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            values[id(n.targets[0])] = n.value
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            values[id(n.target)] = n.value
    params = {scope.name(a.arg) for a in _all_args(fn.args)}
    candidates = {
        name for name, stores in binds.items()
        if name in scope.locals and name not in params and stores
        and all(s is not None and id(s) in values for s in stores)
    }
    augmented = {id(n.target) for n in _nodes(fn.body) if isinstance(n, ast.AugAssign)}
    scope.own = frozenset(
        name for name, stores in binds.items()
        if name in scope.locals and name not in params and stores
        and all(s is not None and id(s) not in augmented
                and isinstance(values.get(id(s)), DISPLAYS) for s in stores))
    changed = True
    while changed:
        changed = False
        for name in sorted(candidates):
            stores = binds[name]
            if not all(_is_literal(values[id(s)], scope, candidates) for s in stores):
                candidates.discard(name)
                changed = True
    return frozenset(candidates)


def _all_args(a):
    return (getattr(a, "posonlyargs", []) + a.args + a.kwonlyargs
            + [x for x in (a.vararg, a.kwarg) if x])


def _is_literal(node, scope, literal):
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return scope.name(node.id) in literal
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand, scope, literal)
    if isinstance(node, ast.BinOp):
        return _is_literal(node.left, scope, literal) and _is_literal(node.right, scope, literal)
    if isinstance(node, ast.Compare):
        return all(_is_literal(x, scope, literal) for x in [node.left] + node.comparators)
    if isinstance(node, ast.BoolOp):
        return all(_is_literal(x, scope, literal) for x in node.values)
    return False


# -- facts -----------------------------------------------------------------------------------
def runs(x, scope):
    """May run code outside the function or raise (see the module docstring)."""
    for n in _nodes(x):
        if isinstance(n, ast.FormattedValue) and _is_literal(n.value, scope, scope.literal):
            continue
        if _on_own_container(n, scope):
            continue
        if isinstance(n, _RUNS):
            return True
        if isinstance(n, ast.Assign) and any(_unpacks(t, n.value) for t in n.targets):
            return True
        if isinstance(n, (ast.BinOp, ast.Compare)) or (
                isinstance(n, ast.UnaryOp) and not isinstance(n.op, ast.Not)):
            if isinstance(n, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in n.ops):
                continue
            if not _is_literal(n, scope, scope.literal):
                return True
        if isinstance(n, ast.AugAssign):
            if not (isinstance(n.target, ast.Name) and scope.name(n.target.id) in scope.literal
                    and _is_literal(n.value, scope, scope.literal)):
                return True
    return False


def _unpacks(target, value):
    """Assigning ``value`` to ``target`` iterates an object (``a, b = x``; not
    ``a, b = c, d``, which the compiler does without a tuple)."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return False
    if (isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            and not any(isinstance(x, ast.Starred) for x in target.elts + value.elts)):
        return any(_unpacks(t, v) for t, v in zip(target.elts, value.elts))
    return True


def _on_own_container(n, scope):
    """An attribute, subscript or method call on a container the function built itself
    (a local only ever assigned displays and comprehensions): no user code runs for the
    lookup or the built-in method itself (its arguments are looked at on their own)."""
    if isinstance(n, ast.Call):
        n = n.func
        if not isinstance(n, ast.Attribute):
            return False
    if isinstance(n, (ast.Attribute, ast.Subscript)):
        return isinstance(n.value, ast.Name) and scope.name(n.value.id) in scope.own
    return False


def shared(x, scope):
    """Reads or writes a global name (comprehension variables before 3.12 excepted)."""
    inside_comp = set()
    for n in _nodes(x):
        if isinstance(n, COMPS):
            inside_comp.update(id(m) for m in ast.walk(n))
    return any(isinstance(n, ast.Name) and id(n) not in inside_comp and scope.is_global(n.id)
               for n in _nodes(x))


def may_exit(x):
    """May leave the statement list it is in (see the module docstring)."""
    for stmt in (x if isinstance(x, list) else [x]):
        if _may_exit(stmt, in_loop=False, in_try=False):
            return True
    return False


def _may_exit(n, in_loop, in_try):
    if isinstance(n, ast.Return):
        return True
    if isinstance(n, ast.Raise):
        return not in_try
    if isinstance(n, (ast.Break, ast.Continue)):
        return not in_loop
    if isinstance(n, NESTED) or not isinstance(n, ast.AST):
        return False
    for field, value in ast.iter_fields(n):
        loop = in_loop or (isinstance(n, LOOPS) and field == "body")
        guarded = in_try or (isinstance(n, TRY_NODES) and field == "body" and bool(n.handlers))
        for child in (value if isinstance(value, list) else [value]):
            if isinstance(child, ast.AST) and _may_exit(child, loop, guarded):
                return True
    return False


def can_complete(stmts):
    """Surely may end normally (for some input)."""
    return all(_completes(s) for s in stmts)


def _completes(s):
    if isinstance(s, TERMINATORS):
        return False
    if isinstance(s, ast.Assert):
        return literal_truth(s.test) is not False
    if isinstance(s, ast.If):
        truth = literal_truth(s.test)
        if truth is not None:
            return can_complete(s.body if truth else s.orelse)
        return can_complete(s.body) or can_complete(s.orelse)
    if isinstance(s, ast.While) and _truthy(s.test):
        return has_own_break(s)
    if isinstance(s, WITHS):
        return can_complete(s.body)
    if isinstance(s, TRY_NODES):
        if not can_complete(s.finalbody):
            return False
        return ((can_complete(s.body) and can_complete(s.orelse))
                or any(can_complete(h.body) for h in s.handlers))
    return True


def _truthy(test):
    return literal_truth(test) is True


def literal_truth(expr):
    """The truth of an expression that a literal decides (``0 and x`` is false, ``'a' or
    x`` true, ``not 0`` true), else None."""
    if isinstance(expr, ast.Constant):
        return bool(expr.value)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = literal_truth(expr.operand)
        return None if inner is None else not inner
    if isinstance(expr, ast.BoolOp):
        decider = isinstance(expr.op, ast.Or)
        if any(literal_truth(v) is decider for v in expr.values):
            return decider
    return None


def unreachable(fn):
    """Ids of the nodes of ``fn`` that never run: branches a literal test rules out
    (``if 0 and x:``), operands after a literal that decides an ``and``/``or``, and
    statements after one that cannot complete."""
    dead = set()

    def mark(nodes):
        for node in nodes:
            dead.update(id(n) for n in ast.walk(node))
    for n in ast.walk(fn):
        if isinstance(n, (ast.If, ast.IfExp, ast.While)):
            truth = literal_truth(n.test)
            if truth is False:
                mark(n.body if isinstance(n.body, list) else [n.body])
            elif truth is True and not isinstance(n, ast.While):
                mark(n.orelse if isinstance(n.orelse, list) else [n.orelse])
        elif isinstance(n, ast.BoolOp):
            decider = isinstance(n.op, ast.Or)
            for k, v in enumerate(n.values):
                if literal_truth(v) is decider:
                    mark(n.values[k + 1:])
                    break
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(n, field, None)
            if isinstance(stmts, list):
                for k, s in enumerate(stmts):
                    if isinstance(s, ast.stmt) and not _completes(s):
                        mark(stmts[k + 1:])
                        break
    return dead


def has_own_break(loop):
    """``loop`` has a ``break`` that leaves it (not one of an inner loop)."""
    return _has_own(loop, ast.Break)


def has_own_continue(loop):
    """``loop`` has a ``continue`` of its own (not one of an inner loop)."""
    return _has_own(loop, ast.Continue)


def _has_own(loop, kind):
    todo = list(loop.body)
    while todo:
        n = todo.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, LOOPS):
            todo.extend(n.orelse)  # (an inner loop's else clause belongs to this loop)
        elif not isinstance(n, NESTED):
            todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt)
                        or isinstance(c, (ast.ExceptHandler,) + _match_case()))
    return False


def _match_case():
    return (ast.match_case,) if hasattr(ast, "match_case") else ()


def is_const_test(test, scope=None):
    return _is_literal(test, scope or Scope(), scope.literal if scope else frozenset())


def catches(t):
    """A ``try`` with a handler that does something other than re-raise."""
    return any(not (len(h.body) == 1 and isinstance(h.body[0], ast.Raise)
                    and h.body[0].exc is None) for h in t.handlers)


def finally_matters(t, scope):
    return bool(t.finalbody) and (runs(t.finalbody, scope) or shared(t.finalbody, scope)
                                  or not can_complete(t.finalbody))


def loops_back(loop, scope):
    """A loop that may run its body more than once or not at all."""
    if isinstance(loop, ast.While) and is_const_test(loop.test, scope):
        return can_complete(loop.body) or has_own_continue(loop)
    return True


def does_something(x, scope):
    return runs(x, scope) or shared(x, scope) or may_exit(x)


# -- blocks and continuations ----------------------------------------------------------------
class Block:
    """One statement list of the function: ``owner.<field>`` (``handlers[k].body`` for a
    handler), inside ``parent`` at ``index``."""

    def __init__(self, path, stmts, owner, field, parent, index, loop):
        self.path, self.stmts, self.owner, self.field = path, stmts, owner, field
        self.parent, self.index, self.loop = parent, index, loop


def blocks(fn):
    """Every statement list of ``fn``'s own code, outermost first."""
    top = Block((("body", None),), fn.body, fn, "body", None, None, None)
    found = [top]
    todo = [top]
    while todo:
        b = todo.pop(0)
        for i, s in enumerate(b.stmts):
            if isinstance(s, NESTED):
                continue
            base = b.path[:-1] + ((b.path[-1][0], i),)
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(s, field, None)
                if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                    loop = s if isinstance(s, LOOPS) and field == "body" else b.loop
                    child = Block(base + ((field, None),), stmts, s, field, b, i, loop)
                    found.append(child)
                    todo.append(child)
            for k, h in enumerate(getattr(s, "handlers", ()) or ()):
                child = Block(base + (("handlers", k), ("body", None)), h.body, s,
                              "handler", b, i, b.loop)
                found.append(child)
                todo.append(child)
            for k, case in enumerate(getattr(s, "cases", ()) or ()):
                child = Block(base + (("cases", k), ("body", None)), case.body, s, "case",
                              b, i, b.loop)
                found.append(child)
                todo.append(child)
    return found


def continuation(block, i):
    """What runs after ``block.stmts[i]`` ends normally (items: dumps and markers)."""
    return _seq(block.stmts[i + 1:], block) + _exit(block)


def _exit(block):
    owner, field = block.owner, block.field
    if block.parent is None:
        return ["return None"]
    after = continuation(block.parent, block.index)
    if isinstance(owner, LOOPS) and field == "body":
        return ["continue %d" % id(owner)]
    if isinstance(owner, TRY_NODES):
        final = _seq(owner.finalbody, block.parent)
        if field == "body":
            return _seq(owner.orelse, block.parent) + final + after
        if field in ("orelse", "handler"):
            return final + after
    return after


def _seq(stmts, block):
    out = []
    for s in stmts:
        if isinstance(s, ast.Pass):
            continue
        if isinstance(s, ast.Return) and (s.value is None or (
                isinstance(s.value, ast.Constant) and s.value.value is None)):
            out.append("return None")
        elif isinstance(s, (ast.Break, ast.Continue)) and block.loop is not None:
            out.append("%s %d" % (type(s).__name__.lower(), id(block.loop)))
        else:
            out.append(ast.dump(s))
    return out


def normal(items):
    """Items up to and including the first that leaves (return/raise/break/continue)."""
    out = []
    for item in items:
        out.append(item)
        if item == "return None" or item.startswith(("Return(", "Raise(", "break ", "continue ")):
            break
    return out


def branch_differs(block, i, first, second):
    """Whether running ``first`` then what follows the statement differs (as text) from
    running ``second`` then the same."""
    after = continuation(block, i)
    return normal(_seq(first, block) + after) != normal(_seq(second, block) + after)


# -- liveness of a local ---------------------------------------------------------------------
def live_after(block, i, name):
    """Whether the local ``name`` may be read (on some path, exceptions aside) after
    ``block.stmts[i]`` ends normally, before it is assigned again."""
    return _Liveness(name).after(block, i)


class _Liveness:
    """May-liveness of one local over the AST. Paths through exception handlers and
    ``finally`` bodies run on a ``return`` are not followed: a read only they could make
    leaves the value counted as unread (the mutation rules stay on the side of not
    counting)."""

    def __init__(self, name):
        self.name = name
        self.memo = {}

    def reads(self, node):
        """Reads the local here (nested scopes see it only as a cell, and cells are
        never taken for dead)."""
        return any(isinstance(n, ast.Name) and n.id == self.name and isinstance(n.ctx, ast.Load)
                   for n in own_nodes(node))

    def kills(self, target):
        if isinstance(target, ast.Name):
            return target.id == self.name
        if isinstance(target, (ast.Tuple, ast.List)):
            return any(self.kills(t) for t in target.elts)
        if isinstance(target, ast.Starred):
            return self.kills(target.value)
        return False

    def after(self, block, i):
        key = (id(block), i)
        if key not in self.memo:
            brk, cont = self._loop_exits(block)
            self.memo[key] = self.seq(block.stmts[i + 1:], self._at_end(block), brk, cont)
        return self.memo[key]

    def _loop_exits(self, block):
        """Liveness where ``break``/``continue`` of ``block``'s innermost loop go."""
        b = block
        while b is not None and not (isinstance(b.owner, LOOPS) and b.field == "body"):
            b = b.parent
        if b is None:
            return False, False
        after_loop = self.after(b.parent, b.index)
        return after_loop, self.head(b.owner, after_loop)

    def _at_end(self, block):
        owner, field = block.owner, block.field
        if block.parent is None:
            return False
        after = self.after(block.parent, block.index)
        if isinstance(owner, LOOPS) and field == "body":
            return self.head(owner, after)
        if isinstance(owner, TRY_NODES):
            brk, cont = self._loop_exits(block.parent)
            final = self.seq(owner.finalbody, after, brk, cont)
            if field == "body":
                return self.seq(owner.orelse, final, brk, cont)
            if field in ("orelse", "handler"):
                return final
        return after

    def head(self, loop, after):
        """Liveness at the top of ``loop`` (before its test or next item)."""
        live = False
        for _ in range(3):  # a boolean fixpoint: two rounds settle it
            if isinstance(loop, ast.While):
                new = (self.reads(loop.test) or self.seq(loop.body, live, after, live)
                       or self.seq(loop.orelse, after, *self._outer))
            else:
                body = not self.kills(loop.target) and self.seq(loop.body, live, after, live)
                new = body or self.seq(loop.orelse, after, *self._outer)
            if new == live:
                break
            live = new
        return live

    _outer = (False, False)  # break/continue in a loop's else: not followed (see class doc)

    def seq(self, stmts, after, brk, cont):
        live = after
        for s in reversed(stmts):
            live = self.stmt(s, live, brk, cont)
        return live

    def stmt(self, s, after, brk, cont):
        if isinstance(s, ast.If):
            return (self.reads(s.test) or self.seq(s.body, after, brk, cont)
                    or self.seq(s.orelse, after, brk, cont))
        if isinstance(s, (ast.For, ast.AsyncFor)):
            return self.reads(s.iter) or self.head(s, after)
        if isinstance(s, ast.While):
            return self.head(s, after)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            if any(self.reads(item) for item in s.items):
                return True
            if any(item.optional_vars is not None and self.kills(item.optional_vars)
                   for item in s.items):
                return False
            return self.seq(s.body, after, brk, cont)
        if isinstance(s, TRY_NODES):
            final = self.seq(s.finalbody, after, brk, cont)
            return self.seq(s.body, self.seq(s.orelse, final, brk, cont), brk, cont)
        if isinstance(s, ast.Return):
            return s.value is not None and self.reads(s.value)
        if isinstance(s, ast.Raise):
            return self.reads(s)
        if isinstance(s, ast.Break):
            return brk
        if isinstance(s, ast.Continue):
            return cont
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if self.reads(s):
                return True
            return after and not any(self.kills(t) for t in targets)
        if isinstance(s, ast.AugAssign) and self.kills(s.target):
            return True  # read, then written
        if isinstance(s, ast.Delete):
            return self.reads(s) or (after and not any(self.kills(t) for t in s.targets))
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            bound = [(a.asname or a.name).split(".")[0] for a in s.names]
            return after and self.name not in bound
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return self.reads(s) or (after and s.name != self.name)
        return self.reads(s) or after


def runs_completing(s, scope):
    """Surely runs code on some path on which ``s`` then ends normally (a guard clause
    ``if c: raise E()`` runs code only when it leaves)."""
    if isinstance(s, SIMPLE):
        return runs(s, scope)
    if isinstance(s, (ast.If, ast.While)):
        if runs(s.test, scope):
            return True
        branches = [s.body, s.orelse] if isinstance(s, ast.If) else [s.orelse]
        return any(can_complete(b) and any(runs_completing(x, scope) for x in b)
                   for b in branches)
    if isinstance(s, (ast.For, ast.AsyncFor)):
        return True  # iterating
    if isinstance(s, WITHS):
        return can_complete(s.body)
    if isinstance(s, TRY_NODES):
        return can_complete(s.body) and any(runs_completing(x, scope) for x in s.body)
    return False


def own_at(block, i):
    """Locals that hold a container of the function's own at ``block.stmts[i]``: the
    latest assignment to them earlier in the same list is a display or comprehension
    (it dominates ``i``) and nothing in between assigns them."""
    own, seen = set(), set()
    for s in reversed(block.stmts[:i]):
        if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and isinstance(s.value, DISPLAYS) and s.targets[0].id not in seen):
            own.add(s.targets[0].id)
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                seen.add(n.id)
    return own
