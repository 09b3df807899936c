"""List, tuple, set and dict displays; constants and nested containers."""
from ._harness import case


@case((1, "a"),)
def list_displays(x, y):
    return [], [x], [x, y], [[x], [y, [x, y]]], [1, 2, 3], [x, 2, y, None, True, 1.5]


@case((1, "a"),)
def tuple_displays(x, y):
    return (), (x,), (x, y), ((x,), (y, (x, y))), (1, 2, 3), (1, (2, 3), "s", None)


@case((1, 2),)
def set_displays(x, y):
    return set(), {x}, {x, y, x}, {1, 2, 3}, {(x, y), (y, x)}, frozenset({x})


@case((1, "v"),)
def dict_displays(k, v):
    return {}, {k: v}, {"a": 1, "b": [2], k: {v: k}}, {1: 1, 1.0: 2, True: 3}, dict(a=k, b=v)


@case(("k", "v"),)
def dict_with_computed_keys(k, v):
    return {k + "1": v, k * 2: v * 2, (k, v): None, len(k): k}


@case()
def constant_containers():
    a = (1, 2, (3, 4), "five", b"six", None, ..., 7.0, 8j)
    b = frozenset({1, 2})
    c = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    d = {1, 2, 3, 4, 5}
    return a, b, c, d, ((),), ([],)


@case((3,),)
def big_display(n):
    return [n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7, n + 8, n + 9, n + 10, n + 11, n + 12, n + 13, n + 14, n + 15, n + 16, n + 17, n + 18, n + 19, n + 20, n + 21, n + 22, n + 23, n + 24, n + 25, n + 26, n + 27, n + 28, n + 29, n + 30, n + 31, n + 32, n + 33]


@case((2,),)
def big_dict_display(n):
    return {"a": n, "b": n, "c": n, "d": n, "e": n, "f": n, "g": n, "h": n, "i": n, "j": n, "k": n, "l": n, "m": n, "n": n, "o": n, "p": n, "q": n, "r": n, "s": n}


@case((1,),)
def display_evaluation_order(x):
    log = []

    def f(v):
        log.append(v)
        return v

    d = {f("k1"): f("v1"), f("k2"): f("v2")}
    lst = [f(1), f(2), *[f(3)]]
    return d, lst, log


@case(([1, 2],),)
def mutable_display_is_fresh(a):
    def make():
        return [0, a]

    x = make()
    y = make()
    x.append(1)
    return x, y, x is y


@case()
def negative_and_special_constants():
    return -1, -0.5, -(2 ** 63), float("inf"), -float("inf"), 1e308 * 10, (-1,), {-1: -2}


# constants with signed zeros inside folded tuples and frozensets (the results compared as
# reprs: -0j == 0j)
@case((0j,), (1,), (-0.0,))
def constant_tuple_with_signed_zeros(x):
    t = (-0j, -0.0, (0.0, -(0.0 - 0j)), 1e999 * 1j, 1 - 0j)
    return repr(t), x in {-0j, 2, -1e999j}, x in (-0.0, 3), repr((-0j, -0.0))
