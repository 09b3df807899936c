"""Slicing: reads with steps and negative bounds, slice assignment and deletion."""
from ._harness import case

SEQ = list(range(10))


@case((SEQ,), ("abcdefgh",), ((),))
def slice_reads(s):
    return [s[1:3], s[:2], s[3:], s[:], s[::2], s[1::3], s[::-1], s[-3:], s[:-2], s[-1:-4:-1], s[5:1:-2]]


@case((SEQ, 2, 7), (SEQ, -3, None), ("hello", None, 2), (SEQ, 0, 0))
def slice_with_variables(s, i, j):
    return s[i:j], s[i:j:2], s[:j], s[i:], s[j:i:-1]


@case((SEQ, 1), (SEQ, 3))
def slice_with_expressions(s, k):
    return s[k * 2 : k * 2 + 3], s[len(s) // 2 :], s[-k - 1 : -1], s[k:][::-1]


@case((list(range(6)),), ([1],))
def slice_assignment(lst):
    lst[1:3] = ["a", "b", "c"]
    lst[:1] = []
    lst[len(lst):] = [99]
    return lst


@case((list(range(8)),),)
def extended_slice_assignment(lst):
    lst[::2] = [0] * len(lst[::2])
    lst[::-3] = "xyz"
    return lst


@case((list(range(8)),), ([1, 2],))
def slice_deletion(lst):
    del lst[:1]
    del lst[::2]
    del lst[-1:]
    return lst


@case((list(range(10)), 2, 8, 3),)
def slice_deletion_with_variables(lst, a, b, step):
    del lst[a:b:step]
    return lst


@case(([[1, 2, 3], [4, 5, 6]],),)
def nested_subscripts(m):
    m[0][1:] = [7]
    m[1][::-1] = m[1]
    return m[0][0], m[-1][-1], m


@case(([0] * 5, slice(1, 4)), ([0] * 5, slice(None, None, 2)))
def slice_objects(lst, sl):
    lst[sl] = [1] * len(lst[sl])
    return lst[sl], lst, SEQ[slice(2, 5)]


@case((list(range(10)),),)
def slice_tuple_index(lst):
    d = {}
    d[1, 2] = "tuple key"
    d[1, ...] = "ellipsis"
    return sorted(map(str, d)), lst[1:2], lst[3:4:1]
