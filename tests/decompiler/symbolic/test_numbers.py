"""depyf.decompiler.symbolic.numbers.number_expr: source that the compiler folds back into
a float or complex constant with its exact bits (signed zeros, infinities, the sign of a
NaN), where ``repr`` does not give them back (``repr(-0j)`` is ``(-0-0j)``, which is 0j)."""
import ast
import math

import pytest

from depyf.decompiler.output.printer import unparse
from depyf.decompiler.symbolic.numbers import exact_key, number_expr

INF, NAN = float("inf"), float("nan")
VALUES = [
    0j, -0j, complex(0.0, -0.0), complex(-0.0, 0.0), complex(-0.0, 2.0), complex(1, -0.0),
    complex(-1, -0.0), complex(3, 4), complex(-3, -4), complex(1e300, -1e-300),
    complex(INF, -0.0), complex(-INF, 0.0), complex(0.0, -INF), complex(-INF, -INF),
    complex(NAN, 1), complex(1, NAN), complex(-0.0, NAN), complex(NAN, -0.0), complex(NAN, NAN),
    -0.0, 1.5, -2.5, INF, -INF, NAN, -NAN,
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_text_compiles_to_the_same_bits(value):
    text = unparse(ast.Expression(body=number_expr(value))).strip()
    code = compile(text, "<t>", "eval")
    assert exact_key(eval(code, {})) == exact_key(value), text
    assert any(exact_key(c) == exact_key(value) for c in code.co_consts
               if type(c) is type(value)), "not folded into one constant: %s" % text


def test_keys_tell_signed_zeros_and_nan_signs_apart():
    assert exact_key(0j) != exact_key(-0j) != exact_key(complex(0.0, -0.0))
    assert exact_key(NAN) != exact_key(-NAN) or math.copysign(1, NAN) == math.copysign(1, -NAN)
    assert exact_key(1.0) != exact_key(complex(1.0))
