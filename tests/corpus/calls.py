"""Calls of every shape: keywords, ``*args``/``**kwargs``, methods, chains."""
from types import SimpleNamespace

from ._harness import call, case


def record(*args, **kwargs):
    return args, sorted(kwargs.items())


def kwonly(a, *, b=2, c):
    return a, b, c


class Builder:
    def __init__(self, parts=None):
        self.parts = list(parts or [])

    def add(self, x):
        self.parts.append(x)
        return self

    def build(self, sep=","):
        return sep.join(map(str, self.parts))

    @classmethod
    def of(cls, *xs):
        return cls(xs)

    @staticmethod
    def twice(x):
        return x * 2


@case((1, 2),)
def positional_and_keyword(a, b):
    return [record(), record(a), record(a, b), record(x=a), record(a, y=b), record(a, b, x=1, y=2)]


@case((1, 2), (5, 6))
def keyword_only_callee(a, c):
    return kwonly(a, c=c), kwonly(a, b=0, c=c), kwonly(c=c, a=a)


@case(([1, 2],), ([],))
def star_args_call(xs):
    return record(*xs), record(0, *xs), record(*xs, 9), record(*xs, k=1)


@case(({"x": 1},), ({},))
def double_star_call(kw):
    return record(**kw), record(1, **kw), record(z=0, **kw), record(*[1], **kw)


@case((1,), (0,))
def call_with_errors(x):
    return kwonly(x) if x else kwonly(x, x, c=1)


@case((3,), (-1,))
def method_calls(n):
    b = Builder()
    b.add(n)
    b.add(n + 1).add(n + 2)
    return b.build(), b.build(sep="-"), b.build("|")


@case(("a b c",),)
def chained_methods(s):
    return s.strip().upper().split(" ")[::-1], " ".join(s.split()).title().replace("B", "x")


@case((2,),)
def classmethod_and_staticmethod(n):
    return Builder.of(n, n).build(), Builder.twice(n), Builder().twice(n + 1), Builder.of().add(n).build()


@case((SimpleNamespace(f=len),),)
def call_attribute_and_subscript(ns):
    table = {"neg": lambda v: -v, "sq": lambda v: v * v}
    return ns.f("abc"), table["neg"](3), table["sq"](4), [abs, len][0](-2)


@case((4,),)
def call_result_called(n):
    def adder(a):
        def inner(b):
            return a + b

        return inner

    return adder(n)(1), adder(adder(n)(2))(3)


@case((1, 2),)
def nested_calls_as_arguments(a, b):
    return record(record(a), record(b=record(a, b)), *record(a)[0], **dict(k=record()))


@case(([3, 1, 2],),)
def builtin_calls_with_keywords(xs):
    return sorted(xs, reverse=True), sorted(xs, key=lambda v: -v), max(xs, default=0), print(*xs, sep="-", end="!\n")


@case(call(1, 2, 3, x=4), call(), call(x=1))
def receives_var_args(*args, **kwargs):
    return args, sorted(kwargs.items())


@case(call(1), call(1, 2, 3, 4, k=5, j=6), call(1, c=7))
def mixes_defaults_and_var_args(a, b=10, *rest, c=20, **kw):
    return a, b, rest, c, sorted(kw.items())


@case((1,),)
def evaluation_order_of_arguments(x):
    log = []

    def f(v):
        log.append(v)
        return v

    record(f(1), *[f(2)], k=f(3), **{"m": f(4)})
    f(5).__add__(f(6))
    return log


@case((2,),)
def call_on_literals(n):
    return "{}-{}".format(n, n), [3, 1, 2].index(n), (1, 2).count(n), {"a": n}.get("a"), b"xy".hex()


@case((3,),)
def many_arguments(n):
    return record(n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, a=n, b=n, c=n, d=n, e=n, f=n, g=n, h=n, i=n, j=n)


@case(("x",),)
def keyword_argument_named_like_builtins(v):
    return record(print=v, len=v, self=v, cls=v)


@case(([1], [2]), ([], [2]), ([1], []), ([], []))
def call_keywords_conditional_last(out, err):
    # 3.10+: the call (and the return) after the last conditional expression is copied
    # into both its arms; what was evaluated before the test stays outside it
    # (subprocess.Popen._check_timeout)
    return record(len, out, output=sum(out) if out else None, stderr=sum(err) if err else None)


@case(([1], [2]), ([], [2]), ([1], []), ([], []))
def raise_keywords_conditional_last(out, err):
    raise KeyError(record(len, output=sum(out) if out else None, stderr=sum(err) if err else None))


def _args_of(*a, **k):
    return a, k


@case((_args_of, [1, 2]), (_args_of, "xy"))
def empty_starred_tuple_among_others(f, xs):
    # `*()` next to other starred values (3.10+ fold `*() or ()` to it): no item, but
    # the arguments are still built as a list
    return f(*(), *xs), f(*() or (), *{} and (), **() or {}), [*(), *xs], f(*(1, 2, 3), *xs)


@case(("k", 1, [2], {"m": 3}),)
def keyword_display_with_computed_keys(k, v, xs, m):
    # 3.8 passes a lone `**{...}` display to CALL_FUNCTION_EX as it is, and joins keyword
    # dicts and `**` parts in one BUILD_MAP_UNPACK_WITH_CALL: a key that names no argument
    # keeps its display (tkinter.font.Font.__setitem__, idlelib's configdialog)
    return (record(**{k: v}), record(v, a=1, **{k: v}), record(*xs, **{k: v}, a=1),
            record(**{"a b": v}), record(*xs, a=1, **{"b": v}), record(*xs, a=1, **m, b=2),
            record(**{k: v, "a": 1}, **m), record(**{1 + 1 and "n": v}),
            record(*xs, **{"if": v, "b": 2}))
