"""Temporaries mode: the items of an unpacking used as values, not stored.

Compiled source stores every item UNPACK_SEQUENCE / UNPACK_EX pushes (``a, b = v``): the
executor collects the targets (``UnpackTarget``) and writes the assignment when the last
one is stored. Dynamo's code also keeps the items on the stack and builds something else
of them (its resume calls after a nested graph break: ``UNPACK_SEQUENCE n; BUILD_LIST n``
reverses a list). There, before the first instruction that is no part of a target, the
items still on the stack are bound to temporaries in one assignment, ``__temp_1,
__temp_2 = v``, and used by name: the same iteration of ``v``, at the same point.
"""
import ast
import copy

from ..mismatch import Mismatch
from .exprs import as_store, name
from .markers import SAME_AS_NEXT, UnpackSlot

# which value a store takes, counted from the top of the stack
_STORED = {"STORE_ATTR": 2, "STORE_SUBSCR": 3, "STORE_SLICE": 4}

# what takes the one item of ``*X`` in source: the annotation of ``*args: *Ts`` (3.11+:
# BUILD_TUPLE; 3.14: BUILD_MAP in ``__annotate__``), a ``*Ts = *X`` default (3.13+: its
# lazily evaluated function returns it); the session reads those (``session._starred``)
_STARRED_ONE = ("BUILD_TUPLE", "BUILD_MAP", "RETURN_VALUE")


def step(ex, ins, stack, out, handlers):
    """``ex.step`` while the items of an unpacking may wait on the stack for their targets.
    An instruction that stores the next item (or drops it, or unpacks it further) or leaves
    the items alone (a target's parts computed: ``a, b[f(k)] = v``) runs as it is; one that
    takes an item as a value, or stores another item than the next (the items permuted or
    copied on the stack), is no source's (but ``*X``'s): outside temporaries mode it
    refuses the reading; in it (``*X`` included: a temporary holds the same value) the items
    are bound to temporaries and it runs again."""
    items = [v for v in stack if isinstance(v, UnpackSlot)]
    taken_item = _taken_item(ins, stack)
    if not items or taken_item is not None and _stores_in_order(ins, stack, taken_item):
        ex.step(ins, stack, out, handlers)
    elif taken_item is not None:
        _refuse_outside_temps(ex, ins)
        bind_pending(ex, ex.pending_unpacks, stack, out)
        ex.step(ins, stack, out, handlers)
    else:
        saved = list(stack), len(out), ex._base, ex._ntemps
        ex.step(ins, stack, out, handlers)
        kept = {id(v) for v in stack}
        taken = [v for v in items if id(v) not in kept]
        if taken and (ex.temps or not (ins.opname in _STARRED_ONE and all(
                v.unpack.count == 1 and v.unpack.star_index is None for v in taken))):
            _refuse_outside_temps(ex, ins)
            stack[:], ex._base, ex._ntemps = saved[0], saved[2], saved[3]
            del out[saved[1]:]
            bind_pending(ex, ex.pending_unpacks, stack, out)
            ex.step(ins, stack, out, handlers)
    ex.pending_unpacks[:] = [up for up in ex.pending_unpacks if not up.complete() and any(
        isinstance(v, UnpackSlot) and v.unpack is up for v in stack)]


def _refuse_outside_temps(ex, ins):
    if not ex.temps:
        raise Mismatch("the items of an unpacking used as values (only temporaries "
                       "read it)", function=ex.code.co_name, opname=ins.opname,
                       offset=ins.offset)


def _taken_item(ins, stack):
    """The item ``ins`` stores, drops (3.13's ``_, _ = v``) or unpacks (a nested target),
    if it takes one so; else None."""
    k = _operands(ins)
    if 0 < k <= len(stack) and isinstance(stack[-k], UnpackSlot):
        return stack[-k]
    return None


def _operands(ins):
    """How many values ``ins`` takes if it stores, drops or unpacks the deepest of them
    (the others: the object and index of a ``STORE_SUBSCR``), else 0."""
    op = ins.opname
    return _STORED.get(op, 1) if op.startswith("STORE_") else 1 if op in (
        "POP_TOP", "UNPACK_SEQUENCE", "UNPACK_EX") else 0


def _stores_in_order(ins, stack, slot):
    """Whether ``ins`` takes ``slot`` as source's next target does: the next item, with no
    item among the target's parts (``i1[0] = i0``, Dynamo's, takes ``i1`` as a value)."""
    parts = stack[len(stack) - _operands(ins) + 1:]
    return _is_next(slot) and not any(isinstance(v, UnpackSlot) for v in parts)


def _is_next(slot):
    """Whether ``slot`` is the item its unpacking stores next (source stores them in
    order, each once)."""
    return slot.index == len(slot.unpack.targets)


def check_next(slot):
    """Refuse storing ``slot`` as a target unless it is its unpacking's next item."""
    if not _is_next(slot):
        raise Mismatch("an unpacking's item stored out of its order")


def bind_pending(ex, pending, stack, out):
    """Bind the items of every unfinished unpacking in ``pending`` (newest first: a nested
    one completes an item of the one it unpacks) to temporaries; ``ex`` is the executor.
    Each item left gets one temporary, in the items' order, whatever place (or places: a
    copy) it has on the stack now."""
    while pending:
        up = pending.pop()
        slots = [i for i, v in enumerate(stack) if isinstance(v, UnpackSlot) and v.unpack is up]
        if up.complete() or not slots:
            continue  # done, or left by another reading of the block (no item on this stack)
        while up.targets and up.targets[-1] is SAME_AS_NEXT:
            up.targets[-1] = name(ex.new_temp(), ast.Store())  # popped, not stored
        left = range(len(up.targets), up.count)
        if {stack[i].index for i in slots} != set(left):
            raise Mismatch("an unpacking's items were neither stored nor kept on the stack")
        temps = {}
        for index in left:
            temps[index] = ex.new_temp()
            up.targets.append(name(temps[index], ast.Store()))
        for i in slots:
            stack[i] = ex.temp_ref(temps[stack[i].index])
        _finish(up, out)
    ex._base = len(stack)


def _finish(up, out):
    """The assignment of a complete unpacking; a nested one is a target of the unpacking
    of its value (``(a, b), c = v``), written when that one completes."""
    elts = [as_store(e) for e in up.targets]
    if up.star_index is not None:
        elts[up.star_index] = ast.Starred(value=elts[up.star_index], ctx=ast.Store())
    target = ast.Tuple(elts=elts, ctx=ast.Store())
    if not isinstance(up.source, UnpackSlot):
        out.append(ast.Assign(targets=[target], value=up.source))
        return
    outer = up.source.unpack
    k = len(outer.targets) - 1
    while k >= 0 and outer.targets[k] is SAME_AS_NEXT:
        outer.targets[k] = copy.deepcopy(target)  # as ``_assign`` does
        k -= 1
    outer.targets.append(target)
    if outer.complete():
        _finish(outer, out)
