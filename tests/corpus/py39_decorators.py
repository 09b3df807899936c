# min-python: 3.9
"""Relaxed decorator grammar (PEP 614) and dict union operators."""
from ._harness import case


def tag(label):
    def deco(fn):
        fn.label = label
        return fn

    return deco


@case((1,),)
def decorator_subscript_and_call(n):
    decorators = [tag("first"), tag("second")]
    table = {"t": tag}

    @decorators[n]
    def f():
        return "f"

    @table["t"]("from table")
    def g():
        return "g"

    @(lambda fn: tag("lambda")(fn))
    def h():
        return "h"

    return f.label, g.label, h.label, f() + g() + h()


@case(({"a": 1}, {"b": 2, "a": 3}),)
def dict_union(a, b):
    c = a | b
    a |= {"z": 0}
    return c, a
