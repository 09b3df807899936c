"""Shapes from CPython's language tests (``python -m depyf.verify.cpython_tests --mode
language``) and from torch's own source that were refused or read wrongly (one case per
shape, named after what it does; where it was found in the docstring)."""
import sys

from ._harness import case, CM


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


def _it(*items):
    return lambda: iter(items)


@case(([],), ([_it()],), ([_it(1, 2)],), ([_it(1, 2), _it(3, 4)],), ([_it(1), _it()],))
def while_else_breaking_from_try_after_try_else(gs):
    """test_generators' flat_conjoin: after a try/except/else, a `while c:` (3.10+: `if
    c: do {...} while c`) whose try body breaks, with an else clause that breaks the outer
    loop: the entry test is the loop's own, its way out the else clause."""
    n = len(gs)
    values = [None] * n
    iters = [None] * n
    i = 0
    while 1:
        try:
            while i < n:
                it = iters[i] = gs[i]().__next__
                values[i] = it()
                i += 1
        except StopIteration:
            pass
        else:
            assert i == n
            yield list(values)
        i -= 1
        while i >= 0:
            try:
                values[i] = iters[i]()
                i += 1
                break
            except StopIteration:
                i -= 1
        else:
            assert i < 0
            values = None  # (3.8/3.9 jump over a `break` right after the assert)
            break


@case(({}, 3), ({1: 0}, 3), ({0: 1, 2: 2}, 4))
def loop_at_function_start_continued_by_inner_break(d, i):
    """A `while 1:` that starts the function (its head is block 0) continued by the
    `break` of an inner while/else: the inner loop ends there."""
    while 1:
        i -= 1
        while i >= 0:
            try:
                d[i]
                break
            except KeyError:
                i -= 1
        else:
            d = None  # (3.8/3.9 leave a `break` alone here dead: the loop jumps past it)
            break
    return i, d


def _value(log, x):
    log.append("value %r" % (x,))
    if x is None:
        raise KeyError(x)
    return x


@case((1, 2, True, True), (0, 2, True, False), (0, 2, False, True), (None, 2, True, True),
      (1, None, False, False))
def return_in_arms_through_branching_finally_inside_with(x, y, p, has):
    """torch's CompiledFxGraph.__call__ (reduced): a `return` in each arm of a try whose
    finally body branches, inside a with: the value waits through the finally copy (a
    branch) and the with's exit call, which 3.11+ copy into each arm's way out."""
    log = []
    try:
        with CM(log, "ctx"):
            try:
                if p:
                    return _value(log, x), log
                else:
                    return _value(log, y), log
            finally:
                if has:
                    log.append("end")
    finally:
        log.append("finally")


@case((1, 2, True, True), (0, 2, False, False), (None, 2, True, False), (1, None, False, True))
def return_in_arms_through_branching_finally_inside_try_finally(x, y, p, has):
    """The same inside a try/finally: past the inner finally copy the value goes on into
    the outer one's copy."""
    log = []
    try:
        try:
            if p:
                return _value(log, x), log
            return _value(log, y), log
        finally:
            if has:
                log.append("end")
    finally:
        log.append("finally")


@case((1, 2, True, True), (0, 2, False, False), (None, 2, True, False), (1, None, False, True))
def return_in_arms_through_branching_finally_in_with(x, y, p, has):
    log = []
    with CM(log, "ctx"):
        try:
            if p:
                return _value(log, x), log
            return _value(log, y), log
        finally:
            if has:
                log.append("end")


@case((1, True, True), (0, False, True), (None, True, False), (2, False, False), (None, False, True))
def return_in_arms_one_inside_with_through_branching_finally(x, p, has):
    """torch's CompiledFxGraph.__call__: as above, one arm returning from inside a
    with of its own; the outer with's exit call (3.11+) is copied into each arm's way
    out, after the finally copy (a branch)."""
    log = []
    try:
        with CM(log, "ctx"):
            try:
                if p:
                    with CM(log, "record"):
                        return _value(log, x), log
                else:
                    return _value(log, x), log
            finally:
                if has:
                    log.append("end")
    finally:
        if has:
            log.append("finally")


@case((1, True, True), (0, True, False), (None, False, True), (2, False, False), (None, True, True))
def return_through_finally_with_multiline_and(x, has, record):
    """torch's CompiledFxGraph.__call__ (3.12/3.13): the test of the outer finally body is
    `a and not b` over several lines. The `return` waiting through it has no line of its
    own; 3.12+ give each of its copies the line of the test before it, so its copies in
    the return's path read as nested ifs, the handler's as one `if a and b`."""
    log = []
    try:
        try:
            return _value(log, x), log
        finally:
            log.append("inner")
    finally:
        if (
            has
            and not record
        ):
            log.append("outer")


class _Rounds:
    """Rounds of steps: each round's function raises its steps' exceptions in turn."""

    def __init__(self, plan):
        self.rounds = iter(plan)

    def next_round(self):
        steps = iter(next(self.rounds))

        def step():
            exc = next(steps)
            if exc is not None:
                raise exc
        return step


@case((([None, KeyError(1)], [KeyError()], [ValueError()], [IndexError()]),),
      (([ValueError(), None], [None, None, KeyError("k")], [IndexError()]),))
def breaks_from_clauses_of_a_loop_that_ends_a_try_body(plan):
    """test_asyncgen's async_iterate: a `while True` that is all of a try body, inside
    another loop, left by `break`s from its except clauses (some `as` a name, which is
    cleared on the way): 3.13 sends each through the same jump that ends the try body,
    to the outer loop's head."""
    res = []
    rounds = _Rounds(plan)
    while True:
        step = rounds.next_round()
        try:
            while True:
                try:
                    step()
                except KeyError as ex:
                    if ex.args:
                        res.append(ex.args[0])
                        break
                    else:
                        res.append("empty")
                        break
                except IndexError:
                    raise
                except Exception as ex:
                    res.append(type(ex).__name__)
                    break
        except IndexError:
            res.append("stop")
            break
    return res


@case((([None, KeyError(1)], [IndexError()]),), (([KeyError("k")], [None, IndexError()]),))
def loop_ending_try_body_whose_try_body_raises_on_a_test(plan):
    """Found reducing test_asyncgen's async_iterate: the inner loop's try body raises in an
    `if` (a block of the try body that is no way on), and its except clause breaks: the
    clause's way out is where the loop ends (3.9+)."""
    res = []
    rounds = iter(plan)
    while True:
        steps = iter(next(rounds))
        try:
            while True:
                try:
                    step = next(steps)
                    if step is not None:
                        raise step
                    res.append(1)
                except KeyError as ex:
                    res.append(ex.args[0])
                    break
        except IndexError:
            res.append(0)
            break
    return res


@case((0.5, 2, 2, 3, 4), (True, 1, 1, 3, 4), (-1, 1, 1, 1, 1), ("x", 1, 1, 1, 1))
def chained_test_then_raise_over_lines(dropout, num_layers, num_directions, size, hidden):
    """torch.nn.RNNBase.__init__: 3.10 pastes the raise (its message on lines of its own)
    after the clean-up of the chained comparison: the copy starts at the raise's first
    instruction, not at the first on the raise's line (which would leave values on the
    stack and read as a conditional expression)."""
    if (
        not isinstance(dropout, (int, float))
        or not 0 <= dropout <= 1
        or isinstance(dropout, bool)
    ):
        raise ValueError(
            "dropout should be a number "
            "in [0, 1]"
        )
    sizes = []
    for layer in range(num_layers):
        for direction in range(num_directions):
            sizes.append(
                size if layer == 0 else hidden * num_directions
            )
    return sizes
