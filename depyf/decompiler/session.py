"""One decompilation: a code object and every code object nested in it.

The symbolic executor meets nested code (``MAKE_FUNCTION``, class creation, comprehension
calls, 3.12+ lazily evaluated annotations) and hands it back to the session, which reads
it as a body of statements with the same bindings and temporary names and returns the
``def``, lambda, comprehension or class it stands for. Reading a body runs the stages:
``flow`` normalizes the instructions, ``structure.Emitter`` builds statements driving a
``symbolic.Executor`` block by block, ``rewrite`` finishes the body. When a reading does
not fit (``Mismatch``), ``_statements`` tries the next one on its ladder.
"""
import ast
import dis
import inspect

from .mismatch import Mismatch
from .symbolic import generics
from .symbolic import markers as M
from .symbolic import exprs as E
from .symbolic import executor as S
from .symbolic.type_params import TypeParamsExecutor
from ..bytecode import raw
from ..bytecode import versions as V
from .flow.instructions import normalize
from .flow.ranges import live_indexes
from .rewrite.mangling import mangle
from .rewrite.bodies import finish_body, returned_expression
from .rewrite.signature import annotation_items, build_arguments, dict_items, tuple_elts
from .rewrite import bookkeeping
from .structure.emitter import Emitter
from . import annotations
from . import facts
from .facts import Fact

_OWN_BODIES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
CO_GENERATOR = inspect.CO_GENERATOR
CO_COROUTINE = inspect.CO_COROUTINE
CO_ASYNC_GENERATOR = inspect.CO_ASYNC_GENERATOR

# The ways of reading one code object, in the order ``Decompiler.decompile`` tries them
# until one is proven: the default (with its own fallbacks), the copied tails joined in the
# other order, and every value that stays on the stack bound to a temporary (exact
# evaluation order, more verbose).
READINGS = (None, "flipped", "temporaries")
# what the first reading already tries when one does not fit (``_statements``)
READINGS_TRIED = ("copied tails joined one way", "the other way", "values bound to temporaries")


class DecompileSession:
    """The state one decompilation shares across the code objects nested in it.

    ``bindings``: names in the output for constants with no source form (filled as they
    are met); ``temp_prefix``: the prefix of temporaries; ``reading``: None, or one of
    ``READINGS[1:]``. The executor calls ``make_def``, ``make_lambda``,
    ``make_comprehension``, ``make_class``, ``lazy_expression`` and ``mangle``."""

    def __init__(self, bindings, temp_prefix, reading=None):
        self.bindings = bindings
        self.temp_prefix = temp_prefix
        self.reading = reading  # None, or one of READINGS[1:]: an alternative reading
        self.used_temps = False
        self.classes = []  # names of the class bodies being decompiled, innermost last
        self.scopes = []  # the code objects being decompiled, innermost last
        # the FuncMarkers of the MAKE_FUNCTIONs run in the bodies being read: those not made
        # into a def statement may be values in the tree, awaiting ``_materialize``
        self.functions_made = []
        # id(code object) -> the def or class statement read from it (``made_statement``)
        self._statements_made = {}

    def mangle(self, name):
        """``name`` as the code being decompiled stores it (private names in classes)."""
        return mangle(self.classes[-1], name) if self.classes else name

    def body_of(self, code, kind="function"):
        """The statements of ``code`` read as a ``kind`` body ("function", "lambda",
        "comprehension", "class" or "module"), with its declarations first."""
        instrs, entries = normalize(code)
        # the compiler may have copied the code after an expression into each of its arms
        # (up to a return): a second try joins identical tails. 3.9/3.10 also copy a
        # finally body onto each way out of the try, and the code after the try statement
        # with it: there the joined tails come first, or that code lands inside the try.
        order = (True, False) if _copies_finally_per_exit(instrs, entries) else (False, True)
        self.scopes.append(code)
        made = len(self.functions_made)
        try:
            stmts = self._statements(code, instrs, entries, order)
        finally:
            self.scopes.pop()
        # (a nested body has dealt with its own FuncMarkers and taken them off the list)
        if not all(fm.made_into_def for fm in self.functions_made[made:]):
            stmts = [self._materialize(s) for s in stmts]  # else no FuncMarker is in the tree
        del self.functions_made[made:]
        decls = bookkeeping.declarations(code, instrs, self._outer_function_cells(code),
                                         live_indexes(instrs, entries)) \
            if kind != "comprehension" else []
        if kind == "function":
            decls += bookkeeping.local_declarations(code, instrs)
            decls += bookkeeping.cell_declarations(code, instrs)
        tail = (not V.HAS_EXCEPTION_TABLE and len(instrs) >= 3 and
                [i.opname for i in instrs[-3:]] == ["RETURN_VALUE", "LOAD_CONST", "RETURN_VALUE"]
                and instrs[-2].argval is None and
                not any(i.target == len(instrs) - 2 for i in instrs))
        body = finish_body(stmts, is_function=(kind in ("function", "lambda", "module", "class")),
                           unreachable_tail_return=tail, can_return=kind not in ("class", "module"))
        if decls and len(body) == 1 and isinstance(body[0], ast.Pass):
            body = []  # `nonlocal x` alone is a complete body
        return decls + body

    def _outer_function_cells(self, code):
        """The free variables of ``code`` that are cells of the enclosing *function* (not
        of a class body or a type-parameter scope, where `nonlocal` cannot reach). The
        outermost code's free variables count as such: its text is only compiled inside
        a function that binds them."""
        found = set()
        for name in code.co_freevars:
            for outer in reversed(self.scopes):
                if name in outer.co_cellvars:
                    if inspect.CO_NEWLOCALS & outer.co_flags and outer.co_flags & inspect.CO_OPTIMIZED \
                            and not generics.is_type_params_scope(outer):
                        found.add(name)
                    break
                if name not in outer.co_freevars:
                    break
            else:  # free in the outermost code decompiled (directly, or passed down to
                # ``code`` through free variables of each scope between): its enclosing
                # function is the caller's (Dynamo's resume functions keep unused cells
                # this way; `nonlocal __class__` is accepted in a method: the class binds it)
                if name != "__classdict__":
                    found.add(name)
        return found

    def _statements(self, code, instrs, entries, order):
        """The ladder of readings: copied tails joined in ``order[0]``, then in
        ``order[1]``, then values bound to temporaries; ``reading`` starts further down."""
        matches = None  # {} once a reading found no match statement: the next need not look

        def emitter(ex, merge_tails=False):
            nonlocal matches
            e = Emitter(code, instrs, entries, ex, merge_tails, matches=matches)
            if not e.matches:
                matches = {}
            return e
        if self.reading == "flipped":
            order = order[::-1]
        elif self.reading == "temporaries":
            ex = S.Executor(code, self, self.bindings, self.temp_prefix, temps=True)
            self.used_temps = True
            return emitter(ex).function_body()
        try:
            try:
                ex = S.Executor(code, self, self.bindings, self.temp_prefix)
                stmts = emitter(ex, order[0]).function_body()
            except Mismatch:
                ex = S.Executor(code, self, self.bindings, self.temp_prefix)
                stmts = emitter(ex, order[1]).function_body()
            _refuse_recomputed(stmts, ex, code)
        except Mismatch:
            # code no compiler would write (values kept on the stack across statements,
            # duplicated and mutated in place): try again binding them to temporaries
            ex = S.Executor(code, self, self.bindings, self.temp_prefix, temps=True)
            stmts = emitter(ex).function_body()
            self.used_temps = True
        return stmts

    def _materialize(self, node):
        """Lambdas stay FuncMarkers until used; turn the ones used as values into Lambda."""
        if isinstance(node, M.AnnotateDef):
            return node  # its function is read as annotations (``annotations.place``)
        # the body of a def or class made here was read (and its lambdas made) by its own
        # ``body_of``; its decorators, defaults and bases are this level's
        own_body = isinstance(node, _OWN_BODIES)
        for field in node._fields:
            if own_body and field == "body":
                continue
            value = getattr(node, field, None)
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, M.FuncMarker):
                        value[i] = self.make_lambda(item)
                    elif isinstance(item, ast.AST):
                        self._materialize(item)
            elif isinstance(value, M.FuncMarker):
                setattr(node, field, self.make_lambda(value))
            elif isinstance(value, ast.AST):
                self._materialize(value)
        return node

    def _docstring(self, code, body):
        if code.co_name.startswith("<"):
            return body
        consts = code.co_consts
        if V.DOCSTRING_FLAG:  # 3.14+: the flag says; co_consts[0] may be any string
            has_doc = code.co_flags & V.DOCSTRING_FLAG and consts and isinstance(consts[0], str)
        else:
            has_doc = consts and isinstance(consts[0], str) and not _loads_const0(code)
        if has_doc:
            return [ast.Expr(value=E.const(consts[0]))] + [s for s in body if not isinstance(s, ast.Pass)] or body
        return body

    def make_def(self, fm, name=None):
        """The ``def`` (or ``async def``) of the function marker ``fm``."""
        fm.made_into_def = True
        code = fm.code
        body = self._docstring(code, bookkeeping.generator_marker(code, self.body_of(code)))
        if fm.annotate is not None:  # 3.14+
            fm.annotations = annotations.function_annotations(self, fm)
        items = annotation_items(fm.annotations, bookkeeping.is_future_annotations(code))
        args = build_arguments(code, defaults=tuple_elts(fm.defaults),
                               kwdefaults=dict_items(fm.kwdefaults), annotations=items)
        if args.vararg is not None and args.vararg.annotation is not None:
            args.vararg.annotation = _starred(args.vararg.annotation)  # *args: *Ts (3.11+)
        is_async = bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
        cls = ast.AsyncFunctionDef if is_async else ast.FunctionDef
        returns = items.get("return")
        node = cls(name=name or code.co_name, args=args, body=body or [ast.Pass()],
                   decorator_list=list(fm.decorators), returns=returns, type_comment=None)
        if hasattr(ast, "TypeVar"):
            node.type_params = list(fm.type_params)
        self._statements_made[id(code)] = node
        return node

    def made_statement(self, code):
        """The ``def`` or ``class`` statement read from ``code`` in this decompilation, or None
        (code read as a lambda, a comprehension, or not read here)."""
        return self._statements_made.get(id(code))

    def lazy_expression(self, code, starred=False):
        """The expression a lazily evaluated function returns (3.12+: a type parameter's
        bound, constraints or default, a type alias's value); ``starred``: the value of
        ``*Ts = *X``, which unpacks ``X``."""
        expr = _lambda_result(_without_format_check(self.body_of(code, kind="lambda")))
        if starred:
            expr = _starred(expr)
        if expr is None or isinstance(expr, M.Marker):
            raise Mismatch("lazily evaluated %r is not a single expression" % code.co_name,
                           function=code.co_name)
        return expr

    def make_lambda(self, fm):
        """The ``lambda`` of ``fm`` (anything else is returned unchanged)."""
        if not isinstance(fm, M.FuncMarker):
            return fm
        code = fm.code
        if code.co_name != "<lambda>":
            raise Mismatch("function %r used as a value" % code.co_name)
        body = self.body_of(code, kind="lambda")
        if code.co_flags & CO_GENERATOR and len(body) == 1 and isinstance(body[0], ast.Expr):
            expr = body[0].value
        else:
            expr = _lambda_result(body)
            if expr is None:
                raise Mismatch("lambda body is not a single expression", function="<lambda>")
        expr = bookkeeping.generator_lambda_marker(code, expr)
        args = build_arguments(code, defaults=tuple_elts(fm.defaults),
                               kwdefaults=dict_items(fm.kwdefaults), annotations={})
        return ast.Lambda(args=self._materialize(args), body=expr)  # lambda x=lambda: 0: x

    def make_comprehension(self, fm, args):
        """The comprehension or generator expression of ``fm`` called on ``args`` (its
        one argument: the iterator of the first ``for``)."""
        code = fm.code
        if len(args) != 1:
            raise Mismatch("comprehension called with %d arguments" % len(args))
        it = args[0]
        iter_expr = it.value if isinstance(it, M.GetIter) else it
        body = self.body_of(code, kind="comprehension")
        from .rewrite.comprehensions import comprehension_from_body
        node = comprehension_from_body(code, body, iter_expr)
        if code.co_flags & CO_COROUTINE:
            # an async list/set/dict comprehension (up to 3.11) is a coroutine function:
            # the caller awaits its result, and that await belongs to the comprehension
            facts.note(node, Fact.AWAITED_BY_CALLER, True)
        return node

    def type_params_scope(self, fm, args):
        """Run the hidden function 3.12+ wraps around ``def f[T]``/``class C[T]``/``type X[T]``
        (``fm`` called with ``args``); what it makes, with its type parameters."""
        names = generics.check_scope_call(fm, args)
        code = fm.code
        instrs, entries = normalize(code)
        ex = TypeParamsExecutor(code, self, self.bindings, self.temp_prefix, zip(names, args))
        stmts = Emitter(code, instrs, entries, ex).function_body()
        return generics.scope_result(code, stmts, ex.values)

    def make_class(self, args, keywords):
        """``__build_class__(fm, name, *bases, **keywords)``: a call noted with the
        ``ClassDef`` it stands for (``Fact.CLASS_DEF``)."""
        fm, name_node, bases = args[0], args[1], args[2:]
        code = fm.code
        self.classes.append(code.co_name)
        try:
            body = self.body_of(code, kind="class")
        finally:
            self.classes.pop()
        cleaned = bookkeeping.class_body(code, annotations.place(self, body))
        node = ast.ClassDef(name=name_node.value, bases=list(bases), keywords=list(keywords),
                            body=cleaned or [ast.Pass()], decorator_list=[])
        if hasattr(ast, "TypeVar"):
            node.type_params = []
        self._statements_made[id(code)] = node
        call = ast.Call(func=E.name("__build_class__"), args=[], keywords=[])
        facts.note(call, Fact.CLASS_DEF, node)
        return call

    def make_module(self, code):
        """The ``ast.Module`` of a module's code object."""
        body = bookkeeping.module_body(annotations.place(self, self.body_of(code, kind="module")),
                                       code)
        return ast.Module(body=body or [ast.Pass()], type_ignores=[])


def _starred(node):
    """``*X`` where the compiler unpacks ``X`` into its one item (3.11+: the annotation
    of ``*args: *Ts``; 3.13+: the default of ``*Ts = *X``); other values unchanged."""
    if isinstance(node, M.UnpackSlot) and node.unpack.count == 1 and node.unpack.star_index is None:
        return ast.Starred(value=node.source, ctx=ast.Load())
    return node


def _lambda_result(body):
    """What a lambda-like body (no generator) returns; the clean-up of function bodies
    has dropped a lone `return None`, leaving only `pass`."""
    if len(body) == 1 and isinstance(body[0], ast.Pass):
        return E.const(None)
    return returned_expression(body)


_CONST_LOADS = frozenset(dis.opmap[n] for n in ("LOAD_CONST", "RETURN_CONST") if n in dis.opmap)


def _without_format_check(body):
    """3.14: a lazily evaluated function's body without its ``if .format > 2: raise
    NotImplementedError`` (``V.LAZY_FORMAT_PARAM``)."""
    if V.LAZY_FORMAT_PARAM is None or not body or not isinstance(body[0], ast.If):
        return body
    test, raised = body[0].test, body[0].body
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
            test.left.id == V.LAZY_FORMAT_PARAM and isinstance(test.ops[0], ast.Gt) and \
            len(raised) == 1 and isinstance(raised[0], ast.Raise) and \
            isinstance(raised[0].exc, ast.Name) and raised[0].exc.id == "NotImplementedError" \
            and not body[0].orelse:
        return body[1:] or [ast.Pass()]  # (the clean-up dropped a lone `return None`)
    return body


def _loads_const0(code):
    """Whether the code loads ``co_consts[0]`` (then it is no docstring), read straight
    from ``co_code``: a full disassembly here cost a quarter of reading the function."""
    return any(op in _CONST_LOADS and arg == 0 for _, op, arg in raw.ops(code))


def _copies_finally_per_exit(instrs, entries):
    """3.9/3.10 code with a try/finally (a handler that is neither an except test, a bare
    except, a with exit nor the clean-up of an `except ... as name`)."""
    if not V.FINALLY_COPIED_PER_EXIT:
        return False
    for e in entries:
        ops = [i.opname for i in instrs[e.target:e.target + 3]]
        if ops[:1] in (["COPY"], ["POP_TOP"], ["WITH_EXCEPT_START"], ["RERAISE"]):
            continue
        if ops[:1] == ["LOAD_CONST"] and ops[1:2] and ops[1].startswith("STORE_") and \
                ops[2:3] and ops[2].startswith("DELETE_"):
            continue
        return True
    return False


def _refuse_recomputed(stmts, ex, code):
    """A value the bytecode computes once and then copies (COPY / DUP_TOP) must not be
    written twice: the output would compute it twice (two lists where there was one
    shared list, a call made twice). Names and constants are exempt: reading them again
    gives the same value."""
    dups = {id(v): v for v in ex._dups.values()
            if isinstance(v, ast.expr) and not isinstance(v, (ast.Name, ast.Constant))
            and not ex.settled(v)}
    if not dups:
        return
    seen = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if dups.get(id(node)) is node:
                if id(node) in seen:
                    raise Mismatch("a value used twice would be computed twice",
                                   function=code.co_name)
                seen.add(id(node))
