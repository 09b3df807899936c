"""``try``/``except``/``else``/``finally`` in every combination and nesting; ``raise``,
``raise ... from``, re-raise; ``return``/``break``/``continue`` through ``finally``."""
from ._harness import call, case

KINDS = [("ok",), ("value",), ("key",), ("type",), ("zero",)]


class AppError(Exception):
    pass


def trigger(kind):
    if kind == "value":
        raise ValueError("bad value")
    if kind == "key":
        raise KeyError("missing")
    if kind == "type":
        raise TypeError("bad type")
    if kind == "zero":
        return 1 // 0
    if kind == "app":
        raise AppError("app", 42)
    return kind


@case(*KINDS)
def try_except_typed(kind):
    try:
        r = trigger(kind)
    except ValueError:
        r = "value error"
    return r


@case(*KINDS)
def try_except_several_clauses(kind):
    try:
        r = trigger(kind)
    except ValueError:
        r = "value"
    except (KeyError, TypeError) as e:
        r = "key or type: %s" % type(e).__name__
    except Exception as e:
        r = "other: %r" % (e,)
    return r


@case(*KINDS)
def try_except_bare(kind):
    try:
        trigger(kind)
        r = "no error"
    except:  # noqa: E722
        r = "bare"
    return r


@case(*KINDS)
def try_except_else(kind):
    log = []
    try:
        log.append(trigger(kind))
    except (ValueError, KeyError):
        log.append("handled")
    else:
        log.append("else")
    return log


@case(*KINDS)
def try_finally(kind):
    log = []
    try:
        log.append(trigger(kind))
    finally:
        log.append("finally")
    return log


@case(*KINDS)
def try_except_else_finally(kind):
    log = []
    try:
        log.append(trigger(kind))
    except ValueError as e:
        log.append(str(e))
    except KeyError:
        log.append("key")
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


@case(*KINDS)
def try_except_finally_without_else(kind):
    log = []
    try:
        trigger(kind)
    except TypeError:
        log.append("type")
    finally:
        log.append("finally")
    log.append("after")
    return log


@case(*KINDS)
def except_name_is_deleted(kind):
    e = "before"
    try:
        trigger(kind)
    except Exception as e:
        name = type(e).__name__
    else:
        name = None
    try:
        return name, e
    except NameError:
        return name, "e was deleted"


@case(*KINDS)
def return_inside_try_and_except(kind):
    try:
        return trigger(kind)
    except ValueError:
        return "from except"
    except KeyError:
        pass
    return "after try"


@case((0,), (1,), (2,))
def finally_that_returns_overrides(n):
    try:
        if n == 1:
            raise ValueError("swallowed by the finally return")
        if n == 2:
            return "from try"
    finally:
        return "from finally"


@case((0,), (1,))
def finally_runs_after_return(n):
    log = []
    try:
        if n:
            return log
        log.append("body")
    finally:
        log.append("finally")
    return log


@case(("ok",), ("value",), ("key",))
def except_that_reraises(kind):
    try:
        trigger(kind)
    except ValueError:
        raise
    except KeyError as e:
        print("logging", e)
        raise
    return "fine"


@case(("ok",), ("value",))
def raise_in_finally(kind):
    try:
        trigger(kind)
    finally:
        raise RuntimeError("from finally")


@case(("value",), ("key",), ("ok",))
def raise_from(kind):
    try:
        trigger(kind)
    except ValueError as e:
        raise AppError("wrapped") from e
    except KeyError:
        raise AppError("context only")
    return "ok"


@case(("value",), ("ok",))
def raise_from_none(kind):
    try:
        trigger(kind)
    except ValueError:
        raise LookupError("hidden cause") from None
    return kind


@case((0,), (1,), (2,), (3,))
def raise_forms(n):
    if n == 0:
        raise ValueError
    if n == 1:
        raise ValueError("with message", n)
    if n == 2:
        err = AppError("prebuilt")
        raise err
    raise AppError("from class") from KeyError("cause")


@case(*KINDS)
def nested_try_in_loop_in_try(kind):
    log = []
    try:
        for i in range(3):
            try:
                if i == 1:
                    trigger(kind)
                log.append(i)
            except ValueError:
                log.append("inner value")
                continue
            except KeyError:
                log.append("inner key")
                break
            finally:
                log.append("inner finally %d" % i)
        else:
            log.append("loop else")
    except TypeError:
        log.append("outer type")
    finally:
        log.append("outer finally")
    return log


@case(*KINDS)
def nested_try_in_except(kind):
    try:
        trigger(kind)
        return "ok"
    except Exception as outer:
        try:
            trigger("value" if isinstance(outer, KeyError) else "ok")
            return "inner ok: " + type(outer).__name__
        except ValueError as inner:
            return "inner failed", type(outer).__name__, str(inner)


@case(*KINDS)
def nested_try_in_finally(kind):
    log = []
    try:
        trigger(kind)
    except ZeroDivisionError:
        log.append("zero")
    finally:
        try:
            trigger("key" if kind == "type" else "ok")
        except KeyError:
            log.append("key in finally")
        log.append("finally")
    return log


@case(*KINDS)
def try_in_else(kind):
    log = []
    try:
        trigger(kind if kind != "value" else "ok")
    except KeyError:
        log.append("key")
    else:
        try:
            trigger("value" if kind == "value" else "ok")
        except ValueError:
            log.append("value in else")
    return log


@case(([1, 2, 3, 4],),)
def return_in_loop_in_try_finally(xs):
    log = []
    try:
        for x in xs:
            try:
                if x == 3:
                    return log
            finally:
                log.append(x)
    finally:
        log.append("outer")


@case((1,), (0,))
def exception_in_except_chains_context(n):
    try:
        1 // n
        raise KeyError("first")
    except KeyError:
        raise ValueError("second")
    except ZeroDivisionError as e:
        raise AppError("third") from e


@case(("app",), ("ok",))
def exception_attributes_and_args(kind):
    try:
        trigger(kind)
    except AppError as e:
        return e.args, str(e), isinstance(e, Exception)
    return None


@case((0,), (1,), (2,))
def custom_exception_class_inside(n):
    class Local(Exception):
        def __init__(self, code):
            super().__init__("code %d" % code)
            self.code = code

    try:
        if n:
            raise Local(n)
        return "none raised"
    except Local as e:
        if e.code == 2:
            raise
        return e.code, str(e)


@case((0,), (1,))
def break_in_finally_swallows(n):
    for i in range(3):
        try:
            if n:
                raise ValueError("swallowed")
        finally:
            break
    return "after loop", i


@case(("ok",), ("value",))
def sys_exc_info_inside_handler(kind):
    import sys

    try:
        trigger(kind)
    except ValueError:
        t, v, tb = sys.exc_info()
        return t.__name__, str(v), tb is not None
    return sys.exc_info() == (None, None, None)


@case((1,), (0,))
def try_except_pass(x):
    try:
        y = 10 // x
    except ZeroDivisionError:
        pass
    else:
        return y
    return "passed"


@case(*KINDS)
def deeply_nested_try(kind):
    log = []
    try:
        try:
            try:
                trigger(kind)
            except ValueError:
                log.append("level3")
                raise
            finally:
                log.append("f3")
        except (ValueError, KeyError) as e:
            log.append("level2 %s" % type(e).__name__)
            if isinstance(e, KeyError):
                raise TypeError("converted") from e
    except TypeError as e:
        log.append("level1 %s" % (e.__cause__ is not None))
    return log


@case((0,), (1,), (2,))
def raise_in_else_clause(n):
    try:
        v = 10 // n
    except ZeroDivisionError:
        return "zero"
    else:
        if n == 1:
            raise ValueError("from else", v)
    return "fine"


@case((3,),)
def while_true_try_retry(n):
    attempts = 0
    while True:
        try:
            attempts += 1
            if attempts < n:
                raise ConnectionError("retry")
            break
        except ConnectionError:
            continue
    return attempts


@case((0,), (1,), (2,))
def return_in_except_with_finally(n):
    log = []
    try:
        if n:
            raise ValueError(n)
        return "try", log
    except ValueError as e:
        if e.args[0] == 2:
            return "except", log
    finally:
        log.append("finally")
    return "end", log


@case((1,), (0,))
def reraise_caught_exception_object(n):
    try:
        1 // n
    except ZeroDivisionError as e:
        raise e.with_traceback(None)
    return n


@case(([1, 2, 3],),)
def continue_in_finally(xs):
    log = []
    for x in xs:
        try:
            if x == 2:
                raise ValueError("dropped by continue")
            log.append(x)
        finally:
            log.append("f%d" % x)
            continue
    return log


@case((0,), (1,), (2,), (5,))
def return_in_with_in_try_finally_in_loop(n):
    from ._harness import CM

    log = []
    for i in range(3):
        try:
            with CM(log, "cm%d" % i):
                if i == n:
                    return log
        finally:
            log.append("finally %d" % i)
    log.append("loop done")
    return log


@case(([1, 3],), ([2, 3],), ([],))
def for_else_inside_try_with_return_in_else(xs):
    try:
        for x in xs:
            if x % 2 == 0:
                break
        else:
            return "no even", len(xs)
        return "even", x
    finally:
        print("checked", xs)


@case((3,), (0,))
def with_inside_except_handler(n):
    from ._harness import CM

    log = []
    try:
        1 // n
        log.append("divided")
    except ZeroDivisionError:
        with CM(log, "handler"):
            log.append("in handler")
    return log


@case((1,), (0,))
def finally_changes_what_is_returned_after(flag):
    try:
        if flag:
            raise ValueError("bad")
        r = 5
    except ValueError as e:
        r = "caught %s" % e
    finally:
        r = (r, "finally")
    return r


def _fail(kind):
    raise kind("x")


@case((KeyError, TimeoutError), (KeyError, OSError), (ValueError, TimeoutError), (None, None))
def bare_raise_after_nested_handler(outer, inner):
    # the last `raise` re-raises the OUTER exception: the inner handler has ended
    try:
        if outer:
            _fail(outer)
        return "ok"
    except KeyError:
        try:
            if inner:
                _fail(inner)
        except TimeoutError:
            pass
        raise


@case(("x\\u0041yz", 1), ("x\\uzzzzy", 1), ("x\\ux041", 1))
def if_try_return_except_pass(s, pos):
    esc = s[pos + 1:pos + 5]
    if len(esc) == 4 and esc[1] not in 'xX':
        try:
            return int(esc, 16)
        except ValueError:
            pass
    msg = "bad escape"
    return msg, esc


@case((KeyError, True), (None, True), (None, False), (KeyError, False))
def finally_ends_function_with_return_in_if(exc, flag):
    # subprocess.Popen.__exit__ (3.8): the `return` in the finally body is no copy of the
    # implicit one; the rest of the finally body ran twice once it was taken for one
    log = []

    def exit_():
        try:
            if flag:
                log.append("close")
        finally:
            if exc is KeyError:
                log.append("interrupted")
                return
            log.append("wait")

    exit_()
    return log


class _Ratio:
    def as_integer_ratio(self):
        return (7, 2)


@case((0.25,), (3,), (_Ratio(),), ("s",), (float("inf"),))
def nested_try_returns_in_except_clauses(x):
    # statistics._exact_ratio (3.8): the inner try's clauses go on to the end of the
    # enclosing except clause (its POP_EXCEPT), which is where the inner try ends
    try:
        if type(x) is float:
            return x.as_integer_ratio()
        try:
            return (x.numerator, x.denominator)
        except AttributeError:
            try:
                return x.as_integer_ratio()
            except AttributeError:
                pass
    except (OverflowError, ValueError):
        return (x, None)
    return "no ratio for %s" % type(x).__name__


# --- a `return` whose value leaves a try statement on the stack ---------------------------
# 3.11+ puts the RETURN_VALUE of a return in nested try bodies outside all of them, and
# an except clause keeps its return value beneath the exception it restores; the return
# must stay where the value is computed, inside the handlers meant for it.


@case(("1",), ("x",))
def raise_from_in_nested_try(s):
    try:
        try:
            return int(s)
        except ValueError as e:
            raise RuntimeError("wrapped") from e
    except RuntimeError as e:
        return str(e), type(e.__cause__).__name__


@case(("1",), ("x",))
def nested_try_return_clause_raises(s):
    try:
        try:
            return int(s)
        except ValueError:
            raise RuntimeError("wrapped")
    except RuntimeError as e:
        return str(e)


@case(("1",), ("x",), ("",))
def nested_try_return_inner_clause_returns(s):
    try:
        try:
            return int(s)
        except ValueError:
            if s:
                return -1
            raise KeyError(s)
    except KeyError:
        return -2


@case((["x", "2"],), (["y", ""],), ([],))
def nested_try_return_in_loop(xs):
    for s in xs:
        try:
            try:
                return int(s)
            except ValueError:
                if s == "y":
                    continue
                raise KeyError(s)
        except KeyError:
            pass
    return None


@case(("1",), ("x",), ("",))
def nested_try_return_three_levels(s):
    try:
        try:
            try:
                return int(s)
            except ValueError:
                if s:
                    raise KeyError(s)
                raise TypeError(s)
        except KeyError:
            raise IndexError(s)
    except (IndexError, TypeError) as e:
        return type(e).__name__


@case(("1", []), ("x", []), ("", []))
def nested_try_return_in_if(s, log):
    try:
        try:
            if s:
                return int(s)
            log.append("empty")
        except ValueError:
            raise KeyError(s)
    except KeyError:
        return -1
    return 0


@case(("1", []), ("x", []))
def return_in_try_finally_in_try_except(s, log):
    try:
        try:
            return int(s)
        finally:
            log.append("f")
    except ValueError:
        return -1


@case(("1", []), ("x", []))
def return_in_try_except_in_try_finally(s, log):
    try:
        try:
            return int(s)
        except ValueError:
            log.append("v")
            return -1
    finally:
        log.append("f")


@case((0, []), (1, []))
def except_as_return_with_finally(x, log):
    try:
        v = x * 2
        if x:
            raise ValueError(v)
        return v
    except ValueError as e:
        return "err %s" % e
    finally:
        log.append("f")


@case((0, []), (1, []))
def except_return_with_finally(x, log):
    try:
        if x:
            raise ValueError(x)
        return x
    except ValueError:
        return "err"
    finally:
        log.append("f")


@case(([0, 1, 2], []), ([0, 2], []), ([], []))
def except_as_return_with_finally_in_loop(xs, log):
    for x in xs:
        try:
            if x == 1:
                raise ValueError(x)
            if x == 2:
                return x * 3
        except ValueError as e:
            return "err %s" % e
        finally:
            log.append(x)
    return None


@case((0, []), (1, []), (2, []))
def nested_except_as_returns_with_finally(x, log):
    try:
        try:
            if x:
                raise ValueError(x)
            return 0
        except ValueError as e:
            if x == 2:
                return "two %s" % e
            raise
    except ValueError as e:
        return "outer %s" % e
    finally:
        log.append("f")


# --- a try/finally that ends a loop body: its copy on the normal path goes back to the
# loop head (read as a statement, the finally body would run twice)


@case(([0, 1, 3], []), ([], []))
def for_try_finally_return(xs, log):
    for x in xs:
        try:
            if x > 2:
                return x
        finally:
            if x:
                log.append(x)


@case((4, []), (0, []))
def while_try_finally_return(n, log):
    i = 0
    while i < n:
        i += 1
        try:
            if i > 2:
                return i
        finally:
            if i % 2:
                log.append(i)
    return -1


@case(([0, 1, 3], []), ([], []))
def for_try_finally_if_else_return(xs, log):
    for x in xs:
        try:
            if x > 2:
                return x
        finally:
            if x:
                log.append(x)
            else:
                log.append("zero")


@case(([0, 1, 3, 5], []), ([], []))
def for_try_finally_break(xs, log):
    for x in xs:
        try:
            if x > 2:
                break
        finally:
            if x:
                log.append(x)
    return log


@case(([0, 1, 3, 5], []), ([], []))
def for_try_finally_continue(xs, log):
    for x in xs:
        try:
            if x == 1:
                continue
            log.append("body")
        finally:
            if x:
                log.append(x)
    return log


@case(([0, 1, 3, 5], []), ([], []))
def for_try_finally_two_statements_return(xs, log):
    for x in xs:
        try:
            if x > 2:
                return x
        finally:
            log.append("a")
            if x:
                log.append(x)


def _resolve(path, tail=None):
    if "!" in path:
        raise OSError(path)
    return path.upper() if tail is None else path + "/" + tail


@case(("abc", ""), ("abc", "t"), ("!x", "t"), ("!!", "t"))
def try_returns_conditional_expression(path, tail):
    # 3.11+: the try body ends before the RETURN_VALUE each arm of the conditional
    # expression reaches (ntpath._getfinalpathname_nonstrict)
    while path:
        try:
            path = _resolve(path)
            return _resolve(path, tail) if tail else path
        except OSError:
            path = path[1:]
    return tail


@case(("a", {"a": "x$"}), ("a", {"a": "x"}), ("b", {}), ("ab", {}), ("abc", {}))
def try_if_elif_arms_jump_past(path, table):
    # 3.13 leaves the jump ending each arm out of the protected range: the arms leave
    # the try body through bare jumps to the code after it, which belongs there once
    # (configparser.ExtendedInterpolation._interpolate_some)
    log = ["x$"]
    try:
        if len(path) == 1:
            v = table[path]
        elif len(path) == 2:
            v = log[len(path)]
        else:
            raise ValueError(path)
    except (KeyError, IndexError):
        raise LookupError(path) from None
    if "$" in v:
        log.append(v)
    else:
        log.append(0)


def _handled():
    """The exception being handled where this is called (None outside any except clause)."""
    import sys

    return type(sys.exc_info()[1]).__name__


@case((None, "ok"), (None, "value"), (None, "key"), (None, "type"), (3, "ok"))
def code_after_try_runs_after_the_clause(width, kind):
    # optparse.HelpFormatter.__init__: the statement after the try, inside an if, is
    # reached from the body and (after POP_EXCEPT) from the clause: it is not the
    # clause's, so nothing is being handled there and a new exception has no context
    if width is None:
        try:
            width = len(trigger(kind))
        except (KeyError, ValueError):
            width = 80
        width -= 2
        if width == 78:
            raise AppError(_handled())
    return width, _handled()


@case(("ok",), ("value",), ("key",), ("type",))
def code_after_try_else_runs_after_the_clause(kind):
    log = []
    if kind:
        try:
            trigger(kind)
        except ValueError as e:
            log.append(str(e))
        else:
            log.append("else")
        log.append(_handled())
    return log


@case((["ok", "value", "key", "ok"],), (["type"],))
def code_after_try_in_loop_runs_after_the_clause(kinds):
    log = []
    for kind in kinds:
        try:
            trigger(kind)
        except (ValueError, KeyError):
            log.append("caught")
            if kind == "key":
                continue
        log.append(_handled())
    return log


@case((1, "ok"), (1, "value"), (0, "value"), (1, "type"))
def code_after_try_in_if_else_runs_after_the_clause(flag, kind):
    if flag:
        try:
            r = trigger(kind)
        except ValueError:
            r = "caught"
        r = r, _handled()
    else:
        r = "skipped"
    return r


@case(("ok", 1), ("other", 1), ("value", 1), ("key", 1), ("ok", 0), ("type", 1))
def code_after_try_whose_else_returns(kind, lazy):
    # linecache.updatecache: the body's way out is an else clause that returns; the
    # clauses go on to the code after the enclosing if (not part of the clause)
    log = []
    try:
        trigger("type" if kind == "type" else "key")
    except KeyError:
        if lazy:
            try:
                data = trigger(kind)
            except (ValueError, KeyError):
                log.append("caught")
            else:
                if data == "ok":
                    return log
                return log + [data]
        log.append(_handled())
    return log


@case((1, ["a", "b"]), (1, []), (0, ["a"]), (1, ["a", 3]))
def while_true_left_by_a_break_in_an_except_clause(flag, items):
    # tarfile.TarFile.__init__: the loop's only way out is the clause's break, which the
    # loop body (the blocks that go back to its head) does not contain
    log = []
    it = iter(items)
    try:
        if flag:
            while True:
                log.append("next")
                try:
                    log.append(next(it).upper())
                except StopIteration:
                    log.append("end")
                    break
                except AttributeError as e:
                    raise KeyError(str(e)) from None
        log.append(_handled())
    except KeyError:
        log.append("failed")
    return log


@case(("ok",), ("other",), ("value",), ("type",))
def else_clause_then_the_return_the_clause_goes_on_to(kind):
    # warnings._formatwarnmsg (3.10): the return after the try is pasted after the
    # clause's POP_EXCEPT; it runs with nothing being handled
    try:
        fw = trigger(kind)
    except ValueError:
        pass
    else:
        if fw != "ok":
            return fw
    return _handled()


@case(({"a": 1}, "a", [("b", 2), ("c", 1)]), ({}, "a", [("b", 2), ("c", 1)]),
      ([], "a", [("b", 2), ("c", 1)]), ([], "a", [("b", 2)]))
def for_break_ending_an_inner_except_clause(table, value, pairs):
    # enum._proto_member.__set_name__ (3.13): the for loop with a break ends the inner
    # clause; its break and its end both go on past the outer try
    log = []
    try:
        try:
            member = table[value]
        except TypeError:
            for name, canonical in pairs:
                if canonical == 1:
                    member = name
                    break
            else:
                raise KeyError
    except KeyError:
        member = "new"
    log.append((member, _handled()))
    return log


@case(([("a", 1), ("b", []), ("c", [])],), ([("a", 1), ("b", [])],))
def for_break_in_an_except_clause_in_a_loop(items):
    # enum._simple_enum.convert_class (3.13): in a loop, a clause ending in a for loop
    # whose break and end both go on to the code after the try
    seen = {}
    hashable_misses = []
    log = []
    for name, value in items:
        try:
            contained = seen.get(value)
        except TypeError:
            contained = None
            if value in hashable_misses:
                for m in hashable_misses:
                    if m == value:
                        contained = m
                        break
        if contained is not None:
            log.append((name, "alias", _handled()))
        else:
            log.append((name, "new", _handled()))
            try:
                seen[value] = name
            except TypeError:
                hashable_misses.append(value)
    return log


_SWAP_SOURCE = "source"


@case((False,), (True,))
def parallel_assignment_of_globals_first_in_a_clause(fail):
    # pickle's module body (3.8-3.10): `a, b = c, d` right at the start of an except
    # clause reads both values before it stores either (when the second load raises, the
    # first name stays unbound: the proof sees the order)
    global _SWAP_A, _SWAP_B
    try:
        if fail:
            raise KeyError(fail)
    except KeyError:
        _SWAP_A, _SWAP_B = _SWAP_SOURCE, _SWAP_MISSING  # noqa: F821 (never defined)
    return "no error"


# A try statement nested in an except clause stays in the clause: the code after it (a
# bare `raise`, a `return`) runs while the exception is still being handled. Up to now a
# bare except clause, which every path runs into, was read as ending where the nested try
# begins (the try hoisted out of the clause, or the clause's POP_EXCEPT refused).


@case(("ok",), ("value",), ("key",))
def try_except_in_a_bare_except_clause(kind):
    try:
        raise KeyError(kind)
    except:
        try:
            r = trigger(kind)
        except ValueError:
            r = "inner value"
        try:
            raise
        except KeyError as e:
            return "reraised", r, e.args, _handled()


@case(("ok",), ("value",), ("zero",))
def bare_raise_after_a_try_in_a_bare_except_clause(kind):
    log = []
    try:
        try:
            raise AppError(kind)
        except:
            try:
                log.append(trigger(kind))
            except ValueError:
                log.append(_handled())
            raise
    except AppError as e:
        return log, e.args


@case(("ok",), ("value",), ("key",))
def try_except_in_a_typed_except_clause(kind):
    try:
        raise KeyError(kind)
    except KeyError:
        try:
            r = trigger(kind)
        except (ValueError, KeyError):
            r = _handled()
        try:
            raise
        except KeyError as e:
            return "reraised", r, e.args


@case(("ok",), ("value",), ("type",))
def try_except_in_a_named_except_clause(kind):
    try:
        raise AppError(kind)
    except AppError as e:
        try:
            r = trigger(kind)
        except ValueError as inner:
            r = str(inner)
        try:
            raise
        except AppError as again:
            return r, again is e, _handled()


@case(("ok",), ("value",))
def try_finally_in_a_bare_except_clause(kind):
    log = []
    try:
        try:
            raise KeyError(kind)
        except:
            try:
                log.append(trigger(kind))
            finally:
                log.append(_handled())
            raise
    except (KeyError, ValueError) as e:
        return log, type(e).__name__


# A try/finally in a finally body: the normal path runs a copy of the outer finally body
# that holds the inner try and then its own normal-path copy (both dropped, the inner one
# first); a `return` in the body keeps its value on the stack through a copy of both.


@case(([],))
def try_finally_in_a_finally_body(log):
    try:
        log.append(1)
    finally:
        try:
            log.append(2)
        finally:
            log.append(3)
    return log


@case(("ok", "ok", "ok"), ("value", "ok", "ok"), ("ok", "key", "ok"), ("ok", "ok", "value"),
      ("key", "value", "ok"), ("value", "key", "zero"))
def raise_at_each_level_of_a_finally_in_a_finally(a, b, c):
    log = []
    try:
        try:
            log.append(trigger(a))
        finally:
            try:
                log.append(trigger(b))
            finally:
                log.append(trigger(c))
    except (ValueError, KeyError, ZeroDivisionError) as e:
        log.append(type(e).__name__)
    return log


@case(("ok", []), ("value", []))
def return_through_a_finally_in_a_finally(kind, log):
    try:
        return log.append(trigger(kind))
    finally:
        try:
            log.append(2)
        finally:
            log.append(3)


@case(("ok",), ("value",), ("key",))
def try_except_finally_in_a_finally_body(kind):
    log = []
    try:
        log.append(1)
    finally:
        try:
            log.append(trigger(kind))
        except ValueError:
            log.append("v")
        finally:
            log.append(3)
    return log


@case(([1, 0, 2, "ok", -1, 5],), (["value"],), ([3],))
def try_finally_in_a_finally_in_a_loop(xs):
    log = []
    for x in xs:
        try:
            if x == 0:
                continue
            if x == -1:
                break
            log.append(x)
        finally:
            try:
                log.append(trigger(x) if isinstance(x, str) else -x)
            finally:
                log.append("f")
    return log


class _Box:
    """Enough of a mailbox for ``_singlefileMailbox.close``: each call can fail."""

    def __init__(self, locked, fail):
        self._locked = locked
        self.fail = fail
        self.log = []
        self._file = self

    def _step(self, name):
        self.log.append(name)
        if self.fail == name:
            raise OSError(name)

    def flush(self):
        self._step("flush")

    def unlock(self):
        self._step("unlock")

    def close(self):
        self._step("close")


@case(call(_Box(True, None)), call(_Box(False, None)), call(_Box(True, "flush")),
      call(_Box(True, "unlock")), call(_Box(False, "close")), call(_Box(True, "close")))
def mailbox_close(self):
    # mailbox._singlefileMailbox.close: 3.10 copies the outer finally's re-raise to
    # each way out of the inner try body (after the inner finally body's copy)
    try:
        self.flush()
    finally:
        try:
            if self._locked:
                self.unlock()
        finally:
            self._file.close()


@case(([],))
def try_finally_three_deep_in_finally_bodies(log):
    try:
        log.append(1)
    finally:
        try:
            log.append(2)
        finally:
            try:
                log.append(3)
            finally:
                log.append(4)
    return log


@case(("ok",), ("value",))
def code_after_a_clause_ending_in_a_try_whose_body_raises(kind):
    # test_raise.TestContext.test_not_last: the clause's last try statement never goes
    # on from its body; its clause's end leads to the outer clause's end, and the code
    # after the outer try is not part of the clause
    context = AppError("context")
    raised = None
    try:
        raise context
    except AppError:
        try:
            raise ValueError(kind)
        except ValueError:
            pass
        try:
            raise KeyError(kind)
        except KeyError as exc:
            raised = exc
    return raised.args, raised.__context__ is context, _handled()


class _Sub:
    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")


@case((ValueError,), (KeyError,))
def trys_whose_bodies_raise_in_a_with_body(exc):
    # test_exceptions.ExceptionTests.raise_catch: the second try does not end at the
    # end of the with body its clause reaches, but where its clause goes on
    sub = _Sub()
    with sub:
        try:
            raise exc("spam")
        except exc as err:
            buf1 = str(err)
        try:
            raise exc("spam")
        except exc as err:
            buf2 = str(err)
        sub.log.append(buf1 == buf2)
    return sub.log


# ---- code after the try that the compiler pasted after the end of an except clause ----


@case((0, [1]), ("a", [2]), (2, [3]))
def try_return_except_tuple_as_pass_then_return(n, log):
    # the body returns: the `return` after the try (a small exit block) is pasted after
    # the clause's POP_EXCEPT and `as` clean-up (3.10, 3.12+): it is not the clause's
    try:
        return 10 // n
    except (ZeroDivisionError, TypeError) as exc:
        pass
    return log.copy()


@case((0, [1]), (2, [3]))
def try_return_except_pass_then_return(n, log):
    try:
        return 10 // n
    except ZeroDivisionError:
        pass
    return log.copy()


@case(({"inner": {"x": 1}}, "x"), ({"x": 2}, "x"))
def except_then_del_subscript(obj, name):
    # 3.12 pastes `del d[name]` (four instructions with its RETURN_CONST) after the body
    # and after the clause: the copies are one statement after the try
    try:
        d = obj["inner"]
    except KeyError:
        d = obj
    del d[name]


@case(([1], "r", {"a": 1}), ([], "a", {"a": 1}), ([1, 2], "a", {"a": 1}), ([], "b", {"a": 1}))
def try_if_return_constant_except_pass(p, t, k):
    # 3.10+: the `return True` after the try is pasted after the body's end, where the
    # body falls out of the try: joined to its first copy (laid out before), it is
    # still the way out, not the body's `return False` (read as a try/else)
    s = [x * 2 for x in p]
    if t in ("r", "s"):
        s.append(0)
    else:
        try:
            if len(s) > k[t]:
                return False
        except KeyError:
            pass
    return True


# ---- a tail copied into the arms of a conditional argument, across the end of the try ----


@case(([3, 1, 2], 1, 0, 3), ([3, 1, 2], 2, 9, 3), ([3], 7, 0, 1))
def try_return_call_with_conditional_argument(xs, v, start, stop):
    # the tail after the conditional argument (`stop` and the call) is copied into each
    # arm up to the return, which lies outside the protected range
    try:
        return xs.index(
            v,
            start if start < len(xs) else 0,
            stop,
        )
    except ValueError:
        raise


def _convert(x, fail):
    if x in fail:
        raise ValueError(x)
    return "<%s>" % x


@case((1, ()), (1, (1,)), (1, (1, 2)))
def retry_in_clause_whose_handler_returns_a_constant(x, fail):
    # 3.10: the inner clause's `return ''` leaves the outer clause too (two POP_EXCEPTs
    # on its line): not the code after the try pasted after the inner clause
    try:
        text = _convert(x, fail)
    except Exception:
        try:
            text = _convert(x + 1, fail)
        except Exception:
            return ''
    text = text.replace('<', '[')
    return text


@case((1, ()), (1, (1,)), (1, (1, 2)))
def retry_in_clause_then_return_after_the_try(x, fail):
    try:
        text = _convert(x, fail)
    except Exception:
        try:
            return _convert(x + 1, fail)
        except Exception:
            pass
    return ''


@case(([1, 0, 2], ()), ([0, 0], ()), ([0, 3], (3,)), ([], ()))
def loop_clause_returns_then_if_returns(items, fail):
    # the clause's `return` drops the iterator from under its value (SWAP, POP_TOP): not
    # the code after the try pasted after the clause
    for x in items:
        try:
            v = _convert(x, fail) if x else ""
        except Exception:
            return "failed at %d" % x
        if v:
            return v


@case((0,), (1,))
def try_after_try_whose_body_raises(n):
    # the first body only raises; the second, a small block that raises (`try: raise E`
    # on one line: no NOP to jump to), 3.12+ copy right after the first try's clause: it
    # follows the first try, it is not inside its clause (test_grammar's test_raise)
    log = []
    try: raise KeyError(n)  # noqa: E701
    except KeyError:
        log.append("first")
    try: raise IndexError  # noqa: E701
    except IndexError:
        log.append("second")
    return log


@case((0,), (1,))
def bare_raise_after_nested_try_in_clause(n):
    # 3.12+ copy the `raise` of the outer clause right after the inner clause's end: it
    # follows the inner try (test_raise's test_except_reraise)
    def reraise():
        try:
            raise TypeError(n)
        except:
            try:
                raise KeyError("caught")
            except KeyError:
                pass
            raise
    try:
        reraise()
    except TypeError as e:
        return "TypeError", e.args, type(e.__context__).__name__


@case((0,), (1,))
def try_after_try_with_named_clause(n):
    # the same after an `except ... as name` clause, which clears its name after its
    # POP_EXCEPT (test_exceptions' test_memory_error_subclasses)
    try:
        raise KeyError(n)
    except KeyError as exc:
        inst = exc
    try: raise IndexError  # noqa: E701
    except IndexError:
        pass
    return inst.args
