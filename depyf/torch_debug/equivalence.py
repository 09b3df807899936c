"""Is a recompiled (decompiled, then compiled) code object safe to run instead of Dynamo's?

``differences()`` returns a list of human-readable reasons (empty = it may replace it):

* frame shape, which Dynamo asserts before running a replacement: argument counts and
  names, flags (varargs, generator, ...), free and cell variables, and the original
  frame's local variables as a prefix of ``co_varnames`` (Dynamo copies the caller's
  locals into the new frame by position);
* the equivalence checker (``depyf.equivalence``, the same one the decompiler
  proves its output with): the same observable operations in the same order, under the
  same conditions and exception handlers, with the lists Dynamo shares through the stack
  and mutates in place followed as objects; ``__compiled_fn_<K>_<uuid>`` is compared as
  ``__compiled_fn_<K>`` and the decompiler's ``__depyf_const_<n>`` as the constants they
  stand for;
* then, as a second opinion, both code objects run on recording proxies (``proxy_run``):
  the same operations on arguments, globals and constants, in the same order, with the
  same (aliased) arguments, on every explored combination of branches.
"""
import inspect

from ..equivalence import equivalent
from . import proxy_run

_FLAG_MASK = (
    inspect.CO_VARARGS
    | inspect.CO_VARKEYWORDS
    | inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)


def argument_count(code):
    """Number of arguments, counting *args and **kwargs."""
    return (
        code.co_argcount
        + code.co_kwonlyargcount
        + bool(code.co_flags & inspect.CO_VARARGS)
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )


def differences(candidate, reference, required_varnames=(), name_map=None, bindings=None, source=None,
                fixed_globals=()):
    """Reasons why ``candidate`` may not replace ``reference`` (Dynamo's code); [] if none.

    ``required_varnames``: the original frame's ``co_varnames`` (must be a prefix).
    ``name_map``: renames applied on purpose (reference name -> candidate name).
    ``bindings``: globals the candidate uses for non-literal constants (name -> object).
    ``source``: the decompiled text the candidate was compiled from.
    ``fixed_globals``: Dynamo's own globals (see ``transformed_code.dynamo_globals``).
    """
    reasons = []
    for attr in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount"):
        if getattr(candidate, attr, 0) != getattr(reference, attr, 0):
            reasons.append(
                "%s differs: %s vs Dynamo's %s"
                % (attr, getattr(candidate, attr, 0), getattr(reference, attr, 0))
            )
    if (candidate.co_flags & _FLAG_MASK) != (reference.co_flags & _FLAG_MASK):
        reasons.append("code flags differ (varargs/generator/coroutine kind)")
    n = argument_count(reference)
    if candidate.co_varnames[:n] != reference.co_varnames[:n]:
        reasons.append(
            "argument names differ: %s vs Dynamo's %s"
            % (candidate.co_varnames[:n], reference.co_varnames[:n])
        )
    required = tuple(required_varnames)
    if candidate.co_varnames[: len(required)] != required:
        reasons.append(
            "local variables do not start with the original frame's %s (got %s)"
            % (required, candidate.co_varnames[: len(required)])
        )
    if candidate.co_freevars != reference.co_freevars:
        reasons.append(
            "free variables differ: %s vs Dynamo's %s"
            % (candidate.co_freevars, reference.co_freevars)
        )
    if candidate.co_cellvars != reference.co_cellvars:
        reasons.append(
            "cell variables differ: %s vs Dynamo's %s"
            % (candidate.co_cellvars, reference.co_cellvars)
        )

    if not reasons:
        verdict = equivalent(reference, candidate, bindings=bindings, name_map=name_map,
                             fixed_globals=fixed_globals, compare_name=False,
                             compare_docstring=False)
        if not verdict:
            reasons.append("not proven equivalent: %s" % verdict.reason)
    if not reasons:  # proven: a second opinion on recording proxies
        behaviour = proxy_run.compare(candidate, reference, name_map or {}, dict(bindings or {}))
        if behaviour:
            reasons.append(behaviour)
    return reasons
