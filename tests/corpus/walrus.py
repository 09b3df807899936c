"""Assignment expressions (``:=``) in conditions, loops, comprehensions and values."""
import re

from ._harness import case


@case(("abc123",), ("none",))
def walrus_in_if(s):
    if (m := re.search(r"\d+", s)) is not None:
        return m.group()
    return "no digits"


@case(([3, 2, 1, 0, 5],), ([],))
def walrus_in_while(xs):
    it = iter(xs)
    out = []
    while (x := next(it, None)) is not None and x > 0:
        out.append(x)
    return out, x


@case(([1, 2, 3, 4],),)
def walrus_in_comprehension_filter(xs):
    return [y for x in xs if (y := x * 3) > 5]


@case((4,),)
def walrus_in_value_position(n):
    total = (a := n + 1) * (b := a * 2)
    return total, a, b


@case(([1, 2],), ([],), ([1],))
def walrus_in_elif(xs):
    if not xs:
        return "empty"
    elif (n := len(xs)) > 1:
        return "many", n
    return "one"


@case((5,), (0,))
def walrus_in_ternary_and_call(n):
    return (v if (v := n * 2) else "zero"), print(w := n - 1), w


@case(([4, 5, 6],),)
def walrus_in_comprehension_leaks_to_function(xs):
    [last := x for x in xs]
    return last


@case(("a=1;b=2;c",),)
def walrus_with_while_true_parse(text):
    parts = text.split(";")
    result = {}
    i = 0
    while i < len(parts) and "=" in (p := parts[i]):
        k, v = p.split("=")
        result[k] = int(v)
        i += 1
    return result, p


# walruses nested in walruses: each stores the same value (DUP_TOP + STORE per name); as a
# statement of their own (the outer value popped) and as a value
@case((3,), (0,))
def nested_walrus_statement(n):
    (z := (y := (x := n * 2)))
    return x, y, z


# (a class body has no temporaries to fall back on: the statement was dropped there)
@case((3,),)
def nested_walrus_statement_in_class_body(n):
    class A:
        (z := (y := (x := n * 2)))

    return A.x, A.y, A.z


@case((3,), (0,))
def nested_walrus_values(n):
    out = [(b := (a := n + 1))]
    if (d := (c := n)):
        out.append(d)
    return out, a, b, c, d, [(v := (u := i)) for i in range(n)], u, v
