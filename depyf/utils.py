"""Helpers of the original depyf's ``depyf.utils``, for scripts written against it.

``safe_create_directory``, ``get_function_signature``, ``collect_all_code_objects``,
``get_code_owner`` and ``decompile_ensure`` behave as the original's (differences: a
signature with keyword-only or positional-only parameters is written as Python writes it,
and ``decompile_ensure`` returns only *proven* source, else the stub). Standard library
only: importing this module never imports torch.
"""
import functools
import inspect
import os
import types

__all__ = ["safe_create_directory", "get_function_signature", "collect_all_code_objects",
           "get_code_owner", "decompile_ensure"]

FAILED_BODY = "    'Failed to decompile.'\n"


def safe_create_directory(path):
    """Create ``path`` and its parents when several processes may do it at once: a
    directory that already exists (or that another process creates meanwhile) is fine;
    anything else in the way (a file, no permission) raises ``OSError``."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        if not os.path.isdir(path):
            raise


def get_function_signature(code_obj, overwite_fn_name=None, *, overwrite_fn_name=None):
    """The header line ``def <name>(<parameters>):\\n`` of a code object. ``<name>`` is
    ``co_name`` unless a name is given (``overwite_fn_name``, spelled as the original
    spells it, or ``overwrite_fn_name``): a lambda's ``<lambda>`` is no identifier.
    Implicit parameters of comprehensions (``.0``) become ``comp_arg_0``."""
    name = overwite_fn_name if overwite_fn_name is not None else overwrite_fn_name
    names = [n.replace(".", "comp_arg_") if n.startswith(".") else n for n in code_obj.co_varnames]
    n_pos = code_obj.co_argcount
    n_posonly = getattr(code_obj, "co_posonlyargcount", 0)
    n_kwonly = code_obj.co_kwonlyargcount
    params = names[:n_posonly]
    if n_posonly:
        params.append("/")
    params.extend(names[n_posonly:n_pos])
    nxt = n_pos + n_kwonly
    if code_obj.co_flags & inspect.CO_VARARGS:
        params.append("*" + names[nxt])
        nxt += 1
    elif n_kwonly:
        params.append("*")
    params.extend(names[n_pos:n_pos + n_kwonly])
    if code_obj.co_flags & inspect.CO_VARKEYWORDS:
        params.append("**" + names[nxt])
    return "def %s(%s):\n" % (name if name is not None else code_obj.co_name, ", ".join(params))


def collect_all_code_objects(code):
    """``code`` followed by every code object nested in it (its constants, recursively),
    depth first, in the order of the constants."""
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(collect_all_code_objects(const))
    return found


def get_code_owner(fn):
    """The object whose ``__code__`` can be replaced for the callable ``fn``: a bound
    method's function (``a.func.__code__`` is read-only, ``A.func.__code__`` is not), the
    function under ``functools.wraps``/``lru_cache`` wrappers (``__wrapped__``) and
    ``functools.partial``, and a callable object's ``__call__`` function. Unwrapped in
    that order until none applies."""
    seen = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        if hasattr(fn, "__func__"):
            fn = fn.__func__
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        elif isinstance(fn, functools.partial):
            fn = fn.func
        elif hasattr(getattr(fn, "__call__", None), "__func__"):
            fn = fn.__call__.__func__
        else:
            break
    return fn


def decompile_ensure(fn, overwite_fn_name=None):
    """Source of ``fn`` (a code object or a function) that always comes back: the proven
    decompiled ``def``, or, when depyf cannot decompile it or prove the result, its
    header (``get_function_signature``) with the body ``'Failed to decompile.'``."""
    from .decompiler.api import Decompiler
    from .errors import DecompilationError

    if not isinstance(fn, (types.CodeType, types.FunctionType)):
        fn = get_code_owner(fn)
    code = fn if isinstance(fn, types.CodeType) else getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        raise TypeError("decompile_ensure expects a code object or a function, got %r" % (fn,))
    try:
        return Decompiler(fn).decompile(overwite_fn_name=overwite_fn_name)
    except DecompilationError:
        return get_function_signature(code, overwite_fn_name) + FAILED_BODY
