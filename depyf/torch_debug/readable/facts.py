"""What the folding rules need to know about one function, read from its AST: which names
it reads, writes and deletes (``Facts``), which local variables are certainly bound before
each statement (``bound.bound_before``, from what each statement binds and deletes:
``names``), which expressions have no effect (``is_pure``; in which order a statement
evaluates its parts is ``order``'s). Every answer errs on the safe side: "not known" means
a rule does not apply."""
import ast
import copy
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


def unshare(tree, renames=None):
    """``tree`` with each node in one place only: where the decompiler put one node in two
    places (a value the bytecode reads twice), the second becomes a copy, as parsing the
    printed text would give; a rule that changes a node must not change it elsewhere too.
    Names in ``renames`` are renamed on the way. Expression contexts and operators stay
    shared (no rule changes one; parsing shares them too)."""
    seen = {id(tree)}
    todo = [tree]
    while todo:
        node = todo.pop()
        cls = type(node)
        if cls is ast.Name:
            if renames and node.id in renames:
                node.id = renames[node.id]
            continue
        fields = _CHILD_FIELDS.get(cls)
        if fields is None:
            fields = _child_fields(cls)
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                if id(value) in seen:
                    value = copy.deepcopy(value)
                    setattr(node, name, value)
                seen.add(id(value))
                todo.append(value)
            elif type(value) is list:
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        if id(item) in seen:
                            item = value[i] = copy.deepcopy(item)
                        seen.add(id(item))
                        todo.append(item)
    return tree


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


_SIMPLE, _HOLDER, _PART = "simple", "holder", "part"
# nodes by class: simple statements, nodes that hold statements (compound statements,
# handlers, match cases) and the rest (expressions and their parts)
_KINDS = {}


def _kind(cls):
    kind = _KINDS.get(cls)
    if kind is None:
        statement = issubclass(cls, (ast.stmt, ast.ExceptHandler)) or cls.__name__ == "match_case"
        kind = _KINDS[cls] = _PART if not statement else _HOLDER if _statement_fields(cls) else _SIMPLE
    return kind


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
        self.walrus_statements = set()  # ids of the statements that hold a `:=` (own scope)
        self.introspective = False
        nested, declared, inside = set(), set(), set()
        for node in self._count(func, declared):  # the nested scopes
            for inner in walk(node):
                if isinstance(inner, ast.Name):
                    nested.add(inner.id)
                    inside.add(inner.id)
                    self.introspective = self.introspective or inner.id in _INTROSPECTION
                elif isinstance(inner, ast.arg):
                    nested.add(inner.arg)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nested.discard(node.name)
        # every name a Name node of the function spells, nested scopes included
        self.names = set(self.loads).union(self.stores, self.dels, inside)
        self.params = frozenset(_arg_names(func.args))
        self.cells = frozenset(nested | declared)
        self.protected = frozenset(keep) | self.params | self.cells
        self._temps = {}  # is_temp's answers

    def _count(self, func, declared):
        """Count the names of ``func``'s own scope (``own_nodes``: the hottest walk of the
        fold), statement by statement; returns the nested scopes, in ``own_nodes``' order
        when that matters (a nested ``def`` takes its name out of ``cells``)."""
        counters = {ast.Load: self.loads, ast.Store: self.stores, ast.Del: self.dels}
        scopes, holders, introspective = [], [func], False
        while holders:
            holder = holders.pop()  # func, a statement, an except handler or a match case
            cls = type(holder)
            if cls is ast.AugAssign and type(holder.target) is ast.Name:
                for counter in (self.loads, self.aug):
                    counter[holder.target.id] = counter.get(holder.target.id, 0) + 1
            elif cls is ast.Global or cls is ast.Nonlocal:
                declared.update(holder.names)
            elif cls is ast.Expr:
                self.bare_values += type(holder.value) in _BARE_VALUES
            elif cls is ast.Assign:
                self.display_unpacks += len(holder.targets) == 1 and type(holder.targets[0]) in _DISPLAYS \
                    and type(holder.value) in _DISPLAYS
            elif holder is not func and isinstance(holder, SCOPES):
                scopes.append(holder)
                continue
            stack = children(holder)
            if (_KINDS.get(cls) or _kind(cls)) is _HOLDER:
                holders.extend([k for k in stack if (_KINDS.get(type(k)) or _kind(type(k))) is not _PART])
                stack = [k for k in stack if _KINDS.get(type(k)) is _PART]
            while stack:  # the expressions of the statement
                node = stack.pop()
                cls = type(node)
                if cls is ast.Name:
                    counter = counters[type(node.ctx)]
                    counter[node.id] = counter.get(node.id, 0) + 1
                    introspective = introspective or node.id in _INTROSPECTION
                    continue  # (no children)
                if cls is ast.Constant:
                    continue
                if cls is ast.Attribute:  # (children(node) of the commonest nodes, inline)
                    stack.append(node.value)
                    continue
                if cls is ast.Subscript:
                    stack.append(node.value)
                    stack.append(node.slice)
                    continue
                if cls is ast.NamedExpr:
                    self.walrus = True
                    self.walrus_statements.add(id(holder))
                if isinstance(node, SCOPES):
                    scopes.append(node)
                else:
                    stack.extend(children(node))
        self.introspective = introspective
        if len(scopes) > 1 and any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                                   for n in scopes):
            scopes = [n for n in own_nodes(func) if isinstance(n, SCOPES)]
        return scopes

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
