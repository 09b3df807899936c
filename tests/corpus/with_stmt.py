"""``with``: several items, ``as`` targets (names, tuples, attributes), no target,
exceptions and suppression, and ``return``/``break``/``continue`` inside."""
import contextlib
from types import SimpleNamespace

from ._harness import CM, case


@case(([],),)
def with_single(log):
    with CM(log, "a") as v:
        log.append("body " + v)
    return log


@case(([],),)
def with_no_target(log):
    with CM(log, "a"):
        log.append("body")
    return log


@case(([],),)
def with_several_items(log):
    with CM(log, "a") as a, CM(log, "b"), CM(log, "c") as c:
        log.append(a + c)
    return log


@case(([],),)
def with_nested(log):
    with CM(log, "outer") as o:
        with CM(log, "inner") as i:
            log.append(o + i)
        log.append("between")
    return log


@case(([],),)
def with_tuple_target(log):
    with CM(log, "t", value=(1, (2, 3))) as (a, (b, c)):
        log.append(a + b + c)
    with CM(log, "s", value=[4, 5, 6]) as (first, *rest):
        log.append((first, rest))
    return log


@case(([],),)
def with_attribute_and_subscript_targets(log):
    ns = SimpleNamespace()
    d = {}
    with CM(log, "a") as ns.value, CM(log, "b") as d["k"]:
        pass
    return log, ns.value, d


@case(([], False), ([], True))
def with_exception_propagates(log, fail):
    with CM(log, "a"):
        if fail:
            raise ValueError("inside")
        log.append("body")
    return log


@case(([],),)
def with_exception_suppressed(log):
    with CM(log, "outer"):
        with CM(log, "suppressor", suppress=True):
            raise KeyError("gone")
        log.append("after inner")
    return log


@case(([], 0), ([], 1))
def return_inside_with(log, early):
    with CM(log, "a"):
        if early:
            return "early"
        log.append("late")
    return "end"


@case(([],),)
def return_inside_nested_with(log):
    with CM(log, "a"):
        with CM(log, "b"):
            return "from inner"


@case(([], 4), ([], 3))
def break_continue_inside_with_in_loop(log, n):
    for i in range(n):
        with CM(log, "cm%d" % i):
            if i == 1:
                continue
            if i == 3:
                break
            log.append(i)
    else:
        log.append("else")
    return log


@case(([], "ok"), ([], "value"), ([], "key"))
def with_inside_try(log, kind):
    try:
        with CM(log, "a"):
            if kind == "value":
                raise ValueError
            if kind == "key":
                raise KeyError
    except ValueError:
        log.append("value handled")
    finally:
        log.append("finally")
    return log


@case(([], 0), ([], 1))
def try_inside_with(log, fail):
    with CM(log, "a"):
        try:
            if fail:
                raise ValueError("x")
        except ValueError:
            log.append("handled")
        else:
            log.append("no error")
    return log


@case(([],),)
def with_contextlib_helpers(log):
    with contextlib.suppress(ZeroDivisionError):
        log.append(1 // 0)
    with contextlib.ExitStack() as stack:
        for name in "xy":
            stack.enter_context(CM(log, name))
        log.append("stacked")
    return log


@case(([],),)
def with_generator_context_manager(log):
    @contextlib.contextmanager
    def managed(name):
        log.append("setup " + name)
        try:
            yield name.upper()
        finally:
            log.append("teardown " + name)

    with managed("a") as a, managed("b") as b:
        log.append(a + b)
    return log


@case(([], True), ([], False))
def with_enter_fails_for_second_item(log, fail):
    class MaybeBroken:
        def __enter__(self):
            if fail:
                raise RuntimeError("enter failed")

        def __exit__(self, *exc):
            log.append("exit maybe-broken")

    try:
        with CM(log, "first"), MaybeBroken():
            log.append("body")
    except RuntimeError as e:
        log.append(str(e))
    return log


@case(([], 2),)
def with_in_while_true(log, n):
    i = 0
    while True:
        with CM(log, "w%d" % i):
            i += 1
            if i >= n:
                break
    return log


@case(([], 0), ([], 1))
def with_then_code_after(log, flag):
    with CM(log, "a") as a:
        value = a * 2
    if flag:
        value += "!"
    return value


def _note(log, what):
    log.append(what)
    return what


@case(([],),)
def return_call_inside_with(log):
    with CM(log, "cm"):
        return _note(log, "inside"), list(log)


@case(([], 0), ([], 2))
def with_try_return_inside(log, n):
    # the return value is computed inside the try: a failure there runs the handler
    with CM(log, "a"):
        try:
            return 10 // n
        except ZeroDivisionError:
            log.append("handled")
            raise


@case(([], 0, "1"), ([], 2, "1"), ([], 2, "x"))
def with_return_inside_try_else(log, n, s):
    # the value is computed while the manager is still open (its exit logs after it)
    try:
        log.append(int(s))
    except ValueError:
        pass
    else:
        try:
            with CM(log, "a"):
                return log.append(10 // n) or len(log)
        except ZeroDivisionError:
            log.append("handled")
    return None



@case(([], ["a", 0, "x"]), ([], ["a", "b", "c"]))
def code_after_try_with_in_loop_stays_outside(log, items):
    # the OSError raised after the try must not be caught by its handler
    for item in items:
        try:
            with CM(log, "m", suppress=item == 0):
                log.append(len(item))
                if item == "x":
                    raise OSError("in the body")
        except OSError:
            continue
        if item == "b":
            raise OSError("after the try")
        log.append(item)
    return log


@case(([], False), ([], True))
def with_return_const_inside(log, suppress):
    # `return <constant>` inside the with: the exit call runs before it, as for a return
    # after the with; a suppressing __exit__ goes on after the with instead (falls off
    # the end here: None)
    with CM(log, "a", suppress=suppress):
        log.append("body")
        if suppress:
            raise ValueError
        return True


@case(([], False, True), ([], True, True), ([], False, False))
def with_return_const_inside_if(log, suppress, enter):
    if enter:
        with CM(log, "a", suppress=suppress):
            log.append("body")
            if suppress:
                raise ValueError
            return True
    return 5


@case(([], False), ([], True), ([], None))
def with_return_const_inside_try(log, suppress):
    # (socket.has_dualstack_ipv6)
    try:
        with CM(log, "a", suppress=bool(suppress)):
            if suppress is None:
                raise KeyError
            log.append("body")
            if suppress:
                raise ValueError
            return True
    except KeyError:
        return False


@case(([], [1, 0, 2]), ([], [1, 2]), ([], []))
def with_while_else(log, xs):
    # 3.10+: `if c: <do-while c> else: E` `else: E`; the break leaves for the with's
    # exit, so E (where the else arm and the loop's normal end meet) does not follow the
    # if (threading.Semaphore.acquire)
    with CM(log, "a"):
        while xs:
            if xs.pop() == 0:
                break
            log.append(1)
        else:
            log.append(2)
    return log


@case(({},), ({"names": ["cached"]},))
def with_return_then_code_after(cache):
    # a suppressing __exit__ goes on after the with: that code is not dead
    # (zipfile's FastLookup.namelist)
    with contextlib.suppress(KeyError):
        return cache["names"]
    cache["names"] = ["computed"]
    return cache["names"]


@case(([], 0), ([], 2))
def with_return_computed_value_then_code_after(log, n):
    with CM(log, "a", suppress=True):
        q = 10 // n
        return q + 1
    log.append("after")
    return log


@case(([], {}), ([], {"k": 1}))
def nested_with_return_then_code_after(log, d):
    # the inner with suppresses: on inside the outer one, then after it
    with CM(log, "outer"):
        with CM(log, "inner", suppress=True):
            return d["k"]
        log.append("between")
    log.append("after")
    return log


@case(([], {}), ([], {"k": 1}))
def with_two_items_return_then_code_after(log, d):
    with CM(log, "a"), CM(log, "b", suppress=True):
        return d["k"]
    log.append("after")
    return log


@case(({},), ({"a": 1},), ({"b": 2},))
def withs_in_a_row_each_returning(d):
    with contextlib.suppress(KeyError):
        return d["a"]
    with contextlib.suppress(KeyError):
        return d["b"]
    return "neither"


@case(([], {}), ([], {"k": 1}))
def try_finally_return_inside_with_then_code_after(log, d):
    # the value crosses the copy of the finally body, then the exit
    with CM(log, "a", suppress=True):
        try:
            return d["k"]
        finally:
            log.append("finally")
    log.append("after")
    return log


@case(([], {}), ([], {"k": 1}))
def with_return_inside_try_finally_then_code_after(log, d):
    try:
        with CM(log, "a", suppress=True):
            return d["k"]
        log.append("between")
    finally:
        log.append("finally")
    return log


@case(([], [{}, {"k": 3}]), ([], [{}, {}]))
def with_return_inside_loop_then_code_after(log, ds):
    for d in ds:
        with CM(log, "a", suppress=True):
            return d["k"]
        log.append("next")
    return log


def _check(log, source):
    log.append(source)
    if source.startswith(("bad", "incomplete")) or source == "other":
        raise SyntaxError("incomplete input" if source.startswith("incomplete") else source)
    return len(source)


@case(([], "ok"), ([], "other"), ([], "incomplete"), ([], "bad"), ([], "# only\n"))
def with_try_except_returns_then_code_after(log, source):
    # the returns of the clauses leave through the with's exit; the last check runs after
    # the with (3.12+ lays them out after it: codeop._maybe_compile)
    for line in source.split("\n"):
        line = line.strip()
        if line and line[0] != "#":
            break
    else:
        source = "pass"
    with CM(log, "w"):
        try:
            _check(log, source)
        except SyntaxError:
            try:
                _check(log, source + "\n")
                return None
            except SyntaxError as e:
                if "incomplete input" in str(e):
                    return None
    return _check(log, source)


# 3.10 pastes the block after a with body's POP_BLOCK (the exit call and the code after
# the with, up to a return) after each way the body falls out: one statement after the
# with, not one in each arm (a return of up to four instructions is joined again, the
# rest was not).

@case(([], 0), ([], 1))
def with_if_else_then_return_after(log, x):
    with CM(log, "a"):
        if x:
            log.append(1)
        else:
            log.append(2)
    return log.pop()


@case(([], "ok"), ([], "bad"))
def with_try_except_then_return_after(log, source):
    with CM(log, "a"):
        try:
            _check(log, source)
        except SyntaxError as e:
            log.append(str(e))
    return len(log)


@case(([], [1, 0, 2]), ([], []))
def with_loop_break_then_return_after(log, xs):
    with CM(log, "a"):
        for x in xs:
            if not x:
                break
            log.append(x)
    return len(log)



def _fast(log, mode):
    log.append("fast %s" % mode)
    if mode == "give up" or mode == 0:
        raise KeyError(mode)
    if mode == "fail":
        raise OSError(mode)


@case(([], "a"), ([], "give up"), ([], None), ([], 0), ([], ""), ([], "fail"))
def returns_in_try_bodies_inside_nested_withs(log, mode):
    # the clean-ups of the two returns (the exits of both withs, the try's POP_BLOCK) are
    # the same code on the same lines, but not copies of one block (shutil.copyfile)
    with CM(log, "src"):
        try:
            with CM(log, "dst"):
                if mode:
                    try:
                        _fast(log, mode)
                        return mode
                    except KeyError:
                        pass
                elif mode is None or mode == 0:
                    try:
                        _fast(log, mode)
                        return mode
                    except KeyError:
                        pass
                log.append("copy")
        except OSError:
            log.append("os error")
            raise
    return log


@case(([], 0), ([], 1))
def with_try_except_tuple_as_pass_then_raise(log, n):
    # 3.10 pastes the with's exit and the `raise` after it after each POP_BLOCK (the try
    # body's and the clause's): the copies are one
    with CM(log, "a"):
        try:
            log.append(1 // n)
        except (ZeroDivisionError, IndexError) as e:
            pass
    raise AssertionError()


@case(([], [1, 0, 2, 3, "x"], 1), ([], [], 5))
def with_for_if_try_except_pass(log, items, acc):
    # 3.13: the test of the `if`, split over the jump back to the loop head, is covered by
    # no handler, between the with body and the try nested in it
    with CM(log, "a"):
        for item in items:
            if item:
                try:
                    acc = acc * item
                    log.append(acc + 1)
                except TypeError:
                    pass
    return log, acc


@case((False,), (True,))
def with_break_in_loop_body(fail):
    # the body leaves the loop after the exit call; a suppressing __exit__ goes on after
    # the with instead (test_with's testWithBreak, testWithContinue)
    log, counter = [], 0
    while True:
        counter += 1
        with CM(log, "b", suppress=True):
            counter += 10
            if fail and counter < 30:
                raise ValueError
            break
        counter += 100
    return counter, log


@case((False,), (True,))
def with_continue_in_loop_body(fail):
    log, counter = [], 0
    while True:
        counter += 1
        if counter > 300:
            break
        with CM(log, "c", suppress=True):
            counter += 10
            if fail:
                raise ValueError
            continue
        counter += 100
    return counter, log


@case((False,), (True,))
def with_return_in_loop_body(fail):
    log, counter = [], 0
    while True:
        counter += 1
        with CM(log, "r", suppress=True):
            counter += 10
            if fail and counter < 30:
                raise ValueError
            break
        counter += 100
    return counter


class _Checker:
    def __init__(self):
        self.seen = []

    def check(self, *values):
        self.seen.append(values)


@case((False,), (True,))
def with_break_in_loop_body_then_calls(fail):
    # 3.12+ copy the code after the loop (more than a `return x`) behind the exit call
    # of the break path; nothing jumps there (test_with's testWithBreak)
    log, counter, checker = [], 0, _Checker()
    while True:
        counter += 1
        with CM(log, "t", suppress=True):
            counter += 10
            if fail and counter < 30:
                raise ValueError
            break
        counter += 100
    checker.check(counter, log)
    return checker.seen
