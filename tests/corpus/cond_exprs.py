"""Conditional expressions the compiler does not end where they meet: the rest of the
statement (and a short exit after it) copied into each arm, a call or display begun
before the test and finished in each arm, a lambda as an arm."""
from ._harness import case


def _wrap(x):
    return ("wrapped", x)


def _made(*args):
    return list(args)


@case(([], 0), ([], 1))
def arg_then_raise(log, c):
    log.append(1 if c else 2)
    raise LookupError


@case(([], "p", None), ([], "p", 3))
def fstring_arg_then_return(log, p, d):
    log.append(p if d is None else f"{p}:{d}")
    return False


@case(([], 0), ([], 1))
def two_args_then_raise(log, c):
    log.insert(len(log), [f"{c}"] if c else None)
    raise KeyError


@case(([], 0), ([], 1))
def assign_arg_then_raise(log, c):
    log = _made(1 if c else 2)  # (the value first, then the target)
    raise LookupError


@case((None, 2), (abs, -2))
def call_arg_then_return(cur, body):
    return _wrap(cur(body) if cur else body)


@case((None, 2), (abs, -2))
def nested_lambda_call_arg(cur, body):
    outer = lambda f: lambda b: _wrap(f(b) if f else b)
    return outer(cur)(body)


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


@case((0,), (1,))
def many_keywords_one_cond_expr(t):
    return dict(k0=0, k1=1, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8, k9=9, k10=10, k11=11,
                k12=12, k13=13, k14=14, k15=15, k16=16, k17=17, k18=18, k19=19, k20=20,
                k21=21, k22=22, k23=23, k24=24, k25=25, k26=26, k27=27, k28=28, k29=29,
                x=1 if t else 2)


@case(([], None, None), ([], 3, None), ([], None, 4), ([], 3, 4))
def many_keywords_cond_exprs(log, x, y):
    log.append(dict(k0=0, k1=1, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8, k9=9, k10=10,
                    k11=11, k12=12, k13=13, k14=14, k15=15, k16=16, k17=17, k18=18, k19=19,
                    k20=20, k21=21, k22=22, k23=23, k24=24, k25=25, k26=26, k27=27, k28=28,
                    k29=29, x=_wrap(x) if x is not None else None,
                    y=_wrap(y) if y is not None else None))


class _Managed:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@case(([], 0, 0), ([], 0, 1), ([], 1, 0), ([], 1, 1))
def with_try_return_finally_empty_if(log, c, d):
    # the finally body's copy tests `d` while the value of the return waits (3.11+: both
    # ways of the test go to one block)
    with _Managed(log):
        try:
            if c:
                pass
            else:
                return len(log)
        finally:
            if d:
                pass


@case(({}, "k", 0), ({}, "k", 1))
def chained_store_over_cond_expr_call(d, k, c):
    # the value is a call finished after the arms meet: the first target is no name
    d[k] = y = _made(1 if c else 2)
    return d, y


class _Keyed:
    fn = len

    def __init__(self):
        self.cache = {}

    def make(self, fn, types, flag):
        return (fn, tuple(types), flag)


@case(((1, "a"), {}), ((), {"k": 1}))
def chained_store_over_inlined_comprehension(args, kwargs):
    # 3.12+ inlines the list comprehension: its loop lies between the callee and the call
    self = _Keyed()
    key = (self.fn, *(type(x) for x in args), True)
    self.cache[key] = h = self.make(self.fn, [type(x) for x in args], bool(kwargs))
    return key, h, self.cache


@case(("cuda:0", 0, 0), ("cpu", 1, 1), ("cpu", 0, 1))
def fstring_fields_cond_exprs(device, aot_mode, flag):
    # 3.10 copies the end of the f-string and the return into each arm of the second
    base_device = device.split(":", maxsplit=1)[0]
    is_array_ref = flag and base_device == "cpu"
    return (
        "torch/csrc/inductor/"
        f"{'aoti_include' if aot_mode else 'cpp_wrapper'}/"
        f"{'array_ref' if is_array_ref else base_device}.h"
    )


@case(([1], [2, 3], 0), ([1], [2, 3], 1))
def starred_cond_expr_in_list(x, a, c):
    return [x, *(a if c else x)]


@case(("abcdef", 1, 3, 0), ("abcdef", 1, 3, 1))
def slice_bound_cond_expr_none(s, i, j, c):
    return s[i:(j if c else None)]


@case((0, [1, 2]), (1, [1, 2]), (1, [2, 3]))
def and_over_inlined_comprehension(a, xs):
    # 3.12+ inlines the comprehension in the arm: its loop restores `v` (no statement)
    r = a and sum([abs(v) for v in xs]) == 3
    return r, a or [-v for v in xs]


@case((0, [1, 2]), (1, [1, 2]))
def cond_expr_arg_inlined_comprehension(a, xs):
    r = _made(1, [v * 2 for v in xs] if a else None)
    return r


class _Flags:
    def __init__(self, m=0):
        self.m = m

    def load(self):
        self.p = 1

    def __repr__(self):
        return repr(sorted(vars(self).items()))


@case((_Flags(), _Flags(0), "0"), (_Flags(), _Flags(0), "1"), (_Flags(), _Flags(2), "1"))
def arms_meet_over_next_statement_value(self, c, e):
    # 3.12 copies `self.r = False` + return into both arms; the copies are joined after
    # the load of False (the `or` before keeps the first reading from another way)
    self.d = e.strip() == "1" or _made("p") == []
    if c.m > 1:
        self.p = 0
    elif not self.d:
        self.load()
    self.r = False
