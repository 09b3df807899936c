"""What the folding rules need to know about one function, read from its AST: which names
it reads, writes and deletes (``Facts``), which local variables are certainly bound before
each statement (``bound.bound_before``), which expressions have no effect (``is_pure``), and in
which order a statement evaluates its parts (``evaluation_order``). Every answer errs on
the safe side: "not known" means a rule does not apply."""
import ast
import re

TEMP_NAME = re.compile(r"^(__temp_\d+|tmp_\d+)$")
DECOMPILER_TEMP = re.compile(r"^__temp_(\d+)$")
_INTROSPECTION = frozenset(("locals", "vars", "dir", "eval", "exec"))
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
          ast.SetComp, ast.DictComp, ast.GeneratorExp)


# ------------------------------------------------------------------------- traversal
# The rules walk the tree many times per fold (most of the time prepare_debug adds to a
# compile): ``children`` is ``list(ast.iter_child_nodes(node))``, same nodes in the same
# order, without a generator per node and skipping the fields that never hold a node and
# the expression contexts and operators (``ast.Load()``, ``ast.Add()``: no rule looks
# for them, and every ``Name`` has one).

_SKIPPED_FIELDS = frozenset(("id", "attr", "arg", "name", "module", "level", "kind", "type_comment",
                             "is_async", "conversion", "simple", "n", "s", "ctx", "op", "ops"))
_CHILD_FIELDS = {ast.Constant: (), ast.Name: ()}


def _child_fields(cls):
    fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SKIPPED_FIELDS)
    return fields


def children(node):
    """The child nodes of ``node`` (``ast.iter_child_nodes``, as a list, without expression
    contexts and operators)."""
    cls = type(node)
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _child_fields(cls)
    if not fields:
        return []
    out = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif type(value) is list:
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


def walk(node):
    """Every node below and including ``node`` (``ast.walk``'s order)."""
    todo = [node]
    i = 0
    while i < len(todo):
        todo.extend(children(todo[i]))
        i += 1
    return todo


def same_tree(a, b):
    """``ast.dump(a) == ast.dump(b)`` (fields, not positions), without building the text."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False if isinstance(a, (ast.AST, list)) or isinstance(b, (ast.AST, list)) else repr(a) == repr(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    if isinstance(a, ast.AST):
        return all(same_tree(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if type(a) in (str, int):
        return a == b
    return repr(a) == repr(b)


# ---------------------------------------------------------------- facts about one function

def own_nodes(node):
    """The nodes below ``node`` in its own scope (a nested scope's node is yielded, its
    inside is not)."""
    stack = children(node)
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, SCOPES):
            stack.extend(children(n))


_STATEMENT_FIELDS = {}


def _statement_fields(cls):
    """The fields of ``cls`` that can hold a statement or an ``except`` handler."""
    fields = _STATEMENT_FIELDS.get(cls)
    if fields is None:
        fields = _STATEMENT_FIELDS[cls] = tuple(
            f for f in cls._fields if f in ("body", "orelse", "finalbody", "handlers", "cases"))
    return fields


def own_statements(node):
    """``own_nodes(node)`` restricted to statements and ``except`` handlers, in the same
    order, found by following only the fields that hold them."""
    stack = _statement_children(node)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.stmt, ast.ExceptHandler)):
            yield n
        if not isinstance(n, SCOPES):
            stack.extend(_statement_children(n))


def _statement_children(node):
    out = []
    for name in _statement_fields(type(node)):
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


def bodies(func):
    """Every statement list of ``func``'s own scope (its body, branches, handlers...)."""
    for node in [func] + list(own_statements(func)):
        if isinstance(node, SCOPES) and node is not func or not _statement_fields(type(node)):
            continue  # (a simple statement holds no statement list)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for handler in node.handlers:
                yield handler.body
        if type(node).__name__ == "Match":
            for case in node.cases:
                yield case.body


def _arg_names(args):
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


_DISPLAYS = (ast.List, ast.Tuple)
_BARE_VALUES = (ast.Constant, ast.Name, ast.List, ast.Tuple, ast.Starred, ast.Dict, ast.Set)


class Facts:
    """Counts of reads, writes and deletions of each name in a function's own scope, and
    which names the rules must not touch."""

    def __init__(self, func, keep=()):
        self.loads, self.stores, self.dels, self.aug = {}, {}, {}, {}
        self.walrus = False  # a `:=` in the function's own scope
        # (own scope) expression statements of a display, name or constant, and one-target
        # assignments of a display to a display: without them two rules cannot apply
        self.bare_values = self.display_unpacks = 0
        nested, declared, inside = set(), set(), set()
        introspective = False
        counters = {ast.Load: self.loads, ast.Store: self.stores, ast.Del: self.dels}
        stack = children(func)  # own_nodes(func), inline: the hottest walk of the fold
        while stack:
            node = stack.pop()
            cls = type(node)
            if cls is ast.Name:
                counter = counters[type(node.ctx)]
                counter[node.id] = counter.get(node.id, 0) + 1
                introspective = introspective or node.id in _INTROSPECTION
                continue  # (no children)
            if cls is ast.AugAssign and type(node.target) is ast.Name:
                for counter in (self.loads, self.aug):
                    counter[node.target.id] = counter.get(node.target.id, 0) + 1
            elif cls is ast.Global or cls is ast.Nonlocal:
                declared.update(node.names)
            elif cls is ast.NamedExpr:
                self.walrus = True
            elif cls is ast.Expr:
                self.bare_values += type(node.value) in _BARE_VALUES
            elif cls is ast.Assign:
                self.display_unpacks += len(node.targets) == 1 and type(node.targets[0]) in _DISPLAYS \
                    and type(node.value) in _DISPLAYS
            if not isinstance(node, SCOPES):
                stack.extend(children(node))
                continue
            for inner in walk(node):
                if isinstance(inner, ast.Name):
                    nested.add(inner.id)
                    inside.add(inner.id)
                    introspective = introspective or inner.id in _INTROSPECTION
                elif isinstance(inner, ast.arg):
                    nested.add(inner.arg)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nested.discard(node.name)
        # every name a Name node of the function spells, nested scopes included
        self.names = set(self.loads).union(self.stores, self.dels, inside)
        self.params = frozenset(_arg_names(func.args))
        self.cells = frozenset(nested | declared)
        self.protected = frozenset(keep) | self.params | self.cells
        # (a Name anywhere in the function: its own scope above, nested scopes in the walks)
        self.introspective = introspective
        self._temps = {}  # is_temp's answers

    def is_temp(self, name):
        known = self._temps.get(name)
        if known is None:
            known = self._temps[name] = bool(TEMP_NAME.match(name)) and name not in self.protected \
                and not self.introspective
        return known

    def unread_temporaries(self):
        """Temporaries stored or deleted but never read (only extended by ``+=``, if at all):
        the only names ``drop_dead_temporaries`` can remove."""
        loads, aug = self.loads, self.aug
        return [n for n in set(self.stores).union(self.dels)
                if loads.get(n, 0) == aug.get(n, 0) and self.is_temp(n)]

    def is_local(self, name):
        """A plain local variable (assigned here, not a cell, not declared global)."""
        return name not in self.cells and (name in self.params or name in self.stores)


# ------------------------------------------------- which local variables are certainly bound

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


# ----------------------------------------------------------------------------- purity

def is_pure(expr, bound, facts):
    """Evaluating ``expr`` has no effect and cannot raise: constants, certainly bound local
    variables, and list/tuple displays of those (dict/set displays with constant keys)."""
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Name):
        return isinstance(expr.ctx, ast.Load) and expr.id in bound and facts.is_local(expr.id)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return all(is_pure(e, bound, facts) for e in expr.elts)
    if isinstance(expr, ast.Starred):  # iterating a display is harmless
        return isinstance(expr.value, (ast.List, ast.Tuple)) and is_pure(expr.value, bound, facts)
    if isinstance(expr, ast.Dict):
        return all(isinstance(k, ast.Constant) for k in expr.keys) and all(
            is_pure(v, bound, facts) for v in expr.values)
    if isinstance(expr, ast.Set):
        return all(isinstance(e, ast.Constant) for e in expr.elts)
    return False


# ------------------------------------------------------------------------ tree editing

def parents(root):
    out = {}
    todo = [root]
    i = 0
    while i < len(todo):  # ast.walk's order: a shared node gets the parent it got there
        node = todo[i]
        kids = children(node)
        for child in kids:
            out[id(child)] = node
        todo.extend(kids)
        i += 1
    return out


def replace(parent, old, new):
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return
    raise ValueError("node not found in its parent")
