"""Annotations under ``from __future__ import annotations`` (PEP 563): the compiler
stores each one as the text of its expression, and the text of a string written in the
source keeps its quotes. Nested defs and classes, whose annotations the cases return.
The round trip compiles the decompiled text under the flags the case was compiled with."""
from __future__ import annotations

import dataclasses
import typing

from ._harness import case


@case((1,),)
def nested_def_annotations(n):
    def inner(a: int, b: list[str] = None, *args: T, key: 'Quoted' = n, **kw: dict[str, int]) -> tuple[int, ...]:
        return a

    def generator(x: typing.Optional[int]) -> typing.Iterator[int]:
        yield x

    return inner.__annotations__, generator.__annotations__, inner(n), list(generator(n))


@case((2,),)
def nested_def_annotation_expressions(n):
    def shapes(a: x.y[z], b: (1, 2), c: lambda: 1, d: "a" "b", e: -1, f: a | None,
               g: f"{n!r:>3}") -> 'int' | "str":
        return n

    def deeper():
        def innermost(p: Outer.Inner) -> Outer:
            return p
        return innermost

    innermost = deeper()
    return shapes.__annotations__, innermost.__annotations__, innermost(n), \
        shapes(None, None, None, None, None, None, None)


@case((3,),)
def nested_class_annotations(n):
    class Plain:
        x: int
        y: 'T'
        z: list[Plain] = [n]

    @dataclasses.dataclass
    class Data:
        a: int
        shared: typing.ClassVar[int] = n
        b: str = "b"

    return Plain.__annotations__, Plain.z, Data.__annotations__, \
        [f.name for f in dataclasses.fields(Data)], Data(n).b


@case((0,), (4,))
def class_annotations_in_blocks_future(n):
    class Blocks:
        if n:
            x: int = n
        for i in range(n):
            y: 'str'
        try:
            z: dict[str, int] = {"k": 12 // (n - 4)}
        except ZeroDivisionError:
            w: 'int'

    return Blocks.__annotations__
