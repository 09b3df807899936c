"""Conditional expressions the compiler does not end where they meet: the rest of the
statement (and a short exit after it) copied into each arm, a call or display begun
before the test and finished in each arm, a lambda as an arm."""
from ._harness import case


def _wrap(x):
    return ("wrapped", x)


def _made(*args):
    return list(args)


@case((0, 7.0, 2.0), (1, 7.0, 2.0), (1, 7, 2))
def true_or_floor_division(a, x, y):
    t = x.real or a.real  # (3.8-3.10 read `/` and `//` as one operator)
    return x / y if t else x // y


@case((0, 7, 2), (1, 7, 2))
def power_or_shift(a, x, y):
    t = a.real or a.imag
    return x ** y if t else x << y


@case(((),), ((1, -2),))
def lambda_arm_stored(k):
    x = _made(*k) if k else lambda _: None
    return x if k else x(k)


@case(({}, 0, 5), ({}, 1, 5))
def lambda_arm_subscript_store(kwargs, c, n):
    kwargs["k"] = None if c else lambda node: _wrap(node)
    return n, kwargs["k"] is None or kwargs["k"](n)


@case((0, 4), (1, 4))
def lambda_arm_closure(c, n):
    f = None if c else lambda node: _wrap((node, n, c))
    return f if f is None else f(n + 1)


@case(([], [0, 3, 0, 5]),)
def lambda_returns_call_or_none(out, items):
    visit = lambda vt: out.append(vt) if vt else None
    return [visit(v) for v in items], out
