"""Opcodes that decide where execution goes: jumps and branches, loops over iterators,
return and yield, ``await``/``yield from``, raise, and the 3.11+ exception-table
protocol (PUSH_EXC_INFO / POP_EXCEPT / CHECK_EXC_MATCH / with-statement exits).

A branch on a value whose truth needs user code is a ``("truth",)`` event; its result
(a bool) is left in ``frame.ready`` and the branch instruction runs again to take it. A
branch on a bool no decision covers yet forks (``machine.Fork``), so both sides follow
the same decision for the same test.
"""
from .machine import Event, ModelLimit, OK, OK0, OKB, RAISES, opcode_table, pop_apply
from .terms import LASTI, NONE, NULL, identity_test

TABLE, op = opcode_table()


@op("JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
    "JUMP", "JUMP_NO_INTERRUPT")
def jump(m, f, ins, i):
    f.pc = f.info.target(ins.argval)


def _truth(m, f, value, decisions, i):
    """True/False, or the Fork/Event to produce first."""
    ready = f.ready
    if ready is not None and ready[0] == "truth" and ready[1] == value:
        value = ready[2]
    d = m.decide(f, value, decisions)
    if d is None:
        def apply(g, label, results):
            g.ready = ("truth", value, results[0])
            g.pc = i
        return Event(("truth",), (value,), apply, OKB)
    return d


def _branch(m, f, ins, i, value, jump_if, pop_always):
    d = _truth(m, f, value, m.decisions, i)
    if not isinstance(d, bool):
        return d
    f.ready = None
    if pop_always or d != jump_if:
        f.pop()
    if d == jump_if:
        f.pc = f.info.target(ins.argval)
    return None


@op("POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE")
def pop_jump_if_true(m, f, ins, i):
    return _branch(m, f, ins, i, f.peek(), True, True)


@op("POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE")
def pop_jump_if_false(m, f, ins, i):
    return _branch(m, f, ins, i, f.peek(), False, True)


@op("POP_JUMP_IF_NONE", "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE")
def pop_jump_if_none(m, f, ins, i):
    return _branch(m, f, ins, i, m.identity(f, f.peek(), NONE), True, True)


@op("POP_JUMP_IF_NOT_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE")
def pop_jump_if_not_none(m, f, ins, i):
    return _branch(m, f, ins, i, m.identity(f, f.peek(), NONE), False, True)


@op("JUMP_IF_TRUE_OR_POP")
def jump_if_true_or_pop(m, f, ins, i):
    return _branch(m, f, ins, i, f.peek(), True, False)


@op("JUMP_IF_FALSE_OR_POP")
def jump_if_false_or_pop(m, f, ins, i):
    return _branch(m, f, ins, i, f.peek(), False, False)


# -- iteration -------------------------------------------------------------------------
@op("GET_ITER")
def get_iter(m, f, ins, i):
    return Event(("iter",), (f.peek(),), pop_apply(1))


@op("GET_YIELD_FROM_ITER")
def get_yield_from_iter(m, f, ins, i):
    return Event(("yield from iter",), (f.peek(),), pop_apply(1))


@op("FOR_ITER")
def for_iter(m, f, ins, i):
    exhausted = f.info.target(ins.argval) + m.facts.FOR_ITER_SKIPS

    def apply(g, label, results):
        if label == "ok":
            g.push(results[0])
        else:
            if m.facts.EXHAUSTED_FOR_ITER_POPS:
                g.pop()
            g.pc = exhausted
    return Event(("next",), (f.peek(),), apply, (("ok", "s"), ("exhausted", ""), ("raise", "")))


@op("POP_ITER")  # 3.14: the iterator of a finished or left for loop
def pop_iter(m, f, ins, i):
    f.pop()


# -- return, yield, await --------------------------------------------------------------
@op("RETURN_VALUE")
def return_value(m, f, ins, i):
    f.result = ("return", f.pop())


@op("RETURN_GENERATOR")
def return_generator(m, f, ins, i):
    f.push(NONE)  # the value of the first send(), which the next POP_TOP drops


@op("GEN_START")
def gen_start(m, f, ins, i):
    f.pop()


@op("YIELD_VALUE")
def yield_value(m, f, ins, i):
    return Event(("yield",), (f.peek(),), pop_apply(1))


@op("YIELD_FROM")
def yield_from(m, f, ins, i):  # up to 3.10: the whole delegation is one event
    return Event(("yield from",), (f.peek(2), f.peek()), pop_apply(2))


@op("SEND")
def send(m, f, ins, i):
    target = f.info.target(ins.argval)

    def apply(g, label, results):
        g.pop()  # the value sent
        if label == "returned":
            if not m.facts.SEND_KEEPS_RECEIVER:
                g.pop()
            g.pc = target
        g.push(results[0])
    return Event(("send",), (f.peek(2), f.peek()), apply,
                 (("yielded", "s"), ("returned", "s"), ("raise", "")))


@op("END_SEND")
def end_send(m, f, ins, i):
    value = f.pop()
    f.pop()
    f.push(value)


@op("CLEANUP_THROW")
def cleanup_throw(m, f, ins, i):
    exc = f.peek()

    def apply(g, label, results):
        g.pop(3)
        g.push(NONE, results[0])
    return Event(("value of StopIteration",), (exc,), apply, OK, exc=exc)


@op("GET_AWAITABLE")
def get_awaitable(m, f, ins, i):
    return Event(("awaitable",), (f.peek(),), pop_apply(1))


@op("GET_AITER")
def get_aiter(m, f, ins, i):
    return Event(("aiter",), (f.peek(),), pop_apply(1))


@op("GET_ANEXT")
def get_anext(m, f, ins, i):
    return Event(("anext",), (f.peek(),), pop_apply(0))


@op("ASYNC_GEN_WRAP")
def async_gen_wrap(m, f, ins, i):
    f.push(("op", "async generator value", f.pop()))


# -- raise and the exception-table protocol (3.11+) ------------------------------------
@op("RAISE_VARARGS")
def raise_varargs(m, f, ins, i):
    if ins.arg == 0:  # bare `raise`: the exception being handled, as it is
        if f.exc == NONE:
            return Event(("raise without an active exception",), (), None, RAISES)
        m.unwind(f, f.exc, i)
        return None
    return Event(("raise",), tuple(f.stack[len(f.stack) - ins.arg:]) + (f.exc,), None, RAISES)


@op("RERAISE")
def reraise(m, f, ins, i):
    if m.facts.HAS_EXCEPTION_TABLE:
        exc = f.pop()
    else:  # 3.9/3.10: type, value, traceback
        exc = f.pop(3)[1]
    m.unwind(f, exc, i)


@op("PUSH_EXC_INFO")
def push_exc_info(m, f, ins, i):
    value = f.pop()
    f.push(f.exc, value)
    f.exc = value


@op("CHECK_EXC_MATCH")
def check_exc_match(m, f, ins, i):
    exc, kind = f.peek(2), f.peek()
    return Event(("exception match",), (exc, kind), pop_apply(1), OKB)


@op("CHECK_EG_MATCH")
def check_eg_match(m, f, ins, i):
    exc, kind = f.peek(2), f.peek()
    return Event(("exception group match",), (exc, kind), pop_apply(2),
                 (("ok", "ss"), ("raise", "")))


@op("PREP_RERAISE_STAR")
def prep_reraise_star(m, f, ins, i):
    return Event(("prepare except* re-raise",), (f.peek(2), f.peek()), pop_apply(2))


@op("BEFORE_WITH")
def before_with(m, f, ins, i):
    return Event(("enter with",), (f.peek(),), pop_apply(1), (("ok", "ss"), ("raise", "")))


@op("BEFORE_ASYNC_WITH")
def before_async_with(m, f, ins, i):
    return Event(("enter async with",), (f.peek(),), pop_apply(1),
                 (("ok", "ss"), ("raise", "")))


@op("LOAD_SPECIAL")
def load_special(m, f, ins, i):
    """3.14: ``type(o).__enter__`` (``__exit__``, ``__aenter__``, ``__aexit__``) looked up
    for a call, pushed as the method already bound (NULL beside it: no extra self)."""
    def apply(g, label, results):
        g.pop()
        g.push(results[0], NULL)
    return Event(("special method", m.facts.SPECIAL_METHODS[ins.arg]), (f.peek(),), apply)


def exit_call_args(exc, self_=NULL):
    args = (("op", "exctype", exc), exc, ("op", "tb", exc))
    return ("t", args if self_ == NULL else (self_,) + args)


@op("WITH_EXCEPT_START")
def with_except_start(m, f, ins, i):
    self_ = NULL
    if m.facts.WITH_EXIT_HAS_SELF:  # [exit, self or NULL, lasti, previous, exception]
        exit_, self_, exc = f.peek(5), f.peek(4), f.peek()
    elif m.facts.HAS_EXCEPTION_TABLE:  # [exit, lasti, previous exception, exception]
        exit_, exc = f.peek(4), f.peek()
    else:  # 3.9/3.10: [exit, 3 saved values, traceback, value, type]
        exit_, exc = f.peek(7), f.peek(2)
    return Event(("call",), (exit_, exit_call_args(exc, self_), ("t", ())), pop_apply(0))


@op("END_ASYNC_FOR")
def end_async_for(m, f, ins, i):
    if not m.facts.HAS_EXCEPTION_TABLE:
        from .ops_blocks import end_async_for_blocks
        return end_async_for_blocks(m, f, ins, i)
    exc = f.peek()
    return Event(("end of async for",), (exc,), pop_apply(2, False), OK0, exc=exc)


@op("CALL_INTRINSIC_1")
def call_intrinsic_1(m, f, ins, i):
    name = ins.argrepr
    if name == "INTRINSIC_LIST_TO_TUPLE":
        from .ops_build import as_tuple
        f.push(as_tuple(f, f.pop()))
        return None
    if name == "INTRINSIC_STOPITERATION_ERROR":
        f.push(("op", "StopIteration as RuntimeError", f.pop()))
        return None
    if name == "INTRINSIC_ASYNC_GEN_WRAP":
        f.push(("op", "async generator value", f.pop()))
        return None
    if name == "INTRINSIC_UNARY_POSITIVE":
        return Event(("unary", "positive"), (f.peek(),), pop_apply(1))
    return Event(("intrinsic", name), (f.peek(),), pop_apply(1))


@op("CALL_INTRINSIC_2")
def call_intrinsic_2(m, f, ins, i):
    name = ins.argrepr
    if name == "INTRINSIC_PREP_RERAISE_STAR":
        return prep_reraise_star(m, f, ins, i)
    return Event(("intrinsic", name), (f.peek(2), f.peek()), pop_apply(2))


__all__ = ["TABLE", "LASTI", "ModelLimit"]
