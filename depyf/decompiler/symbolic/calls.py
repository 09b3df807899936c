"""Handlers for calls (decorated defs and classes included), intrinsics, making
functions, imports and annotations."""
import ast
import keyword

from ..mismatch import Mismatch
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from . import generics
from .markers import (AttrChain, BuildClassMarker, FromItem, FuncMarker, ImportName, NULL,
                      SetupAnnotations, WithExit, WithExitCall)
from .exprs import cell_expr
from .stackops import peek, pop


def _argument_name(key):
    """The argument that the dict key ``key`` names when passed as ``f(name=...)``, or
    None (no string constant naming one; a Python keyword names none)."""
    n = key.value if isinstance(key, ast.Constant) else None
    return n if isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n) else None


def keyword_names(d):
    """The names of the keyword arguments that the dict display ``d`` passes as
    ``f(name=...)``, or None: a key that names no argument, or a name given twice, stays
    in ``**{...}``."""
    if not isinstance(d, ast.Dict) or any(k is None for k in d.keys):
        return None
    names = [_argument_name(k) for k in d.keys]
    if None in names or len(set(names)) < len(names):
        return None
    return names


def call_keywords(kwargs):
    """The keywords of a call whose ``**`` mapping is ``kwargs``: a dict of keyword
    arguments (their names: string constants) and ``**`` parts (key None), or one mapping
    that is no such dict (3.8: ``f(**{k: v})`` passes its display alone)."""
    names = keyword_names(kwargs)
    if names is not None:
        return [ast.keyword(arg=n, value=v) for n, v in zip(names, kwargs.values)]
    if not isinstance(kwargs, ast.Dict) or None not in kwargs.keys:
        return [ast.keyword(arg=None, value=kwargs)]
    keywords = []
    for k, v in zip(kwargs.keys, kwargs.values):
        if k is None:
            keywords.append(ast.keyword(arg=None, value=v))
            continue
        arg = _argument_name(k)
        if arg is None:
            raise Mismatch("a call's keywords mix ** parts with keys that name no argument")
        keywords.append(ast.keyword(arg=arg, value=v))
    if len({kw.arg for kw in keywords if kw.arg}) < sum(1 for kw in keywords if kw.arg):
        raise Mismatch("a call's keywords name one argument twice")
    return keywords


class Calls:
    """A mixin of ``Executor`` (``executor.py``); see the module docstring."""

    # -- calls ------------------------------------------------------------------------------
    def _callable(self, stack, null_slot):
        if null_slot:
            b = pop(stack)
            a = pop(stack)
            if a is NULL:
                return b, None
            if b is NULL:
                return a, None
            return a, b  # method + self (3.11+ raw form)
        return pop(stack), None

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
            stack.append(self.nested.type_params_scope(func, args))  # def f[T] / class C[T]
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
        names = pop(stack)
        kwnames = tuple(e.value for e in names.elts) if isinstance(names, ast.Tuple) else names.value
        args = self._pop_n(stack, ins.arg)
        func, self_arg = self._callable(stack, null_slot)
        self._decorated_def(func, self_arg, args, kwnames, stack)

    def op_CALL_FUNCTION_EX(self, ins, stack, out):
        (has_null,) = ins.extra
        kwargs = pop(stack) if ins.arg & 1 else None
        posargs = pop(stack)
        if has_null:
            func, self_arg = self._callable(stack, True)
        else:
            func, self_arg = pop(stack), None
        if isinstance(posargs, ast.Tuple):
            args = list(posargs.elts)
        else:
            args = [ast.Starred(value=posargs, ctx=ast.Load())]
        keywords = [] if kwargs is None else call_keywords(kwargs)
        self._finish_call(func, self_arg, args, keywords, stack)

    def op_CALL_INTRINSIC_1(self, ins, stack, out):
        what = ins.argval
        if what == "INTRINSIC_LIST_TO_TUPLE":
            lst = pop(stack)
            if not isinstance(lst, ast.List):  # (a temporary's name: no display to convert)
                raise Mismatch("a tuple display built as a list that is no display")
            stack.append(ast.Tuple(elts=lst.elts, ctx=ast.Load()))
        elif what == "INTRINSIC_UNARY_POSITIVE":
            self._unary("+", stack)
        elif what == "INTRINSIC_IMPORT_STAR":
            imp = pop(stack)
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
        code = pop(stack)
        if V.QUALNAME_ON_STACK:
            code = pop(stack)  # the qualified name was on top
        flags = ins.arg or 0
        fm = FuncMarker(code)
        self.nested.functions_made.append(fm)  # the session turns unused ones into lambdas
        if flags & 0x08:
            fm.closure = pop(stack)
        if flags & 0x04:
            fm.annotations = pop(stack)
        if flags & 0x02:
            fm.kwdefaults = pop(stack)
        if flags & 0x01:
            fm.defaults = pop(stack)
        stack.append(fm)

    def op_SET_FUNCTION_ATTRIBUTE(self, ins, stack, out):
        fm = pop(stack)
        value = pop(stack)
        attr = V.MAKE_FUNCTION_FLAGS.get(ins.arg)
        if attr is None:
            raise Mismatch("unknown function attribute flag %s" % ins.arg)
        setattr(fm, attr, value)
        stack.append(fm)

    # -- imports ----------------------------------------------------------------------------
    def op_IMPORT_NAME(self, ins, stack, out):
        fromlist = pop(stack)
        level = pop(stack)
        fl = None
        if isinstance(fromlist, ast.Tuple):
            fl = tuple(e.value for e in fromlist.elts)
        elif isinstance(fromlist, ast.Constant):
            fl = fromlist.value
        stack.append(ImportName(ins.argval, fl, level.value))

    def op_IMPORT_FROM(self, ins, stack, out):
        imp = peek(stack)
        if isinstance(imp, AttrChain):
            stack.append(AttrChain(imp.imp, ins.argval))
            return
        if imp.fromlist:
            stack.append(FromItem(imp, ins.argval))
        else:  # `import a.b.c as d` on 3.8-3.10
            stack.append(AttrChain(imp, ins.argval))

    def op_IMPORT_STAR(self, ins, stack, out):
        imp = pop(stack)
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
