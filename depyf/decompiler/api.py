"""Public entry points: ``decompile(obj)`` and ``Decompiler(code).decompile(...)``.

Ties the stages together for one code object and the code objects nested in it
(functions, lambdas, comprehensions, class bodies), then prints the result.
"""
import ast
import functools
import inspect
import types

from ..errors import UnprovenError, UnsupportedInstruction, UnsupportedShape
from .mismatch import Mismatch
from .symbolic import generics
from . import standalone
from .symbolic import markers as M
from .symbolic import exprs as E
from .symbolic import executor as S
from ..bytecode import versions as V
from .flow.instructions import normalize
from .rewrite.mangling import mangle, unmangle_class_body
from .output.printer import unparse
from .rewrite.rules import finish_body, returned_expression
from .output.prove import prove
from .rewrite.signature import build_arguments
from .structure.emitter import Emitter
from . import facts
from .facts import Fact

CO_GENERATOR = inspect.CO_GENERATOR
CO_COROUTINE = inspect.CO_COROUTINE
CO_ASYNC_GENERATOR = inspect.CO_ASYNC_GENERATOR
CO_ITERABLE_COROUTINE = inspect.CO_ITERABLE_COROUTINE

_CLASS_BOOKKEEPING = {"__module__", "__qualname__", "__firstlineno__", "__static_attributes__",
                      "__classdictcell__"}


class _Nested:
    """Decompiles the code objects that MAKE_FUNCTION / class creation refer to."""

    def __init__(self, bindings, temp_prefix, reading=None):
        self.bindings = bindings
        self.temp_prefix = temp_prefix
        self.reading = reading  # None, or one of READINGS[1:]: an alternative reading
        self.used_temps = False
        self.classes = []  # names of the class bodies being decompiled, innermost last
        self.scopes = []  # the code objects being decompiled, innermost last

    def mangle(self, name):
        """``name`` as the code being decompiled stores it (private names in classes)."""
        return mangle(self.classes[-1], name) if self.classes else name

    def body_of(self, code, kind="function"):
        instrs, entries = normalize(code)
        # the compiler may have copied the code after an expression into each of its arms
        # (up to a return): a second try joins identical tails. 3.9/3.10 also copy a
        # finally body onto each way out of the try, and the code after the try statement
        # with it: there the joined tails come first, or that code lands inside the try.
        order = (True, False) if _copies_finally_per_exit(instrs, entries) else (False, True)
        self.scopes.append(code)
        try:
            stmts = self._statements(code, instrs, entries, order)
        finally:
            self.scopes.pop()
        stmts = [self._materialize(s) for s in stmts]
        decls = _declarations(code, instrs, self._outer_function_cells(code)) \
            if kind != "comprehension" else []
        if kind == "function":
            decls += _cell_declarations(code, instrs)
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
            else:  # free in the outermost code decompiled: its enclosing function is
                # the caller's (Dynamo's resume functions keep unused cells this way)
                # (`nonlocal __class__` is accepted in a method: the class binds it)
                if not self.scopes and name != "__classdict__":
                    found.add(name)
        return found

    def _statements(self, code, instrs, entries, order):
        if self.reading == "flipped":
            order = order[::-1]
        elif self.reading == "temporaries":
            ex = S.Executor(code, self, self.bindings, self.temp_prefix, temps=True)
            self.used_temps = True
            return Emitter(code, instrs, entries, ex).function_body()
        try:
            try:
                ex = S.Executor(code, self, self.bindings, self.temp_prefix)
                stmts = Emitter(code, instrs, entries, ex, merge_tails=order[0]).function_body()
            except Mismatch:
                ex = S.Executor(code, self, self.bindings, self.temp_prefix)
                stmts = Emitter(code, instrs, entries, ex, merge_tails=order[1]).function_body()
            _refuse_recomputed(stmts, ex, code)
        except Mismatch:
            # code no compiler would write (values kept on the stack across statements,
            # duplicated and mutated in place): try again binding them to temporaries
            ex = S.Executor(code, self, self.bindings, self.temp_prefix, temps=True)
            stmts = Emitter(code, instrs, entries, ex).function_body()
            self.used_temps = True
        return stmts

    def _materialize(self, node):
        """Lambdas stay FuncMarkers until used; turn the ones used as values into Lambda."""
        for field, value in ast.iter_fields(node):
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
        if consts and isinstance(consts[0], str) and not _loads_const0(code):
            return [ast.Expr(value=E.const(consts[0]))] + [s for s in body if not isinstance(s, ast.Pass)] or body
        return body

    def make_def(self, fm, name=None):
        code = fm.code
        body = self._docstring(code, self.body_of(code))
        args = build_arguments(code, defaults=_tuple_elts(fm.defaults),
                               kwdefaults=_dict_items(fm.kwdefaults),
                               annotations=_annotation_items(fm.annotations))
        if args.vararg is not None and args.vararg.annotation is not None:
            args.vararg.annotation = _starred(args.vararg.annotation)  # *args: *Ts (3.11+)
        is_async = bool(code.co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR))
        cls = ast.AsyncFunctionDef if is_async else ast.FunctionDef
        returns = _annotation_items(fm.annotations).get("return") if fm.annotations is not None else None
        node = cls(name=name or code.co_name, args=args, body=body or [ast.Pass()],
                   decorator_list=list(fm.decorators), returns=returns, type_comment=None)
        if hasattr(ast, "TypeVar"):
            node.type_params = list(fm.type_params)
        return node

    def lazy_expression(self, code, starred=False):
        """The expression a lazily evaluated function returns (3.12+: a type parameter's
        bound, constraints or default, a type alias's value); ``starred``: the value of
        ``*Ts = *X``, which unpacks ``X``."""
        expr = _lambda_result(self.body_of(code, kind="lambda"))
        if starred:
            expr = _starred(expr)
        if expr is None or isinstance(expr, M.Marker):
            raise Mismatch("lazily evaluated %r is not a single expression" % code.co_name,
                           function=code.co_name)
        return expr

    def make_lambda(self, fm):
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
        args = build_arguments(code, defaults=_tuple_elts(fm.defaults),
                               kwdefaults=_dict_items(fm.kwdefaults), annotations={})
        return ast.Lambda(args=args, body=expr)

    def make_comprehension(self, fm, args):
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

    def make_class(self, args, keywords):
        fm, name_node, bases = args[0], args[1], args[2:]
        code = fm.code
        self.classes.append(code.co_name)
        try:
            body = self.body_of(code, kind="class")
        finally:
            self.classes.pop()
        cleaned = []
        for s in body:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and s.targets[0].id in _CLASS_BOOKKEEPING:
                continue
            if isinstance(s, ast.Return):  # `return __classcell__` / implicit return
                continue
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and s.targets[0].id == "__classcell__":
                continue
            if isinstance(s, M.SetupAnnotations):
                continue
            if _is_class_scope_bookkeeping(s, code):
                continue
            cleaned.append(s)
        _drop_copied_tail_bookkeeping(cleaned)
        cleaned = unmangle_class_body(code.co_name, annotated_assignments(cleaned))
        if cleaned and isinstance(cleaned[0], ast.Assign) and len(cleaned[0].targets) == 1 and \
                isinstance(cleaned[0].targets[0], ast.Name) and cleaned[0].targets[0].id == "__doc__":
            cleaned[0] = ast.Expr(value=cleaned[0].value)
        node = ast.ClassDef(name=name_node.value, bases=list(bases), keywords=list(keywords),
                            body=cleaned or [ast.Pass()], decorator_list=[])
        if hasattr(ast, "TypeVar"):
            node.type_params = []
        call = ast.Call(func=E.name("__build_class__"), args=[], keywords=[])
        facts.note(call, Fact.CLASS_DEF, node)
        return call


def _drop_copied_tail_bookkeeping(stmts):
    """A class body's closing bookkeeping (``return None``, 3.13+'s
    ``__static_attributes__ = (...)``) is copied, like any tail, into the branches of an
    if/else or the handlers of a try that ends the body: drop it there as at the top
    level (a class body has no return of its own). Edits ``stmts`` in place."""
    while stmts and (isinstance(stmts[-1], ast.Return) or _stores_static_attributes(stmts[-1])):
        stmts.pop()
    if not stmts:
        return
    last = stmts[-1]
    blocks = []
    if isinstance(last, ast.If) and last.orelse:
        blocks = [last.body, last.orelse]
    elif type(last).__name__ in ("Try", "TryStar"):
        blocks = [last.body, last.orelse] + [h.body for h in last.handlers]
    for block in blocks:
        if block:
            _drop_copied_tail_bookkeeping(block)
            if not block:
                block.append(ast.Pass())
    if isinstance(last, ast.If) and len(last.orelse) == 1 and isinstance(last.orelse[0], ast.Pass):
        last.orelse = []
    if type(last).__name__ in ("Try", "TryStar") and len(last.orelse) == 1 and \
            isinstance(last.orelse[0], ast.Pass):
        last.orelse = []


def _stores_static_attributes(stmt):
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == "__static_attributes__"


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


def _is_class_scope_bookkeeping(stmt, code):
    """3.12+ class bodies with type parameters or annotation scopes: the compiler's own
    ``__type_params__ = .type_params`` and ``__classdict__ = locals()`` (the cell through
    which bounds and alias values see class-level names)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return False
    target, value = stmt.targets[0].id, stmt.value
    if target == "__type_params__":
        return isinstance(value, ast.Name) and value.id == ".type_params"
    if target == "__classdict__" and "__classdict__" in code.co_cellvars:
        return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and
                value.func.id == "locals" and not value.args and not value.keywords)
    return False


def annotated_assignments(stmts):
    """`__annotations__['x'] = T` (after an optional `x = v`) is `x: T = v` in a class or
    module body; the compiler sets up ``__annotations__`` only for the real syntax."""
    out = []
    for s in stmts:
        t = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                t.value.id == "__annotations__":
            key = t.slice.value if hasattr(t.slice, "value") and not isinstance(t.slice, ast.Constant) \
                else t.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
                name = key.value
                value = None
                prev = out[-1] if out else None
                if isinstance(prev, ast.Assign) and len(prev.targets) == 1 and \
                        isinstance(prev.targets[0], ast.Name) and prev.targets[0].id == name:
                    value = out.pop().value
                out.append(ast.AnnAssign(target=ast.Name(id=name, ctx=ast.Store()),
                                         annotation=s.value, value=value, simple=1))
                continue
        out.append(s)
    return out


def _declarations(code, instrs, outer_cells=()):
    """`global` / `nonlocal` statements: names this code rebinds outside its own scope.
    ``outer_cells``: free variables that are cells of an enclosing function."""
    stored_globals, stored_free = [], []
    free = set(code.co_freevars)
    for ins in instrs:
        if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") and ins.argval not in stored_globals:
            stored_globals.append(ins.argval)
        if ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in free and \
                ins.argval not in stored_free and ins.argval != "__class__":
            stored_free.append(ins.argval)
    # a free variable nothing here uses exists only through `nonlocal x` (it keeps the
    # outer `x` a cell: `f.__closure__` sees it)
    used = {ins.argval for ins in instrs if ins.opname.endswith(("DEREF", "CLOSURE"))
            or (ins.opname.startswith("LOAD_FAST") and ins.argval in free)}  # 3.13 closures
    stored_free += [n for n in code.co_freevars if n not in used and n in outer_cells
                    and n not in stored_free]
    out = []
    if stored_globals:
        out.append(ast.Global(names=stored_globals))
    if stored_free:
        out.append(ast.Nonlocal(names=stored_free))
    return out


def _cell_declarations(code, instrs):
    """Cells that no nested function made by ``code`` captures (Dynamo's code keeps the
    cells, and the unused constants, of the frame it replaces: a local that a lambda or a
    comprehension captured) stay cells through a lambda that reads them in a block that
    never runs (the compiler makes a name a cell from the scopes alone and emits nothing
    for ``if False:``); a cell nothing binds is bound there too, or it would be global."""
    captured, bound = set(), set(code.co_varnames[:_param_count(code)])
    for ins in instrs:
        if hasattr(ins.argval, "co_code"):
            captured.update(ins.argval.co_freevars)
        if ins.opname in ("STORE_DEREF", "DELETE_DEREF"):
            bound.add(ins.argval)
    lone = [n for n in code.co_cellvars if n not in captured]
    if not lone:
        return []
    body = [ast.Assign(targets=[E.name(n, ast.Store()) for n in lone if n not in bound],
                       value=E.const(None), type_comment=None)]
    if not body[0].targets:
        body = []
    read = E.name(lone[0]) if len(lone) == 1 else \
        ast.Tuple(elts=[E.name(n) for n in lone], ctx=ast.Load())
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    body.append(ast.Expr(value=ast.Lambda(args=args, body=read)))
    return [ast.If(test=E.const(False), body=body, orelse=[])]


def _param_count(code):
    return code.co_argcount + code.co_kwonlyargcount + \
        bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)


def _loads_const0(code):
    import dis
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_CONST", "RETURN_CONST") and ins.arg == 0:
            return True
    return False


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


def _tuple_elts(node):
    if node is None:
        return None
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    raise Mismatch("unexpected defaults form")


def _dict_items(node):
    if node is None:
        return {}
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values)}
    raise Mismatch("unexpected keyword defaults form")


def _annotation_items(node):
    if node is None:
        return {}
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Tuple):  # 3.10+: flat (name, value, name, value, ...)
        elts = node.elts
        return {elts[i].value: elts[i + 1] for i in range(0, len(elts), 2)}
    raise Mismatch("unexpected annotations form")


# The ways of reading one code object, in the order they are tried: the default (with its
# own fallbacks), the copied tails joined in the other order, and every value that stays
# on the stack bound to a temporary (exact evaluation order, more verbose).
READINGS = (None, "flipped", "temporaries")
# what the first reading already tries when one does not fit (``_Nested._statements``)
READINGS_TRIED = ("copied tails joined one way", "the other way", "values bound to temporaries")


def public_error(err, function, readings=READINGS_TRIED):
    """The ``DecompilationError`` a user sees for an internal ``Mismatch``."""
    where = dict(function=err.function or function, opname=err.opname, offset=err.offset)
    if err.unsupported:
        return UnsupportedInstruction(err.reason, **where)
    return UnsupportedShape(err.reason, readings=readings, **where)


class Decompiler:
    """Decompile one code object into a complete ``def`` statement.

    After ``decompile()``, ``bindings`` maps names used in the output to constants that
    have no source form (e.g. ``torch.device`` objects in Dynamo-generated code); exec the
    source in a namespace that contains them.

    ``fixed_globals``: globals the caller vouches are bound before the code runs and
    never rebound by what it calls (the proof may then read them at another moment than
    the bytecode does; Dynamo's ``__compiled_fn_*`` for instance).
    """

    def __init__(self, code, fixed_globals=()):
        self.fixed_globals = frozenset(fixed_globals)
        if isinstance(code, types.FunctionType):
            self.function = code
            code = code.__code__
        else:
            self.function = None
        if not isinstance(code, types.CodeType):
            raise TypeError("Decompiler expects a code object, got %s" % type(code).__name__)
        self.code = code
        self.bindings = {}

    def decompile(self, indentation=4, temp_prefix="__temp_", overwrite_fn_name=None,
                  overwite_fn_name=None, allow_unproven=False):
        """The source of a ``def`` proven equivalent to the code object (see
        ``prove``); for a comprehension, generator expression, lambda or class body, its
        standalone form (``standalone``), proven on the code object it compiles to. When
        the first reading of the bytecode is not proven, the others in ``READINGS`` are
        tried. Nothing proven: ``UnprovenError``, or with
        ``allow_unproven`` the first reading's text under a comment saying why."""
        given = overwrite_fn_name or overwite_fn_name
        refused = []
        for reading in READINGS:
            try:
                text, where, bindings = self._read(given, temp_prefix, reading, indentation)
                verdict = prove(self.code, text, where, bindings, self.fixed_globals)
            except Mismatch as err:
                if reading is None:
                    raise self._where(err) from None
                continue  # this reading does not fit the bytecode at all
            if verdict:
                self.bindings = bindings
                return text
            refused.append((text, bindings, verdict))
        text, bindings, verdict = refused[0]
        self.bindings = bindings
        if allow_unproven:
            return "# depyf: NOT PROVEN to do what the bytecode does: %s\n%s" % (
                verdict.reason.splitlines()[0], text)
        raise UnprovenError("the decompiled source is not proven to do what the bytecode "
                            "does (%s)" % verdict.reason, source=text, verdict=verdict,
                            function=self.code.co_name)

    def _read(self, given, temp_prefix, reading, indentation):
        """``(text, where, bindings)`` of one reading: ``where`` is the def's name, or
        the ``Place`` of a standalone form (``standalone``) for code no def compiles to."""
        self.bindings = {}
        try:
            form = self._standalone(given, temp_prefix, reading)
            if form is not None:
                return form.text(indentation), form.place, self.bindings
            node = self.to_ast(given or self.code.co_name, temp_prefix, reading)
            return unparse(node, indentation), node.name, self.bindings
        except RecursionError:
            raise Mismatch("nesting too deep to decompile",
                           function=self.code.co_name) from None

    def _standalone(self, given, temp_prefix, reading):
        """The standalone form of a comprehension, generator expression, class body or
        lambda, or None for a def. A lambda asked to have a name (``given``), or whose body
        is not one expression, is written as a def of that name."""
        what = standalone.kind(self.code)
        if what is None or what == "lambda" and given:
            return None
        nested = self._nested = _Nested(self.bindings, temp_prefix, reading)
        if what == "comprehension":
            return standalone.comprehension_form(nested, self.code, given)
        if what == "class":
            return standalone.class_form(nested, self.code)
        ex = S.Executor(self.code, nested, self.bindings, temp_prefix)
        try:
            return standalone.lambda_form(nested, self.code, *_default_nodes(self.function, ex))
        except Mismatch:
            self.bindings.clear()
            return None

    def _where(self, err):
        """The public error for a ``Mismatch`` no reading got past, naming this function
        if the stage that noticed did not."""
        return public_error(err, self.code.co_name)

    def to_ast(self, name=None, temp_prefix="__temp_", reading=None):
        nested = self._nested = _Nested(self.bindings, temp_prefix, reading)
        fm = M.FuncMarker(self.code)
        fn = self.function
        ex = S.Executor(self.code, nested, self.bindings, temp_prefix)
        if fn is not None:
            fm.defaults, fm.kwdefaults = _default_nodes(fn, ex)
            fm.type_params = generics.runtime_params(fn, lambda v: _annotation_expr(v, ex))
            params = {id(p): p.__name__ for p in fn.__type_params__} if fm.type_params else {}
            ann = getattr(fn, "__annotations__", None)
            if ann:
                fm.annotations = ast.Dict(keys=[E.const(k) for k in ann],
                                          values=[_annotation_expr(v, ex, params) for v in ann.values()])
        name = name or self.code.co_name
        if not name.isidentifier():
            name = "_" + "".join(c if c.isalnum() else "_" for c in name)
        return nested.make_def(fm, name=name)


def _default_nodes(fn, ex):
    """``(defaults tuple, keyword-only defaults dict)`` of function ``fn`` as nodes
    (None for each it lacks, or without a function)."""
    defaults = kwdefaults = None
    if fn is not None and fn.__defaults__:
        defaults = ast.Tuple(elts=[ex.const_expr(v) for v in fn.__defaults__], ctx=ast.Load())
    if fn is not None and fn.__kwdefaults__:
        kwdefaults = ast.Dict(keys=[E.const(k) for k in fn.__kwdefaults__],
                              values=[ex.const_expr(v) for v in fn.__kwdefaults__.values()])
    return defaults, kwdefaults


def _annotation_expr(value, ex, type_params=None):
    """An annotation value as an expression; ``type_params`` (id -> name) are the
    function's own type parameters, printed by name."""
    if type_params and id(value) in type_params:
        return E.name(type_params[id(value)])
    if isinstance(value, str):
        return E.const(value)
    if isinstance(value, type) and value.__module__ == "builtins":
        return E.name(value.__name__)
    return ex.const_expr(value)


def _unwrap(obj):
    """Find the code object behind functions, methods, partials, wrappers and callables."""
    seen = 0
    while seen < 100:
        seen += 1
        if isinstance(obj, types.CodeType):
            return obj, None
        if isinstance(obj, types.FunctionType) and not hasattr(obj, "__wrapped__"):
            return obj.__code__, obj
        if isinstance(obj, (types.MethodType,)):
            obj = obj.__func__
            continue
        if isinstance(obj, functools.partial):
            obj = obj.func
            continue
        if hasattr(obj, "__wrapped__"):
            obj = obj.__wrapped__
            continue
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
            continue
        if callable(obj) and hasattr(type(obj), "__call__") and not isinstance(obj, type):
            call = type(obj).__call__
            if isinstance(call, types.FunctionType):
                obj = call
                continue
        break
    raise TypeError("cannot find Python bytecode behind %r" % (obj,))


def decompile(obj, *, allow_unproven=False):
    """Decompile a function-like object (or code object; a comprehension, lambda or class
    body gets its standalone form) into Python source text that is proven to do what the
    bytecode does (``UnprovenError`` otherwise; with ``allow_unproven`` the unproven text
    is returned under a comment that says so)."""
    code, fn = _unwrap(obj)
    return Decompiler(fn if fn is not None else code).decompile(allow_unproven=allow_unproven)
