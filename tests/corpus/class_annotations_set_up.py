# max-python: 3.13
"""A class body that reads and changes the ``__annotations__`` its annotations set up
(3.14 defers annotations: the body has no ``__annotations__`` then)."""
from ._harness import case


@case((1,), (2,))
def class_body_uses_annotations(n):
    class Used:
        x: int
        names = list(__annotations__) * n
        __annotations__["y"] = str

    class Nested:
        if n > 1:
            a: int = n
        seen = dict(__annotations__)

    return Used.__annotations__, Used.names, Nested.__annotations__, Nested.seen
