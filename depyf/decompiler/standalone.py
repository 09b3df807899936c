"""Code objects that no ``def`` compiles to, decompiled on their own.

A comprehension (``<listcomp>``, ``<setcomp>``, ``<dictcomp>``: separate code objects up to
3.11), a generator expression (``<genexpr>``), a lambda and a class body are code objects
nested in the code that builds them; tools that walk ``co_consts`` hand them over alone.
Each kind gets a text form that compiles to code holding the same kind of code object,
and a ``Place`` saying where that counterpart is, so that ``prove`` compares it with the
original:

- comprehension / generator expression: a ``def`` whose one parameter stands for the
  hidden argument ``.0`` (the iterator of the first ``for``) and which returns the
  expression. The counterpart is the ``<listcomp>`` (...) nested in that def, whose
  parameter is ``.0`` again: no renaming is needed to compare them;
- lambda: ``_lambda = lambda x: ...`` (the ``<lambda>`` code object of the module);
- class body: ``class Name:`` and its body (the class body code object), compiled inside
  the classes and functions its ``__qualname__`` names (a constant of the body).
"""
import ast
import dis
import inspect
import types

from .symbolic import markers as M
from .symbolic import exprs as E
from . import facts
from .facts import Fact
from .output.printer import unparse
from .output.prove import Place, qualname_scopes

COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
ITERATOR = "iterator"  # the parameter standing for ``.0``
LAMBDA_TARGET = "_lambda"  # the name a lambda is assigned to

_ITERATOR_COMMENT = "# %s: the iterator this %s runs over (its hidden argument .0)"
_CLASS_COMMENT = "# the class body alone: its bases, keywords and decorators are not part of its code"
_TYPE_PARAMS = ".type_params"  # the free variable of a generic class body (3.12+)
_NO_ARG_FRAME = inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS


def kind(code):
    """``"comprehension"``, ``"lambda"``, ``"class"``, or None for code a ``def`` compiles
    to. Comprehensions and lambdas are function-like code with the compiler's ``<...>``
    names (a comprehension's one parameter is ``.0``); a class body is neither optimized
    nor given new locals, and stores ``__module__`` first (a module never does)."""
    flags = code.co_flags
    if flags & _NO_ARG_FRAME == _NO_ARG_FRAME:
        if code.co_name in COMPREHENSIONS and code.co_argcount == 1 and code.co_varnames[:1] == (".0",):
            return "comprehension"
        return "lambda" if code.co_name == "<lambda>" else None
    if not flags & _NO_ARG_FRAME and code.co_name.isidentifier() and _qualname(code) is not None:
        return "class"
    return None


class Form:
    """A standalone text's tree (``node``), the comment line put under its header (or
    None) and the ``Place`` of the counterpart of the original in the compiled text."""

    def __init__(self, node, comment, place):
        self.node, self.comment, self.place = node, comment, place

    def text(self, indentation):
        text = unparse(self.node, indentation)
        if self.comment is None:
            return text
        lines = text.splitlines()
        return "\n".join(lines[:1] + [" " * indentation + self.comment] + lines[1:]) + "\n"


def comprehension_form(nested, code, name=None):
    """``def _listcomp(iterator): return [...]`` (``async def`` when the comprehension
    is a coroutine or an async generator: its ``async for`` or ``await`` needs one)."""
    param = fresh_name(code, ITERATOR)
    expr = nested.make_comprehension(M.FuncMarker(code), [E.name(param)])
    name = name or fresh_name(code, "_" + code.co_name.strip("<>"))
    body = _declarations(code) + [ast.Return(value=expr)]
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=param, annotation=None, type_comment=None)],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    is_async = code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR)
    cls = ast.AsyncFunctionDef if is_async else ast.FunctionDef
    node = cls(name=name, args=args, body=body, decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast, "TypeVar"):
        node.type_params = []
    what = "generator expression" if code.co_name == "<genexpr>" else "comprehension"
    return Form(node, _ITERATOR_COMMENT % (param, what), Place((name, code.co_name)))


def lambda_form(nested, code, defaults=None, kwdefaults=None):
    """``_lambda = lambda x: ...``; Mismatch when the body is not one
    expression (code compiled for a lambda and rewritten, as Dynamo does)."""
    fm = M.FuncMarker(code)
    fm.defaults, fm.kwdefaults = defaults, kwdefaults
    target = fresh_name(code, LAMBDA_TARGET)
    node = ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=nested.make_lambda(fm),
                      type_comment=None)
    return Form(node, None, Place((code.co_name,)))


def class_form(nested, code):
    """``class Name:`` and the body, always with the class's own name (private names in
    the body are mangled with it). A generic class body (3.12+; it reads ``.type_params``)
    is ``class Name[T, ...]:``, its type parameters the other names it reads from outside
    (their bounds and kinds are not in the body); inside a function, where those could be
    the function's variables too, it is left to the proof to refuse."""
    node = facts.get(nested.make_class([M.FuncMarker(code), E.const(code.co_name)], []), Fact.CLASS_DEF)
    scopes = qualname_scopes(_qualname(code))
    path = (code.co_name,)
    if _TYPE_PARAMS in code.co_freevars and not any(k == "function" for k, _ in scopes):
        node.type_params = [ast.TypeVar(name=n, bound=None) for n in code.co_freevars
                            if n.isidentifier() and n not in ("__class__", "__classdict__")]
        path = ("<generic parameters of %s>" % code.co_name,) + path
        return Form(node, _CLASS_COMMENT, Place(path, scopes, True))
    return Form(node, _CLASS_COMMENT, Place(path, scopes))


def _qualname(code):
    """The ``__qualname__`` a class body stores from a constant right after
    ``__module__ = __name__`` (its first statements), or None if it does not start so."""
    ops = [ins for ins in dis.get_instructions(code)
           if ins.opname not in ("RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP", "EXTENDED_ARG")][:4]
    shape = [(ins.opname, ins.argval) for ins in ops[:2]] + [ins.opname for ins in ops[2:3]] + \
        [(ins.opname, ins.argval) for ins in ops[3:4]]
    if shape != [("LOAD_NAME", "__name__"), ("STORE_NAME", "__module__"), "LOAD_CONST",
                 ("STORE_NAME", "__qualname__")] or not isinstance(ops[2].argval, str):
        return None
    return ops[2].argval


def _declarations(code):
    """``nonlocal``/``global`` for the names an assignment expression in the
    comprehension (or one nested in it) binds in the enclosing function or module."""
    free, stored_free, stored_globals = set(code.co_freevars), [], []
    for inner in _comprehension_codes(code):
        for ins in dis.get_instructions(inner):
            if ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in free:
                if ins.argval not in stored_free:
                    stored_free.append(ins.argval)
            elif ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") and ins.argval not in stored_globals:
                stored_globals.append(ins.argval)
    return ([ast.Global(names=stored_globals)] if stored_globals else []) + \
        ([ast.Nonlocal(names=stored_free)] if stored_free else [])


def _comprehension_codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name in COMPREHENSIONS:
            for inner in _comprehension_codes(const):
                yield inner


def fresh_name(code, base):
    """``base``, with underscores appended until no name of ``code`` (or of the code
    nested in it) is the same: a parameter or a def of that name would capture it."""
    used = _names(code)
    name = base
    while name in used:
        name += "_"
    return name


def _names(code):
    found = {code.co_name} | set(code.co_names) | set(code.co_varnames) | \
        set(code.co_freevars) | set(code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found

