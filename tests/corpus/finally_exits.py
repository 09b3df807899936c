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
