"""Code after a ``finally`` block that a structuring could move into it (PEP 765: an
exit out of ``finally`` swallows the exception in flight, and 3.14 warns about it).

The compiler copies a ``finally`` body onto each way out of its ``try`` (3.9+) and a
small exit block (``return <constant>``) into the blocks that jump to it (3.10+), so the
normal-path copy of the ``finally`` body is directly followed by the ``return`` /
``break`` / ``continue`` that the source wrote after the statement. The round trip fails
when the decompiled text leaves a ``finally`` where the source does not."""
from ._harness import case


@case((1, []), (0, []))
def return_constant_after_finally(n, log):
    try:
        log.append(n)
    finally:
        log.append("finally")
    return 5


@case((2, []), (0, []))
def return_value_after_finally(n, log):
    try:
        if n:
            log.append(n)
    finally:
        log.append("finally")
    return n * 2


@case((3, []), (0, []))
def return_in_try_runs_finally(n, log):
    try:
        return n + 1
    finally:
        log.append(n)


@case(([1, 2, 3],), ([],), ([0, 5],))
def break_after_finally(items):
    out = []
    for x in items:
        try:
            out.append(x)
        finally:
            out.append("f")
        if x > 1:
            break
    return out


@case(([1, 0, 3],), ([],))
def continue_after_finally(items):
    out = []
    for x in items:
        try:
            if x:
                out.append(x)
        finally:
            out.append("f")
        if not x:
            continue
        out.append("after")
    return out


@case((3,), (0,))
def while_body_ends_in_finally(n):
    out = []
    while n > 0:
        try:
            n -= 1
        finally:
            out.append(n)
    return out


@case(([1, 2, 0, 4],), ([],))
def break_in_try_runs_finally(items):
    out = []
    for x in items:
        try:
            if not x:
                break
            out.append(x)
        finally:
            out.append("f%d" % x)
    return out


@case((0,), (1,), (2,))
def nested_finally_then_return(n):
    log = []
    try:
        try:
            if n == 1:
                raise ValueError
        finally:
            log.append("inner")
    except ValueError:
        log.append("caught")
    finally:
        log.append("outer")
    if n == 2:
        return log, "two"
    return log


@case((0,), (1,))
def raise_through_finally_then_return(n):
    log = []
    try:
        try:
            if n:
                raise KeyError(n)
        finally:
            log.append("cleanup")
        return "normal"
    except KeyError:
        return log


# An except clause of a try/except/finally that returns: its way out is the clause's
# POP_EXCEPT, a copy of the finally body and the return, which 3.12+ lays out after the
# normal one (handlers go last); the code after the statement stays after it.

@case((2, []), (0, []))
def except_return_then_code_after_finally(x, log):
    try:
        y = 10 // x
    except ZeroDivisionError:
        log.append("zero")
        return "z"
    finally:
        log.append("fin")
    log.append("after")
    return y, log


@case((2, []), (0, []))
def except_as_return_then_code_after_finally(x, log):
    try:
        y = 10 // x
    except ZeroDivisionError as e:
        log.append(str(e))
        return "z"
    finally:
        log.append("fin")
    log.append("after")
    return y, log


@case((2, []), (0, []), ("s", []), (2.5, []))
def excepts_return_then_code_after_finally(x, log):
    # (tabnanny.check)
    try:
        y = 10 // x
        if y == 4:
            raise ValueError(y)
    except ZeroDivisionError as e:
        log.append(str(e))
        return
    except TypeError:
        log.append("type")
        return
    except ValueError as e:
        if e.args:
            log.append("value")
        return
    finally:
        log.append("fin")
    if log:
        log.append("after")
    return log


@case((2, [], True), (0, [], True), (0, [], False))
def except_returns_in_if_then_code_after_finally(x, log, flag):
    try:
        y = 10 // x
    except ZeroDivisionError:
        if flag:
            return "z"
        log.append("zero")
        y = None
    finally:
        log.append("fin")
    log.append("after")
    return y, log


@case((2, []), (0, []))
def except_and_else_return_in_finally(x, log):
    try:
        y = 10 // x
    except ZeroDivisionError:
        log.append("zero")
        return "z"
    else:
        log.append("else")
        return y
    finally:
        log.append("fin")


@case(([2, 0, 5], []),)
def loop_except_continue_then_code_after_finally(xs, log):
    for x in xs:
        try:
            y = 10 // x
        except ZeroDivisionError:
            log.append("zero")
            continue
        finally:
            log.append("fin")
        log.append(y)
    return log


@case(([2, 0, 5], []), ([2], []))
def loop_except_return_then_code_after_finally(xs, log):
    for x in xs:
        try:
            y = 10 // x
        except ZeroDivisionError:
            log.append("zero")
            return "z"
        finally:
            log.append("fin")
        log.append(y)
    return log


@case((0, []), (1, []))
def finally_after_if_else_then_return_after(x, log):
    # 3.10 pastes the finally body's copy and the code after it after both arms
    try:
        if x:
            log.append(1)
        else:
            log.append(2)
    finally:
        log.append(3)
    return log.pop()


@case(("ok", []), ("ok", ["x"]), ("missing", []), ("bad", []))
def except_as_return_then_try_except_finally(name, log):
    # (tabnanny.check, 3.8) the `return` of an `except ... as` clause runs the clean-up
    # of the name (a finally body) first: it is a statement of the clause, not the
    # function's `return None` at the end
    try:
        f = {"ok": "text", "bad": None}[name]
    except KeyError as msg:
        log.append(str(msg))
        return
    try:
        f.upper()
    except AttributeError:
        return
    finally:
        log.append("close")
    if log:
        log.append("clean")


@case(("ok", []), ("r", []), ("value", []))
def return_in_a_try_in_a_finally_body(kind, log):
    # the try/finally in the finally body: its copies on the normal path (after the
    # outer one's) are dropped inner first; the `return` leaves through the inner finally
    try:
        log.append(trigger(kind))
    finally:
        try:
            if kind == "r":
                return log
        finally:
            log.append(3)
    return log, 1


@case(("ok", []), ("r", []), ("value", []), ("key", []))
def return_in_a_finally_in_a_finally_body(kind, log):
    try:
        log.append(trigger(kind))
    finally:
        try:
            log.append(2)
        finally:
            log.append(3)
            if kind in ("r", "key"):
                return log
    return log, 1


def trigger(kind):
    if kind == "value":
        raise ValueError(kind)
    if kind == "key":
        raise KeyError(kind)
    return kind


# A `return` in a try body whose finally body leaves by break/continue: the return's
# value waits on the stack past the protected range while the copy of the finally body
# runs, and the break/continue drops it (the return never happens). The value dropped
# is the `return` of the body, not an expression statement, and the handler (which
# drops the exception as a bare `except: break` would) is the finally body.


@case(([1, 2],), ([],))
def break_in_finally_cancels_a_return(xs):
    for i in xs:
        try:
            return i
        finally:
            break
    return "broke"


@case(([1, 2],), ([],))
def continue_in_finally_cancels_a_return(xs):
    for i in xs:
        try:
            return i
        finally:
            continue
    return "done"


@case(([1, 2], []), ([], []))
def statements_then_continue_in_finally_after_a_return(xs, out):
    for i in xs:
        try:
            return i
        finally:
            out.append(i)
            continue
    return out


@case(([1, 2], []), ([], []))
def statements_then_break_in_finally_after_a_return(xs, out):
    for i in xs:
        try:
            return i
        finally:
            out.append(i)
            break
    return out


@case(([1, 2, 3], 2), ([1, 2], 1), ([], 0))
def break_in_finally_cancels_a_return_in_one_arm(xs, c):
    for i in xs:
        try:
            return i
        finally:
            if i == c:
                break
    return "broke"


@case(([0, 1, 3, 4], []), ([1], []), ([0, 3], []))
def return_in_an_if_cancelled_by_continue_in_finally(xs, out):
    for i in xs:
        try:
            if i:
                return i
            out.append(i)
        finally:
            if i > 2:
                continue
    return out


@case((5,), (2,), (0,))
def continue_or_break_in_finally_cancels_a_return(n):
    while n:
        n -= 1
        try:
            return n
        finally:
            if n > 1:
                continue
            break
    return "end"


@case(([1, 0, 2],), ([0],))
def raise_through_a_finally_that_breaks(xs):
    out = []
    for i in xs:
        try:
            out.append(1 // i)
            return out
        finally:
            out.append(i)
            if i == 0:
                break
    return out, "broke"


@case(([1, 0, 2], []), ([], []))
def continue_in_finally_cancels_a_return_in_a_nested_try(xs, out):
    # the value dropped belongs to the return of the inner try/except's body: that try
    # stays a try/except (its clause is typed), the outer one is the finally
    for i in xs:
        try:
            try:
                return 1 // i
            except ZeroDivisionError:
                out.append(i)
        finally:
            continue
    return out


@case((False,), (True,))
def break_in_finally_cancels_a_return_in_a_nested_loop(x):
    # test_grammar.test_break_in_finally_after_return (g2): 3.10 copies the finally
    # body's re-raise into the arm the break is not in
    for count in [0, 1]:
        for count2 in [10, 20]:
            try:
                return count + count2
            finally:
                if x:
                    break
    return "end", count, count2


# ---- the copy of a finally body on the normal path, read apart from the handler's ----


@case(([1, None], [0, 1, 2], []), ([1, 2], [], []), ([1, 2], [0, 0, 5], []), ([3], [], []))
def finally_if_and_then_normal_end(items, c, out):
    # 3.10+ copies the implicit return to each test of the `and`, on its line: the
    # copies are one return (the handler's copy goes to one re-raise)
    try:
        ok = len(items) > 1
    finally:
        e = items.pop()
        if ok and e is not None:
            out.append(dict(k=c[2] if c else None))


@case((1, 0), (1, 1), (0, 1))
def generator_finally_if_then_assert(c, sb):
    # the handler's copy reads `assert not c or not sb` (both tests go to its one
    # re-raise); the copy on the normal path tells the nested if apart
    log = [c]
    try:
        yield log
    finally:
        log.append(sb)
        if c:
            assert not sb, 'msg'


@case((1, 1, [5]), (2, 1, [5]), (0, 1, [5]), (1, 0, [5]), (None, 0, [5]))
def finally_return_after_try_except_in_finally(obj, kind, log):
    # 3.12 pastes the small block `del log[0]; return` (RETURN_CONST: four
    # instructions) after the except clause, the try body and the if: one block
    try:
        if obj:
            log.append(obj)
    finally:
        if kind == 1:
            if obj > 0:
                try:
                    log.append(10 // (obj - 1))
                except ZeroDivisionError:
                    pass
            del log[0]
            return
        log.append("w")


@case(([0, 1, 2, 3], []), ([], []))
def finally_with_try_ends_loop_arm(items, log):
    # the try/finally ends an arm that goes back to the loop head: each path of the copy
    # on its normal path ends in a `continue`
    for x in items:
        if x:
            try:
                closed = x > 2
                log.append(x)
            finally:
                if not closed:
                    try:
                        log.append(10 // (x - 1))
                    except ZeroDivisionError as err:
                        log.append(str(err))
        else:
            log.append("else")
    return log


class _Adds:
    """A value whose `+` is logged (a copy of the finally body run twice shows)."""
    def __init__(self, log):
        self.log = log

    def __add__(self, other):
        self.log.append(("add", other))
        if other == 0:
            raise ZeroDivisionError("add 0")
        return len(self.log)


@case((1,), (None,))
def finally_returns_over_a_return(a):
    # 3.9+: the value of `return a` waits while the copy of the finally body runs; its
    # own return drops it (and a TypeError of `a + 1` leaves the function)
    try:
        return a
    finally:
        return a + 1


@case(([], 1), ([], 0), ([], None))
def finally_returns_over_a_call_that_may_raise(log, n):
    a = _Adds(log)
    try:
        return log.append(1 // n)
    finally:
        return a + (n or 0)


@case((1,), (None,))
def return_cancelled_by_raising_finally(x):
    # `return v` in a try body whose finally body raises: v is still evaluated (a free
    # variable not bound yet raises NameError), the return is cancelled (test_yield_from)
    def inner():
        try:
            yield x
            return returned
        finally:
            raise raised
    raised = KeyError("raised")
    got = []
    try:
        for v in inner():
            got.append(v)
    except (KeyError, NameError) as e:
        got.append(type(e).__name__)
    if x is None:
        returned = 5
    return got


@case((3, [5, 0]), (0, [4]), (4, [1, 1, 1, 1, 1]), (0, []))
def while_true_returns_through_finally(count, sizes):
    # `try: while True: ... return x ... finally:`: the body has no normal way out, so
    # the try ends where the `return` takes its value through the finally copy (3.8:
    # CALL_FINALLY); no `break` to the statement after the loop (asyncio's
    # _sock_sendfile_native and _sendfile_fallback)
    log = []
    blocksize = min(count, 2) if count else 16
    total = 0
    try:
        while True:
            if count:
                blocksize = min(count - total, blocksize)
                if blocksize <= 0:
                    return total, blocksize, log
            read = sizes.pop() if sizes else 0
            if not read:
                return total, log
            total += read
    finally:
        if total > 0:
            log.append(total)


@case((dict, [0, 1]), (dict, []))
def while_true_returns_value_through_same_call_in_finally(f, xs):
    # the finally body calls what the loop calls: its copy is no way on of the loop
    try:
        while True:
            f()
            if not xs:
                return len(xs)
            xs.pop()
    finally:
        f()
