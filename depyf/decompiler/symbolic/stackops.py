"""Taking values off the symbolic stack: below its bottom, the reading does not fit.

A handler that takes more values than the stack holds is not wrong itself: structuring
ran the block on a stack (one reading of the control flow) that this code does not
leave there. These helpers say so with a ``Mismatch`` at the take, so that
``Executor.run`` converts nothing else: any other exception a handler raises (an
IndexError included) is a bug in it and escapes as itself.
"""
from ..mismatch import Mismatch

_SHORT = "the stack is shorter than this reading needs (%s)"


def pop(stack):
    """The top value, taken off."""
    if not stack:
        raise Mismatch(_SHORT % "pop from empty list")
    return stack.pop()


def peek(stack, n=1):
    """The ``n``-th value from the top (1: the top), left in place."""
    need(stack, n)
    return stack[-n]


def need(stack, n):
    """Refuse a stack of fewer than ``n`` values (before shuffling the top ``n``)."""
    if n > len(stack):
        raise Mismatch(_SHORT % "list index out of range")
