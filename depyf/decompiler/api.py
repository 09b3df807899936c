"""Public entry points: ``decompile(obj)`` and ``Decompiler(code).decompile(...)``.

A ``Decompiler`` reads one code object in a ``DecompileSession`` (``session``: the code
objects nested in it come back through the session), prints it (``output.printer``) and
proves it (``output.prove``), trying the next of ``READINGS`` while the proof refuses.
Every public entry goes through ``public_errors``: nothing but a ``DecompilationError``
(or a ``TypeError`` for a wrong argument) leaves it.
"""
import ast
import functools
import types

from ..bytecode import raw
from ..errors import UnprovenError
from .boundary import TOO_DEEP, NOT_PROVEN, public_error, public_errors
from . import modules
from .mismatch import Mismatch
from .symbolic import deferred
from .symbolic import generics
from . import standalone
from .symbolic import markers as M
from .symbolic import exprs as E
from .symbolic import executor as S
from .output.printer import unparse
from .output.prove import prove
from .session import READINGS, READINGS_TRIED, DecompileSession

__all__ = ["Decompiler", "decompile", "public_error", "public_errors", "READINGS"]


class Decompiler:
    """Decompile one code object into a complete ``def`` statement (given a method, a
    ``functools.partial``, a wrapper or a callable object: the function behind it, as
    ``decompile`` finds it).

    After ``decompile()``, ``bindings`` maps names used in the output to constants that
    have no source form (e.g. ``torch.device`` objects in Dynamo-generated code); exec the
    source in a namespace that contains them.

    ``fixed_globals``: globals the caller vouches are bound before the code runs and
    never rebound by what it calls (the proof may then read them at another moment than
    the bytecode does; Dynamo's ``__compiled_fn_*`` for instance).
    """

    def __init__(self, code, fixed_globals=()):
        self.fixed_globals = frozenset(fixed_globals)
        if not isinstance(code, (types.FunctionType, types.CodeType)) and callable(code):
            found, fn = _unwrap(code)  # a method, partial, wrapper or callable object
            code = fn if fn is not None else found
        if isinstance(code, types.FunctionType):
            self.function = code
            code = code.__code__
        else:
            self.function = None
        if not isinstance(code, types.CodeType):
            raise TypeError("Decompiler expects a code object, got %s" % type(code).__name__)
        self.code = code
        self.bindings = {}
        self.verdict = None  # after decompile(): the proof's Verdict (truthy when proven)
        self._inside = False  # in a public entry: an inner one (to_ast) does not convert

    def _public(self, work, *args):
        """``work(*args)`` inside ``public_errors`` when this is the outermost public entry
        (``decompile`` calls ``to_ast``, which a subclass may override: errors inside it
        must stay internal)."""
        if self._inside:
            return work(*args)
        self._inside = True
        try:
            with public_errors(self.code.co_name), raw.remembered():
                return work(*args)
        finally:
            self._inside = False

    def decompile(self, indentation=4, temp_prefix="__temp_", overwrite_fn_name=None,
                  overwite_fn_name=None, allow_unproven=False):
        """The source of a ``def`` proven equivalent to the code object (see
        ``prove``); for a comprehension, generator expression, lambda or class body, its
        standalone form (``standalone``), proven on the code object it compiles to. When
        the first reading of the bytecode is not proven, the others in ``READINGS`` are
        tried. Nothing proven: ``UnprovenError``, or with
        ``allow_unproven`` the first reading's text under a comment saying why. A
        module's code object gives the whole module (``modules.decompile_module``)."""
        given = overwrite_fn_name or overwite_fn_name
        return self._public(self._decompile, given, indentation, temp_prefix, allow_unproven)

    def _decompile(self, given, indentation, temp_prefix, allow_unproven):
        if modules.is_module(self.code):
            text, self.verdict = modules.module_source(self.code, indentation, allow_unproven)
            return text
        refused, first = [], None
        for reading in READINGS:
            try:
                text, where, bindings = self._read(given, temp_prefix, reading, indentation)
                verdict = prove(self.code, text, where, bindings, self.fixed_globals)
            except Mismatch as err:
                # this reading does not fit the bytecode at all (an internal value its
                # printing met: Dynamo's unpacked items left on the stack, which only the
                # temporaries reading binds); the public error says what the first met
                first = first or err
                continue
            if verdict:
                self.bindings, self.verdict = bindings, verdict
                return text
            refused.append((text, bindings, verdict))
        if not refused:
            raise first
        text, bindings, verdict = refused[0]
        self.bindings, self.verdict = bindings, verdict
        if allow_unproven:
            return "%s\n%s" % (NOT_PROVEN % verdict.reason.splitlines()[0], text)
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
            raise Mismatch(TOO_DEEP, function=self.code.co_name) from None

    def _standalone(self, given, temp_prefix, reading):
        """The standalone form of a comprehension, generator expression, class body or
        lambda, or None for a def. A lambda asked to have a name (``given``), or whose body
        is not one expression, is written as a def of that name."""
        what = standalone.kind(self.code)
        if what is None or what == "lambda" and given:
            return None
        nested = self._session = DecompileSession(self.bindings, temp_prefix, reading)
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

    def to_ast(self, name=None, temp_prefix="__temp_", reading=None):
        """The ``def`` node of the code object, named ``name`` (default: its own), read
        in the ``reading`` of ``READINGS``; not proven (``decompile`` proves)."""
        return self._public(self._def_node, name, temp_prefix, reading)

    def _def_node(self, name, temp_prefix, reading):
        nested = self._session = DecompileSession(self.bindings, temp_prefix, reading)
        fm = M.FuncMarker(self.code)
        fn = self.function
        ex = S.Executor(self.code, nested, self.bindings, temp_prefix)
        if fn is not None:
            fm.defaults, fm.kwdefaults = _default_nodes(fn, ex)
            fm.type_params = generics.runtime_params(fn, lambda v: _annotation_expr(v, ex))
            params = {id(p): p.__name__ for p in fn.__type_params__} if fm.type_params else {}
            annotate = getattr(fn, "__annotate__", None)  # 3.14+: read, not run
            if isinstance(annotate, types.FunctionType) and deferred.is_annotate_code(annotate.__code__):
                fm.annotate = M.FuncMarker(annotate.__code__)
            ann = getattr(fn, "__annotations__", None) if fm.annotate is None else None
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
