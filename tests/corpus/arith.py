"""Arithmetic, bitwise and unary operators; augmented assignment; precedence."""
from types import SimpleNamespace

from ._harness import case


class Mat:
    """Just enough of a matrix to exercise ``@`` and ``@=``."""

    def __init__(self, v):
        self.v = v

    def __matmul__(self, other):
        return Mat(self.v * other.v + 1)

    def __imatmul__(self, other):
        self.v = self.v * other.v + 2
        return self

    def __repr__(self):
        return "Mat(%r)" % self.v


@case((7, 3), (-7, 2), (2.5, 0.5), (0, 5))
def binary_ops(a, b):
    return [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, b ** a if a >= 0 else None]


@case((12, 5), (-3, 2), (0, 0))
def bitwise_ops(a, b):
    return (a & b, a | b, a ^ b, a << b, a >> b, ~a)


@case((3,), (-4,), (0,), (2.5,))
def unary_ops(x):
    return -x, +x, not x, -(-x), ~int(x)


@case((2, 3, 4), (0, 1, 2), (-1, -2, 3))
def precedence(a, b, c):
    r1 = a + b * c
    r2 = (a + b) * c
    r3 = a - (b - c)
    r4 = a - b - c
    r5 = a ** b ** c if c < 4 else (a ** b) ** c
    r6 = -a ** 2
    r7 = (-a) ** 2
    r8 = a * (b + c) // (c or 1)
    r9 = (a << 1) + (b >> 1) | c & 7
    return r1, r2, r3, r4, r5, r6, r7, r8, r9


@case((10, 3), (7, -2))
def aug_assign_names(a, b):
    x = a
    x += b
    x -= 1
    x *= b
    y = float(x)
    y /= 4
    x //= 2
    x %= 7
    x **= 2
    x <<= 1
    x >>= 1
    x &= 0xFF
    x |= 0x100
    x ^= b
    return x, y


@case((SimpleNamespace(n=1, s="a"),), (SimpleNamespace(n=-5, s=""),))
def aug_assign_attributes(obj):
    obj.n += 10
    obj.n *= 2
    obj.n -= 3
    obj.s += "x"
    obj.s *= 2
    return obj.n


@case(([1, 2, 3], {"k": 5}), ([0, 0, 0], {"k": -1}))
def aug_assign_subscripts(lst, d):
    lst[0] += 1
    lst[-1] *= 3
    i = 1
    lst[i] -= lst[i + 1]
    d["k"] **= 2
    d["k"] //= 2
    return lst, d


@case(([1, 2, 3, 4, 5],), ([],))
def aug_assign_slices(lst):
    lst[1:3] += [9, 9]
    lst[:0] *= 2
    lst[::2] = lst[::2]
    return lst


@case(({"a": [1]},), ({"a": []},))
def aug_assign_nested_target(d):
    d["a"][0:] += [7]
    d["a"][0] += 1
    return d


@case((2, 3), (5, 5))
def matmul(a, b):
    m = Mat(a) @ Mat(b)
    n = Mat(a)
    n @= Mat(b)
    return m.v, n.v


@case((5, 2), (5, 0), (-9, 4))
def division_errors(a, b):
    q = a // b
    r = a % b
    return q, r, divmod(a, b)


@case((1, 2), (2, 1), (3, 3), (1.5, 1.5))
def comparisons(a, b):
    return [a < b, a <= b, a > b, a >= b, a == b, a != b]


@case((1, 2, 3), (3, 2, 1), (1, 1, 2), (1, 3, 2))
def chained_comparisons(a, b, c):
    r = []
    r.append(a < b < c)
    r.append(a <= b <= c)
    r.append(a < b > c)
    r.append(a == b != c)
    r.append(a < b < c < 4)
    return r


@case(([1, 2, 3],), ([3, 1, 2],), ([2, 2, 2],))
def chained_comparison_side_effects(values):
    log = []

    def get(i):
        log.append(i)
        return values[i]

    ok = get(0) < get(1) < get(2)
    return ok, log


@case((1, 5, 9), (9, 5, 1), (5, 1, 9), (0, 0, 0))
def chained_comparison_in_if(a, b, c):
    if a < b < c:
        return "ascending"
    elif a > b > c:
        return "descending"
    elif a == b == c:
        return "flat"
    return "mixed"


@case((None, [1, 2]), (3, [3]), ("x", "xyz"), ([], ()))
def identity_and_membership(a, b):
    return [a is None, a is not None, a in b, a not in b, not a in b, type(a) is type(b)]


@case((1, 2), (0, 0), (10 ** 20, 3))
def big_numbers(a, b):
    x = 2 ** 100 + a
    y = x * x - b
    return x % 1000003, y.bit_length(), -x // 7


@case((3,), (0,), (-2,))
def numeric_constants(n):
    return 1.5 * n, 1e3 + n, 2j * n, 0x1F + n, 0o17 - n, 0b101 ^ n, 1_000_000 // (n or 1)


@case((3, 4), (0, 0))
def builtin_numeric(a, b):
    return abs(-a), round(a / 3, 2), min(a, b), max(a, b), pow(a, 2, 5), divmod(a + 7, 3)


# repr(-0j) is "(-0-0j)", which evaluates to 0j: a complex constant's signs of zero (and
# its inf/nan parts) come back only through expressions the compiler folds into it. The
# results are compared as reprs (-0j == 0j).
@case((0,), (1,))
def complex_constants_signed_zeros(n):
    z = -0j if n else -(-0.0 - 0j)
    return repr((z, -0.0 - 0j, 1 - 0j, -(1 + 0j), -0.0, -(0.0 - 2j))), z.real, z.imag


@case((1,),)
def complex_constants_inf_nan_parts(n):
    return repr((1e999 * 1j, -1e999j, 1e999j - 1e999j, -(1e999 - 1e999j), n * 1e999j))
