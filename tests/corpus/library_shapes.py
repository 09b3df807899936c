"""Shapes from the standard library modules that CPython's own tests judge
(``python -m depyf.verify.cpython_tests --mode library``) and that were refused or read
wrongly (one case per shape, named after where it was found)."""
import errno

from ._harness import case, CM


@case(([1, 2, 3], 2), ([1, 2, 3], 9), ([], 0), ([5, 6], 6, 1), ([5, 6], 5, 1))
def break_from_except_to_raise_after_loop(seq, value, start=0):
    """_collections_abc.Sequence.index: 3.10+ pastes the `raise` after the loop in place
    of the `break` of the except clause (after its POP_EXCEPT): a `break`, not a `raise`
    inside the clause (which would chain the IndexError)."""
    i = start
    while i < 10:
        try:
            v = seq[i]
        except IndexError:
            break
        if v is value or v == value:
            return i
        i += 1
    raise ValueError(value)


@case(([1],), ([],))
def raise_after_try_pasted_after_except_clause(items):
    """unittest.mock._AsyncIterator.__anext__: the try body returns, so 3.10+ pastes the
    `raise` after the try statement right after the except clause's POP_EXCEPT, its only
    way there: a statement after the try, not a `raise` inside the clause."""
    it = iter(items)
    try:
        return next(it)
    except StopIteration:
        pass
    raise LookupError


class _Named:
    __qualname__ = "Named"


@case(("a",), ("x.y",))
def percent_format_on_an_fstring(attrname):
    """unittest.loader.TestLoader.getTestCaseNames: 3.11+ compiles `'%s.%s' % (a, b)`
    as an f-string, so a `%` kept with such a format had an f-string on its left."""
    c = _Named
    return f'%s.%s.%s' % (c.__module__, c.__qualname__, attrname), '%s-%r' % (c.__qualname__, attrname)


class _Temp:
    def __init__(self, log, fail):
        self.log, self.fail = log, fail

    def popen(self):
        if self.fail == "open":
            raise OSError("no")
        return "proc"

    def close(self):
        self.log.append("close")
        if self.fail == "close":
            raise FileNotFoundError("gone")


@case(("",), ("open",), ("close",))
def return_from_except_through_finally_with_try(fail):
    """ctypes.util._findLib_gcc: the `return` of an except clause runs the finally
    body, a try statement, on its way out; 3.10+ pastes the return into that copy's
    except clause too: the copy is still the finally body's."""
    log = []
    temp = _Temp(log, fail)
    try:
        try:
            proc = temp.popen()
        except OSError:
            return None
        log.append(proc)
    finally:
        try:
            temp.close()
        except FileNotFoundError:
            pass
    return log


def _fail_with(kind):
    if kind == "open":
        raise OSError(kind)
    if kind == "key":
        raise KeyError(kind)


@case(("",), ("open",), ("key",), ("close",))
def return_from_one_clause_through_finally_with_try(fail):
    """The same return in one clause, where another clause goes on to a with statement:
    the try that the copy of the finally body starts right after the returning clause's
    POP_EXCEPT (3.11+) is no code after the nested try; the clauses go on where its
    body does (read as an else clause, the with was copied into the other clause)."""
    log = []
    temp = _Temp(log, fail)
    try:
        try:
            _fail_with(fail)
        except OSError:
            return None
        except KeyError:
            log.append("key")
        with CM(log, "after"):
            log.append(fail)
    finally:
        try:
            temp.close()
        except FileNotFoundError:
            pass
    return log


@case(([1, 2, 3], ""), ([1, 0, None, 3], ""), ([1, 0, 2], "close"), ([None], "close"))
def break_from_except_through_finally_with_try(items, fail):
    """A `break` (a `continue`) of the nested except clause runs the finally body, a try
    statement, on its way (3.11+: that copy right after the clause's POP_EXCEPT; 3.13
    also pastes the jump into the end of the copy's except clause)."""
    log = []
    temp = _Temp(log, fail)
    for item in items:
        try:
            try:
                v = 10 // item
            except TypeError:
                break
            except ZeroDivisionError:
                continue
            log.append(v)
        finally:
            try:
                temp.close()
            except FileNotFoundError:
                pass
        log.append(item)
    log.append("done")
    return log


@case((0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (3, 0))
def constant_return_inside_nested_withs(stop, suppress):
    """filecmp._do_cmp: `return True` inside two withs runs both exits before it, as a
    return after the inner with does; where the inner exit suppresses an exception, the
    code goes on after the inner with (here: falls out, None), not to the return."""
    log = []
    with CM(log, "a"), CM(log, "b", suppress=suppress):
        while True:
            log.append(stop)
            if stop == 1:
                return False, log
            if stop == 2:
                raise KeyError(stop)
            if stop != 3:
                return True
            stop = 2


@case((0, 0), (1, 1), (2, 1))
def constant_return_after_inner_with(stop, suppress):
    """The other reading: the return after the inner with, where a suppressed exception
    of the inner body goes on too."""
    log = []
    with CM(log, "a"):
        with CM(log, "b", suppress=suppress):
            if stop == 1:
                raise KeyError(stop)
            if stop == 2:
                return False
            log.append(stop)
        return True


@case((b"ab",), (b"",))
def fstring_text_with_escapes(chunk):
    """http.client.HTTPConnection._send_output: the text of an f-string with a carriage
    return, a NUL, a tab and a backslash (3.8 printed them as they are: the carriage
    return before the newline was read back as a newline, the NUL did not compile)."""
    return f'{len(chunk):X}\r\n'.encode('ascii') + chunk, f'{chunk}\t\x00\\x{{}}\u00e9'


class _Unlink:
    def __init__(self, log, fail):
        self.log, self.fail, self.stdin = log, fail, True

    def close(self):
        self.log.append("close")
        if self.fail == "close":
            raise KeyError("close")

    def unlink(self):
        self.log.append("unlink")
        if self.fail == "unlink":
            raise OSError("unlink")


@case(("",), ("close",), ("unlink",))
def finally_ending_in_try_except_pass(fail):
    """fileinput.FileInput.nextfile: a finally body that ends in a try/except-pass and a
    statement; 3.11+ pastes that statement (and the return, or the re-raise of the
    finally's exception) after the except clause's POP_EXCEPT."""
    f = _Unlink([], fail)
    try:
        try:
            f.close()
        finally:
            try: f.unlink()
            except OSError: pass
            f.stdin = False
    except KeyError:
        return f.log, f.stdin, "raised"
    return f.log, f.stdin


@case((0, 0), (2, 0), (5, 1), (5, 0), (1, 1))
def return_from_while_true_inside_with(ready, suppress):
    """socketserver.BaseServer.handle_request: `return f()` from a `while True:` loop
    inside a with (the loop has no other way out): the value swapped below the exit
    function, the exit called, then returned; the return is the loop body's."""
    log = []
    timeout = 3
    with CM(log, "sel", suppress=suppress) as selector:
        while True:
            log.append(timeout)
            if timeout == ready:
                return selector + str(timeout), log
            else:
                if timeout is not None:
                    timeout = timeout - 1
                    if timeout < 0:
                        return log
                    if timeout == 2 and suppress:
                        raise KeyError(timeout)


@case(([],), ([1, 0, 2],), ([0, 0],), ([3, "x"],))
def return_after_for_with_try_inside_with(items):
    """torch._inductor.triton_bundler.TritonBundler.read_and_emit: `return f()` after a
    for loop whose body ends in a try, all inside a with: the iterator on the stack
    where the loop body meets the with's exit call is no value returned by an arm of
    the body."""
    log = []
    with CM(log, "emit"):
        for item in items:
            try:
                log.append(10 // item)
            except ZeroDivisionError:
                log.append("zero")
        return len(log), log


@case((0,), (3,), (5,), (8,), (9,))
def return_from_while_true_inside_try(limit):
    """http.client.HTTPResponse._readinto_chunked: `return total + n` from a `while
    True:` loop inside a try (the loop's only ways out are returns): 3.11+ leaves the
    RETURN_VALUE out of the try's range, the way out of the region with the value."""
    total = 0
    chunks = iter([1, 2, 3, None] if limit != 9 else [1, 2, 3])
    try:
        while True:
            left = next(chunks)
            if left is None:
                return total
            if total + left > limit:
                return total + left * 10
            total += left
    except StopIteration:
        raise KeyError(total)


@case(("a",), ("x:b",), ("x:c",), ("c",))
def return_from_nested_clause_then_code_after_try(tag):
    """xmlrpc.client.Unmarshaller.end: a bare `return` in an except clause nested in an
    except clause leaves both handlers (POP_EXCEPT twice) before it returns; 3.10 read the
    second POP_EXCEPT and the return as code after the inner try pasted there."""
    dispatch = {"a": 1, "b": 2}
    try:
        f = dispatch[tag]
    except KeyError:
        if ':' not in tag:
            return
        try:
            f = dispatch[tag.split(':')[-1]]
        except KeyError:
            return
    return f * 10


class _Cookie:
    def __init__(self):
        self.log = []

    def pack(self, *args):
        return ("cookie",) + args

    def set(self, state):
        self.log.append(state)


@case((0, [1, 2]), (1, [1, 2]), (2, [0, 0]), (3, [0, 3]), (3, []), (0, []))
def for_else_raising_in_places_then_return_in_try_finally(skip, items):
    """_pyio.TextIOWrapper.tell: a for loop with a `break` and an else clause that raises
    in places, then `return f(...)` in a try/finally: the two returns' finally copies are
    joined, so the break and the else clause meet before the try body's end (the loop
    ends at the second return, not at the finally copy, where the first one's value
    would stand for both)."""
    d = _Cookie()
    saved = len(items)
    try:
        if skip == 0:
            return d.pack(saved)
        for i in items:
            if i:
                skip -= i
                break
        else:
            if skip > 2:
                raise ValueError(skip)
        return d.pack(saved, skip)
    finally:
        d.set(saved)


def _entries(items):
    for item in items:
        if item == "err":
            raise OSError(item)
        yield item


@case((["a", "b"],), (["a", "err", "b"],), ([],))
def break_from_nested_clauses_inside_with(items):
    """os._walk: `break` out of a `while True:` from the except clauses of two nested
    try statements inside a with: each break leaves the outer try too (3.11+: its jump
    is no part of the outer try's range; up to 3.10 it pops the outer try's block
    first), so the loop ends at the with's exit and the statement after the outer try
    runs in the loop (not an else clause of the inner try)."""
    log = []
    it = _entries(items)
    cont = False
    with CM(log, "scan"):
        while True:
            try:
                try:
                    entry = next(it)
                except StopIteration:
                    break
            except OSError as error:
                log.append(str(error))
                cont = True
                break
            log.append(entry)
    return cont, log


@case(("a", "xyz"), ("b", ""), ("/c", "x"), ("d", ["x", None]), ("e", "xy/z"), ("f", "x/"))
def loop_left_by_clause_break_inside_except_clause(key, text):
    """xml.etree.ElementPath.iterfind: an except clause holding a `raise` in an if, a
    try whose clause returns, and a `while 1:` left only by a `break` in an except
    clause (no way out of the loop by its own edges: the arms of the clause's tests
    meet nowhere, not at a raise; the loop ends where the break goes), then code after
    the outer try."""
    cache = {"a": ["A"]}
    try:
        selector = cache[key]
    except KeyError:
        if key[:1] == "/":
            raise SyntaxError("absolute")
        nxt = iter(text).__next__
        try:
            token = nxt()
        except StopIteration:
            return None
        selector = []
        while 1:
            try:
                selector.append(token * 2)
            except TypeError:
                raise ValueError("invalid") from None
            try:
                token = nxt()
                if token == "/":
                    token = nxt()
            except StopIteration:
                break
        cache[key] = selector
    result = [key]
    for s in selector:
        result.append(s)
    return result


@case((["a", "b"],), ([],), (["b"],))
def while_1_left_by_clause_break_then_raise(chunks):
    """aifc.Aifc_read.initfp (3.8): a `while 1:` left only by the `break` of an except
    clause, a test that raises after it: up to 3.9 the clause (the exception dropped,
    POP_EXCEPT, the jump) is the one way out of the loop's blocks, not where it ends."""
    it = iter(chunks)
    seen = []
    while 1:
        try:
            chunk = next(it)
        except StopIteration:
            break
        seen.append(chunk)
    if "a" not in seen and chunks:
        raise ValueError(seen)
    return seen


@case(("",), ("a",), ("b",), ("bd",), ("n",), ("an",))
def finally_holding_if_then_try_except_finally(fail):
    """poplib.POP3.close, fileinput.FileInput.nextfile: a finally body whose if holds a
    try/except/finally; 3.10 pastes the finally's re-raise after the inner finally copies
    (after the body's POP_BLOCK and after the except clause's POP_EXCEPT): one re-raise,
    so one copy of the inner finally body on the inner try's normal path."""
    log = []
    try:
        try:
            log.append("a")
            if "a" in fail:
                raise KeyError("a")
        finally:
            if "n" not in fail:
                try:
                    log.append("b")
                    if "b" in fail:
                        raise OSError("b")
                except OSError as exc:
                    log.append(str(exc))
                    if "d" in fail:
                        raise
                finally:
                    log.append("c")
    except (KeyError, OSError) as exc:
        return log, "raised", str(exc)
    return log


class _Reduced:
    def __init__(self, text, args):
        self.text, self.args = text, args

    def __reduce__(self):
        if self.args is None:
            raise TypeError("cannot pickle")
        return (_Reduced, self.args)

    def __repr__(self):
        return self.text


@case(("", (3,)), ("", (3, 2)), ("x(1)", None), ("count(1", None), ("count(a b)", None),
      ("count(a)", None), ("count(1, 2, 3)", None), ("count(5)", None), ("count(5, 2)", None))
def return_value_from_nested_clause_then_more_of_the_clause(text, args):
    """torch._dynamo.utils.normalize_count_iter: `return (a, b)` from an except clause
    nested in an except clause moves the value under each exception (ROT_FOUR) before
    each POP_EXCEPT (3.8-3.10); 3.10 read the second ROT_FOUR, POP_EXCEPT and the return
    as code after the inner try pasted there, and the clause's own code after the inner
    try as the inner try's else clause."""
    it = _Reduced(text, args)
    try:
        _, args = it.__reduce__()
    except TypeError:
        import ast

        count_repr = repr(it)
        if not count_repr.startswith("count(") or not count_repr.endswith(")"):
            return (NotImplemented, NotImplemented)
        try:
            args = ast.literal_eval(f"({count_repr[6:-1]},)")
        except (SyntaxError, ValueError):
            return (NotImplemented, NotImplemented)
        if not isinstance(args, tuple) or not 1 <= len(args) <= 2:
            return (NotImplemented, NotImplemented)
    if len(args) == 1:
        return (args[0], 1)
    return (args[0], args[1])


@case(("",), ("1",), ("5",), ("x",), ("9x",), (None,))
def constant_return_in_else_of_try_in_try_body(kind):
    """http.server.SimpleHTTPRequestHandler.send_head: `return None` in the else clause of
    a try nested in a try body leaves the outer try (POP_BLOCK) before it loads the
    constant (3.8-3.10): the else clause's way out, not the end of the outer try body
    (whose other paths return inside it)."""
    log = []
    try:
        if kind:
            try:
                n = int(kind)
            except (TypeError, ValueError):
                log.append("bad")
            else:
                if n > 2:
                    log.append("big")
                    return None
        log.append(len(kind))
        return log
    except:
        log.append("except")
        raise


@case(("1",), ("5",), ("x",), (None,))
def constant_return_in_else_of_try_starting_try_body(kind):
    """The same at the start of the try body: 3.11+ leaves the `return None` (which cannot
    raise) out of the outer try's range, a way out of its region that returns, not one
    that goes on elsewhere (the inner try ends where its clause and else clause meet)."""
    log = []
    try:
        try:
            n = int(kind)
        except (TypeError, ValueError):
            log.append("bad")
        else:
            if n > 2:
                return None
        log.append(len(kind))
        return log
    except:
        log.append("except")
        raise


@case(([1, 2, 2, 5], [2, 3, 5, 5]), ([1, 1], [1]), ([], [4]), ([3], [1, 1, 3]),
      ([1, 1, 3], [3]), ([2, 2], [2, 2, 4]))
def inner_loops_of_a_try_body_in_while_true(expected, actual):
    """unittest.util.sorted_list_difference: `while` loops inside the try body of a
    `while True` left only by the `break` of its except clause. From an inner loop every
    path of the outer body goes around the outer loop or raises: the clause's `break` is
    no way out of the inner loops."""
    i = j = 0
    missing = []
    unexpected = []
    while True:
        try:
            e = expected[i]
            a = actual[j]
            if e < a:
                missing.append(e)
                i += 1
                while expected[i] == e:
                    i += 1
            elif e > a:
                unexpected.append(a)
                j += 1
                while actual[j] == a:
                    j += 1
            else:
                i += 1
                try:
                    while expected[i] == e:
                        i += 1
                finally:
                    j += 1
                    while actual[j] == a:
                        j += 1
        except IndexError:
            missing.extend(expected[i:])
            unexpected.extend(actual[j:])
            break
    return missing, unexpected


@case(("ab", [" a", "b", "cb"], 1), ("a", ["x", "ya", "z"], 1), ("q", ["ab", "cd"], 1),
      (" ", ["x", " y"], 1), ("b", ["b", "b"], 1), ("", ["x"], 1), ("a", ["a"], 5),
      ("q", ["ab", "cd", ""], 1))
def inner_for_else_continue_then_break_outer_for_else_returns(chars, parts, limit):
    """email.header._ValueFormatter._append_chunk: in an if, a for loop in a for loop,
    the inner one left by `break`s, its else clause `continue`, then `break`; the outer
    else clause always returns. The inner loop's ways out meet only past the outer loop:
    no place after the inner loop where its break and its else clause both go on (3.8,
    3.9)."""
    found = [len(parts)]
    if len(parts) > limit:
        for ch in chars:
            for i in range(len(parts) - 1, 0, -1):
                if ch.isspace():
                    first = parts[i][0]
                    if first and first == ch:
                        break
                prev = parts[i - 1]
                if prev and prev[-1] == ch:
                    break
            else:
                continue
            break
        else:
            last = parts.pop()
            if found[0] > 2:
                found.append(last)
                if not last:
                    last = " "
            found.append(last)
            return found
        found.append(parts[i:])
        found.append(i)
    return found


class _Chunks:
    def __init__(self, chunks, log):
        self.chunks, self.log, self.events = list(chunks), log, []

    def read_events(self):
        events, self.events = self.events, []
        return iter(events)

    def read(self, size):
        return self.chunks.pop(0)[:size] if self.chunks else ""

    def feed(self, data):
        self.events.extend(data)

    def close(self):
        self.log.append("closed")


@case((["ab", "c"], True), (["xyz"], False), ([], True))
def yield_from_in_while_true_starting_try_finally(chunks, close):
    """xml.etree.ElementTree.iterparse.<locals>.iterator (3.13): the try body is a
    `while True` loop from its first instruction; 3.12+ leaves the jump back into the
    `yield from` after its CLEANUP_THROW unprotected, so that block, in the loop but not
    in the try's range, had the try read inside the loop."""
    log = []
    src = _Chunks(chunks, log)
    try:
        while True:
            yield from src.read_events()
            data = src.read(2)
            if not data:
                break
            src.feed(data)
        yield "end"
    finally:
        if close:
            src.close()
    yield log


class _Cached:
    def __init__(self, data, fail=False):
        self.data, self.fail = data, fail

    def read(self):
        if self.fail:
            raise OSError("gone")
        return self.data


@case(([_Cached("a"), _Cached("a")], "a", 0), ([_Cached("a"), _Cached("b")], "a", 0),
      ([_Cached("a"), _Cached("b", True)], "a", 1), ([], "a", 0))
def break_from_for_with_returning_else_inside_try(cached, expect, quiet):
    """compileall.compile_file (3.13): in a try, a for loop left by `break` whose else
    clause returns; 3.13 leaves the break's jump to the code after the try out of the
    protected range, laid out before the else clause's `return`, which was then taken
    for where the try body ends (the code after the try read into the `if` of the break)."""
    out = []
    try:
        for c in cached:
            actual = c.read()
            if expect != actual:
                break
        else:
            return "fresh"
    except OSError:
        out.append("error")
    if not quiet:
        out.append("compiling")
    return out


@case(("ab", 0), ("", 0), (True, 1), (None, 0))
def if_arm_past_returning_else_inside_try(flag, quiet):
    """The same layout as ``break_from_for_with_returning_else_inside_try`` without the
    loop: 3.13 leaves the jump after the if arm out of the protected range, before the
    else arm's `return`."""
    out = []
    try:
        if flag:
            out.append(len(flag))
        else:
            return "else"
    except TypeError:
        out.append("error")
    if not quiet:
        out.append("after")
    return out


class _Events:
    """A console's event queue fed by reads (``script``: a character, or an errno the
    read fails with); pushing "-" queues nothing, pushing "!" queues it, then fails."""

    def __init__(self, script, queued):
        self.script, self.queue = list(script), list(queued)

    def empty(self):
        return not self.queue

    def read(self):
        item = self.script.pop(0)
        if isinstance(item, int):
            raise OSError(item, "read")
        return item

    def push(self, ch):
        if ch != "-":
            self.queue.append(ch)
        if ch == "!":
            raise OSError(errno.EINTR, "push")


@case((["a"], "", True), (["-", "-", "a"], "", True), ([errno.EINTR, "a"], "", True),
      (["-", "!"], "", True), ([errno.EBADF], "", True), ([], "", False), ([], "q", False))
def while_test_around_while_true_of_try_else_break(script, queued, block):
    """_pyrepl.unix_console.UnixConsole.get_event: the inner `while True` starts the
    outer loop's body; 3.10+ test `while c:` again at the end of the body, jumping back
    to its start: the head of both loops. The else clause's `break` leaves the inner
    loop only, for that test."""
    ev = _Events(script, queued)
    if not block and ev.empty():
        return None
    while ev.empty():
        while True:
            try:
                ev.push(ev.read())
            except OSError as err:
                if err.errno == errno.EINTR:
                    if not ev.empty():
                        return ev.queue.pop(0)
                    else:
                        continue
                else:
                    raise
            else:
                ev.script.append("read")  # (a bare `break` is dead code on 3.8)
                break
    return ev.queue.pop(0), ev.script


@case(([], ""), ([], "write"), ([], "exit"), ([], "os"), ([], "wait"))
def try_around_with_then_loop_left_by_break_in_try(log, fail):
    """_pyrepl.pager.pipe_pager: the try body (a with) falls into the loop after the
    try; 3.13 leaves the jump of the with's suppressed-exception path, back to that
    loop's head, out of the try's range: the same way out of the try as the body's
    (read as another, the loop was emitted inside the try body too)."""
    waits = [False, fail == "wait"]
    try:
        with CM(log, "pipe", suppress=fail == "exit") as pipe:
            try:
                log.append(pipe)
                if fail == "write":
                    raise KeyboardInterrupt
            except KeyboardInterrupt:
                pass
            if fail in ("os", "exit"):
                raise OSError(fail)
    except OSError:
        pass
    while True:
        try:
            log.append(len(waits))
            if waits.pop():
                raise KeyboardInterrupt
            break
        except KeyboardInterrupt:
            pass


class _Cancelled(Exception):
    pass


class _Lock:
    def __init__(self, log, fails):
        self.log, self.fails = log, fails

    def acquire(self):
        if self.fails:
            self.fails -= 1
            raise _Cancelled
        self.log.append("acquired")


@case((0, False), (2, False), (0, True), (1, True))
def finally_reacquiring_in_while_true_of_try_break(fails, boom):
    """asyncio.locks.Condition.wait: the finally body's loop is left only by the `break`
    of its try body, into the code after the loop; 3.9+ copies that code and the
    finally's re-raise into the handler's copy of the `break` (past POP_BLOCK), and 3.12+
    the code after the try into the normal path's copy: a `break`, not a bare `raise`
    inside the loop."""
    log = []
    lock = _Lock(log, fails)
    try:
        log.append("wait")
        if boom:
            raise KeyError(boom)
        return log
    finally:
        cancelled = False
        while True:
            try:
                lock.acquire()
                break
            except _Cancelled:
                cancelled = True
        if cancelled:
            raise _Cancelled


@case((0,), (2,))
def finally_with_while_true_of_try_break_then_call(fails):
    """The same loop in a finally body followed by a call, after a try body that goes on:
    3.12+ pastes the function's `return None` into the normal path's copy of the break."""
    log = []
    lock = _Lock(log, fails)
    try:
        log.append("body")
    finally:
        while True:
            try:
                lock.acquire()
                break
            except _Cancelled:
                log.append("again")
        log.append("after")


def _take(queue):
    task = queue.pop(0)
    if task == "eof":
        raise EOFError(task)
    return task


@case(([1, None, 2], 5), ([None], 5), ([], 5), ([1, 2, 3], 1), ([1, "eof"], 5))
def while_compound_test_with_continue_around_try_first(items, limit):
    """multiprocessing.pool.Pool._handle_results: a `while a and b:` with a `continue`
    whose body starts with a try statement; 3.11+ tests the condition again at the end
    of the body, outside the try that protects the body's first block: that test is
    the loop's, not an `if` of a `while True:` around an inner loop."""
    log = []
    queue = list(items)
    while queue and len(log) < limit:
        try:
            task = _take(queue)
        except (OSError, EOFError):
            log.append("eof")
            return log
        if task is None:
            log.append("sentinel")
            continue
        log.append(task)
    log.append("end")
    return log


def _fail_with_errno(code):
    if code:
        raise OSError(code, "failed")
    return code


@case((0,), (1,), (2,))
def clause_clearing_name_before_pasted_return(code):
    """multiprocessing.connection.PipeListener.accept: 3.10 pastes the small `return`
    after the try statement right after the except clause's POP_EXCEPT and the clean-up
    of its `as` name (the else clause jumps to the same copy): the return is after the
    try, not inside the clause, where the exception would still be handled."""
    log = [code]
    try:
        _fail_with_errno(code)
    except OSError as e:
        if e.errno != 1:
            raise
    else:
        log.append("else")
    return tuple(log)


_RESULT = "result"


@case((0, 0), (1, 0), (0, 1), (2, 1), (3, 1))
def return_in_finally_inside_try_then_raise_after(pending, result):
    """multiprocessing.connection.PipeConnection._recv_bytes: a finally body that returns
    in places, in a try body whose statement is followed by a `raise`; 3.12+ joins the
    returns of both copies of the finally body into one RETURN_VALUE, laid out with the
    handler's copy: the `raise` after the outer try is where it ends, not that return.
    (A global's value: loading it may raise, so only the RETURN_VALUE is left out of the
    range.)"""
    log = []
    try:
        try:
            if pending:
                log.append(_fail_with_errno(pending - 1))
        finally:
            if result == 0:
                return _RESULT
    except OSError as e:
        if e.errno == 1:
            raise EOFError
        else:
            raise
    raise RuntimeError("not here")


class _Reads:
    def __init__(self, counts):
        self.counts, self.log = list(counts), []

    def read(self, wants):
        self.log.append(wants)
        count = self.counts.pop(0)
        if count is None:
            raise BlockingIOError
        return count


@case(([4], 4), ([2, 2], 4), ([1, 0], 4), ([0], 4), ([None], 4), ([1, None], 4), ([1, 1, 2], 4))
def while_else_left_by_break_inside_if_in_try(counts, wants):
    """asyncio.sslproto.SSLProtocol._do_read__buffered: the `while c:` (3.10+ `if c:
    <do-while c>`) with an else clause ends the if in the try body; its `break` goes
    past the else clause, to where the try body ends (3.13 leaves that jump out of the
    try's range; 3.10 jumps to the POP_BLOCK where the if ends): no way out of the if
    on the loop's own end."""
    r = _Reads(counts)
    offset = 0
    count = 1
    try:
        count = r.read(wants)
        if count > 0:
            offset = count
            while offset < wants:
                count = r.read(wants - offset)
                if count > 0:
                    offset += count
                else:
                    r.log.append("zero")  # (a bare `break` is dead code on 3.8)
                    break
            else:
                r.log.append("more")
    except BlockingIOError:
        pass
    if offset > 0:
        r.log.append(offset)
    if not count:
        r.log.append("eof")
    return r.log


class _Server:
    types = {"t": "T"}

    def __init__(self, script):
        self.script, self.log = list(script), []

    def done(self):
        return not self.script

    def recv(self):
        name = self.script.pop(0)
        if name is None:
            raise AttributeError("recv")
        return name

    def call(self, name):
        if name == "boom":
            raise ValueError(name)
        if name.startswith("attr"):
            raise AttributeError(name)
        return name.upper()

    def fallback(self, name):
        if name == "attr!":
            raise KeyError(name)
        return "fallback"

    def send(self, msg):
        if msg == "BAD":
            raise OSError(msg)
        self.log.append(msg)


@case((["a"],), (["t", "boom"],), ([None, "attr"],), (["attr!", "bad", ""],), ([],))
def clause_ending_with_try_inside_loop_before_try(script):
    """multiprocessing.managers.Server.serve_client: an except clause that ends with a
    try statement, in a loop whose body goes on to another try: 3.13 copies the end of
    the clause (its POP_EXCEPT and the jump on) after the nested clause's POP_EXCEPT,
    a copy of the same way on (read as another, the code after the try was taken into
    the nested clause, then `continue`)."""
    s = _Server(script)
    while not s.done():
        name = None
        try:
            name = s.recv()
            try:
                res = s.call(name)
            except ValueError as e:
                msg = ("error", str(e))
            else:
                typeid = name and s.types.get(name)
                if typeid:
                    msg = ("proxy", typeid)
                else:
                    msg = res
        except AttributeError:
            if name is None:
                msg = "traceback"
            else:
                try:
                    msg = s.fallback(name)
                except Exception:
                    msg = "no fallback"
        try:
            s.send(msg)
        except OSError:
            s.send("unserializable")
    return s.log


def _step(script, log, what):
    item = script.pop(0)
    log.append((what, item))
    if item == "K":
        raise KeyError(what)
    if item == "S":
        raise ValueError(what)
    return item


@case((["a", ""],), (["K", "K", "x", "S"],), (["K", "x", "b", ""],), (["S"],))
def continue_from_clause_of_try_in_if_inside_try(script):
    """idlelib.run.main: the `continue` of a clause of the try in the if that starts the
    try body of a `while True:` leaves that try too; 3.12+ leave its jump out of the
    try's range, after the handlers: a way out of the outer try, not where it ends (read
    so, the rest of the body came back as the nested try's else clause)."""
    log = []
    stopping = False
    while True:
        try:
            if stopping:
                try:
                    _step(script, log, "exit")
                except KeyError:
                    continue
            item = _step(script, log, "get")
            if not item:
                break
            log.append(item)
        except KeyError:
            stopping = True
            continue
        except ValueError:
            log.append("exit")
            break
    return log
