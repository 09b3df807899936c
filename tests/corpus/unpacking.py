"""Unpacking: star targets, nested targets, swaps; ``*``/``**`` in calls and displays."""
from ._harness import case


def show(*args, **kwargs):
    return args, sorted(kwargs.items())


@case(([1, 2, 3, 4],), ((1, 2),), ("abcde",))
def star_target_middle(seq):
    a, *b, c = seq
    return a, b, c


@case(([1, 2, 3],), ([1],), ([],))
def star_target_first_and_last(seq):
    *init, = seq
    if seq:
        head, *tail = seq
        *front, last = seq
        return init, head, tail, front, last
    return init


@case(([1, 2],), ([1, 2, 3],), ([1],))
def unpack_wrong_length(seq):
    a, b = seq
    return b, a


@case(((1, (2, 3), [4, 5, 6]),),)
def nested_targets(t):
    a, (b, c), [d, *e] = t
    return a, b, c, d, e


@case((1, 2, 3),)
def swaps(a, b, c):
    a, b = b, a
    a, b, c = c, a, b
    (a, b), c = (c, a), b
    return a, b, c


@case(({"x": 1, "y": 2},),)
def unpack_in_for(d):
    out = []
    for k, v in sorted(d.items()):
        out.append(k * v)
    for i, (k, v) in enumerate(d.items()):
        out.append((i, k, v))
    for first, *rest in [(1, 2, 3), (4,)]:
        out.append((first, rest))
    return out


@case(([0, 0, 0],),)
def unpack_into_subscripts_and_attrs(lst):
    class NS:
        pass

    ns = NS()
    lst[0], ns.a, lst[2] = "x", "y", "z"
    lst[1:], ns.b = [7, 8], 9
    return lst, ns.a, ns.b


@case((1,),)
def chained_assignment(v):
    a = b = c = v * 2
    x = y = [v]
    x.append(0)
    p, q = r = (v, v + 1)
    return a, b, c, y, p, q, r


@case(([1, 2], (3, 4), {"k": 5}, {"m": 6}),)
def star_in_calls(a, b, k, m):
    return [show(*a), show(*a, *b), show(0, *a, 9, *b), show(**k), show(**k, **m), show(*a, x=1, **k), show(1, *b, y=2, **m, z=3), show(*a, *b, **k, **m)]


@case(([1, 2], (3,), {4}),)
def star_in_list_tuple_set(a, b, c):
    return [*a, *b], (*a, *b, 0), {*a, *c}, [0, *a, *(), *"xy"], (*a,)


@case(({"a": 1}, {"b": 2, "a": 3}),)
def double_star_in_dict(a, b):
    return {**a, "x": 1}, {**a, **b}, {"z": 0, **b, "a": 9}, {**{}}, dict(**a, y=2)


@case(([1, 2, 3],),)
def star_in_return_and_yield_values(a):
    def gen():
        yield 0, *a

    t = 1, *a
    return t, list(gen())


@case(("ab",), ([1, 2],))
def unpack_string_and_list_in_assignment(pair):
    (x, y) = pair
    [p, q] = pair
    return x + y if isinstance(x, str) else x * y, p, q


# an empty target list unpacks to zero items: raises ValueError for a non-empty value
@case(([],), ([1],), ("",), ("ab",))
def unpack_to_empty_target(it):
    try:
        [] = it
    except ValueError as e:
        return "raised", str(e)
    () = ()
    return "empty"


@case(([[], []],), ([[], [1]],), ([(1, [])],))
def unpack_to_empty_target_in_for(xs):
    n = 0
    try:
        for [] in xs:
            n += 1
    except ValueError:
        return "raised", n
    a, [] = 1, []
    return n, a, [0 for () in xs[1:]]


# ---- parallel assignments whose later targets compute their parts ----


@case(([1, 2, 3, 4], [2]), ([5, 6], [1]))
def swap_computed_subscripts(s, i):
    # the values first, then each target's parts as it is stored, in the targets' order
    s[-1], s[-i[0]] = s[-i[0]], s[-1]
    return s


@case(([1, 2, 3], {"k": 0}))
def parallel_store_three_computed_targets(s, d):
    s[0], s[len(s) - 1], d[str(d["k"])] = s[-1], s[0], len(d)
    return s, d
