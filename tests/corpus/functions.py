"""Lambdas and nested functions: defaults, keyword-only, positional-only, annotations,
decorators; and case functions whose own signature has all of those."""
import functools

from ._harness import call, case


def tag(label):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return label, fn(*args, **kwargs)

        return wrapper

    return deco


def twice(fn):
    return lambda *a: fn(fn(*a))


@case((3,), (-1,))
def lambdas(n):
    sq = lambda x: x * x  # noqa: E731
    add = lambda x, y=n: x + y  # noqa: E731
    pick = lambda *a, **k: (a, sorted(k))  # noqa: E731
    const = lambda: "const"  # noqa: E731
    return sq(n), add(1), add(1, 2), pick(1, z=2), const(), (lambda: n)()


@case((2,),)
def lambda_with_conditional_and_kwonly(n):
    f = lambda x, *, neg=False: -x if neg else x  # noqa: E731
    g = lambda a, /, b: a - b  # noqa: E731
    return f(n), f(n, neg=True), g(5, b=n), sorted([3, 1, 2], key=lambda v: (v % 2, -v))


@case((10,),)
def nested_def_with_defaults(n):
    def f(a, b=n, *args, c=n + 1, d, **kw):
        return a, b, args, c, d, sorted(kw)

    return f(1, d=2), f(1, 2, 3, c=4, d=5, e=6), f.__defaults__, f.__kwdefaults__


@case((1,),)
def defaults_evaluated_once(n):
    log = []

    def make():
        log.append("made")
        return []

    def f(x, acc=make()):
        acc.append(x)
        return len(acc)

    f(n)
    f(n)
    return f(n), log


@case((3,),)
def nested_def_positional_only(n):
    def f(a, b=2, /, c=3, *, d=4):
        return a + b + c + d

    results = [f(n), f(n, 1), f(n, 1, c=0), f(n, d=0)]
    try:
        f(a=n)
    except TypeError:
        results.append("a is positional-only")
    return results


@case((1,),)
def nested_def_annotations(n):
    def f(a: int, b: "str" = "s", *args: float, c: list = None, **kw: dict) -> tuple:
        return a, b

    return f(n), sorted(f.__annotations__.items(), key=str)


@case((4,),)
def decorators_on_nested_def(n):
    @tag("outer")
    @tag("inner")
    def f(x):
        return x * n

    @twice
    def g(x):
        return x + 1

    return f(2), g(n), f.__name__


@case((5,),)
def decorator_with_arguments_from_locals(n):
    label = "L%d" % n

    @tag(label)
    def f():
        return n

    return f()


@case((6,), (0,), (1,))
def recursion_nested(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)

    return fact(n)


@case((10,), (1,))
def recursion_case_level(n):
    if n <= 1:
        return n
    return recursion_case_level(n - 1) + recursion_case_level(n - 2)


@case((1, 2), call(1, 2, 3, 4, 5), call(1, b=5), call(1, 2, d=0))
def signature_defaults_kwonly(a, b=2, *args, c=3, d=4, **kw):
    return a, b, args, c, d, kw


@case((1, 2), (1, 2, 3), call(1, b=2), call(1, 2, c=9))
def signature_positional_only(a, /, b, c=None, *, d="d"):
    return a, b, c, d


@case((1,), ("x",))
def signature_annotations(x: int, y: "list[int]" = None, *rest: str, flag: bool = False, **kw: float) -> "int | str":
    return x if y is None else y


@case(call(x=1, y=2), call())
def signature_only_var_keyword(**options):
    return sorted(options.items())


@case((1, 2), call(1, 2, 3, 4))
def signature_var_positional_then_kwonly(first, *rest, last="end"):
    return first, rest, last


@case((2,),)
def functools_helpers(n):
    add = functools.partial(lambda a, b: a + b, n)

    @functools.lru_cache(maxsize=None)
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    return add(3), fib(20), functools.reduce(lambda a, b: a * b, range(1, n + 3))


@case((3,),)
def function_attributes(n):
    def f():
        """inner doc"""
        return n

    f.custom = n * 2
    return f(), f.__name__, f.__doc__, f.custom, f.__qualname__.split(".")[-1]


@case((1,),)
def redefinition(n):
    def f():
        return "first"

    a = f()

    def f():
        return "second"

    return a, f(), n


@case((1,), (5,))
def lambda_defaults_that_are_lambdas(n):
    # the default values of a lambda are lambdas themselves (test_grammar's test_lambdef)
    nested = lambda x=lambda y=lambda z=n: z: y(): x()
    keyword = lambda *, k=lambda: n + 1: k()
    return nested(), keyword(), nested(lambda: 0)
