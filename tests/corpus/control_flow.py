"""``if``/``elif``/``else`` chains (long, nested), ``pass``, early returns, ``assert``."""
from ._harness import case

RANGE = [(i,) for i in range(-1, 12)]


@case((5,), (-5,))
def if_only(x):
    r = "start"
    if x > 0:
        r = "positive"
    return r


@case((5,), (-5,))
def if_else(x):
    if x > 0:
        r = "positive"
    else:
        r = "not positive"
    return r


@case(*RANGE)
def long_elif_chain(n):
    if n == 0:
        r = "zero"
    elif n == 1:
        r = "one"
    elif n == 2:
        r = "two"
    elif n == 3:
        r = "three"
    elif n == 4:
        r = "four"
    elif n == 5:
        r = "five"
    elif n == 6:
        r = "six"
    elif n == 7:
        r = "seven"
    elif n == 8:
        r = "eight"
    elif n < 0:
        r = "negative"
    else:
        r = "many"
    return r


@case(*RANGE)
def elif_chain_returns(n):
    if n < 2:
        return "small"
    elif n < 4:
        return "medium"
    elif n < 8:
        return "large"
    return "huge"


@case(*RANGE)
def elif_without_else(n):
    r = []
    if n % 2 == 0:
        r.append("even")
    elif n % 3 == 0:
        r.append("three")
    elif n % 5 == 0:
        r.append("five")
    r.append("end")
    return r


@case((0, 0), (0, 1), (1, 0), (1, 1), (2, 2))
def nested_ifs(a, b):
    if a:
        if b:
            r = "a and b"
        else:
            r = "a only"
    else:
        if b:
            r = "b only"
        else:
            r = "neither"
    if a == 2:
        if b == 2:
            if a == b:
                r += " (two)"
    return r


@case((1, 2), (1, 1), (1, 0), (0, 1), (0, None), (0, 0))
def nested_if_in_elif(a, b):
    if a and b and b > 1:
        return 1
    elif a:
        if b:
            return 2
        return 3
    elif b:
        return 4
    else:
        if b is None:
            return 5
    return 6


@case((1,), (0,))
def if_pass_else(x):
    if x:
        pass
    else:
        x = "was falsy"
    return x


@case((1,), (0,))
def if_else_pass(x):
    if x:
        x = "was truthy"
    else:
        pass
    return x


@case((3,), (-3,), (0,))
def return_from_every_branch(x):
    if x > 0:
        return "pos"
    elif x < 0:
        return "neg"
    else:
        return "zero"


@case((3,), (0,))
def code_after_return_in_both_branches(x):
    if x:
        y = 1
    else:
        y = 2
    if y == 1:
        return "one"
    return "two"


@case((5,), (-1,), (0,))
def assert_with_message(n):
    assert n >= 0, "n must be non-negative, got %d" % n
    assert n, "n must be non-zero"
    return n


@case((5,), (-1,))
def assert_without_message(n):
    assert n > 0
    return n * 2


@case((1,), (0,))
def assert_complex_condition(n):
    assert n == 1 or n == 2 and n > 0, ("bad", n)
    return n


@case((1, 2, 3), (3, 2, 1), (2, 2, 2), (1, 3, 2))
def if_with_chained_comparison_and_else(a, b, c):
    if a < b < c:
        return "increasing"
    else:
        if a > b > c:
            return "decreasing"
        elif a == b == c:
            return "constant"
        else:
            return "other"


@case(("a",), ("b",), ("c",), ("z",))
def dispatch_by_if_chain(cmd):
    handlers = []
    if cmd == "a":
        handlers.append("alpha")
    if cmd in ("a", "b"):
        handlers.append("ab")
    elif cmd == "c":
        handlers.append("c")
    if not handlers:
        handlers = None
    return handlers


@case((0,), (1,), (2,))
def if_expression_statement(n):
    if n:
        print("truthy", n)
    elif n == 0:
        print("zero")
    return None


@case((None,), ([],), ([0],), ([1, 2],))
def if_on_various_truthiness(v):
    if v is None:
        return "none"
    if not v:
        return "empty"
    if v[0] == 0 and len(v) == 1:
        return "single zero"
    return "other"


@case((1, 0), (0, 1), (0, 0), (1, 1))
def if_else_assign_then_merge(a, b):
    x = 0
    if a:
        x += 1
        if b:
            x += 10
    elif b:
        x += 100
    x *= 2
    return x


@case((10,), (3,), (0,))
def constant_conditions(n):
    if True:
        a = n
    if False:
        a = "never"
    while False:
        a = "never"
    if 0:
        a = "never"
    if 1:
        b = a * 2
    return a, b


@case((b"3",), (b"b",), (b"z",))
def assert_false_in_else(c):
    # the compiler drops the test of `assert False`: only the raise is left
    if b"0" <= c <= b"9":
        i = 0
    elif b"a" <= c <= b"f":
        i = 10
    else:
        assert False, "not a digit: " + repr(c)
    return i


@case((0,), (1,))
def assert_false_alone(n):
    if n:
        return n
    assert False


@case((0, 0), (0, 1), (1, 0), (-1, 1))
def returned_conditional_constants(a, b):
    if a > 0:
        return 1
    return None if b else (-2 if a == -1 else a)


@case(("  a ", True), ("  a ", False), ("", True), (3, True))
def else_returns_then_rest(node, clean):
    if isinstance(node, str) and node:
        text = node
    else:
        return None
    if clean:
        text = text.strip()
    return text


@case((0, 0), (0, 1), (2, 1), (3, 0))
def if_else_falls_off_end(a, b):
    out = []
    if a >= 2:
        out.append(1 if b else 2)
    else:
        out.append(3 if b else 4)
    if b: return
    out.append(a)


@case((1, 1, "s"), (0, 0, None), (1, 0, None), (0, 1, "t"))
def elif_after_raise(a, b, s):
    if a and b:
        raise ValueError("both")
    elif not a and not b:
        raise ValueError("neither")
    elif a:
        s = a
    return s


@case(("error", None), ("bogus", None), ("ignore", 1))
def assert_in_and_is(action, group):
    assert action in ("error", "ignore"), "invalid action: %r" % (action,)
    assert group is None
    return action


# asserts on and/or with chained comparisons as operands (the chain keeps its middle
# operand on the stack; 3.10+ paste a copy of the raise after its last link)
@case((3, 5), (7, 5), ("x", 5), (-1, 5))
def assert_and_chained_comparison(x, n):
    assert isinstance(x, int) and 0 <= x < n
    return x


@case((None, 5), (3, 5), (9, 5))
def assert_or_chained_comparison_with_message(x, n):
    assert x is None or 0 <= x < n, "bad %r" % (x,)
    return x


@case((3, 5), (0, 5), (6, 5), (2, 1), (2, 20))
def assert_chained_comparisons_and_operands(x, n):
    assert 0 <= x < n and x, ("first", x)
    assert (x or n) and x < n < 10 and n, "second"
    return x


@case((1, 5), (-3, 5), (7, 5))
def if_not_and_chained_comparison_raises(x, n):
    if not (isinstance(x, int) and 0 <= x < n):
        raise ValueError(x)
    return x
