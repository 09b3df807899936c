"""Shapes from stdlib functions that once failed to decompile at all (one case per
shape, named after where it was found)."""
from ._harness import case, CM


def maybe_fail(log, fail):
    log.append("body")
    if fail:
        raise ValueError("body failed")


@case((False, False), (False, True), (True, False), (True, True))
def return_in_one_arm_of_finally(fail, stop):
    """subprocess.Popen.__exit__: the other arm ends the finally body (re-raise)."""
    log = []
    try:
        maybe_fail(log, fail)
    finally:
        if stop:
            log.append("stop")
            return log
        print("finally goes on", log)


@case((False, "a"), (False, "b"), (True, "a"), (True, "b"))
def except_in_with_at_end_of_finally(fail, key):
    """threading.Thread._bootstrap_inner (3.10 copies the with exit into every path)."""
    log = []
    d = {"a": 1}
    try:
        maybe_fail(log, fail)
    finally:
        with CM(log, "lock"):
            try:
                del d[key]
            except:  # noqa: E722
                print("no key", d)
    return log, d


@case((0,), (1,), (-1,))
def branch_in_finally_after_return(timeout):
    """threading.Condition.wait: the finally body branches while the returned value
    waits on the stack (3.11+ copies the return into each path)."""
    log = []
    gotit = False
    try:
        if timeout < 0:
            raise ValueError("negative")
        gotit = timeout > 0
        return gotit, log
    finally:
        log.append("restore")
        if not gotit:
            try:
                log.remove("missing")
            except ValueError:
                print("not there")


@case((True,), (False,))
def if_in_finally_after_return(flag):
    log = []
    try:
        return log
    finally:
        if flag:
            log.append("flag")


def flaky_send(state):
    """Raises BlockingIOError every other call, else sends up to 3 items."""
    state["calls"] += 1
    if state["calls"] % 2:
        raise BlockingIOError("try again")
    return 3


@case((0, 7), (5, 7), (0, 0))
def loop_with_retrying_try_in_try_finally(count, size):
    """socket._sendfile_use_send: an inner retry loop whose except clause may re-raise
    (no clause matched) inside an outer loop, all in a try/finally that returns."""
    state = {"calls": 0}
    blocksize = min(count, 8192) if count else 8192
    total = 0
    try:
        while True:
            if count:
                break
            if total >= size:
                break
            while True:
                try:
                    sent = flaky_send(state)
                except BlockingIOError:
                    continue
                else:
                    total += sent
                    break
        return total, blocksize, state
    finally:
        print("sent", total)


def send_chunk(state, fail):
    """BlockingIOError on odd calls; OSError when ``fail`` is reached; else 4 bytes
    (none from the 8th call on: the end of the file)."""
    state["calls"] += 1
    if state["calls"] == fail:
        raise OSError("broken pipe")
    if state["calls"] % 2:
        raise BlockingIOError("try again")
    return 4 if state["calls"] < 8 else 0


@case((10, 0, 0), (10, 3, 0), (10, 0, 2), (0, 0, 0), (100, 0, 0))
def loop_with_raising_clauses_in_try_finally(size, fail, timeout):
    """socket._sendfile_use_sendfile: the loop's ways out that raise (`if: raise`, a
    clause that raises) do not decide where it ends."""
    state = {"calls": 0}
    total = 0
    try:
        while True:
            if timeout and state["calls"] > timeout:
                raise TimeoutError("timed out")
            if total >= size:
                break
            try:
                sent = send_chunk(state, fail)
            except BlockingIOError:
                continue
            except OSError as err:
                raise ValueError(str(err)) from None
            else:
                if sent == 0:
                    break
                total += sent
        return total, state
    finally:
        print("sent", total)


@case((None, None, None), (1, None, None), (1, 2, None), (1, None, 3), (1, 4, 4))
def chain_ending_in_is_none(g, node, clock_seq):
    """uuid.uuid1: 3.11+ folds the chain's last link `is None` into its jump."""
    if g is not None and node is clock_seq is None:
        return "both none"
    if node is clock_seq is not None:
        return "same, not none"
    return "other"


@case(("n", None, None, {}), ("n", (), 0, {}), ("n", 1, None, {}), (0, None, None, {}),
      ("n", None, {}, []), ("n", None, [], {}))
def or_operands_inside_and_value(name, defaults, kwdefaults, annotations):
    """inspect._signature_is_functionlike (3.8/3.9 jump from `a` of `(a or b) and r`
    straight to r)."""
    return (isinstance(name, str) and
            (defaults is None or isinstance(defaults, tuple)) and
            (kwdefaults is None or isinstance(kwdefaults, dict)) and
            isinstance(annotations, dict))


@case((1, 0, 5), (0, 0, 5), (0, 2, 5), (0, 2, 0), (1, 2, 0))
def and_operand_inside_or_value(a, b, r):
    return (a is None and b) or (a and b) or r


@case(((1, 2, 3, 4),), ((5, 6, 7, 8),))
def unpack_into_the_same_name_twice(values):
    """platform.uname (3.13 drops the first of two stores into `_`)."""
    system, release, _, _ = values
    a, b, b = values[:3]
    return system, release, _, a, b


@case((0,), (1,), (2,), (3,))
def try_except_pass_inside_except_as(n):
    """inspect.getblock: the inner `except: pass` only restores the state and clears the
    outer clause's name."""
    log = []
    try:
        if n:
            raise ValueError(n)
    except ValueError as e:
        log.append(str(e))
        try:
            if n > 1:
                raise KeyError(n)
            log.append("no key error")
        except (KeyError, IndexError):
            pass
    return log


@case(({}, True, 0), ({}, False, 4), ({}, False, 1))
def call_returned_after_if_elif(table, first, leftover):
    """base64._b32encode (3.12 copies `return bytes(encoded)` into the arms; the NULL
    pushed for the call belongs to the copy)."""
    encoded = bytearray(b"abcd")
    if first:
        table["k"] = [a + b for a in "xy" for b in "xy"]
    elif leftover == 4:
        encoded[-1:] = b"="
    return bytes(encoded)


@case(({"a": 1, "b": 2},), ({},))
def comprehension_in_conditional_expression(local_vars):
    """traceback.FrameSummary.__init__ (3.12+ inlines the comprehension into the arm)."""
    k = "outer"
    result = {k: repr(v) for k, v in local_vars.items()} if local_vars else None
    return result, k


class GiveUp(Exception):
    pass


def fast_copy(log, mode):
    if mode == "fail":
        raise GiveUp()
    log.append("fast")


@case(("fast",), ("fail",), ("slow",))
def if_whose_try_returns_goes_on_through_except(mode):
    """shutil.copyfile (3.8): the arm goes on to the code after the if only through the
    except clause of its try."""
    from ._harness import CM

    log = []
    with CM(log, "file"):
        if mode != "slow":
            try:
                fast_copy(log, mode)
                return log
            except GiveUp:
                pass
        log.append("slow copy")
    return log


def _word(value):
    if value[0] in "! ":
        raise KeyError(value)
    return value[:2], value[2:]


@case(("ab.cd",), ("..ab",), ("!x",), (" x.y",), ("",))
def while_body_ending_after_try_except_with_continue_before(value):
    """email._header_value_parser.get_obs_local_part (3.12/3.13): a `while c:` whose body
    ends in code after a try/except, which the loop's test (tested again at the end of
    the body) follows in one block: the try ends there, its body and clause go on to it
    (the clause, laid out after the loop, by a jump back); a `continue` before goes to
    the head's test."""
    out = list()  # (not a list display: its append the proof knows cannot raise)
    while value:
        if value[0] == ".":
            value = value[1:]
            continue
        try:
            token, value = _word(value)
        except KeyError:
            if value[0] not in " ":
                raise
            token, value = value[:1], value[1:]
        out.append(token)
    return out


def _step(log, plan):
    item = plan.pop(0)
    log.append(item)
    if item == "restart":
        raise LookupError(item)
    return item == "quit"


@case((["quit"],), (["run", "quit"],), (["restart", "run", "restart", "quit"],))
def while_true_body_is_try_that_breaks(plan):
    """pdb.main (3.12/3.13): the body of `while True:` is a try statement, which starts
    at the loop's head; the jump back there after the body is its way on (not a jump
    back into the try's range), the `break` another way out."""
    plan = list(plan)
    log = []
    while True:
        try:
            if _step(log, plan):
                break
            log.append("finished")
        except LookupError:
            log.append("restarting")
    return log


def _read(log, lines):
    line = lines.pop(0)
    if line is None:
        raise EOFError
    if line == "!":
        raise ValueError(line)
    return line


@case(([], ["a"]), ([], [None]), ([], ["!"]), ([], [None, "b"]))
def return_from_except_in_with_in_try_except(log, lines):
    """pdb.Pdb.default (3.13; 3.12 too): an except clause in a with, itself in a try
    body, returns (a constant `return`, which 3.12+ give no line of its own: joined with
    the implicit `return None` after the try, where the try body's normal way out goes)."""
    try:
        with CM(log, "cm"):
            try:
                line = _read(log, lines)
            except EOFError:
                log.append("eof")
                return
            log.append(line)
        log.append("after")
    except ValueError:
        log.append("error")
