"""Follow the lists Dynamo builds and shuffles in its transformed code, and keep only
what they end up holding (scalar replacement of private lists).

At a graph break Dynamo puts the live values into lists, slices, extends and reorders them
(``__temp_8 = __temp_7[0:1]``, ``__temp_8 += __temp_9``, ``__temp_16[0:] = [...]``,
``del __temp_13[-1]``) and finally unpacks one into the call of the resume function
(``return __temp_20(*__temp_22)``). ``scalarize`` executes the function's statements
symbolically:

* a list built by a display and stored in a temporary is a *private list*: its elements
  are known (each a constant, ``()``, a local variable that is certainly bound and never
  bound again, or another private list), and reading, slicing, extending,
  slice-assigning or deleting from it with constant indexes is done on that model instead
  of in the code; a decompiler temporary holding such a simple value is followed the same
  way;
* an element that is not such a simple value (``graph_out_0[1]``, a call) is evaluated where
  it was, into a new temporary (``__temp_<n> = graph_out_0[1]``), so every operation with an
  effect keeps its place and order;
* where a private list reaches code that is not modelled (an argument of a call, a return
  value, a store into something else) it is written out as a display there; ``*list`` in a
  call becomes the elements. This happens at most once per list: any later use of a list
  already written out stops the rule for the whole function (the aliasing would be lost).

The rule gives up on the whole function (no change) on anything it does not model: an
index out of range, a ``for``/``while``/``try``/``with`` that refers to a private list,
branches that leave different lists behind.
"""
import ast
import copy

from .facts import DECOMPILER_TEMP, SCOPES, children, is_pure, same_tree, walk
from .names import COMPOUND, target_names, terminates


# statements whose stored names are those of their targets when they hold no `:=`
_FLAT = frozenset([ast.Assign, ast.Delete, ast.AugAssign, ast.Expr, ast.Return])


class _GiveUp(Exception):
    pass


class _Expr:
    """A value written as a side-effect-free expression (constant, bound local, tuple)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def key(self):
        return ("expr", ast.dump(self.node))


class _List:
    """A private list object (its elements live in ``_State.heap``)."""

    __slots__ = ("ident",)

    def __init__(self, ident):
        self.ident = ident

    def key(self):
        return ("list", self.ident)


class _State:
    def __init__(self):
        self.env = {}  # tracked temporary -> _Expr or _List
        self.heap = {}  # list ident -> [values]
        self.written = set()  # idents of lists written out already
        self.concrete = set()  # tracked temporaries bound in the emitted code
        self.next_ident = 0

    def clone(self):
        other = _State()
        other.env = dict(self.env)
        other.heap = {k: list(v) for k, v in self.heap.items()}
        other.written = set(self.written)
        other.concrete = set(self.concrete)
        other.next_ident = self.next_ident
        return other

    def key(self):
        return (
            sorted((k, v.key()) for k, v in self.env.items()),
            sorted((k, [e.key() for e in v]) for k, v in self.heap.items()),
            sorted(self.written),
            sorted(self.concrete),
        )

    def new_list(self, elements):
        ident = self.next_ident
        self.next_ident += 1
        self.heap[ident] = list(elements)
        return _List(ident)


def _const_int(node):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return None


def _const_slice(node):
    """(lower, upper) of a step-less slice with constant int (or missing) bounds."""
    if not isinstance(node, ast.Slice) or node.step is not None:
        return None
    bounds = []
    for part in (node.lower, node.upper):
        if part is None:
            bounds.append(None)
            continue
        value = _const_int(part)
        if value is None:
            return None
        bounds.append(value)
    return tuple(bounds)


def _display_chain(node):
    """A list display, or a constant index or slice of one (``[a, b][0:1]``)."""
    while isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        if _const_int(node.slice) is None and _const_slice(node.slice) is None:
            return False
        node = node.value
    return isinstance(node, ast.List) and isinstance(node.ctx, ast.Load)


class _Scalarizer:
    def __init__(self, func, facts, bound):
        self.func = func
        self.facts = facts
        self.bound = bound
        numbers = [int(m.group(1)) for m in map(DECOMPILER_TEMP.match, facts.names) if m]
        self.next_temp = max(numbers, default=0) + 1
        self.stmt = None  # the original statement being executed (for `bound`)

    # ---- names
    def fresh(self):
        name = "__temp_%d" % self.next_temp
        self.next_temp += 1
        return name

    def tracked(self, name):
        return self.facts.is_temp(name)

    def stable(self, node):
        """A local variable certainly bound here and never bound again (an argument, or
        assigned once and never deleted): reading it later gives the same object."""
        facts = self.facts
        return (is_pure(node, self.bound.get(id(self.stmt), frozenset()), facts)
                and facts.stores.get(node.id, 0) + (node.id in facts.params) == 1
                and not facts.dels.get(node.id) and not facts.aug.get(node.id))

    # ---- values
    def simple(self, node, state):
        """The value of ``node`` if reading it has no effect; None otherwise. Creates list
        objects for displays (never emits code)."""
        if isinstance(node, ast.Constant):
            return _Expr(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in state.env:
                return state.env[node.id]
            if self.tracked(node.id) and node.id not in state.concrete:
                return None
            if self.stable(node):
                return _Expr(ast.Name(id=node.id, ctx=ast.Load()))
            return None
        if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load) and not node.elts:
            return _Expr(node)  # `()` is one object: writing it out twice keeps it one
        if isinstance(node, ast.List) and isinstance(node.ctx, ast.Load):
            elements = self.elements(node.elts, state, spill=False)
            return None if elements is None else state.new_list(elements)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            base = self.simple(node.value, state)
            if not isinstance(base, _List):
                return None
            items = state.heap[base.ident]
            if base.ident in state.written:
                raise _GiveUp("a list used after it was written out")
            index = _const_int(node.slice)
            if index is not None:
                if not -len(items) <= index < len(items):
                    raise _GiveUp("index out of range")
                return items[index]
            bounds = _const_slice(node.slice)
            if bounds is not None:
                return state.new_list(items[bounds[0]:bounds[1]])
        return None

    def evaluate(self, node, state):
        """The value of ``node``, evaluating impure elements of list displays into new
        temporaries (``[graph_out_0[1]][0:1]``); None, with nothing emitted, if the rule
        does not model ``node``."""
        if not _display_chain(node):
            return self.simple(node, state)
        if isinstance(node, ast.List):
            elements = self.elements(node.elts, state, spill=True)
            return None if elements is None else state.new_list(elements)
        base = self.evaluate(node.value, state)
        if base is None:
            return None
        items = state.heap[base.ident]
        index = _const_int(node.slice)
        if index is not None:
            if not -len(items) <= index < len(items):
                raise _GiveUp("index out of range")
            return items[index]
        lower, upper = _const_slice(node.slice)
        return state.new_list(items[lower:upper])

    def elements(self, nodes, state, spill):
        """Values of display elements (``*list`` spliced); impure ones evaluated into new
        temporaries when ``spill``, else None."""
        for node in nodes:  # decide before anything is emitted
            if isinstance(node, ast.Starred) and not isinstance(self.simple(node.value, state), _List):
                return None  # unpacking something else: not modelled
        out = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                value = self.simple(node.value, state)
                self.check_usable(value, state)
                out.extend(state.heap[value.ident])
                continue
            value = self.simple(node, state)
            if value is None:
                if not spill:
                    return None
                name = self.fresh()
                self.emit(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                     value=self.residual(copy.deepcopy(node), state)))
                value = _Expr(ast.Name(id=name, ctx=ast.Load()))
            out.append(value)
        return out

    def check_usable(self, value, state):
        if isinstance(value, _List) and value.ident in state.written:
            raise _GiveUp("a list used after it was written out")

    def write_out(self, value, state):
        """The expression for ``value`` at a place the rule does not model."""
        if isinstance(value, _Expr):
            return copy.deepcopy(value.node)
        self.check_usable(value, state)
        state.written.add(value.ident)
        return ast.List(elts=[self.write_out(e, state) for e in state.heap[value.ident]], ctx=ast.Load())

    def residual(self, node, state):
        """``node`` with every read of a tracked value replaced by its expression."""
        if isinstance(node, (ast.Name, ast.Subscript)) and isinstance(node.ctx, ast.Load):
            value = self.simple(node, state)
            if value is not None and not (isinstance(node, ast.Name) and isinstance(value, _Expr)
                                          and isinstance(value.node, ast.Name)
                                          and value.node.id == node.id):
                return self.write_out(value, state)
            if isinstance(node, ast.Name):
                if self.tracked(node.id) and node.id not in state.concrete and node.id not in state.env:
                    pass  # never bound on this path: leave the read (it raises as before)
                return node
        if isinstance(node, (ast.Call, ast.List, ast.Tuple, ast.Set)):
            field = "args" if isinstance(node, ast.Call) else "elts"
            items = []
            for item in getattr(node, field):
                if isinstance(item, ast.Starred):
                    value = self.simple(item.value, state)
                    if isinstance(value, _List):
                        self.check_usable(value, state)
                        items.extend(self.write_out(e, state) for e in state.heap[value.ident])
                        continue
                items.append(self.residual(item, state))
            setattr(node, field, items)
        for field, value in ast.iter_fields(node):
            if isinstance(node, ast.Call) and field == "args":
                continue
            if not isinstance(node, ast.Call) and field == "elts" and isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                continue
            if isinstance(value, ast.expr):
                if not isinstance(value, SCOPES):
                    setattr(node, field, self.residual(value, state))
            elif isinstance(value, list):
                setattr(node, field, [self.residual(v, state) if isinstance(v, ast.expr)
                                      and not isinstance(v, SCOPES) else
                                      (self.residual_keyword(v, state) if isinstance(v, ast.keyword) else v)
                                      for v in value])
        return node

    def residual_keyword(self, kw, state):
        kw.value = self.residual(kw.value, state)
        return kw

    # ---- emitting
    def emit(self, st):
        self.out.append(st)

    # ---- statements
    def block(self, body, state):
        saved_out = getattr(self, "out", None)
        self.out = []
        for st in body:
            self.stmt = st
            self.statement(st, state)
            if isinstance(st, (ast.Return, ast.Raise)):
                break
        out, self.out = self.out, saved_out
        return out or [ast.Pass()]

    def statement(self, st, state):
        if isinstance(st, ast.If):
            return self.branch(st, state)
        if isinstance(st, COMPOUND) or isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                or type(st).__name__ in ("TryStar", "Match"):
            return self.opaque(st, state)
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            target = st.targets[0]
            if isinstance(target, ast.Name) and self.tracked(target.id):
                return self.assign_temp(st, target.id, state)
            if isinstance(target, ast.Subscript) and self.store_into_list(st, target, state):
                return None
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) \
                and st.target.id in state.env and self.extend_list(st, state):
            return None
        if isinstance(st, ast.Delete) and self.delete(st, state):
            return None
        return self.generic(st, state)

    def stored_names(self, st):
        cls = type(st)
        if cls in _FLAT and id(st) not in self.facts.walrus_statements:
            names = set()  # (no `:=`: its targets' names, which are Name nodes stored or deleted)
            for target in st.targets if cls is ast.Assign or cls is ast.Delete else \
                    [st.target] if cls is ast.AugAssign else ():
                names |= target_names(target)
            return names
        names = set()
        stack = [st]  # st and own_nodes(st), in any order (a set is built)
        while stack:
            n = stack.pop()
            cls = type(n)
            if cls is ast.Name:
                if type(n.ctx) in (ast.Store, ast.Del):
                    names.add(n.id)
                continue
            if cls is ast.Constant:
                continue
            if cls is ast.NamedExpr:
                names.add(n.target.id)
            elif cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                names.add(n.name)
            elif cls in (ast.Import, ast.ImportFrom):
                names.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif cls is ast.ExceptHandler and n.name:
                names.add(n.name)
            if n is st or not isinstance(n, SCOPES):
                stack.extend(children(n))
        return names

    def assign_temp(self, st, name, state):
        result = self.evaluate(st.value, state)
        if result is None:  # evaluated for real: the temporary is bound in the code
            return self.generic(st, state)
        if isinstance(result, _Expr) and not (DECOMPILER_TEMP.match(name) and not self.facts.dels.get(name)):
            # Dynamo's own names for values (and their `del`) are kept: bind it for real
            # (to what was computed already, if an element had to be evaluated)
            return self.generic(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                           value=result.node), state)
        if name in state.concrete:
            raise _GiveUp("a temporary bound in the code is given a tracked value")
        state.env[name] = result
        return None

    def store_into_list(self, st, target, state):
        base = self.simple(target.value, state)
        if not isinstance(base, _List):
            return False
        index, bounds = _const_int(target.slice), _const_slice(target.slice)
        if index is None and bounds is None:
            return False
        value = self.evaluate(st.value, state)
        if value is None:  # evaluate the value for real, keep it in a new temporary
            saved = self.fresh()
            self.emit(ast.Assign(targets=[ast.Name(id=saved, ctx=ast.Store())],
                                 value=self.residual(copy.deepcopy(st.value), state)))
            value = _Expr(ast.Name(id=saved, ctx=ast.Load()))
        # `base` is evaluated after the value, but reading a private list has no effect
        base = self.simple(target.value, state)
        self.check_usable(base, state)
        self.check_usable(value, state)
        items = state.heap[base.ident]
        if index is not None:
            if not -len(items) <= index < len(items):
                raise _GiveUp("index out of range")
            items[index] = value
        else:
            if not isinstance(value, _List):
                raise _GiveUp("slice assignment of something that is not a private list")
            items[bounds[0]:bounds[1]] = list(state.heap[value.ident])
        return True

    def extend_list(self, st, state):
        target = state.env[st.target.id]
        if not (isinstance(st.op, ast.Add) and isinstance(target, _List)):
            return False
        if isinstance(st.value, ast.Tuple):
            elements = self.elements(st.value.elts, state, spill=True)
            if elements is None:
                raise _GiveUp("an unmodelled display added to a private list")
        else:
            value = self.evaluate(st.value, state)
            if not isinstance(value, _List):
                raise _GiveUp("a private list extended by something else")
            self.check_usable(value, state)
            elements = list(state.heap[value.ident])
        self.check_usable(target, state)
        state.heap[target.ident].extend(elements)
        return True

    def delete(self, st, state):
        """``del list[k]`` on private lists and ``del temp`` of tracked temporaries."""
        kept = []
        for target in st.targets:
            if isinstance(target, ast.Name) and target.id in state.env:
                del state.env[target.id]
                continue
            if isinstance(target, ast.Subscript):
                base = self.simple(target.value, state)
                if isinstance(base, _List):
                    self.check_usable(base, state)
                    items = state.heap[base.ident]
                    index, bounds = _const_int(target.slice), _const_slice(target.slice)
                    if index is not None and -len(items) <= index < len(items):
                        del items[index]
                        continue
                    if bounds is not None:
                        del items[bounds[0]:bounds[1]]
                        continue
                    raise _GiveUp("deleting from a private list at an unknown index")
            kept.append(target)
        if len(kept) == len(st.targets):
            return False
        if kept:
            self.generic(ast.Delete(targets=kept), state)
        return True

    def generic(self, st, state):
        """A statement evaluated for real, with tracked values written in."""
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id in state.env:
            raise _GiveUp("an augmented assignment to a tracked list that is not modelled")
        stored = self.stored_names(st)
        new = copy.deepcopy(st) if state.env and any(isinstance(n, ast.Name) and n.id in state.env
                                                     for n in walk(st)) else None
        for field, value in ast.iter_fields(new) if new is not None else ():
            if isinstance(value, ast.expr):
                setattr(new, field, self.residual_target(value, state) if field in ("target", "targets")
                        else self.residual(value, state))
            elif isinstance(value, list) and field == "targets":
                setattr(new, field, [self.residual_target(t, state) for t in value])
            elif isinstance(value, list):
                setattr(new, field, [self.residual(v, state) if isinstance(v, ast.expr) else v for v in value])
        for name in stored:
            if name in state.env:
                del state.env[name]
            if self.tracked(name):
                state.concrete.add(name)
        self.emit(st if new is None else new)  # (None: no tracked value to write in)

    def residual_target(self, target, state):
        if isinstance(target, ast.Name):
            return target
        if isinstance(target, (ast.Tuple, ast.List)):
            target.elts = [self.residual_target(t, state) for t in target.elts]
            return target
        if isinstance(target, ast.Starred):
            target.value = self.residual_target(target.value, state)
            return target
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            base = self.simple(target.value, state) if isinstance(target, ast.Subscript) else None
            if isinstance(base, _List):
                raise _GiveUp("a private list stored into at an unknown index")
            target.value = self.residual(target.value, state)
            if isinstance(target, ast.Subscript):
                target.slice = self.residual(target.slice, state)
            return target
        return target

    def opaque(self, st, state):
        names = set()
        for n in walk(st):
            if isinstance(n, ast.Name):
                names.add(n.id)
        for name in sorted(names & set(state.env)):
            value = state.env.pop(name)
            if isinstance(value, _List):
                raise _GiveUp("a %s refers to a private list" % type(st).__name__)
            # bind it for real, here: its value has no effect to evaluate and never changes
            self.emit(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=copy.deepcopy(value.node)))
            state.concrete.add(name)
        for name in self.stored_names(st):
            if self.tracked(name):
                state.concrete.add(name)
        self.emit(st)

    def branch(self, st, state):
        test = self.residual(copy.deepcopy(st.test), state)
        after_body, after_else = state.clone(), state.clone()
        body = self.block(st.body, after_body)
        orelse = self.block(st.orelse, after_else) if st.orelse else []
        if len(orelse) == 1 and isinstance(orelse[0], ast.Pass):
            orelse = []
        self.emit(ast.If(test=test, body=body, orelse=orelse))
        ends_body, ends_else = terminates(st.body), bool(st.orelse) and terminates(st.orelse)
        if ends_body and not ends_else:
            result = after_else
        elif ends_else and not ends_body:
            result = after_body
        elif ends_body and ends_else:
            result = after_else
        else:
            if after_body.key() != after_else.key():
                raise _GiveUp("branches leave different private lists behind")
            result = after_body
        state.__dict__.update(result.clone().__dict__)


def scalarize(func, facts, bound):
    """Apply the rule to ``func`` (in place); True if it changed anything."""
    if facts.introspective:
        return False
    worker = _Scalarizer(func, facts, bound)
    try:
        new_body = worker.block(func.body, _State())
    except _GiveUp:
        return False
    if same_tree(new_body, func.body):
        return False
    func.body[:] = new_body
    return True
