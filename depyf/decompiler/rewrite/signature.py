"""Rebuild a function's parameter list (``ast.arguments``) from its code object."""
import ast
import inspect


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
