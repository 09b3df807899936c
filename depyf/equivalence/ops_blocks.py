"""Python 3.8-3.10 exception handling: the block stack.

``SETUP_FINALLY``/``SETUP_WITH``/``SETUP_ASYNC_WITH`` push a block naming the handler and
the stack level; an exception unwinds to the innermost one (``Machine._unwind_blocks``),
which becomes an "except" block while the handler runs, with the exception being handled
before saved as three stack values under the new exception's (traceback, value, type).
3.8 also runs ``finally`` bodies as subroutines: ``CALL_FINALLY`` pushes a return address
that ``END_FINALLY`` jumps back to; ``BEGIN_FINALLY`` pushes the NULL that means "no
exception".
"""
from .frame import Block
from .machine import Event, ModelLimit, OK0, OKB, opcode_table, pop_apply, unwind_except_handler
from .terms import NONE, NULL

TABLE, op = opcode_table()


@op("SETUP_FINALLY")
def setup_finally(m, f, ins, i):
    f.blocks.append(Block("finally", f.info.target(ins.argval), len(f.stack)))


@op("SETUP_WITH")
def setup_with(m, f, ins, i):
    handler = f.info.target(ins.argval)

    def apply(g, label, results):
        exit_, value = results
        g.pop()
        g.push(exit_)
        g.blocks.append(Block("finally", handler, len(g.stack)))
        g.push(value)
    return Event(("enter with",), (f.peek(),), apply, (("ok", "ss"), ("raise", "")))


@op("SETUP_ASYNC_WITH")
def setup_async_with(m, f, ins, i):
    value = f.pop()
    f.blocks.append(Block("finally", f.info.target(ins.argval), len(f.stack)))
    f.push(value)


@op("POP_BLOCK")
def pop_block(m, f, ins, i):
    if not f.blocks:
        raise ModelLimit("POP_BLOCK with no block at %s" % f.info.describe(i))
    f.blocks.pop()


def _pop_except_block(f, i):
    if not f.blocks or f.blocks[-1].kind != "except":
        raise ModelLimit("no exception handler block to leave at %s" % f.info.describe(i))
    return f.blocks.pop()


@op("POP_EXCEPT")
def pop_except(m, f, ins, i):
    if m.facts.HAS_EXCEPTION_TABLE:
        f.exc = f.pop()
        return None
    _pop_except_block(f, i)
    restore_saved_exception(f)


def restore_saved_exception(f):
    """Pop the three values an except handler block saved (a return value may sit
    below them, moved there by ROT_FOUR) and make their exception the handled one."""
    _type, value, _tb = f.pop(), f.pop(), f.pop()
    f.exc = value


@op("BEGIN_FINALLY")
def begin_finally(m, f, ins, i):
    f.push(NULL)


@op("CALL_FINALLY")
def call_finally(m, f, ins, i):
    f.push(("retaddr", f.info.instrs[i + 1].offset))
    f.pc = f.info.target(ins.argval)


def _exception_in(term):
    """The exception value of an ``("op", "exctype", e)`` marker, else None."""
    return term[2] if term[:2] == ("op", "exctype") else None


@op("END_FINALLY")
def end_finally(m, f, ins, i):
    top = f.pop()
    if top == NULL:
        return None
    if top[0] == "retaddr":
        f.pc = f.info.target(top[1])
        return None
    exc = _exception_in(top)
    if exc is None:
        raise ModelLimit("END_FINALLY over a value that is no exception at %s" % f.info.describe(i))
    f.pop(2)
    m.unwind(f, exc, i)


@op("POP_FINALLY")
def pop_finally(m, f, ins, i):
    kept = f.pop() if ins.arg else None
    top = f.pop()
    if top != NULL and top[0] != "retaddr":
        if _exception_in(top) is None:
            raise ModelLimit("POP_FINALLY over a value that is no exception at %s" % f.info.describe(i))
        f.pop(2)
        _pop_except_block(f, i)
        restore_saved_exception(f)
    if ins.arg:
        f.push(kept)


@op("WITH_CLEANUP_START")
def with_cleanup_start(m, f, ins, i):
    top = f.peek()
    if top == NULL:  # [exit, NULL] -> [NULL, None, result]
        exit_ = f.peek(2)

        def apply(g, label, results):
            g.pop(2)
            g.push(NULL, NONE, results[0])
        return Event(("call",), (exit_, ("t", (NONE, NONE, NONE)), ("t", ())), apply)
    exc = _exception_in(top)
    if exc is None:
        raise ModelLimit("WITH_CLEANUP_START over an unknown value at %s" % f.info.describe(i))
    exit_ = f.peek(7)
    args = ("t", (top, exc, f.peek(3)))

    def apply_exc(g, label, results):
        # [exit, tb2, v2, t2, tb, v, t] -> [tb2, v2, t2, NULL, tb, v, t, t, result]
        items = g.pop(7)
        g.push(items[1], items[2], items[3], NULL, items[4], items[5], items[6], items[6],
               results[0])
        b = g.blocks[-1]
        g.blocks[-1] = Block(b.kind, b.handler, b.level - 1)  # blocks are shared by copies
    return Event(("call",), (exit_, args, ("t", ())), apply_exc)


@op("WITH_CLEANUP_FINISH")
def with_cleanup_finish(m, f, ins, i):
    result, exc = f.peek(), f.peek(2)
    if exc == NONE:
        f.pop(2)
        return None
    ready = f.ready
    if ready is not None and ready[0] == "truth" and ready[1] == result:
        d = m.decide(f, ready[2], m.decisions)
    else:
        d = m.decide(f, result, m.decisions)
    if d is None:
        def apply(g, label, results):
            g.ready = ("truth", result, results[0])
            g.pc = i
        return Event(("truth",), (result,), apply, OKB)
    if not isinstance(d, bool):
        return d
    f.ready = None
    f.pop(2)
    if d:  # the exception was suppressed: leave its handler block
        unwind_except_handler(f, _pop_except_block(f, i))
        f.push(NULL)


@op("JUMP_IF_NOT_EXC_MATCH")
def jump_if_not_exc_match(m, f, ins, i):
    ready = f.ready
    if ready is not None and ready[0] == "matched":
        d = m.decide(f, ready[1], m.decisions)
        if not isinstance(d, bool):
            return d
        f.ready = None
        if not d:
            f.pc = f.info.target(ins.argval)
        return None
    kind, exc_type = f.peek(2), f.peek()

    def apply(g, label, results):
        g.pop(2)
        g.ready = ("matched", results[0])
        g.pc = i
    return Event(("exception match",), (kind, exc_type), apply, OKB)


def end_async_for_blocks(m, f, ins, i):
    """3.8-3.10 END_ASYNC_FOR: StopAsyncIteration ends the loop, others propagate."""
    exc = _exception_in(f.peek())
    if exc is None:
        raise ModelLimit("END_ASYNC_FOR over a value that is no exception at %s" % f.info.describe(i))

    def apply(g, label, results):
        g.pop()
        unwind_except_handler(g, _pop_except_block(g, i))
        g.pop()  # the async iterator
    return Event(("end of async for",), (exc,), apply, OK0, exc=exc)


__all__ = ["TABLE", "pop_apply"]
