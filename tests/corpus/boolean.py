"""``and``/``or``/``not`` as values and as conditions; conditional expressions."""
from ._harness import case

BOOLS3 = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]


@case((0, 0), (0, 5), (3, 0), (3, 5), ("", "x"), ([], None))
def and_or_values(a, b):
    return a and b, a or b, not a, not (a and b), not a or b


@case(*BOOLS3)
def nested_value_mix(a, b, c):
    return [a and (b or c), (a and b) or c, a or b and c, (a or b) and c, not (a or b) and c, a and not b or not c]


@case(*BOOLS3)
def nested_condition_mix(a, b, c):
    out = []
    if a and (b or c):
        out.append(1)
    if (a and b) or c:
        out.append(2)
    if not (a or b) and c:
        out.append(3)
    if a or (b and not c):
        out.append(4)
    if not a and not b and not c:
        out.append(5)
    return out


@case(*BOOLS3)
def condition_with_else(a, b, c):
    if a and b or c:
        r = "yes"
    else:
        r = "no"
    if not (a and b and c):
        r += "!"
    return r


@case((0, 0, 0, 0), (1, 0, 0, 1), (0, 1, 1, 0), (1, 1, 1, 1), (0, 0, 1, 1), (1, 1, 0, 0), (1, 0, 1, 0))
def four_way_condition(a, b, c, d):
    if (a or b) and (c or d):
        return "both pairs"
    if a and b or c and d:
        return "one pair"
    return "none"


@case((1,), (0,), (-1,), (6,))
def short_circuit_side_effects(x):
    log = []

    def t(name, value):
        log.append(name)
        return value

    r = t("a", x > 0) and t("b", x > 5) or t("c", x < 0) and t("d", True)
    return r, log


@case((1, 2), (0, 2), (1, 0), (0, 0))
def or_default_value(a, b):
    name = a or "default"
    count = b and b * 10
    return name, count


@case((5,), (-5,), (0,))
def ternary(x):
    return "pos" if x > 0 else "neg" if x < 0 else "zero"


@case((1, 1), (1, 0), (0, 1), (0, 0))
def nested_ternary_in_both_branches(a, b):
    return ("ab" if b else "a") if a else ("b" if b else "")


@case((3,), (0,), (None,))
def ternary_in_call_and_subscript(x):
    values = [10, 20, 30]
    return values[0 if x is None else min(x, 2)], str(x if x else -1)


@case((1, 2), (0, 2), (1, 0), (0, 0))
def ternary_with_boolean_condition(a, b):
    return "both" if a and b else "any" if a or b else "none"


@case((4,), (7,), (0,))
def not_in_conditions(n):
    if not n:
        return "zero"
    if not n % 2:
        return "even"
    return "odd"


@case((0, 0), (0, 3), (2, 0), (2, 3))
def boolean_assigned_then_tested(a, b):
    ok = a > 0 and b > 0
    either = a > 0 or b > 0
    if ok:
        return "ok"
    if either:
        return "either"
    return "neither"


@case(([],), ([0],), ([1, 2],), ([0, 0, 3],))
def any_all_and_bool(xs):
    return bool(xs), any(xs), all(xs), bool(xs) and all(xs), not any(xs) or len(xs) > 2


@case((1, 2, 3), (0, 2, 3), (1, 0, 3), (1, 2, 0), (0, 0, 0))
def return_boolean_chain(a, b, c):
    return a and b and c or None


@case((0, 0, 0), (0, 0, 4), (0, 2, 0), (1, 0, 0))
def or_chain(a, b, c):
    return a or b or c or "nothing"


@case((5, 1, 10), (0, 1, 10), (11, 1, 10), (5, 5, 5))
def in_range_with_not(x, lo, hi):
    if not lo <= x <= hi:
        return "out"
    return "in" if x != lo else "edge"


@case(*BOOLS3)
def while_with_compound_condition(a, b, c):
    n = 0
    while (a or b) and n < 3 and not c:
        n += 1
    return n


@case((None, 1), (2, None), (None, None), (0, 0))
def none_checks(a, b):
    if a is None and b is None:
        return "both none"
    if a is None or b is None:
        return "one none"
    return a == b


@case(([None, 1, "end_x", "y"], 0), ([2, None], 1), ([None], 2))
def or_of_and_guarding_loop_body(values, flag):
    out = []
    for v in values:
        if v is not None or (flag == 0 and str(v).startswith("N")):
            out.append(v)
        elif flag > 1 and (v is None or flag > 5):
            out.append("other")
    return out


@case((0, 1), ("", "x"), ([], None), (3, 0))
def not_as_a_value(a, b):
    return not not a, not (a or b), not (not a and b), [not x for x in (a, b)]


@case((b"0",), (b"5",), (b"b",), (b"z",), (b"",))
def return_or_of_chained_comparisons(c):
    # the last chain's `return` is copied into its arm; the others meet at the shared one
    return b"0" <= c <= b"9" or b"a" <= c <= b"f"


@case((1,), (12,), (0,), (13,))
def negated_chained_comparison_guarding_raise(month):
    # 3.10+ copies the raise into the chain's cleanup block
    if not 1 <= month <= 12:
        raise ValueError(month)
    return month


@case((1, 1), (1, 2), (None, 1))
def return_and_inside_try(a, b):
    # 3.11+: the `return` lies after the protected region; both arms bring the value there
    try:
        return a.real == b.real and a.imag == b.imag
    except AttributeError:
        return NotImplemented


@case((1, 0), (1, 1), (2, 0))
def compound_test_of_conditional_in_raise(given, kwonly):
    # 3.12+ copies the rest of the raise into both arms of the conditional expression
    raise TypeError("%d %s given" % (given, "was" if given == 1 and not kwonly else "were"))


@case((1, 0), (1, 1), (2, 0))
def compound_test_of_conditional_in_call(given, kwonly):
    return str(given) + (" was" if given == 1 and not kwonly else " were")


@case((1, 0), (1, 1), (2, 0))
def compound_test_of_conditional_in_return(given, kwonly):
    return (given, "was" if given == 1 and not kwonly else "were")


@case(*BOOLS3)
def or_in_conditional_expression_returned(a, b, c):
    # 3.8/3.9 copy the bare `return` into the arm that falls into it: one arm returns
    # `c` itself, the other brings `b` to the `return` the else arm ends in
    return (b or c) if a else c


@case(*[(a, b, c, "d") for a, b, c in BOOLS3])
def and_in_conditional_expression_returned(a, b, c, d):
    return (b and c) if a else d


@case((True, [1]), (False, []), (False, [0, 1]), (False, [1, 0]), (False, [9]), (False, [5]))
def long_or_of_ands_past_a_wide_jump(flag, xs):
    # 3.13: the first test's jump needs EXTENDED_ARG; TO_BOOL before it is a test's,
    # not a value's (`not not x`)
    return not flag and (not len(xs) or (xs.count(0) and not flag) or (xs.count(1) and not flag)
                         or (xs.count(2) and not flag) or (xs.count(3) and not flag)
                         or (xs.count(4) and not flag) or (xs.count(5) and not flag)
                         or (xs.index(xs[0]) and not flag))
