"""depyf.decompiler.symbolic.unpack_temps: the items of an UNPACK_SEQUENCE / UNPACK_EX
kept on the stack and used as values (no source compiles to it; Dynamo's resume calls
after a nested graph break reverse a list with ``UNPACK_SEQUENCE n; BUILD_LIST n``) read
as an assignment to temporaries, proven by the checker."""
import ast
import copy

import pytest

import depyf
from depyf.decompiler.symbolic.markers import SAME_AS_NEXT, UnpackSlot, UnpackTarget
from depyf.decompiler.symbolic.unpack_temps import bind_pending

from depyf.errors import DecompilationError

from equivalence.asm import PY, assemble


def _template():
    def f(v):
        a = b = None
        return v, a, b
    return f.__code__


def _decompiled(code):
    text = depyf.decompile(code)
    namespace = {}
    exec(compile(text, "<decompiled>", "exec"), namespace)
    return text, namespace[code.co_name]


def _run(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # the same exception type is part of equal behaviour
        return type(exc)


# (id, instructions after `LOAD_FAST v`, inputs): each reads the items as values
CASES = [
    ("a list reversed", [("UNPACK_SEQUENCE", 2), ("BUILD_LIST", 2)],
     [[1, 2], (3, 4), "ab", [1], [1, 2, 3], 5]),
    ("reversed twice (Dynamo's stack fix-up)",
     [("UNPACK_SEQUENCE", 3), ("BUILD_LIST", 3), ("UNPACK_SEQUENCE", 3), ("BUILD_LIST", 3)],
     [[1, 2, 3], "xyz", [1, 2]]),
    ("one item", [("UNPACK_SEQUENCE", 1), ("BUILD_LIST", 1)], [[7], [], [1, 2]]),
    ("first item stored, the rest kept",
     [("UNPACK_SEQUENCE", 3), ("STORE_FAST", 1), ("BUILD_LIST", 2), ("LOAD_FAST", 1),
      ("BUILD_TUPLE", 2)], [[1, 2, 3], "abc", [1]]),
    ("starred", [("UNPACK_EX", 1), ("BUILD_TUPLE", 2)], [[1, 2, 3], [1], []]),
    ("nested", [("UNPACK_SEQUENCE", 2), ("UNPACK_SEQUENCE", 2), ("BUILD_TUPLE", 3)],
     [[(1, 2), 3], [(1,), 3], [1, 2]]),
]


@pytest.mark.parametrize("ops,inputs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_items_used_as_values_are_bound_to_temporaries(ops, inputs):
    code = assemble(_template(), [("LOAD_FAST", 0)] + ops + [("RETURN_VALUE", 0)],
                    names=())
    original = type(_template)(code, {})
    text, again = _decompiled(code)
    assert "__temp_" in text, text
    for value in inputs:
        assert _run(again, value) == _run(original, value), (text, value)


# stack permutations and copies in the running version's opcodes (SWAP/COPY from 3.11)
_SWAP2 = [("ROT_TWO", 0)] if PY < (3, 11) else [("SWAP", 2)]
_ROT3 = [("ROT_THREE", 0)] if PY < (3, 11) else [("SWAP", 3), ("SWAP", 2)]
_DUP = [("DUP_TOP", 0)] if PY < (3, 11) else [("COPY", 1)]
_LISTS = [[[1], [2], [3]], ["ab", "cd", "ef"], [[1, 2], [3, 4]], [[5, 6]], 4]

# (id, instructions after `LOAD_FAST v`, inputs): the items permuted or copied on the
# stack before they are used or stored: each item is the one of its index, wherever it is
MOVED = [
    ("swapped, then a list of them", [("UNPACK_SEQUENCE", 2)] + _SWAP2 + [("BUILD_LIST", 2)],
     _LISTS),
    ("swapped, then stored",
     [("UNPACK_SEQUENCE", 2)] + _SWAP2 + [("STORE_FAST", 1), ("STORE_FAST", 2),
                                          ("LOAD_FAST", 1), ("LOAD_FAST", 2), ("BUILD_TUPLE", 2)],
     _LISTS),
    ("swapped, then one changed in place (Dynamo before 3.11: `del` of the second)",
     [("UNPACK_SEQUENCE", 3)] + _SWAP2 + [("LOAD_CONST", 1), ("DELETE_SUBSCR", 0),
                                          ("BUILD_LIST", 2)], _LISTS),
    ("the first stored into the second",
     [("UNPACK_SEQUENCE", 3)] + _SWAP2 + [("LOAD_CONST", 1), ("STORE_SUBSCR", 0),
                                          ("BUILD_LIST", 1)], _LISTS),
    ("copied", [("UNPACK_SEQUENCE", 2)] + _DUP + [("BUILD_LIST", 3)], _LISTS),
    ("rotated, then a list of them", [("UNPACK_SEQUENCE", 3)] + _ROT3 + [("BUILD_LIST", 3)],
     _LISTS),
    ("rotated, then two stored",
     [("UNPACK_SEQUENCE", 3)] + _ROT3 + [("STORE_FAST", 1), ("STORE_FAST", 2),
                                         ("BUILD_LIST", 1), ("LOAD_FAST", 1), ("LOAD_FAST", 2),
                                         ("BUILD_TUPLE", 3)], _LISTS),
]


def _same_runs(original, again, inputs, text):
    for value in inputs:  # (each run on its own copy: some change the items)
        assert _run(again, copy.deepcopy(value)) == _run(original, copy.deepcopy(value)), \
            (text, value)


@pytest.mark.parametrize("ops,inputs", [c[1:] for c in MOVED], ids=[c[0] for c in MOVED])
def test_moved_items_keep_their_places_in_the_unpacking(ops, inputs):
    # the store or use takes the item now there, not the next one in the unpacking's order
    code = assemble(_template(), [("LOAD_FAST", 0)] + ops + [("RETURN_VALUE", 0)],
                    names=(), consts=(None, 0))
    text, again = _decompiled(code)
    assert "__temp_" in text, text
    _same_runs(type(_template)(code, {}), again, inputs, text)


def test_a_copy_of_a_stored_item_used_later_is_refused():
    # the item is stored, its copy then used: no reading yet (not one that computes else)
    ops = [("LOAD_FAST", 0), ("UNPACK_SEQUENCE", 2)] + _DUP + [
        ("STORE_FAST", 1), ("STORE_FAST", 2), ("BUILD_LIST", 1), ("RETURN_VALUE", 0)]
    with pytest.raises(DecompilationError):
        depyf.decompile(assemble(_template(), ops, names=()))


def _dynamo_swap(n):
    """torch._dynamo's SWAP of the top item and the ``n``-th before 3.11 (n > 3): the
    ``n - 1`` top items in a list, its last item and the ``n``-th exchanged by
    subscripts, the list reversed and unpacked again."""
    return [("BUILD_LIST", n - 1), ("DUP_TOP", 0), ("LOAD_CONST", 2), ("BINARY_SUBSCR", 0),
            ("ROT_THREE", 0), ("DUP_TOP", 0), ("ROT_THREE", 0), ("LOAD_CONST", 2),
            ("STORE_SUBSCR", 0), ("DUP_TOP", 0), ("LOAD_METHOD", 0), ("CALL_METHOD", 0),
            ("POP_TOP", 0), ("UNPACK_SEQUENCE", n - 1)]


@pytest.mark.skipif(PY >= (3, 11), reason="Dynamo swaps with SWAP from 3.11")
def test_dynamo_swap_of_unpacked_items_then_one_changed_in_place():
    # torch 2.14, Python 3.10, nested graph breaks: the resume call's stack rebuilt with
    # this SWAP, then `ROT_TWO; del item[0]`: the reading deleted from the wrong item
    ops = [("LOAD_FAST", 0), ("UNPACK_SEQUENCE", 4)] + _dynamo_swap(4) + [
        ("ROT_TWO", 0), ("LOAD_CONST", 1), ("DELETE_SUBSCR", 0), ("BUILD_LIST", 3),
        ("RETURN_VALUE", 0)]
    code = assemble(_template(), ops, names=("reverse",), consts=(None, 0, -1))
    text, again = _decompiled(code)
    assert ".reverse()" in text, text
    _same_runs(type(_template)(code, {}), again,
               [[[1, 2], [3, 4], [5, 6], [7, 8]], ["a", [1], [2, 3], "b"], [[1]] * 3], text)


@pytest.mark.skipif(not (3, 9) <= PY < (3, 11), reason="Dynamo swaps with SWAP from 3.11; "
                    "LIST_EXTEND from 3.9")
def test_dynamo_swap_of_lists_then_a_slice_of_one_extended():
    # the same, on lists the code built: `[v]`, `["x", v]`, "z", `["y"]`; the first and
    # the last swapped, then `item[0:] + [other]` by LIST_EXTEND (the checker follows
    # the items through `reverse()` to know that the slice is a list)
    ops = [("LOAD_FAST", 0), ("BUILD_LIST", 1), ("LOAD_CONST", 3), ("LOAD_FAST", 0),
           ("BUILD_LIST", 2), ("LOAD_CONST", 5), ("LOAD_CONST", 4), ("BUILD_LIST", 1)]
    ops += _dynamo_swap(4) + [
        ("ROT_TWO", 0), ("BUILD_LIST", 1), ("ROT_TWO", 0), ("LOAD_CONST", 1),
        ("LOAD_CONST", 0), ("BUILD_SLICE", 2), ("BINARY_SUBSCR", 0), ("ROT_TWO", 0),
        ("LIST_EXTEND", 1), ("BUILD_LIST", 3), ("RETURN_VALUE", 0)]
    code = assemble(_template(), ops, names=("reverse",), consts=(None, 0, -1, "x", "y", "z"))
    original = type(_template)(code, {})
    assert original(7) == [["y"], ["x", 7], [7, "z"]]
    text, again = _decompiled(code)
    _same_runs(original, again, [7, [1]], text)


class _Executor:
    """What ``bind_pending`` asks of the executor."""

    def __init__(self):
        self.n = 0

    def new_temp(self):
        self.n += 1
        return "__temp_%d" % self.n

    @staticmethod
    def temp_ref(tmp):
        return ast.Name(id=tmp, ctx=ast.Load())


def _unpack(count, stored=()):
    up = UnpackTarget(count)
    up.source = ast.Name(id="v", ctx=ast.Load())
    up.targets.extend(stored)
    return up


def test_an_unpacking_left_by_another_reading_is_skipped():
    up = _unpack(2)
    out = []
    bind_pending(_Executor(), [up], [], out)  # no item of it on this stack: nothing to bind
    assert out == [] and up.targets == []


def test_popped_items_are_stored_into_temporaries():
    # 3.13's `POP_TOP` of an item (SAME_AS_NEXT), then the others used as values
    up = _unpack(3, [SAME_AS_NEXT])
    stack = [UnpackSlot(up, up.source, 2), UnpackSlot(up, up.source, 1)]
    out = []
    bind_pending(_Executor(), [up], stack, out)
    assert len(out) == 1 and out[0].value is up.source
    assert [t.id for t in out[0].targets[0].elts] == ["__temp_1", "__temp_2", "__temp_3"]
    assert [n.id for n in stack] == ["__temp_3", "__temp_2"]


def test_targets_computing_their_parts_keep_the_items_waiting():
    # the items wait on the stack while a later target's parts are computed: source
    namespace = {}
    exec("def f(v, b, g, i):\n    a, b[g(a)], b[i + 1].x = v\n    return a, b\n", namespace)
    fn = namespace["f"]
    text = depyf.decompile(fn)
    assert "__temp" not in text and "b[g(a)]" in text, text


def _made_and_called(inner):
    """Code that makes a function of ``inner`` (a code object) and calls it at once, never
    storing it: Dynamo's call of a resume function that needs a closure (torch 2.9-2.11)."""
    def f():
        return None
    ops = {(3, 8): [("LOAD_CONST", 1), ("LOAD_CONST", 2), ("MAKE_FUNCTION", 0),
                    ("CALL_FUNCTION", 0)],
           (3, 11): [("PUSH_NULL", 0), ("LOAD_CONST", 1), ("MAKE_FUNCTION", 0),
                     ("PRECALL", 0), ("CALL", 0)],
           (3, 12): [("PUSH_NULL", 0), ("LOAD_CONST", 1), ("MAKE_FUNCTION", 0), ("CALL", 0)],
           (3, 13): [("LOAD_CONST", 1), ("MAKE_FUNCTION", 0), ("PUSH_NULL", 0), ("CALL", 0)]}
    key = max(k for k in ops if k <= PY)
    return assemble(f.__code__, ops[key] + [("RETURN_VALUE", 0)], names=(),
                    consts=(None, inner, inner.co_name))


def test_a_function_made_and_called_at_once_keeps_its_name():
    # the def is named as its code: the function's __name__ is what the checker compares
    namespace = {}
    exec("def torch_dynamo_resume_in_g_at_3():\n    return [6]\n", namespace)
    code = _made_and_called(namespace["torch_dynamo_resume_in_g_at_3"].__code__)
    text, again = _decompiled(code)
    assert "def torch_dynamo_resume_in_g_at_3(" in text, text
    assert again() == [6]
