"""Handlers that move values: loads, stores (multi-target assignments, imports bound to
names), deletes, unpacking, and the stack shuffles (POP_TOP, COPY, SWAP, ROT_*)."""
import ast
import copy

from ..mismatch import Mismatch
from ...bytecode import raw, versions as V
from .. import facts
from ..facts import Fact
from . import deferred
from . import generics
from . import unpack_temps
from .markers import (AnnotateDef, AttrChain, BuildClassMarker, CellRef, EnterResult,
                      ExcValue, FromItem, FuncMarker, ImportName, InplaceResult, Marker, NULL,
                      RestoreStmt, SAME_AS_NEXT, SavedLocal, UnpackSlot, UnpackTarget,
                      WithExitCall, WithExitStmt)
from .exprs import (as_store, cell_expr, const, index_expr, name, none_to_absent, same_expr)
from .stackops import need, peek, pop


class LoadsStores:
    """A mixin of ``Executor`` (``executor.py``); see the module docstring."""

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
        if V.LOAD_FAST_OF_A_CELL_IS_THE_CELL and ins.argval in self.cellnames and \
                ins.argval not in self._plain_slots():
            self.op_LOAD_CLOSURE(ins, stack, out)
            return
        stack.append(name(ins.argval))

    def _plain_slots(self):
        """The cell variables whose slot also holds plain values: an inlined comprehension
        (3.12+) saves and clears the slot (LOAD_FAST_AND_CLEAR) and stores its own
        variable there, so a LOAD_FAST of it may read a value, not the cell."""
        found = getattr(self, "_plain", None)
        if found is None:
            found = self._plain = set()
            for i in raw.instructions(self.code):
                if i.opname.startswith(("STORE_FAST", "DELETE_FAST", "LOAD_FAST_AND_CLEAR")):
                    found.update(i.argval if isinstance(i.argval, tuple) else (i.argval,))
        return found

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
        pop(stack)
        stack.append(name(ins.argval))

    op_LOAD_FROM_DICT_OR_GLOBALS = op_LOAD_FROM_DICT_OR_DEREF

    def op_LOAD_LOCALS(self, ins, stack, out):
        stack.append(ast.Call(func=name("locals"), args=[], keywords=[]))

    def op_PUSH_NULL(self, ins, stack, out):
        stack.append(NULL)

    def op_LOAD_ATTR(self, ins, stack, out):
        obj = pop(stack)
        if isinstance(obj, ImportName):
            obj.attr_path.append(ins.argval)
            stack.append(obj)
            return
        stack.append(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load()))

    def op_LOAD_METHOD(self, ins, stack, out):
        obj = pop(stack)
        attr = ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load())
        if V.NULL_AFTER_CALLABLE:
            stack.extend([attr, NULL])
        else:
            stack.extend([NULL, attr])

    def op_LOAD_SUPER_ATTR(self, ins, stack, out):
        self_arg = pop(stack)
        cls = pop(stack)
        sup = pop(stack)
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

    def op_LOAD_COMMON_CONSTANT(self, ins, stack, out):
        stack.append(name(ins.argval))  # 3.14: a builtin the compiler loads by itself

    def op_LOAD_BUILD_CLASS(self, ins, stack, out):
        stack.append(BuildClassMarker())

    # -- stores -----------------------------------------------------------------------------
    def _store(self, target, stack, out):
        self._assign(target, pop(stack), stack, out)

    def _assign(self, target, value, stack, out):
        if isinstance(value, UnpackSlot):
            up = value.unpack
            unpack_temps.check_next(value)
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
        if deferred.is_annotate_store(value, target):  # 3.14+: a body's annotations
            out.append(AnnotateDef(fm=value))
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
            self._store_chained(target, value, stack, out)
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
        elif computes and any(a[0] >= b[0] for a, b in zip(group, group[1:])):
            # a parallel assignment evaluates all its values before any target part, and
            # stores (computing each target's parts) in the order of its targets: the
            # order of the values they take (`s[-1], s[-i.arg] = s[-i.arg], s[-1]`)
            raise Mismatch("values left on the stack across statements",
                           function=self.code.co_name)
        else:
            group.sort(key=lambda item: item[0])
            out.append(ast.Assign(
                targets=[ast.Tuple(elts=[t for _, t, _ in group], ctx=ast.Store())],
                value=ast.Tuple(elts=[v for _, _, v in group], ctx=ast.Load())))

    def _store_chained(self, target, value, stack, out):
        """A store of a value already stored (``Fact.CHAIN``: its targets so far)."""
        chain = facts.get(value, Fact.CHAIN)
        if stack and stack[-1] is value:  # a = b = c = v: one more target
            if isinstance(target, ast.Name):
                # ... or `(b := (a := v))` if the value is used: a walrus around it
                stack[-1] = ast.NamedExpr(target=as_store(target), value=value)
                facts.note(stack[-1], Fact.CHAIN, chain + [as_store(target)])
            else:
                chain.append(as_store(target))
            return
        while facts.get(value, Fact.CHAIN, None) is not None:
            value = value.value  # the walruses around the value, each one of the targets
        out.append(ast.Assign(targets=chain + [as_store(target)], value=value))

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
        obj = pop(stack)
        self._store(ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Load()), stack, out)

    def op_STORE_SUBSCR(self, ins, stack, out):
        index = pop(stack)
        obj = pop(stack)
        self._store(ast.Subscript(value=obj, slice=index_expr(index), ctx=ast.Load()), stack, out)

    def op_STORE_SLICE(self, ins, stack, out):
        stop = pop(stack)
        start = pop(stack)
        obj = pop(stack)
        sl = ast.Slice(lower=none_to_absent(start), upper=none_to_absent(stop), step=None)
        self._store(ast.Subscript(value=obj, slice=sl, ctx=ast.Load()), stack, out)

    def op_DELETE_FAST(self, ins, stack, out):
        out.append(ast.Delete(targets=[name(ins.argval, ast.Del())]))

    op_DELETE_NAME = op_DELETE_FAST
    op_DELETE_GLOBAL = op_DELETE_FAST
    op_DELETE_DEREF = op_DELETE_FAST

    def op_DELETE_ATTR(self, ins, stack, out):
        obj = pop(stack)
        out.append(ast.Delete(targets=[ast.Attribute(value=obj, attr=ins.argval, ctx=ast.Del())]))

    def op_DELETE_SUBSCR(self, ins, stack, out):
        index = pop(stack)
        obj = pop(stack)
        out.append(ast.Delete(targets=[ast.Subscript(value=obj, slice=index_expr(index), ctx=ast.Del())]))

    def op_UNPACK_SEQUENCE(self, ins, stack, out):
        value = pop(stack)
        if not ins.arg:  # `[] = value`: no target to wait for (raises for a non-empty value)
            self._assign(ast.Tuple(elts=[], ctx=ast.Store()), value, stack, out)
            return
        up = UnpackTarget(ins.arg)
        up.source = value
        self.pending_unpacks.append(up)
        for i in reversed(range(ins.arg)):  # the first item on top
            stack.append(UnpackSlot(up, value, i))

    def op_UNPACK_EX(self, ins, stack, out):
        value = pop(stack)
        before, after = ins.arg & 0xFF, ins.arg >> 8
        up = UnpackTarget(before + 1 + after, star_index=before)
        up.source = value
        self.pending_unpacks.append(up)
        for i in reversed(range(before + 1 + after)):
            stack.append(UnpackSlot(up, value, i))

    # -- stack shuffles ---------------------------------------------------------------------
    def op_POP_TOP(self, ins, stack, out):
        value = pop(stack)
        if value is not None and self.pending_returns.get(id(value)) is value:
            # the value of a `return` that a break/continue of the finally body drops
            out.append(facts.note(ast.Expr(value=value), Fact.RETURN_CANCELLED))
            return
        if isinstance(value, UnpackSlot):
            unpack_temps.check_next(value)
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
        value = peek(stack, ins.arg)
        self._dups[id(value)] = value
        stack.append(value)

    def _remember_order(self, stack, n):
        for i in range(len(stack) - n, len(stack)):
            if self._order.get(id(stack[i]), (None,))[0] is not stack[i]:
                self._order[id(stack[i])] = (stack[i], i)

    def op_SWAP(self, ins, stack, out):
        need(stack, ins.arg)
        self._remember_order(stack, ins.arg)
        stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]

    def op_ROT_THREE(self, ins, stack, out):
        need(stack, 3)
        self._remember_order(stack, 3)
        stack[-3:] = [stack[-1], stack[-3], stack[-2]]

    def op_ROT_FOUR(self, ins, stack, out):
        need(stack, 4)
        self._remember_order(stack, 4)
        stack[-4:] = [stack[-1], stack[-4], stack[-3], stack[-2]]

    def op_ROT_N(self, ins, stack, out):
        n = ins.arg
        need(stack, n)
        self._remember_order(stack, n)
        stack[-n:] = [stack[-1]] + stack[-n:-1]

    def op_DUP_TOP_TWO(self, ins, stack, out):
        need(stack, 2)
        self._dups.update((id(v), v) for v in stack[-2:])
        stack.extend(stack[-2:])
