# min-python: 3.12
"""Type parameter syntax (PEP 695) and the ``type`` statement, inside functions; PEP 701
f-strings that reuse their quotes."""
from ._harness import case


@case((3,), ("s",))
def generic_nested_function(v):
    def first[T](items: list[T]) -> T:
        return items[0]

    return first([v, v]), first.__type_params__[0].__name__


@case((2,),)
def generic_nested_class(n):
    class Stack[T]:
        def __init__(self):
            self.items: list[T] = []

        def push(self, item: T) -> None:
            self.items.append(item)

    s = Stack[int]()
    s.push(n)
    return s.items, [p.__name__ for p in Stack.__type_params__]


@case((1,),)
def type_alias_statement(n):
    type Pair[K] = tuple[K, K]
    type Number = int | float

    return Pair.__name__, Number.__value__ == (int | float), n


@case(("x",),)
def fstring_reusing_quotes(s):
    items = {"k": s}
    return f"{items["k"]}-{"nested"}-{f"{s}"}"
