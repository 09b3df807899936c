"""Shapes from CPython's language tests (``python -m depyf.verify.cpython_tests --mode
language``) and from torch's own source that were refused or read wrongly (one case per
shape, named after what it does; where it was found in the docstring)."""
import sys

from ._harness import case


class _Slice:
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


@case((_Slice(None, None, None),), (_Slice(1, 5, 2),), (_Slice(0, None, 3),))
def parallel_assignment_of_or_values(s):
    """test_itertools' islice: 3.11+ store the values in reverse order, and the block
    where the arms of each `or` meet starts with the values before it on the stack: one
    statement, not three assignments."""
    start, stop, step = s.start or 0, s.stop or sys.maxsize, s.step or 1
    return start, stop, step


@case((1, 0, 2), (0, 3, 4), (None, [], ""))
def parallel_assignment_of_conditional_expressions(s, x, y):
    a, b = (s if x else y), (x.__class__ if y else s)
    return a, b
