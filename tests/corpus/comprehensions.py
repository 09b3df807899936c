"""List, set, dict comprehensions and generator expressions (3.12 inlines the first three)."""
from ._harness import case


@case(([1, 2, 3, 4],), ([],))
def all_four_kinds(xs):
    return [x * 2 for x in xs], {x % 3 for x in xs}, {x: x * x for x in xs}, list(x + 1 for x in xs)


@case((range(10),),)
def several_filters(xs):
    return [x for x in xs if x % 2 if x > 2], [x for x in xs if x % 2 and x > 2 or x == 0], {x for x in xs if not x % 3 if x}


@case(([[1, 2], [3], []],),)
def nested_loops(rows):
    return [x for row in rows for x in row], [(i, x) for i, row in enumerate(rows) if row for x in row if x != 2]


@case((3,),)
def nested_comprehensions(n):
    return [[i * j for j in range(n)] for i in range(n)], {i: {j for j in range(i)} for i in range(n)}


@case((10, [1, 2, 3]),)
def references_outer_locals(offset, xs):
    scale = 2
    return [x * scale + offset for x in xs], {x: offset for x in xs if x > scale}, sum(x * scale for x in xs)


@case(([1, 2, 3],),)
def comprehension_variable_does_not_leak(xs):
    x = "outer"
    squares = [x * x for x in xs]
    return x, squares


@case((5,),)
def comprehension_with_walrus(n):
    values = [y for x in range(n) if (y := x * x) % 2]
    return values, y


@case(([3, 1, 2],),)
def comprehension_calls_and_conditionals(xs):
    return [str(x) if x > 1 else None for x in sorted(xs)], {k: (v if v else -1) for k, v in enumerate(xs)}


@case(({"a": 1, "b": 2},),)
def dict_comprehension_over_items(d):
    return {v: k for k, v in d.items()}, {k.upper(): v * 2 for k, v in sorted(d.items()) if v > 1}


@case(([(1, 2), (3, 4)],),)
def comprehension_unpacking_targets(pairs):
    return [a + b for a, b in pairs], [(b, *rest) for b, *rest in pairs], {a: b for (a, b) in pairs}


@case(([1, 2, 3],),)
def generator_expression_consumed_by_builtins(xs):
    return sum(x for x in xs), max((x * -1 for x in xs), default=None), tuple(x for x in xs if x > 1), any(x > 2 for x in xs)


@case(([1, 2, 3],),)
def generator_expression_is_lazy(xs):
    log = []
    gen = (log.append(x) or x for x in xs)
    first = next(gen)
    before = list(log)
    rest = list(gen)
    return first, before, rest, log


@case((4,),)
def comprehension_inside_lambda_and_closure(n):
    f = lambda k: [i for i in range(k)]  # noqa: E731

    def g():
        return [n * i for i in f(n)]

    return f(n), g()


@case((3,),)
def lambdas_inside_comprehension(n):
    fs = [lambda x, i=i: x + i for i in range(n)]
    return [f(10) for f in fs]


@case((2,),)
def comprehension_in_class_body(n):
    class C:
        base = [1, 2]
        scaled = [x * n for x in base]

    return C.scaled


@case(([1, 2, 3], 2),)
def comprehension_iterable_evaluated_outside(xs, k):
    return [x for x in xs[:k]], [x for x in (lambda: xs)()]


@case(([1, 0, 2],),)
def comprehension_raises(xs):
    try:
        return [10 // x for x in xs]
    except ZeroDivisionError:
        return "division by zero"


@case(("hello world",),)
def set_and_dict_comprehensions_on_strings(s):
    return sorted({c for c in s if c.isalpha()}), {c: s.count(c) for c in "lo"}


@case((3,),)
def comprehension_with_cell_variable(n):
    items = [lambda: n * i for i in range(n)]
    total = 0
    for f in items:
        total += f()
    return total


@case(([1, 2, 3, 4],),)
def three_level_nesting_with_filters(xs):
    return [(a, b, c) for a in xs if a < 3 for b in xs if b > a for c in xs if c > b if (a + b + c) % 2]


@case(([1, 2], {2: "two"}), ([3], {}))
def comprehension_then_try(xs, memo):
    # the loop's exit block is the only way on: it is where the loop ends (3.12 inlined)
    ys = [x * 2 for x in xs]
    try:
        ys.append(memo[len(xs)])
    except KeyError:
        ys.append(None)
    return ys


class _Field:
    def __init__(self, compare, hash):
        self.compare, self.hash = compare, hash


@case(([_Field(True, None), _Field(False, None), _Field(False, True), _Field(True, False)],))
def conditional_expression_as_filter(fields):
    return [f.compare for f in fields if (f.compare if f.hash is None else f.hash)]


@case(([1, 2, 3, 4, 5, 6],))
def nested_conditional_filters(xs):
    return [x for x in xs if (x > 2 if x % 2 else x < 5) and x != 3]


# ---- a `for` over one item (3.9+ compile it as an assignment) ----


@case(([1, 0, 2],), ([],))
def comprehension_single_item_for(xs):
    # 3.9+ compile a `for` over a one-item list (not the first) as an assignment
    return [y for x in xs for y in [x * 2] if y]


@case(([1, 0, 2],),)
def comprehension_single_item_tuple_for_dict(xs):
    return {x: y for x in xs for y in (x - 1,)}


@case(([1, None, 2], []), ([], []))
def try_finally_comprehension_single_item_for(cs, log):
    try:
        return len(cs)
    finally:
        log.append([p for c in cs for p in (c,) if p is not None])


# ---- a filter the compiler finds false (3.10+ drop the element with it) ----


@case(([1, 2],), ([],))
def comprehensions_with_false_filter(xs):
    return ([x for x in xs if False], {x for x in xs if False},
            {x: 1 for x in xs if False}, list(x for x in xs if False),
            list(x for x in xs for y in [x, x] if False))


@case((["a", "_b", "io", "c"], {"c"}), ([], set()))
def comprehension_filter_or_and_over_lines(names, chosen):
    # over several lines 3.10/3.11 keep the jump of `not k` to the loop's end apart (its
    # line): the filter comes out as if/else arms that skip (test_typing)
    return {
        k for k in names
        if k in chosen or (
            not k.startswith("_") and
            k not in {"io", "re"}
        )
    }


@case((True,), (False,))
def local_only_hidden_by_comprehension(early):
    # `x` is local (a store the compiler drops) but bound only by a comprehension: 3.12+
    # inline it, clearing and restoring `x` around it (test_listcomps'
    # test_unbound_local_after_comprehension)
    if False:
        x = 0
    [x for x in [1]]
    if early:
        return "early"
    try:
        return x
    except UnboundLocalError as e:
        return type(e).__name__


_shadowed = "global"


@case((3,),)
def comprehension_variable_shadows_global(n):
    # the comprehension's variable hides the global only inside it (3.12+ inline it)
    d = {_shadowed: None for _shadowed in range(n)}
    return d, _shadowed
