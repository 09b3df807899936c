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


def _describe(params):
    """Type parameters as comparable data: kind, name, bound / constraints (evaluated)."""
    out = []
    for p in params:
        item = [type(p).__name__, p.__name__]
        if type(p).__name__ == "TypeVar":
            item += [p.__bound__, p.__constraints__]
        out.append(tuple(item))
    return out


@case((3, "s"),)
def generic_bound_and_constraints(n, s):
    def pick[T: int, U: (str, bytes)](a: T, b: U) -> tuple[T, U]:
        return a, b

    return pick(n, s), _describe(pick.__type_params__), pick.__annotations__["return"].__args__[1].__name__


@case((1,),)
def generic_variadic_and_paramspec(n):
    import typing

    def apply[*Ts, **P](f: typing.Callable[P, int], *args: P.args, **kwargs: P.kwargs) -> int:
        return f(*args, **kwargs)

    return apply(lambda a, b=0: a + b, n, b=2), _describe(apply.__type_params__)


@case((5,),)
def generic_function_defaults(n):
    def f[T](a: T = n, *, b: T = 2, c=3) -> T:
        return a + b + c

    return f(), f(1, b=n), f.__defaults__, f.__kwdefaults__


def _deco(cls):
    cls.decorated = True
    return cls


class _Meta(type):
    def __new__(mcls, name, bases, ns, flag=None):
        cls = super().__new__(mcls, name, bases, ns)
        cls.flag = flag
        return cls


@case((2,),)
def generic_class_bases_keywords_decorator(n):
    class Base:
        def total(self):
            return n

    @_deco
    class Box[T: (int, float), *Ts](Base, metaclass=_Meta, flag="on"):
        size: int = n

        def get(self, item: T) -> T:
            return super().total() + item

    names = [c.__name__ for c in Box.__mro__]
    return Box().get(3), Box.decorated, Box.flag, Box.size, names, _describe(Box.__type_params__)


@case((4,),)
def generic_method_sees_class_names(n):
    class Holder:
        Bound = int
        type Local[K: Bound] = dict[K, Bound]

        def get[T: Bound](self, x: T) -> T:
            return x * n

    get = Holder.get
    return (Holder().get(2), _describe(get.__type_params__), Holder.Local.__value__ == dict[
        Holder.Local.__type_params__[0], int], _describe(Holder.Local.__type_params__))


@case((3,),)
def generic_closure_over_outer(n):
    def outer[T]():
        def inner[U](u: U) -> tuple[T, U]:
            return n, u, T.__name__
        return inner

    inner = outer()
    return inner(1), _describe(inner.__type_params__), inner.__annotations__["return"].__args__[0].__name__


@case((1,),)
def type_alias_with_bounds_and_variadics(n):
    import typing

    type Fn[T: (int, str), *Ts, **P] = typing.Callable[P, tuple[T, *Ts]]
    type Lazy = Undefined | int

    try:
        Lazy.__value__
    except NameError as e:
        missing = str(e)
    return Fn.__name__, _describe(Fn.__type_params__), str(Fn.__value__), missing, n


@case((2,),)
def private_type_params_mangled_with_the_class(n):
    class Foo[__T, __U: __T](list):
        param = __T

        def meth[__V](self, arg: __T, arg2: __V):
            return (__T, __V, n)

        type Alias[__W] = (__T, __W)

    t, u = Foo.__type_params__
    v = Foo.meth.__type_params__[0]
    return (_describe(Foo.__type_params__), u.__bound__ is t, Foo.param is t,
            Foo().meth(1, 2) == (t, v, n), Foo.Alias.__value__ == (t, Foo.Alias.__type_params__[0]))


@case((3,),)
def comprehension_in_bound_shadows_its_type_param(n):
    type Alias[T: [lambda: T for T in (T, [n])[1]]] = [lambda: T for T in T.__name__]

    def F[T: [lambda: T for T in (T, [n])[1]]]():
        return [lambda: T for T in T.__name__]

    bound = Alias.__type_params__[0].__bound__
    return ([f() for f in bound], [f() for f in Alias.__value__],
            [f() for f in F.__type_params__[0].__bound__], [f() for f in F()])
