"""Rebuild a function's parameter list (``ast.arguments``) from its code object."""
import ast
import inspect

from ..mismatch import Mismatch
from . import bookkeeping


def build_arguments(code, defaults=None, kwdefaults=None, annotations=None):
    """Parameters from co_varnames and the flags; defaults/annotations are ast nodes."""
    annotations = annotations or {}
    kwdefaults = kwdefaults or {}
    names = code.co_varnames
    npos = code.co_argcount
    nposonly = getattr(code, "co_posonlyargcount", 0)
    nkw = code.co_kwonlyargcount
    i = npos + nkw

    def arg(n):
        return ast.arg(arg=n, annotation=annotations.get(n), type_comment=None)

    posonly = [arg(n) for n in names[:nposonly]]
    args = [arg(n) for n in names[nposonly:npos]]
    kwonly = [arg(n) for n in names[npos:npos + nkw]]
    vararg = kwarg = None
    if code.co_flags & inspect.CO_VARARGS:
        vararg = arg(names[i])
        i += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwarg = arg(names[i])
    return ast.arguments(
        posonlyargs=posonly, args=args, vararg=vararg, kwonlyargs=kwonly,
        kw_defaults=[kwdefaults.get(a.arg) for a in kwonly], kwarg=kwarg,
        defaults=list(defaults or []))


def tuple_elts(node):
    """The default values of a ``MAKE_FUNCTION`` (a tuple node) as a list, or None."""
    if node is None:
        return None
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    raise Mismatch("unexpected defaults form")


def dict_items(node):
    """The keyword-only defaults of a ``MAKE_FUNCTION`` (a dict node) by name."""
    if node is None:
        return {}
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values)}
    raise Mismatch("unexpected keyword defaults form")


def annotation_items(node, future=False):
    """A def's annotations (name -> expression); ``future``: compiled under ``from
    __future__ import annotations``, which made each one the text of its expression."""
    if node is None:
        return {}
    if isinstance(node, ast.Dict):
        items = {k.value: v for k, v in zip(node.keys, node.values)}
    elif isinstance(node, ast.Tuple):  # 3.10+: flat (name, value, name, value, ...)
        elts = node.elts
        items = {elts[i].value: elts[i + 1] for i in range(0, len(elts), 2)}
    else:
        raise Mismatch("unexpected annotations form")
    if future:
        items = {k: bookkeeping.written_annotation(v) for k, v in items.items()}
        if None in items.values():
            raise Mismatch("an annotation under `from __future__ import annotations` "
                           "that is no expression's text")
    return items
