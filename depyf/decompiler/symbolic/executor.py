"""Stage 4: symbolic stack execution of straight-line instructions into ``ast`` nodes.

The stack holds ``ast.expr`` nodes (the source of each value) or markers for values that
have no source form of their own (NULL, a ``with`` exit, a caught exception, ...). Markers
are plain classes, not ast nodes, so one leaking into the output fails loudly.
Control flow (jumps, loops, handlers) belongs to ``structure``; this module only turns
one block's non-jump instructions into statements and a resulting stack.
"""
import ast
import copy

from ..mismatch import Mismatch
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from .markers import (AppendStmt, AttrChain, BuildClassMarker, CellRef, Converted, EnterResult,
                      ExcMatch, ExcValue, FinallyMarker, FinallyPlaceholder,
                      ForItem, FromItem, FuncMarker, GenStart, GetIter,
                      ImportName, InplaceResult, Marker, NULL, PopExceptStmt,
                      PrevExc, RestoreStmt, SAME_AS_NEXT, SavedLocal,
                      SetupAnnotations, UnpackSlot, UnpackTarget, WithExit,
                      WithExitCall, WithExitStmt, YieldFromIter)
from .exprs import (BINOPS, CMPOPS, INF, NEGATABLE, UNARY, as_store, cell_expr, code_compare, const,
                    formatted, index_expr, is_literal, is_none, name, negate,
                    none_to_absent, same_expr, yield_from_expr)


class Executor:
    """Executes straight-line instructions of one code object symbolically.

    ``consts`` that have no source form are bound to names (``bindings``) so the caller can
    provide them to the recompiled code; nested code objects are handed to ``nested`` (a
    callable that decompiles them into ast nodes).
    """

    def __init__(self, code, nested, bindings, temp_prefix="__temp_", temps=False):
        self.code = code
        self.nested = nested
        self.bindings = bindings
        self.temp_prefix = temp_prefix
        # temporaries mode, for code no compiler would write (Dynamo's): values that stay
        # on the stack while statements run, are duplicated or are mutated in place are
        # bound to __temp_<n> variables, so that evaluation order and aliasing are exact
        self.temps = temps
        self._ntemps = 0
        self.cellnames = tuple(code.co_cellvars) + tuple(code.co_freevars)
        self._group = []   # pending (position, target, value) of a multi-target assignment
        self._group_floor = 0  # the stack depth its values waiting for targets reach
        self._group_computes = False  # whether a target part was computed (a call...)
        # keyed by id() but holding the value too: a freed node's id can be reused
        self._order = {}   # id(value) -> (value, position before the first stack permutation)
        self._dups = {}    # id(value) -> value, for values duplicated (COPY / DUP_TOP_TWO)
        # id(value) -> value kept beneath the exception an except clause restores: the
        # value of a `return` in the clause, on its way out
        self.returning = {}

    # -- constants ------------------------------------------------------------------------
    def const_expr(self, value):
        if isinstance(value, float) and (value != value or value in (INF, -INF)):
            # no literal: expressions the compiler folds back (1e309 overflows to inf)
            if value != value:
                return ast.BinOp(left=const(INF), op=ast.Sub(), right=const(INF))
            return const(INF) if value > 0 else ast.UnaryOp(op=ast.USub(), operand=const(INF))
        if is_literal(value):
            if isinstance(value, tuple):
                node = ast.Tuple(elts=[self.const_expr(v) for v in value], ctx=ast.Load())
                facts.note(node, Fact.CONST, value)  # set after: 3.13 deprecates unknown constructor keywords
                return node
            if isinstance(value, frozenset):
                if not value:
                    return ast.Call(func=name("frozenset"), args=[], keywords=[])
                # `x in {1, 2}` and `{1, 2}` as a whole (3.9+: BUILD_SET + SET_UPDATE of
                # the constant) fold a set display into a frozenset constant
                node = ast.Set(elts=[self.const_expr(v) for v in sorted(value, key=repr)])
                facts.note(node, Fact.CONST, value)
                return node
            if isinstance(value, float) and value < 0 or isinstance(value, int) and not isinstance(value, bool) and value < 0:
                return ast.UnaryOp(op=ast.USub(), operand=const(-value))
            return const(value)
        for k, v in self.bindings.items():
            if v is value:
                return name(k)
        key = "__depyf_const_%d" % len(self.bindings)
        self.bindings[key] = value
        return name(key)

    # -- the main loop --------------------------------------------------------------------
    # -- temporaries mode ---------------------------------------------------------------------
    _FLUSH_BEFORE = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_ATTR",
                     "STORE_SUBSCR", "STORE_SLICE", "DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL",
                     "DELETE_DEREF", "DELETE_ATTR", "DELETE_SUBSCR", "POP_TOP", "COPY",
                     "LIST_EXTEND", "LIST_APPEND", "SET_UPDATE", "SET_ADD", "DICT_UPDATE",
                     "DICT_MERGE", "MAP_ADD", "UNPACK_SEQUENCE", "UNPACK_EX"}

    @staticmethod
    def _continues_group(ins):
        """Between the stores of `a, b.c, d[i] = ...` only target parts are loaded."""
        op = ins.opname
        return (op.startswith(("STORE_", "LOAD_")) and op not in ("LOAD_METHOD", "LOAD_BUILD_CLASS")
                or op in ("SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N", "COPY",
                          "BUILD_SLICE", "BINARY_SUBSCR", "PUSH_NULL", "UNPACK_SEQUENCE", "UNPACK_EX"))

    @staticmethod
    def settled(value):
        """A stack value that may be used later, or twice, without changing the program."""
        if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
            return True  # a negative literal
        return (isinstance(value, (Marker, ast.Constant, ast.Slice)) or
                facts.get(value, Fact.TEMP, False) or not isinstance(value, ast.expr))

    # how many values on top of the stack an instruction consumes as its own operands
    _OPERANDS = {"POP_TOP": 1, "STORE_FAST": 1, "STORE_NAME": 1, "STORE_GLOBAL": 1,
                 "STORE_DEREF": 1, "STORE_ATTR": 2, "STORE_SUBSCR": 3, "STORE_SLICE": 4,
                 "DELETE_ATTR": 1, "DELETE_SUBSCR": 2, "UNPACK_SEQUENCE": 1, "UNPACK_EX": 1}

    def flush(self, stack, out, ins=None):
        """Temporaries mode: bind every pending stack value to a temporary, bottom first.

        A plain local-variable read stays as it is unless ``ins`` (the instruction about
        to run) rebinds or deletes that variable: reading it later gives the same value."""
        if not self.temps:
            return
        rebinds = ins.argval if ins is not None and ins.opname.startswith(("STORE_", "DELETE_")) \
            and ins.opname not in ("STORE_ATTR", "STORE_SUBSCR", "STORE_SLICE", "DELETE_ATTR",
                                   "DELETE_SUBSCR") else None
        keep = self._OPERANDS.get(ins.opname, 0) if ins is not None else 0
        for i, value in enumerate(stack[:len(stack) - keep] if keep else stack):
            if self.settled(value) or isinstance(value, (ast.Starred,)):
                continue
            if isinstance(value, ast.Name) and value.id != rebinds and \
                    value.id in self.code.co_varnames and value.id not in self.cellnames:
                continue  # a local only this frame can change (globals and cells can change in calls)
            self._ntemps += 1
            tmp = "%s%d" % (self.temp_prefix, self._ntemps)
            out.append(ast.Assign(targets=[name(tmp, ast.Store())], value=value))
            for j in range(i, len(stack)):
                if stack[j] is value:
                    ref = name(tmp)
                    facts.note(ref, Fact.TEMP, True)
                    stack[j] = ref
        self._base = len(stack)

    _DISPLAY_OF = {"LIST_EXTEND": ast.List, "SET_UPDATE": ast.Set, "DICT_UPDATE": ast.Dict,
                   "DICT_MERGE": ast.Dict}

    def _folds_into_display(self, ins, stack):
        """`[*a]`, `{**a}`: merging into a display still being built is part of the
        expression, no statement runs (and DICT_MERGE, unlike dict.update, refuses
        repeated keys: it must stay `**` in a call or display)."""
        kind = self._DISPLAY_OF.get(ins.opname)
        if kind is None or len(stack) <= ins.arg:
            return False
        target = stack[-(ins.arg + 1)]
        return isinstance(target, kind) and not facts.get(target, Fact.TEMP, False)

    def run(self, instrs, stack, out):
        """Execute ``instrs`` (no control flow among them) on ``stack``, appending stmts."""
        # values below ``_base`` were on the stack when the current statement began
        self._base = len(stack)
        self._out = out
        for ins in instrs:
            if self.temps and ins.opname in self._FLUSH_BEFORE and not self._folds_into_display(ins, stack):
                self.flush(stack, out, ins)
            in_target = None
            if self._group and not self._continues_group(ins):
                # a store left other values on the stack and something else runs before
                # they are stored: part of the next target (`d[k] = d[f(k)] = v`) only if
                # it leaves those values alone and runs no statement (checked below)
                in_target = list(stack[:self._group_floor])
            emitted = len(out)
            handler = getattr(self, "op_" + ins.opname, None)
            if handler is None:
                raise Mismatch("unsupported instruction", function=self.code.co_name,
                               opname=ins.opname, offset=ins.offset, unsupported=True)
            try:
                handler(ins, stack, out)
            except Mismatch as err:
                if err.opname is None:
                    err2 = Mismatch(err.reason, function=self.code.co_name, opname=ins.opname,
                                    offset=ins.offset, unsupported=err.unsupported)
                    raise err2 from None
                raise
            except (IndexError, KeyError, TypeError, AttributeError, ValueError) as exc:
                raise Mismatch("unexpected stack state (%s: %s)" % (type(exc).__name__, exc),
                               function=self.code.co_name, opname=ins.opname,
                               offset=ins.offset) from None
            if in_target is not None:
                if len(out) != emitted or len(stack) < len(in_target) or \
                        any(a is not b for a, b in zip(in_target, stack)):
                    # not a multi-target assignment a compiler would write
                    raise Mismatch("values left on the stack across statements",
                                   function=self.code.co_name, opname=ins.opname,
                                   offset=ins.offset)
                self._group_computes = True
            if len(out) != emitted:
                self._base = len(stack)

    # -- loads ------------------------------------------------------------------------------
    def op_LOAD_CONST(self, ins, stack, out):
        value = ins.argval
        if hasattr(value, "co_code"):
            stack.append(value)  # code object: consumed by MAKE_FUNCTION
            return
        stack.append(self.const_expr(value))

    def op_LOAD_SMALL_INT(self, ins, stack, out):
        stack.append(const(ins.argval))

    def op_LOAD_FAST(self, ins, stack, out):
        stack.append(name(ins.argval))

    op_LOAD_FAST_BORROW = op_LOAD_FAST

    def op_LOAD_FAST_AND_CLEAR(self, ins, stack, out):
        stack.append(SavedLocal(ins.argval))

    def op_LOAD_GLOBAL(self, ins, stack, out):
        stack.append(name(ins.argval))

    op_LOAD_NAME = op_LOAD_GLOBAL

    def op_LOAD_DEREF(self, ins, stack, out):
        stack.append(name(ins.argval))

    op_LOAD_CLASSDEREF = op_LOAD_DEREF

    def op_LOAD_CLOSURE(self, ins, stack, out):
        # MAKE_FUNCTION ignores it (a nested def names its free variables itself);
        # Dynamo hands cells to helpers, where the expression gives the very cell
        stack.append(cell_expr(CellRef(ins.argval)))

    def op_LOAD_FROM_DICT_OR_DEREF(self, ins, stack, out):
        stack.pop()
        stack.append(name(ins.argval))

    op_LOAD_FROM_DICT_OR_GLOBALS = op_LOAD_FROM_DICT_OR_DEREF

    def op_LOAD_LOCALS(self, ins, stack, out):
        stack.append(ast.Call(func=name("locals"), args=[], keywords=[]))

    def op_PUSH_NULL(self, ins, stack, out):
        stack.append(NULL)

    def op_LOAD_ATTR(self, ins, stack, out):
        obj = stack.pop()
        if isinstance(obj, ImportName):
            obj.attr_path.append(ins.argval)
            stack.append(obj)
            return
        stack.append(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load()))

    def op_LOAD_METHOD(self, ins, stack, out):
        obj = stack.pop()
        attr = ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load())
        if V.NULL_AFTER_CALLABLE:
            stack.extend([attr, NULL])
        else:
            stack.extend([NULL, attr])

    def op_LOAD_SUPER_ATTR(self, ins, stack, out):
        self_arg = stack.pop()
        cls = stack.pop()
        sup = stack.pop()
        args = [] if not (ins.arg & 2) else [cls, self_arg]
        call = ast.Call(func=sup, args=args, keywords=[])
        attr = ast.Attribute(value=call, attr=ins.argval, ctx=ast.Load())
        if ins.arg & 1:
            stack.extend([attr, NULL] if V.NULL_AFTER_CALLABLE else [NULL, attr])
        else:
            stack.append(attr)

    def op_LOAD_ASSERTION_ERROR(self, ins, stack, out):
        node = name("AssertionError")
        facts.note(node, Fact.ASSERTION, True)  # only `assert` loads it this way
        stack.append(node)

    def op_LOAD_BUILD_CLASS(self, ins, stack, out):
        stack.append(BuildClassMarker())

    # -- stores -----------------------------------------------------------------------------
    def _store(self, target, stack, out):
        self._assign(target, stack.pop(), stack, out)

    def _assign(self, target, value, stack, out):
        if isinstance(value, UnpackSlot):
            up = value.unpack
            k = len(up.targets) - 1
            while k >= 0 and up.targets[k] is SAME_AS_NEXT:
                up.targets[k] = copy.deepcopy(target)
                k -= 1
            up.targets.append(target)
            if up.complete():
                elts = [as_store(e) for e in up.targets]
                if up.star_index is not None:
                    elts[up.star_index] = ast.Starred(value=elts[up.star_index], ctx=ast.Store())
                # nested targets (`for i, (a, b) in ...`) fill the enclosing unpack in turn
                self._assign(ast.Tuple(elts=elts, ctx=ast.Store()), up.source, stack, out)
            return
        self._store_value(target, value, stack, out)

    def _store_value(self, target, value, stack, out):
        if isinstance(value, InplaceResult) and same_expr(value.target, target):
            out.append(ast.AugAssign(target=as_store(target), op=value.op, value=value.value))
            return
        if isinstance(value, EnterResult):
            out.append(ast.Assign(targets=[as_store(target)], value=value))
            return
        if isinstance(value, ExcValue):
            out.append(ast.Assign(targets=[as_store(target)], value=value))
            return
        if isinstance(value, SavedLocal):
            out.append(RestoreStmt(name=target))
            return
        if isinstance(value, FuncMarker) and isinstance(target, ast.Name) and \
                self.nested.mangle(value.code.co_name) == target.id:
            out.append(self.nested.make_def(value))
            return
        if isinstance(value, ImportName):
            out.append(self._import_stmt(value, target))
            return
        if isinstance(value, generics.TypeAliasValue) and isinstance(target, ast.Name) and \
                self.nested.mangle(value.name) == target.id:
            out.append(ast.TypeAlias(name=name(value.name, ast.Store()),
                                     type_params=value.type_params, value=value.value))
            return
        if isinstance(value, FromItem) and isinstance(target, ast.Name):
            value.imp.names.append(ast.alias(name=value.attr,
                                             asname=None if value.attr == target.id else target.id))
            return
        if isinstance(value, AttrChain) and isinstance(target, ast.Name):
            out.append(ast.Import(names=[ast.alias(name=value.imp.module, asname=target.id)]))
            return
        if isinstance(value, ast.Call) and facts.get(value, Fact.CLASS_DEF, None) is not None and \
                isinstance(target, ast.Name) and self.nested.mangle(facts.get(value, Fact.CLASS_DEF).name) == target.id:
            out.append(facts.get(value, Fact.CLASS_DEF))
            return
        if isinstance(value, ast.NamedExpr) and facts.get(value, Fact.CHAIN, None) is not None:
            if stack and stack[-1] is value:  # a = b = c = v: one more target
                facts.get(value, Fact.CHAIN).append(as_store(target))
                return
            out.append(ast.Assign(targets=facts.get(value, Fact.CHAIN) + [as_store(target)], value=value.value))
            return
        if stack and stack[-1] is value and isinstance(target, ast.Name) and \
                not isinstance(value, Marker):
            # COPY + STORE: a walrus if the copy is used, a chained assignment if stored
            walrus = ast.NamedExpr(target=as_store(target), value=value)
            facts.note(walrus, Fact.CHAIN, [as_store(target)])
            stack[-1] = walrus
            return
        # chained (a = b = v) and parallel (a, b = x, y) assignments leave the other
        # values of the statement on the stack: collect until the stack is back to base.
        group = self._group
        seen = self._order.get(id(value))
        pos = seen[1] if seen is not None and seen[0] is value else len(stack)
        group.append((pos, as_store(target), value))
        if len(stack) > getattr(self, "_base", 0) and not isinstance(stack[-1], Marker) and \
                isinstance(stack[-1], ast.expr):
            self._group_floor = len(stack)
            return  # more values of this statement wait for their targets
        self._group = []
        computes, self._group_computes = self._group_computes, False
        if len(group) == 1:
            out.append(ast.Assign(targets=[group[0][1]], value=value))
        elif all(v is group[0][2] for _, _, v in group):
            out.append(ast.Assign(targets=[t for _, t, _ in group], value=value))
        elif computes:
            # a parallel assignment evaluates all its values before any target part
            raise Mismatch("values left on the stack across statements",
                           function=self.code.co_name)
        else:
            group.sort(key=lambda item: item[0])
            out.append(ast.Assign(
                targets=[ast.Tuple(elts=[t for _, t, _ in group], ctx=ast.Store())],
                value=ast.Tuple(elts=[v for _, _, v in group], ctx=ast.Load())))

    def _import_stmt(self, imp, target):
        alias_name = target.id if isinstance(target, ast.Name) else None
        if imp.fromlist is None or imp.fromlist == ():
            module = imp.module
            top = module.split(".")[0]
            if imp.attr_path:
                asname = alias_name
            elif alias_name == top and not imp.attr_path:
                asname = None
            else:
                asname = alias_name
            return ast.Import(names=[ast.alias(name=module, asname=asname)])
        raise Mismatch("unexpected import form")

    def op_STORE_FAST(self, ins, stack, out):
        self._store(name(ins.argval), stack, out)

    op_STORE_NAME = op_STORE_FAST
    op_STORE_GLOBAL = op_STORE_FAST
    op_STORE_DEREF = op_STORE_FAST

    def op_STORE_ATTR(self, ins, stack, out):
        obj = stack.pop()
        self._store(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load()), stack, out)

    def op_STORE_SUBSCR(self, ins, stack, out):
        index = stack.pop()
        obj = stack.pop()
        self._store(ast.Subscript(value=obj, slice=index_expr(index), ctx=ast.Load()), stack, out)

    def op_STORE_SLICE(self, ins, stack, out):
        stop = stack.pop()
        start = stack.pop()
        obj = stack.pop()
        sl = ast.Slice(lower=none_to_absent(start), upper=none_to_absent(stop), step=None)
        self._store(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()), stack, out)

    def op_DELETE_FAST(self, ins, stack, out):
        out.append(ast.Delete(targets=[name(ins.argval, ast.Del())]))

    op_DELETE_NAME = op_DELETE_FAST
    op_DELETE_GLOBAL = op_DELETE_FAST
    op_DELETE_DEREF = op_DELETE_FAST

    def op_DELETE_ATTR(self, ins, stack, out):
        obj = stack.pop()
        out.append(ast.Delete(targets=[ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Del())]))

    def op_DELETE_SUBSCR(self, ins, stack, out):
        index = stack.pop()
        obj = stack.pop()
        out.append(ast.Delete(targets=[ast.Subscript(value=obj, slice=index_expr(index), ctx=ast.Del())]))

    def op_UNPACK_SEQUENCE(self, ins, stack, out):
        value = stack.pop()
        up = UnpackTarget(ins.arg)
        up.source = value
        for _ in range(ins.arg):
            stack.append(UnpackSlot(up, value))

    def op_UNPACK_EX(self, ins, stack, out):
        value = stack.pop()
        before, after = ins.arg & 0xFF, ins.arg >> 8
        up = UnpackTarget(before + 1 + after, star_index=before)
        up.source = value
        for _ in range(before + 1 + after):
            stack.append(UnpackSlot(up, value))

    # -- stack shuffles ---------------------------------------------------------------------
    def op_POP_TOP(self, ins, stack, out):
        value = stack.pop()
        if isinstance(value, UnpackSlot):
            # 3.13 turns `STORE_FAST x; STORE_FAST x` (`_, _ = ...`) into
            # `POP_TOP; STORE_FAST x`: the slot stores into the name stored next
            value.unpack.targets.append(SAME_AS_NEXT)
            return
        if isinstance(value, ImportName) and value.names:
            out.append(ast.ImportFrom(module=value.module or None, names=value.names,
                                      level=value.level))
            return
        if isinstance(value, WithExitCall):
            out.append(WithExitStmt(exit=value.exit))
            return
        if isinstance(value, (Marker,)) and not isinstance(value, (FuncMarker,)):
            if isinstance(value, EnterResult):
                out.append(ast.Expr(value=value))
            elif isinstance(value, ExcValue) and value.part == "value":
                out.append(ast.Expr(value=value))
            return
        if isinstance(value, FuncMarker):
            value = self.nested.make_lambda(value)
        if hasattr(value, "co_code") or self._dups.get(id(value)) is value or facts.get(value, Fact.TEMP, False) \
                or isinstance(value, ast.Constant):
            return  # a duplicate dropped after use (chained comparison, and/or value)
        out.append(ast.Expr(value=value))

    def op_COPY(self, ins, stack, out):
        value = stack[-ins.arg]
        self._dups[id(value)] = value
        stack.append(value)

    def _remember_order(self, stack, n):
        for i in range(len(stack) - n, len(stack)):
            if self._order.get(id(stack[i]), (None,))[0] is not stack[i]:
                self._order[id(stack[i])] = (stack[i], i)

    def op_SWAP(self, ins, stack, out):
        self._remember_order(stack, ins.arg)
        stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]

    def op_ROT_THREE(self, ins, stack, out):
        self._remember_order(stack, 3)
        stack[-3:] = [stack[-1], stack[-3], stack[-2]]

    def op_ROT_FOUR(self, ins, stack, out):
        self._remember_order(stack, 4)
        stack[-4:] = [stack[-1], stack[-4], stack[-3], stack[-2]]

    def op_ROT_N(self, ins, stack, out):
        n = ins.arg
        self._remember_order(stack, n)
        stack[-n:] = [stack[-1]] + stack[-n:-1]

    def op_DUP_TOP_TWO(self, ins, stack, out):
        self._dups.update((id(v), v) for v in stack[-2:])
        stack.extend(stack[-2:])

    # -- operators --------------------------------------------------------------------------
    def op_BINARY_OP(self, ins, stack, out):
        right = stack.pop()
        left = stack.pop()
        sym = ins.argval
        if sym.endswith("=") and sym[:-1] in BINOPS:
            stack.append(InplaceResult(left, BINOPS[sym[:-1]](), right))
            return
        if sym == "[]":  # 3.14 BINARY_OP subscript
            stack.append(ast.Subscript(value=left, slice=index_expr(right), ctx=ast.Load()))
            return
        stack.append(ast.BinOp(left=left, op=BINOPS[sym](), right=right))

    def op_BINARY_SUBSCR(self, ins, stack, out):
        index = stack.pop()
        obj = stack.pop()
        stack.append(ast.Subscript(value=obj, slice=index_expr(index), ctx=ast.Load()))

    def op_BINARY_SLICE(self, ins, stack, out):
        stop = stack.pop()
        start = stack.pop()
        obj = stack.pop()
        sl = ast.Slice(lower=none_to_absent(start), upper=none_to_absent(stop), step=None)
        stack.append(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()))

    def op_BUILD_SLICE(self, ins, stack, out):
        step = stack.pop() if ins.arg == 3 else None
        stop = stack.pop()
        start = stack.pop()
        stack.append(ast.Slice(lower=none_to_absent(start), upper=none_to_absent(stop),
                               step=none_to_absent(step) if step is not None else None))

    def _unary(self, sym, stack):
        operand = stack.pop()
        stack.append(ast.UnaryOp(op=UNARY[sym](), operand=operand))

    def op_UNARY_NEGATIVE(self, ins, stack, out):
        self._unary("-", stack)

    def op_UNARY_POSITIVE(self, ins, stack, out):
        self._unary("+", stack)

    def op_UNARY_INVERT(self, ins, stack, out):
        self._unary("~", stack)

    def op_TO_BOOL(self, ins, stack, out):
        """3.13 `not not x` (a bool made from x)."""
        stack.append(ast.UnaryOp(op=ast.Not(), operand=ast.UnaryOp(op=ast.Not(), operand=stack.pop())))

    def op_UNARY_NOT(self, ins, stack, out):
        # a value, not a test: `not` makes a bool, so only a comparison that is a bool
        # itself may be flipped (`not (a in b)` is `a not in b`); `not not x` stays
        operand = stack.pop()
        if isinstance(operand, ast.Compare) and len(operand.ops) == 1 and \
                type(operand.ops[0]) in NEGATABLE:
            stack.append(negate(operand))
        else:
            stack.append(ast.UnaryOp(op=ast.Not(), operand=operand))

    def op_COMPARE_OP(self, ins, stack, out):
        right = stack.pop()
        left = stack.pop()
        stack.append(code_compare(left, CMPOPS[ins.argval](), right))

    def op_IS_OP(self, ins, stack, out):
        right = stack.pop()
        left = stack.pop()
        stack.append(code_compare(left, ast.IsNot() if ins.arg else ast.Is(), right))

    def op_CONTAINS_OP(self, ins, stack, out):
        right = stack.pop()
        left = stack.pop()
        stack.append(code_compare(left, ast.NotIn() if ins.arg else ast.In(), right))

    def op_EXC_MATCH_POP2(self, ins, stack, out):
        type_expr = stack.pop()
        stack.pop()
        stack.append(ExcMatch(type_expr))

    def op_CHECK_EXC_MATCH(self, ins, stack, out):
        type_expr = stack.pop()
        stack.append(ExcMatch(type_expr))

    def op_CHECK_EG_MATCH(self, ins, stack, out):
        type_expr = stack.pop()
        stack.pop()
        stack.append(ExcValue("group_rest"))
        stack.append(ExcMatch(type_expr))

    # -- containers -------------------------------------------------------------------------
    def _pop_n(self, stack, n):
        if n == 0:
            return []
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
        keys = stack.pop()
        values = self._pop_n(stack, ins.arg)
        key_nodes = keys.elts if isinstance(keys, ast.Tuple) else [const(k) for k in keys.value]
        stack.append(ast.Dict(keys=list(key_nodes), values=values))

    def op_BUILD_STRING(self, ins, stack, out):
        parts = self._pop_n(stack, ins.arg)
        values = []
        for p in parts:
            if isinstance(p, ast.JoinedStr):
                values.extend(p.values)
            else:
                values.append(p)
        stack.append(ast.JoinedStr(values=values))

    def _append(self, ins, stack, out, value, key=None):
        target = stack[-ins.arg]
        if ins.arg == 1 and key is None and isinstance(target, (ast.List, ast.Set)):
            target.elts.append(value)  # display element after a starred part: [a, *b, c]
        elif ins.arg == 1 and key is not None and isinstance(target, ast.Dict):
            target.keys.append(key)  # a big dict display is built item by item
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
        value = stack.pop()
        if isinstance(stack[-ins.arg], ExcValue):
            return  # except*: collecting what a clause left unhandled (no statement)
        self._append(ins, stack, out, value)

    op_SET_ADD = op_LIST_APPEND

    def op_MAP_ADD(self, ins, stack, out):
        value = stack.pop()
        key = stack.pop()
        self._append(ins, stack, out, value, key)

    def _define(self, fm):
        """Temporaries mode: a function object used as a value becomes a nested def."""
        if not self.temps:
            raise Mismatch("function %r is made and used without a name" % fm.code.co_name)
        self._ntemps += 1
        tmp = "%s%d" % (self.temp_prefix, self._ntemps)
        self._out.append(self.nested.make_def(fm, name=tmp))
        ref = name(tmp)
        facts.note(ref, Fact.TEMP, True)
        return ref

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
        value = stack.pop()
        target = stack[-ins.arg]
        if not isinstance(target, ast.List):
            self._mutate(target, "extend", [value], out)
            return
        if isinstance(value, ast.Tuple) and facts.has(value, Fact.CONST):
            target.elts.extend(value.elts)
        else:
            target.elts.append(ast.Starred(value=value, ctx=ast.Load()))

    def op_SET_UPDATE(self, ins, stack, out):
        value = stack.pop()
        target = stack[-ins.arg]
        if not isinstance(target, ast.Set):
            self._mutate(target, "update", [value], out)
            return
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
        value = stack.pop()
        target = stack[-ins.arg]
        if not isinstance(target, ast.Dict):
            self._mutate(target, "update", [value], out)
            return
        if flatten and isinstance(value, ast.Dict):
            # the items of a big display come in chunks: {..., **{'r': n}} is {..., 'r': n}
            target.keys.extend(value.keys)
            target.values.extend(value.values)
            return
        target.keys.append(None)
        target.values.append(value)

    def op_LIST_TO_TUPLE(self, ins, stack, out):
        lst = stack.pop()
        stack.append(ast.Tuple(elts=lst.elts, ctx=ast.Load()))

    def _build_unpack(self, stack, n, kind):
        parts = self._pop_n(stack, n)
        elts = []
        for p in parts:
            if isinstance(p, (ast.Tuple, ast.List, ast.Set)) and not isinstance(p, Marker):
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
        parts = self._pop_n(stack, ins.arg)
        keys, values = [], []
        for p in parts:
            if isinstance(p, ast.Dict):
                keys.extend(p.keys)
                values.extend(p.values)
            else:
                keys.append(None)
                values.append(p)
        stack.append(ast.Dict(keys=keys, values=values))

    op_BUILD_MAP_UNPACK_WITH_CALL = op_BUILD_MAP_UNPACK

    # -- f-strings --------------------------------------------------------------------------
    def op_FORMAT_VALUE(self, ins, stack, out):
        conv, has_spec = ins.argval
        spec = stack.pop() if has_spec else None
        value = stack.pop()
        stack.append(formatted(value, conv, spec))

    def op_CONVERT_VALUE(self, ins, stack, out):
        value = stack.pop()
        stack.append(Converted(value, {1: ord("s"), 2: ord("r"), 3: ord("a")}[ins.arg]))

    def op_FORMAT_SIMPLE(self, ins, stack, out):
        value = stack.pop()
        if isinstance(value, Converted):
            stack.append(formatted(value.value, value.conversion, None))
        else:
            stack.append(formatted(value, -1, None))

    def op_FORMAT_WITH_SPEC(self, ins, stack, out):
        spec = stack.pop()
        value = stack.pop()
        if isinstance(value, Converted):
            stack.append(formatted(value.value, value.conversion, spec))
        else:
            stack.append(formatted(value, -1, spec))

    # -- calls ------------------------------------------------------------------------------
    def _callable(self, stack, null_slot):
        if null_slot:
            b = stack.pop()
            a = stack.pop()
            if a is NULL:
                return b, None
            if b is NULL:
                return a, None
            return a, b  # method + self (3.11+ raw form)
        return stack.pop(), None

    def _finish_call(self, func, self_arg, args, keywords, stack):
        if self_arg is not None:
            if isinstance(func, WithExit) or isinstance(self_arg, WithExit):
                stack.append(WithExitCall(func if isinstance(func, WithExit) else self_arg))
                return
            args = [self_arg] + list(args)
        if isinstance(func, WithExit):
            stack.append(WithExitCall(func))
            return
        if isinstance(func, BuildClassMarker):
            stack.append(self.nested.make_class(args, keywords))
            return
        if isinstance(func, FuncMarker) and func.code.co_name == "<lambda>":
            func = self.nested.make_lambda(func)  # (lambda x: ...)(arg)
        if isinstance(func, FuncMarker) and not keywords and generics.is_type_params_scope(func.code):
            stack.append(generics.rebuild(self.nested, func, args))  # def f[T] / class C[T]
            return
        if isinstance(func, FuncMarker) and func.code.co_name.startswith("<"):
            # comprehension / genexpr called on its iterator
            stack.append(self.nested.make_comprehension(func, args))
            return
        if isinstance(func, FuncMarker):
            func = self._define(func)  # a function made and called at once (Dynamo does)
        args = [(self.nested.make_lambda(a) if a.code.co_name == "<lambda>" or not self.temps
                 else self._define(a)) if isinstance(a, FuncMarker) else a for a in args]
        # a code object passed as a value (Dynamo's _create_nested_fn) is bound by name
        args = [cell_expr(self.const_expr(a) if hasattr(a, "co_code") else a) for a in args]
        if (len(args) == 1 and not keywords and isinstance(args[0], ast.Call) and
                facts.get(args[0], Fact.CLASS_DEF, None) is not None):
            cd = facts.get(args[0], Fact.CLASS_DEF)
            cd.decorator_list.insert(0, func)
            call = ast.Call(func=func, args=args, keywords=[])
            facts.note(call, Fact.CLASS_DEF, cd)
            stack.append(call)
            return
        call = ast.Call(func=func, args=list(args), keywords=keywords)
        stack.append(call)

    def op_CALL(self, ins, stack, out):
        null_slot, kwnames = ins.extra
        n = ins.arg
        args = self._pop_n(stack, n)
        func, self_arg = self._callable(stack, null_slot)
        self._decorated_def(func, self_arg, args, kwnames, stack)

    def _decorated_def(self, func, self_arg, args, kwnames, stack):
        if self_arg is not None and not isinstance(func, WithExit) and not isinstance(self_arg, WithExit):
            args, self_arg = [self_arg] + list(args), None  # 3.11: [callable, arg0] call shape
        keywords = []
        if kwnames:
            k = len(kwnames)
            kwvals = args[-k:]
            args = args[:-k]
            keywords = [ast.keyword(arg=kn, value=v) for kn, v in zip(kwnames, kwvals)]
        if (self_arg is None and len(args) == 1 and not keywords and isinstance(args[0], FuncMarker)
                and not isinstance(func, (BuildClassMarker, WithExit))
                and not (isinstance(func, FuncMarker) and func.code.co_name != "<lambda>")
                and args[0].code.co_name != "<lambda>" and not args[0].code.co_name.startswith("<")):
            # `@decorator def f` (3.9+: any expression, a lambda too)
            args[0].decorators.insert(0, self.nested.make_lambda(func))
            stack.append(args[0])
            return
        self._finish_call(func, self_arg, args, keywords, stack)

    def op_CALL_KW(self, ins, stack, out):
        null_slot, _ = ins.extra
        names = stack.pop()
        kwnames = tuple(e.value for e in names.elts) if isinstance(names, ast.Tuple) else names.value
        args = self._pop_n(stack, ins.arg)
        func, self_arg = self._callable(stack, null_slot)
        self._decorated_def(func, self_arg, args, kwnames, stack)

    def op_CALL_FUNCTION_EX(self, ins, stack, out):
        (has_null,) = ins.extra
        kwargs = stack.pop() if ins.arg & 1 else None
        posargs = stack.pop()
        if has_null:
            func, self_arg = self._callable(stack, True)
        else:
            func, self_arg = stack.pop(), None
        if isinstance(posargs, ast.Tuple):
            args = list(posargs.elts)
        else:
            args = [ast.Starred(value=posargs, ctx=ast.Load())]
        keywords = []
        if kwargs is not None:
            if isinstance(kwargs, ast.Dict):
                for k, v in zip(kwargs.keys, kwargs.values):
                    if k is None:
                        keywords.append(ast.keyword(arg=None, value=v))
                    else:
                        keywords.append(ast.keyword(arg=k.value, value=v))
            else:
                keywords.append(ast.keyword(arg=None, value=kwargs))
        self._finish_call(func, self_arg, args, keywords, stack)

    def op_CALL_INTRINSIC_1(self, ins, stack, out):
        what = ins.argval
        if what == "INTRINSIC_LIST_TO_TUPLE":
            lst = stack.pop()
            stack.append(ast.Tuple(elts=lst.elts, ctx=ast.Load()))
        elif what == "INTRINSIC_UNARY_POSITIVE":
            self._unary("+", stack)
        elif what == "INTRINSIC_IMPORT_STAR":
            imp = stack.pop()
            out.append(ast.ImportFrom(module=imp.module, names=[ast.alias(name="*", asname=None)],
                                      level=imp.level))
            stack.append(None)
            self._drop_none = True
        elif what == "INTRINSIC_STOPITERATION_ERROR":
            pass
        elif what == "INTRINSIC_ASYNC_GEN_WRAP":
            pass
        elif what in generics.INTRINSICS_1:
            generics.intrinsic_1(self, what, stack)
        else:
            raise Mismatch("unsupported intrinsic %s" % what)

    def op_CALL_INTRINSIC_2(self, ins, stack, out):
        if ins.argval not in generics.INTRINSICS_2:
            raise Mismatch("unsupported intrinsic %s" % ins.argval)
        generics.intrinsic_2(self, ins.argval, stack)

    # -- functions and classes --------------------------------------------------------------
    def op_MAKE_FUNCTION(self, ins, stack, out):
        code = stack.pop()
        if V.PY < (3, 11):
            code = stack.pop()  # the qualified name was on top
        flags = ins.arg or 0
        fm = FuncMarker(code)
        if flags & 0x08:
            fm.closure = stack.pop()
        if flags & 0x04:
            fm.annotations = stack.pop()
        if flags & 0x02:
            fm.kwdefaults = stack.pop()
        if flags & 0x01:
            fm.defaults = stack.pop()
        stack.append(fm)

    def op_SET_FUNCTION_ATTRIBUTE(self, ins, stack, out):
        fm = stack.pop()
        value = stack.pop()
        attr = V.MAKE_FUNCTION_FLAGS.get(ins.arg)
        if attr is None:
            raise Mismatch("unknown function attribute flag %s" % ins.arg)
        setattr(fm, attr, value)
        stack.append(fm)

    # -- imports ----------------------------------------------------------------------------
    def op_IMPORT_NAME(self, ins, stack, out):
        fromlist = stack.pop()
        level = stack.pop()
        fl = None
        if isinstance(fromlist, ast.Tuple):
            fl = tuple(e.value for e in fromlist.elts)
        elif isinstance(fromlist, ast.Constant):
            fl = fromlist.value
        stack.append(ImportName(ins.argval, fl, level.value))

    def op_IMPORT_FROM(self, ins, stack, out):
        imp = stack[-1]
        if isinstance(imp, AttrChain):
            stack.append(AttrChain(imp.imp, ins.argval))
            return
        if imp.fromlist:
            stack.append(FromItem(imp, ins.argval))
        else:  # `import a.b.c as d` on 3.8-3.10
            stack.append(AttrChain(imp, ins.argval))

    def op_IMPORT_STAR(self, ins, stack, out):
        imp = stack.pop()
        out.append(ast.ImportFrom(module=imp.module, names=[ast.alias(name="*", asname=None)],
                                  level=imp.level))

    def _only_outside_functions(self, ins):
        # CO_OPTIMIZED marks function bodies; these opcodes belong to module/class bodies
        # (or the interactive prompt), so a function holding one was not compiled from source
        if self.code.co_flags & 0x1:
            raise Mismatch("%s cannot appear in a function body" % ins.opname,
                           function=self.code.co_name, opname=ins.opname,
                           offset=ins.offset)

    def op_SETUP_ANNOTATIONS(self, ins, stack, out):
        self._only_outside_functions(ins)
        out.append(SetupAnnotations())

    # -- generators and coroutines --------------------------------------------------------
    def op_RETURN_GENERATOR(self, ins, stack, out):
        stack.append(GenStart())

    def op_YIELD_VALUE(self, ins, stack, out):
        value = stack.pop()
        if isinstance(value, YieldFromIter):
            stack.append(value)
            return
        stack.append(ast.Yield(value=None if is_none(value) and False else value))

    def op_GET_ITER(self, ins, stack, out):
        value = stack.pop()
        stack.append(GetIter(value))

    def op_GET_YIELD_FROM_ITER(self, ins, stack, out):
        value = stack.pop()
        stack.append(YieldFromIter(value, "yield_from"))

    def op_GET_AWAITABLE(self, ins, stack, out):
        value = stack.pop()
        if facts.get(value, Fact.AWAITED_BY_CALLER, False):
            stack.append(YieldFromIter(value, "comprehension"))
            return
        stack.append(YieldFromIter(value, "await"))

    def op_GET_ANEXT(self, ins, stack, out):
        stack.append(YieldFromIter(ForItem(), "anext"))

    def op_ASYNC_GEN_WRAP(self, ins, stack, out):
        pass  # 3.11: wraps the value an async generator yields

    def op_END_ASYNC_FOR(self, ins, stack, out):
        raise Mismatch("END_ASYNC_FOR outside an async for")

    def op_GET_AITER(self, ins, stack, out):
        value = stack.pop()
        stack.append(GetIter(value, is_async=True))

    def op_YIELD_FROM(self, ins, stack, out):  # up to 3.10
        stack.pop()  # the None sent in
        it = stack.pop()
        stack.append(yield_from_expr(it))

    def op_END_SEND(self, ins, stack, out):
        value = stack.pop()
        stack.pop()
        stack.append(value)

    def op_PRINT_EXPR(self, ins, stack, out):
        self._only_outside_functions(ins)
        out.append(ast.Expr(value=stack.pop()))

    def op_POP_EXCEPT(self, ins, stack, out):
        # 3.11+ saved one value (PUSH_EXC_INFO); up to 3.10 the handler block saved three
        for _ in range(1 if V.HAS_EXCEPTION_TABLE else 3):
            prev = stack.pop()
            if not isinstance(prev, PrevExc):
                raise Mismatch("POP_EXCEPT without a saved exception")
        if stack and isinstance(stack[-1], ast.expr):
            self.returning[id(stack[-1])] = stack[-1]
        out.append(PopExceptStmt())

    def op_PUSH_EXC_INFO(self, ins, stack, out):
        exc = stack.pop()
        stack.append(PrevExc())
        stack.append(exc)

    def op_BEFORE_WITH(self, ins, stack, out):
        mgr = stack.pop()
        ex = WithExit(mgr)
        stack.append(ex)
        stack.append(EnterResult(ex))

    def op_BEFORE_ASYNC_WITH(self, ins, stack, out):
        mgr = stack.pop()
        ex = WithExit(mgr, is_async=True)
        stack.append(ex)
        stack.append(EnterResult(ex))

    # -- up to 3.10: the block stack (already turned into exception entries) -------------
    def op_SETUP_FINALLY(self, ins, stack, out):
        pass

    op_POP_BLOCK = op_SETUP_FINALLY
    op_SETUP_ASYNC_WITH = op_SETUP_FINALLY

    def op_SETUP_WITH(self, ins, stack, out):
        self.op_BEFORE_WITH(ins, stack, out)

    # 3.8's finally machinery: on the paths we emit, these only move markers around
    def op_PUSH_FINALLY_PLACEHOLDER(self, ins, stack, out):
        stack.append(FinallyPlaceholder())

    def op_BEGIN_FINALLY(self, ins, stack, out):
        stack.append(FinallyMarker())

    def op_CALL_FINALLY(self, ins, stack, out):
        pass  # 3.8: run the finally body before a return/break; the try statement implies it

    def op_POP_FINALLY(self, ins, stack, out):
        if ins.arg and len(stack) >= 2 and isinstance(stack[-2], FinallyMarker):
            del stack[-2]
        elif stack and isinstance(stack[-1], FinallyMarker):
            stack.pop()

    def op_WITH_CLEANUP_START(self, ins, stack, out):
        if stack and isinstance(stack[-1], FinallyMarker):
            stack.pop()
        for k in range(len(stack) - 1, -1, -1):
            if isinstance(stack[k], WithExit):
                ex = stack.pop(k)
                if ex.is_async:  # awaited next, then WITH_CLEANUP_FINISH
                    stack.append(WithExitCall(ex))
                else:
                    out.append(WithExitStmt(exit=ex))
                return
        raise Mismatch("with cleanup without a context manager")

    def op_WITH_CLEANUP_FINISH(self, ins, stack, out):
        if stack and isinstance(stack[-1], WithExitCall):
            out.append(WithExitStmt(exit=stack.pop().exit))

    def op_END_FINALLY(self, ins, stack, out):
        if stack and isinstance(stack[-1], FinallyMarker):
            stack.pop()


from . import generics
