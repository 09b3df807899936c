# min-python: 3.11
"""``except*`` and exception groups."""
from ._harness import case


def group(*kinds):
    return ExceptionGroup("group", [kind("e%d" % i) for i, kind in enumerate(kinds)])


@case(((ValueError,),), ((ValueError, TypeError),), ((TypeError,),), ((KeyError,),))
def except_star_typed(kinds):
    log = []
    try:
        raise group(*kinds)
    except* ValueError as eg:
        log.append(("value", len(eg.exceptions)))
    except* TypeError as eg:
        log.append(("type", [str(e) for e in eg.exceptions]))
    return log


@case(((ValueError, KeyError),), ((KeyError,),), ((OSError,),))
def except_star_tuple_and_leftovers(kinds):
    log = []
    try:
        try:
            raise group(*kinds)
        except* (ValueError, TypeError):
            log.append("value or type")
        except* KeyError:
            log.append("key")
    except ExceptionGroup as rest:
        log.append(("unhandled", [type(e).__name__ for e in rest.exceptions]))
    return log


@case((0,), (1,))
def except_star_with_else_finally(n):
    log = []
    try:
        if n:
            raise group(ValueError)
        log.append("body")
    except* ValueError:
        log.append("handled")
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


@case((0,), (1,))
def except_star_naked_exception(n):
    result = "fine"
    try:
        if n:
            raise ValueError("naked")
    except* ValueError as eg:
        result = type(eg).__name__, [str(e) for e in eg.exceptions]
    return result


@case(((ValueError,),), ((TypeError,),))
def except_star_reraise(kinds):
    try:
        raise group(*kinds)
    except* ValueError:
        raise
    except* TypeError as eg:
        raise RuntimeError("converted") from eg


@case((1,), (0,))
def except_star_in_loop(n):
    out = []
    for i in range(3):
        try:
            if i == n:
                raise group(KeyError)
            out.append(i)
        except* KeyError:
            out.append("key at %d" % i)
    return out


@case(((ValueError,),), ((ValueError, OSError),), ((),))
def except_star_with_try_in_clause_and_return(kinds):
    log = []
    try:
        if not kinds:
            return "nothing raised"
        raise group(*kinds)
    except* ValueError as eg:
        try:
            log.append(int("x"))
        except ValueError as inner:
            log.append(("inner", str(inner)[:7], len(eg.exceptions)))
        finally:
            log.append("clause done")
    except* OSError:
        log.append("os")
        if len(kinds) > 1:
            log.append("both")
    return log


@case((0,), (1,), (2,), (3,))
def except_star_three_clauses_and_else(n):
    kinds = [(KeyError,), (KeyError, IndexError), (), (TypeError,)][n]
    log = []
    try:
        if kinds:
            raise group(*kinds)
    except* KeyError:
        log.append("key")
    except* IndexError as eg:
        log.append(("index", len(eg.exceptions)))
    except* (TypeError, ValueError):
        log.append("type or value")
    else:
        log.append("no error")
    return log


@case(((ValueError, OSError),), ((OSError,),), ((ValueError,),))
def except_star_raising_inside_a_try_except(kinds):
    # CPython's test_except_star (TestExceptStarRaise): 3.13 leaves the jump on from the
    # except* handler unprotected by the outer try: the outer try's way out, not code
    # of its body
    orig = group(*kinds)
    exc = None
    try:
        try:
            raise orig
        except* OSError as e:
            raise TypeError(3)
    except ExceptionGroup as e:
        exc = e
    return type(exc).__name__, [type(x).__name__ for x in exc.exceptions]


@case(((ValueError,),), ((TypeError, KeyError),))
def except_star_clause_with_a_loop_that_breaks_and_continues(kinds):
    # test_except_star (test_break_continue_in_except_star_block_valid): the clause
    # body's collector of what it raises is compiler clean-up, no way on for an if in
    # the loop
    try:
        raise group(*kinds)
    except* Exception as e:
        count = 0
        for i in range(5):
            if i == 0:
                continue
            if i == 4:
                break
            count += 1
        exc = e
    return count, i, len(exc.exceptions)


@case(((ValueError,),), ((KeyError,),))
def except_star_clauses_with_loops(kinds):
    log = []
    try:
        raise group(*kinds)
    except* ValueError:
        for i in range(3):
            if i == 1:
                continue
            log.append(i)
    except* KeyError:
        while log is not None:
            if len(log) > 1:
                break
            log.append("k")
    return log


@case()
def try_except_star_in_a_bare_except_clause():
    # test_except_star (test_sys_exception_restored): the bare clause's first lines
    # are a try/except*, whose handler is not the clause's
    try:
        try:
            raise ValueError(42)
        except:
            try:
                raise TypeError(int)
            except* Exception:
                pass
            1 / 0
    except Exception as e:
        exc = e
    return type(exc).__name__, type(exc.__context__).__name__
