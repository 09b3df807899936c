"""Handlers that compute values: operators, subscripts and slices, comparisons, exception
matches, container displays (and the appends and updates that build them), f-strings."""
import ast
import dis
import functools
import keyword

from ..mismatch import Mismatch
from .. import facts
from ..facts import Fact
from .markers import (AppendStmt, Converted, ExcMatch, ExcValue, InplaceResult, Marker)
from .exprs import (BINOPS, CMPOPS, NEGATABLE, UNARY, code_compare, const, formatted, index_expr,
                    name, negate, none_to_absent)
from .calls import keyword_names
from .stackops import need, peek, pop


@functools.lru_cache(maxsize=256)
def percent_format_folds(fmt, n):
    """Whether the running compiler turns `fmt % (a0, ..., a<n-1>)` into an f-string
    (3.11+, for formats of `%s`, `%r`, `%a` only): asked of the compiler itself."""
    probe = "%r %% (%s)" % (fmt, "".join("a%d, " % i for i in range(n)))
    try:
        code = compile(probe, "<format probe>", "eval", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return not any(ins.opname in ("BINARY_OP", "BINARY_MODULO") for ins in dis.get_instructions(code))


class Operators:
    """A mixin of ``Executor`` (``executor.py``); see the module docstring."""

    # -- operators --------------------------------------------------------------------------
    def op_BINARY_OP(self, ins, stack, out):
        right = pop(stack)
        left = pop(stack)
        sym = ins.argval
        if sym.endswith("=") and sym[:-1] in BINOPS:
            stack.append(InplaceResult(left, BINOPS[sym[:-1]](), right))
            return
        if sym == "[]":  # 3.14 BINARY_OP subscript
            stack.append(ast.Subscript(value=left, slice=index_expr(right), ctx=ast.Load()))
            return
        if sym == "%" and isinstance(left, ast.Constant) and type(left.value) is str and \
                isinstance(right, ast.Tuple) and percent_format_folds(left.value, len(right.elts)):
            # 3.11+ compiles `'%s.%s' % (a, b)` as the f-string `f'{a!s}.{b!s}'`: a `%`
            # kept with such a format had an f-string on its left (`f'%s.%s' % (a, b)`)
            left = ast.JoinedStr(values=[left])
        stack.append(ast.BinOp(left=left, op=BINOPS[sym](), right=right))

    def op_BINARY_SUBSCR(self, ins, stack, out):
        index = pop(stack)
        obj = pop(stack)
        stack.append(ast.Subscript(value=obj, slice=index_expr(index), ctx=ast.Load()))

    def op_BINARY_SLICE(self, ins, stack, out):
        stop = pop(stack)
        start = pop(stack)
        obj = pop(stack)
        sl = ast.Slice(lower=none_to_absent(start), upper=none_to_absent(stop), step=None)
        stack.append(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()))

    def op_BUILD_SLICE(self, ins, stack, out):
        step = pop(stack) if ins.arg == 3 else None
        stop = pop(stack)
        start = pop(stack)
        stack.append(ast.Slice(lower=none_to_absent(start), upper=none_to_absent(stop),
                               step=none_to_absent(step) if step is not None else None))

    def _unary(self, sym, stack):
        operand = pop(stack)
        stack.append(ast.UnaryOp(op=UNARY[sym](), operand=operand))

    def op_UNARY_NEGATIVE(self, ins, stack, out):
        self._unary("-", stack)

    def op_UNARY_POSITIVE(self, ins, stack, out):
        self._unary("+", stack)

    def op_UNARY_INVERT(self, ins, stack, out):
        self._unary("~", stack)

    def op_TO_BOOL(self, ins, stack, out):
        """3.13 `not not x` (a bool made from x)."""
        stack.append(ast.UnaryOp(op=ast.Not(), operand=ast.UnaryOp(op=ast.Not(), operand=pop(stack))))

    def op_UNARY_NOT(self, ins, stack, out):
        # a value, not a test: `not` makes a bool, so only a comparison that is a bool
        # itself may be flipped (`not (a in b)` is `a not in b`); `not not x` stays
        operand = pop(stack)
        if isinstance(operand, ast.Compare) and len(operand.ops) == 1 and \
                type(operand.ops[0]) in NEGATABLE:
            stack.append(negate(operand))
        else:
            stack.append(ast.UnaryOp(op=ast.Not(), operand=operand))

    def op_COMPARE_OP(self, ins, stack, out):
        right = pop(stack)
        left = pop(stack)
        stack.append(code_compare(left, CMPOPS[ins.argval](), right))

    def op_IS_OP(self, ins, stack, out):
        right = pop(stack)
        left = pop(stack)
        stack.append(code_compare(left, ast.IsNot() if ins.arg else ast.Is(), right))

    def op_CONTAINS_OP(self, ins, stack, out):
        right = pop(stack)
        left = pop(stack)
        stack.append(code_compare(left, ast.NotIn() if ins.arg else ast.In(), right))

    def op_EXC_MATCH_POP2(self, ins, stack, out):
        type_expr = pop(stack)
        pop(stack)
        stack.append(ExcMatch(type_expr))

    def op_CHECK_EXC_MATCH(self, ins, stack, out):
        type_expr = pop(stack)
        stack.append(ExcMatch(type_expr))

    def op_CHECK_EG_MATCH(self, ins, stack, out):
        type_expr = pop(stack)
        pop(stack)
        stack.append(ExcValue("group_rest"))
        stack.append(ExcMatch(type_expr))

    # -- containers -------------------------------------------------------------------------
    def _pop_n(self, stack, n):
        if n == 0:
            return []
        need(stack, n)  # a slice would silently take fewer
        items = stack[-n:]
        del stack[-n:]
        return items

    def op_BUILD_TUPLE(self, ins, stack, out):
        stack.append(ast.Tuple(elts=self._pop_n(stack, ins.arg), ctx=ast.Load()))

    def op_BUILD_LIST(self, ins, stack, out):
        stack.append(ast.List(elts=self._pop_n(stack, ins.arg), ctx=ast.Load()))

    def op_BUILD_SET(self, ins, stack, out):
        stack.append(ast.Set(elts=self._pop_n(stack, ins.arg)))

    def op_BUILD_MAP(self, ins, stack, out):
        items = self._pop_n(stack, 2 * ins.arg)
        stack.append(ast.Dict(keys=items[0::2], values=items[1::2]))

    def op_BUILD_CONST_KEY_MAP(self, ins, stack, out):
        keys = pop(stack)
        values = self._pop_n(stack, ins.arg)
        key_nodes = keys.elts if isinstance(keys, ast.Tuple) else [const(k) for k in keys.value]
        stack.append(ast.Dict(keys=list(key_nodes), values=values))

    def op_BUILD_STRING(self, ins, stack, out):
        parts = self._pop_n(stack, ins.arg)
        values = []
        for p in parts:
            if isinstance(p, ast.JoinedStr):
                values.extend(p.values)
            elif isinstance(p, (ast.Constant, ast.FormattedValue)):
                values.append(p)
            else:  # (a temporary's name: no part an f-string can hold)
                raise Mismatch("an f-string part that is no literal or replacement field")
        stack.append(ast.JoinedStr(values=values))

    def _append(self, ins, stack, out, value, key=None):
        target = peek(stack, ins.arg)
        if ins.arg == 1 and key is None and isinstance(target, (ast.List, ast.Set)):
            _grown(stack, 1).elts.append(value)  # display element after a starred part: [a, *b, c]
        elif ins.arg == 1 and key is not None and isinstance(target, ast.Dict):
            target = _grown(stack, 1)  # a big dict display is built item by item
            target.keys.append(key)
            target.values.append(value)
        elif self.temps and facts.get(target, Fact.TEMP, False):
            if key is None:
                self._mutate(target, "append" if ins.opname == "LIST_APPEND" else "add", [value], out)
            else:
                out.append(ast.Assign(targets=[ast.Subscript(value=target, slice=index_expr(key),
                                                             ctx=ast.Store())], value=value))
        else:
            out.append(AppendStmt(acc=target, value=value, key=key))

    def op_LIST_APPEND(self, ins, stack, out):
        value = pop(stack)
        if isinstance(peek(stack, ins.arg), ExcValue):
            return  # except*: collecting what a clause left unhandled (no statement)
        self._append(ins, stack, out, value)

    op_SET_ADD = op_LIST_APPEND

    def op_MAP_ADD(self, ins, stack, out):
        value = pop(stack)
        key = pop(stack)
        self._append(ins, stack, out, value, key)

    def _define(self, fm):
        """Temporaries mode: a function object used as a value becomes a nested def, named
        as its code is (its ``__name__``: Dynamo's resume functions made with their closure)
        where that name is free in this function, else a temporary."""
        if not self.temps:
            raise Mismatch("function %r is made and used without a name" % fm.code.co_name)
        own = fm.code.co_name
        used = self.__dict__.setdefault("_def_names", set())
        if own.isidentifier() and not keyword.iskeyword(own) and own not in used and \
                own not in self.code.co_names and own not in self.code.co_varnames and \
                own not in self.cellnames and not own.startswith(self.temp_prefix):
            used.add(own)
            self._out.append(self.nested.make_def(fm, name=own))
            return name(own)
        tmp = self.new_temp()
        self._out.append(self.nested.make_def(fm, name=tmp))
        return self.temp_ref(tmp)

    def _mutate(self, target, method, args, out):
        """In-place change of a list/set/dict that only lives on the stack (temporaries mode).

        A list is extended with `+=` (list's in-place concatenation is `extend`, and unlike
        a method call it is not a call); other containers use their method."""
        if method in ("extend", "append") and facts.get(target, Fact.TEMP, False):
            value = args[0] if method == "extend" else ast.List(elts=list(args), ctx=ast.Load())
            out.append(ast.AugAssign(target=name(target.id, ast.Store()), op=ast.Add(), value=value))
            return
        out.append(ast.Expr(value=ast.Call(func=ast.Attribute(value=target, attr=method, ctx=ast.Load()),
                                           args=args, keywords=[])))

    def op_LIST_EXTEND(self, ins, stack, out):
        value = pop(stack)
        target = peek(stack, ins.arg)
        if not isinstance(target, ast.List):
            self._mutate(target, "extend", [value], out)
            return
        target = _grown(stack, ins.arg)
        if isinstance(value, ast.Tuple) and facts.has(value, Fact.CONST) and value.elts:
            # a display's constant items; an empty one is no display's: `*() or ()` folded
            target.elts.extend(value.elts)
        else:
            target.elts.append(ast.Starred(value=value, ctx=ast.Load()))

    def op_SET_UPDATE(self, ins, stack, out):
        value = pop(stack)
        target = peek(stack, ins.arg)
        if not isinstance(target, ast.Set):
            self._mutate(target, "update", [value], out)
            return
        target = _grown(stack, ins.arg)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "frozenset" \
                and not value.keywords and len(value.args) == 1 and isinstance(value.args[0], ast.Set):
            target.elts.extend(value.args[0].elts)
        elif isinstance(value, ast.Set) and facts.has(value, Fact.CONST):
            target.elts.extend(value.elts)
        else:
            target.elts.append(ast.Starred(value=value, ctx=ast.Load()))

    def op_DICT_UPDATE(self, ins, stack, out):
        self._dict_update(ins, stack, out, flatten=True)

    def op_DICT_MERGE(self, ins, stack, out):
        # call keywords: `f(**{'a-b': 1})` must stay as written
        self._dict_update(ins, stack, out, flatten=False)

    def _dict_update(self, ins, stack, out, flatten):
        value = pop(stack)
        target = peek(stack, ins.arg)
        if not isinstance(target, ast.Dict):
            self._mutate(target, "update", [value], out)
            return
        target = _grown(stack, ins.arg)
        if flatten and isinstance(value, ast.Dict):
            # the items of a big display come in chunks: {..., **{'r': n}} is {..., 'r': n}
            target.keys.extend(value.keys)
            target.values.extend(value.values)
            return
        target.keys.append(None)
        target.values.append(value)

    def op_LIST_TO_TUPLE(self, ins, stack, out):
        lst = pop(stack)
        stack.append(ast.Tuple(elts=lst.elts, ctx=ast.Load()))

    def _build_unpack(self, stack, n, kind):
        parts = self._pop_n(stack, n)
        elts = []
        for p in parts:
            if isinstance(p, (ast.Tuple, ast.List, ast.Set)) and not isinstance(p, Marker) and p.elts:
                elts.extend(p.elts)
            else:
                elts.append(ast.Starred(value=p, ctx=ast.Load()))
        if kind == "tuple":
            return ast.Tuple(elts=elts, ctx=ast.Load())
        if kind == "list":
            return ast.List(elts=elts, ctx=ast.Load())
        return ast.Set(elts=elts)

    def op_BUILD_TUPLE_UNPACK(self, ins, stack, out):
        stack.append(self._build_unpack(stack, ins.arg, "tuple"))

    op_BUILD_TUPLE_UNPACK_WITH_CALL = op_BUILD_TUPLE_UNPACK

    def op_BUILD_LIST_UNPACK(self, ins, stack, out):
        stack.append(self._build_unpack(stack, ins.arg, "list"))

    def op_BUILD_SET_UNPACK(self, ins, stack, out):
        stack.append(self._build_unpack(stack, ins.arg, "set"))

    def op_BUILD_MAP_UNPACK(self, ins, stack, out):
        stack.append(_joined_dict(self._pop_n(stack, ins.arg),
                                  lambda part, keys, before: isinstance(part, ast.Dict)))

    def op_BUILD_MAP_UNPACK_WITH_CALL(self, ins, stack, out):
        # 3.8 `f(*a, x=1, **{k: v}, **m)`: a dict of keyword arguments joins the keywords
        # (``calls.call_keywords``) unless the part before it did (the compiler builds
        # keywords in a row as one dict); any other part stays a `**` part, as written
        def joins(part, keys, before):
            names = keyword_names(part)
            return names is not None and not before and \
                not set(names) & set(k.value for k in keys if k)

        stack.append(_joined_dict(self._pop_n(stack, ins.arg), joins))

    # -- f-strings --------------------------------------------------------------------------
    def op_FORMAT_VALUE(self, ins, stack, out):
        conv, has_spec = ins.argval
        spec = pop(stack) if has_spec else None
        value = pop(stack)
        stack.append(formatted(value, conv, spec))

    def op_CONVERT_VALUE(self, ins, stack, out):
        value = pop(stack)
        stack.append(Converted(value, {1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg]))

    def op_FORMAT_SIMPLE(self, ins, stack, out):
        value = pop(stack)
        if isinstance(value, Converted):
            stack.append(formatted(value.value, value.conversion, None))
        else:
            stack.append(formatted(value, -1, None))

    def op_FORMAT_WITH_SPEC(self, ins, stack, out):
        spec = pop(stack)
        value = pop(stack)
        if isinstance(value, Converted):
            stack.append(formatted(value.value, value.conversion, spec))
        else:
            stack.append(formatted(value, -1, spec))


def _grown(stack, depth):
    """The display being built at ``stack[-depth]``, replaced there by a copy for the
    items about to be added: never grown in place, since the stack of each arm of a
    branch holds the same node (3.10+ copies the rest of a call into each arm of a
    conditional expression: `f(**big, k=a if c else b)` adds `k` in both)."""
    old = peek(stack, depth)
    new = type(old)(**{f: list(v) if isinstance(v, list) else v for f, v in ast.iter_fields(old)})
    for fact in Fact:
        if facts.has(old, fact):
            facts.note(new, fact, facts.get(old, fact))
    stack[-depth] = new
    return new


def _joined_dict(parts, joins):
    """One dict display of the mappings ``parts`` (BUILD_MAP_UNPACK*): a part that
    ``joins(part, keys so far, whether the part before joined)`` gives its items, any
    other stays a `**` part."""
    keys, values, joined = [], [], False
    for p in parts:
        joined = joins(p, keys, joined)
        if joined:
            keys.extend(p.keys)
            values.extend(p.values)
        else:
            keys.append(None)
            values.append(p)
    return ast.Dict(keys=keys, values=values)
