# min-python: 3.11
"""Starred expressions in subscripts (PEP 646)."""
from ._harness import case


class Recorder:
    def __getitem__(self, key):
        return key


@case(((1, 2),),)
def star_in_subscript(rest):
    r = Recorder()
    return r[*rest], r[0, *rest], r[*rest, *rest]


@case((1, 2),)
def star_annotation_on_varargs(a, b):
    import typing

    Ts = typing.TypeVarTuple("Ts")

    def count(*args: *Ts) -> int:
        return len(args)

    return count(a, b), repr(count.__annotations__["args"])
