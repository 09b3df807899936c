"""Last stage: recompile the output and prove it does what the bytecode does.

The text is compiled in a shape that gives it the original's scope (free variables stay
free, a ``__class__`` cell for ``super()``), and the recompiled code object is compared
with the original by the equivalence checker (``depyf.verify.equivalence``): the same
observable operations, in the same order, under the same conditions and exception
handlers. Anything short of a proof is reported, never returned silently.
"""
from ..errors import DecompilationError

_CO_NESTED = 0x10


def _wrap(source, code):
    """Source that recompiles ``source`` with ``code``'s free variables free.

    An enclosing function binds them (and ``__class__``, which ``super()`` needs): a
    class would do for ``__class__`` but would also mangle ``__names`` such as Dynamo's
    ``__compiled_fn_1``."""
    free = list(code.co_freevars)
    if not free and not code.co_flags & _CO_NESTED:
        return source
    lines = ["def __depyf_outer__():"] + (["    %s = None" % " = ".join(free)] if free else [])
    lines += ["    " + line if line.strip() else line for line in source.splitlines()]
    return "\n".join(lines) + "\n"


def _find(code, name):
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            if const.co_name == name and const.co_flags & 0x1:
                return const
            found = _find(const, name)
            if found is not None:
                return found
    return None


def recompile(code, source, name):
    """The code object of the def ``name`` in ``source``, compiled in ``code``'s scope."""
    try:
        module = compile(_wrap(source, code), "<depyf-check>", "exec", dont_inherit=True,
                         flags=code.co_flags & _FUTURE_FLAGS)
    except SyntaxError as exc:
        raise DecompilationError("the decompiled source does not compile (%s)" % exc.msg,
                                 function=code.co_name) from None
    recompiled = _find(module, name)
    if recompiled is None:
        raise DecompilationError("the decompiled source has no function %r" % name,
                                 function=code.co_name)
    return recompiled


def prove(code, source, name, bindings=None, fixed_globals=()):
    """The equivalence checker's ``Verdict`` on ``source`` (a def of ``name``) against
    ``code``. ``bindings``: names the source uses for constants without a source form;
    ``fixed_globals``: see ``equivalent``."""
    from ..verify.equivalence import equivalent
    recompiled = recompile(code, source, name)
    return equivalent(code, recompiled, bindings=bindings, fixed_globals=fixed_globals,
                      compare_name=name == code.co_name)


def _future_flags():
    import __future__
    flags = 0
    for feature in __future__.all_feature_names:
        flags |= getattr(__future__, feature).compiler_flag
    return flags


_FUTURE_FLAGS = _future_flags()
