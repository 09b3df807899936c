"""PEP 695 (3.12+): type parameters (``def f[T]``, ``class C[T]``) and ``type`` statements.

The compiler evaluates the type parameters of ``def f[T: int](x: T)``, ``class C[T]`` and
``type A[T] = ...`` in a hidden function, ``<generic parameters of f>``, that it calls at
once (passing the defaults of ``f``, evaluated outside, as ``.defaults`` /
``.kwdefaults``). That function makes each parameter with CALL_INTRINSIC_1/2
(INTRINSIC_TYPEVAR, _WITH_BOUND, _WITH_CONSTRAINTS, PARAMSPEC, TYPEVARTUPLE; 3.13 adds
SET_TYPEPARAM_DEFAULT), stores it under its name, then builds and returns

- the function: INTRINSIC_SET_FUNCTION_TYPE_PARAMS(function, params);
- the class: ``.type_params`` holds the params, and the bases end with ``.generic_base``
  (INTRINSIC_SUBSCRIPT_GENERIC of them, i.e. ``Generic[T]``);
- the alias: INTRINSIC_TYPEALIAS((name, params, value)), also used without a hidden
  function when the alias has no parameters.

Bounds, constraints, defaults and alias values are lazy: each is a function of its own
that returns the expression. ``TypeParamsExecutor`` runs the hidden function
symbolically; ``rebuild`` turns what it returns back into the def, class or alias.
"""
import ast

from ..mismatch import Mismatch
from ...bytecode import versions as V
from . import markers as M
from .. import facts
from ..facts import Fact
from ..rewrite.mangling import unmangle_generic_header
from .stackops import pop

HIDDEN_PREFIX = "<generic parameters of "


def is_type_params_scope(code):
    """Whether ``code`` is the hidden function that evaluates type parameters."""
    return code.co_name.startswith(HIDDEN_PREFIX) and code.co_name.endswith(">")


class TypeParam(M.Marker):
    """One type parameter made by an intrinsic: ``node`` is its ast.TypeVar / ParamSpec /
    TypeVarTuple (the syntax, not a value: it only goes into ``type_params``)."""

    def __init__(self, node):
        self.node = node


class GenericBase(M.Marker):
    """``.generic_base``: the ``Generic[*params]`` base the compiler adds to a class."""


class TypeAliasValue(M.Marker):
    """What INTRINSIC_TYPEALIAS made: becomes a ``type`` statement when stored by name."""

    def __init__(self, name, type_params, value):
        self.name = name
        self.type_params = type_params
        self.value = value


# ---- intrinsics (called from symbolic.Executor) -----------------------------------------
_PARAM_KINDS = {"INTRINSIC_TYPEVAR": "TypeVar", "INTRINSIC_PARAMSPEC": "ParamSpec",
                "INTRINSIC_TYPEVARTUPLE": "TypeVarTuple"}

INTRINSICS_1 = set(_PARAM_KINDS) | {"INTRINSIC_SUBSCRIPT_GENERIC", "INTRINSIC_TYPEALIAS"}
INTRINSICS_2 = {"INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS",
                "INTRINSIC_SET_TYPEPARAM_DEFAULT", "INTRINSIC_SET_FUNCTION_TYPE_PARAMS"}


def _param_name(value):
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        raise Mismatch("type parameter without a constant name")
    return value.value


def _param_node(kind, param_name, bound=None):
    node = getattr(ast, kind)(name=param_name)
    if kind == "TypeVar":
        node.bound = bound
    if hasattr(node, "default_value"):  # 3.13+ (PEP 696)
        node.default_value = None
    return node


def runtime_params(fn, expr):
    """The ``[T: bound, *Ts, **P]`` of a function object (3.12+, ``__type_params__``).

    Given a function rather than its bare code, the hidden scope has already run and its
    parameters are live objects; without them, annotations naming ``T`` could only print
    as bound constants. ``expr`` turns a bound, constraint or default into an expression.
    An empty list (keep the plain ``def``) when a bound cannot be evaluated or a kind is
    unknown.
    """
    out = []
    for p in getattr(fn, "__type_params__", ()):
        kind = type(p).__name__
        if kind not in ("TypeVar", "ParamSpec", "TypeVarTuple"):
            return []
        try:
            bound = None
            if kind == "TypeVar" and p.__constraints__:
                bound = ast.Tuple(elts=[expr(c) for c in p.__constraints__], ctx=ast.Load())
            elif kind == "TypeVar" and p.__bound__ is not None:
                bound = expr(p.__bound__)
            node = _param_node(kind, p.__name__, bound)
            if getattr(p, "has_default", lambda: False)():  # 3.13+ (PEP 696)
                node.default_value = expr(p.__default__)
        except Exception:  # a lazy bound/default that fails to evaluate (NameError, ...)
            return []
        out.append(node)
    return out


def intrinsic_1(ex, what, stack):
    arg = pop(stack)
    if what in _PARAM_KINDS:
        stack.append(TypeParam(_param_node(_PARAM_KINDS[what], _param_name(arg))))
    elif what == "INTRINSIC_SUBSCRIPT_GENERIC":
        stack.append(GenericBase())
    else:  # INTRINSIC_TYPEALIAS
        if not (isinstance(arg, ast.Tuple) and len(arg.elts) == 3):
            raise Mismatch("type alias built from an unexpected value")
        alias, params, value = arg.elts
        stack.append(TypeAliasValue(_param_name(alias), _params(params), _lazy(ex, value)))


def intrinsic_2(ex, what, stack):
    second = pop(stack)
    first = pop(stack)
    if what == "INTRINSIC_SET_FUNCTION_TYPE_PARAMS":
        if not isinstance(first, M.FuncMarker):
            raise Mismatch("type parameters set on something that is not a function")
        first.type_params = _params(second)
        stack.append(first)
    elif what == "INTRINSIC_SET_TYPEPARAM_DEFAULT":
        if not isinstance(first, TypeParam) or getattr(first.node, "default_value", 1) is not None:
            raise Mismatch("type parameter default on an unexpected value")
        first.node.default_value = _lazy(ex, second, starred=isinstance(first.node, ast.TypeVarTuple))
        stack.append(first)
    else:  # a TypeVar with a bound, or with constraints (a tuple)
        bound = _lazy(ex, second)
        if what == "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS" and not isinstance(bound, ast.Tuple):
            raise Mismatch("type variable constraints that are not a tuple")
        stack.append(TypeParam(_param_node("TypeVar", _param_name(first), bound)))


def _params(value):
    """The type parameters a tuple on the stack holds (None: none at all)."""
    if isinstance(value, ast.Constant) and value.value is None:
        return []
    if isinstance(value, ast.Tuple) and all(isinstance(e, TypeParam) for e in value.elts):
        return [e.node for e in value.elts]
    raise Mismatch("type parameters in an unexpected form")


def _lazy(ex, fm, starred=False):
    """The expression a lazily evaluated bound / constraints / default / alias value returns."""
    if not isinstance(fm, M.FuncMarker) or not _lazy_signature(fm) or fm.kwdefaults is not None \
            or fm.annotations is not None or fm.code.co_kwonlyargcount:
        raise Mismatch("lazily evaluated type expression in an unexpected form")
    return ex.nested.lazy_expression(fm.code, starred)


def _lazy_signature(fm):
    """No parameters (3.12/3.13), or 3.14's ``.format=1`` (``V.LAZY_FORMAT_PARAM``)."""
    code = fm.code
    if not code.co_argcount:
        return fm.defaults is None
    return (V.LAZY_FORMAT_PARAM is not None and code.co_argcount == 1 and
            code.co_varnames[0] == V.LAZY_FORMAT_PARAM and isinstance(fm.defaults, ast.Tuple) and
            [getattr(e, "value", None) for e in fm.defaults.elts] == [1])


# ---- the hidden function ----------------------------------------------------------------
def check_scope_call(fm, args):
    """The argument names of the hidden type-params function ``fm`` called with ``args``
    (its defaults), or Mismatch when the call is not the compiler's."""
    code = fm.code
    if fm.defaults is not None or fm.kwdefaults is not None or fm.annotations is not None:
        raise Mismatch("type parameter scope with defaults of its own")
    names = code.co_varnames[:code.co_argcount]
    if len(args) != len(names) or code.co_kwonlyargcount or not all(n.startswith(".") for n in names):
        raise Mismatch("type parameter scope called with %d arguments" % len(args))
    return names


def scope_result(code, stmts, values):
    """What the hidden function ``code`` makes (its statements ``stmts``; ``values``: the
    executor's ``.type_params``/``.generic_base``): the FuncMarker, class call or
    TypeAliasValue, with its type parameters."""
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Return):
        raise Mismatch("type parameter scope does more than make its definition")
    made = stmts[0].value
    wanted = code.co_name[len(HIDDEN_PREFIX):-1]
    if isinstance(made, M.FuncMarker) and made.type_params and made.code.co_name == wanted:
        return made
    if isinstance(made, TypeAliasValue) and made.type_params and made.name == wanted:
        return made
    cd = facts.get(made, Fact.CLASS_DEF, None)
    if cd is not None and cd.name == wanted and cd.bases and isinstance(cd.bases[-1], GenericBase) \
            and ".type_params" in values:
        cd.bases.pop()
        cd.type_params = _params(values[".type_params"])
        if cd.type_params:
            unmangle_generic_header(cd)
            return made
    raise Mismatch("type parameter scope makes an unexpected value")
