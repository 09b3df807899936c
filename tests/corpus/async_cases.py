"""Coroutines and async generators: ``await``, ``async for``, ``async with``, async
comprehensions; the runner drives them with ``asyncio.run``."""
import asyncio

from ._harness import ACM, CM, AIter, call, case


async def double(x):
    await asyncio.sleep(0)
    return x * 2


async def fail(msg):
    await asyncio.sleep(0)
    raise ValueError(msg)


async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


@case((3,), (0,))
async def await_simple(n):
    a = await double(n)
    b = await double(await double(a))
    return a, b


@case((2,),)
async def await_in_expressions(n):
    values = [await double(n), await double(n + 1)]
    total = await double(n) + await double(1) * 2
    return values, total, {"k": await double(0)}, (await double(n)) > 3


@case((1,), (0,))
async def await_in_try_except(flag):
    try:
        if flag:
            await fail("bad")
        r = await double(5)
    except ValueError as e:
        r = "caught %s" % e
    finally:
        r = (r, "finally")
    return r


@case(([1, 2, 3],), ([],))
async def async_for_loop(xs):
    out = []
    async for x in AIter(xs):
        out.append(x * 10)
    return out


@case(([1, 2, 3, 4],), ([5],), ([],))
async def async_for_break_continue_else(xs):
    out = []
    async for x in AIter(xs):
        if x == 2:
            continue
        if x == 4:
            break
        out.append(x)
    else:
        out.append("no break")
    return out


@case(([],), ([], True))
async def async_with(log, fail_inside=False):
    async with ACM(log, "a") as value:
        log.append("body %s" % value)
        if fail_inside:
            raise KeyError("inside")
    return log


@case(([],),)
async def async_with_several_items(log):
    async with ACM(log, "a") as a, ACM(log, "b") as b, ACM(log, "c"):
        log.append(a + b)
    return log


@case(([],),)
async def async_with_suppresses(log):
    async with ACM(log, "s", suppress=True):
        raise RuntimeError("swallowed")
    log.append("after")
    return log


@case(([], 0), ([], 1))
async def async_with_and_plain_with_mixed(log, early):
    with CM(log, "sync"):
        async with ACM(log, "async"):
            if early:
                return "early"
            log.append("body")
    return "end"


@case((4,),)
async def async_comprehensions(n):
    a = [x async for x in agen(n)]
    b = {x % 2 async for x in agen(n)}
    c = {x: x * x async for x in agen(n) if x}
    d = [await double(x) for x in range(n)]
    e = [x async for x in agen(n) if await double(x) > 2]
    return a, b, c, d, e


@case((3,),)
async def async_generator_expression(n):
    g = (x * 2 async for x in agen(n))
    return [v async for v in g]


@case((3,), (0,))
async def async_generator(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i
    yield "end"


@case((), send=[1, 2])
async def async_generator_asend():
    total = 0
    while True:
        got = yield total
        if got is None:
            break
        total += got
    yield "final %d" % total


@case(([1, 2],),)
async def async_generator_with_async_for_and_with(xs):
    log = []
    async with ACM(log, "cm"):
        async for x in AIter(xs):
            yield x
    yield log


@case((2,), (-1,))
async def async_generator_try_finally(n):
    try:
        if n < 0:
            raise ValueError("negative")
        yield n
    finally:
        print("finally", n)


@case((3,),)
async def await_gather_and_tasks(n):
    results = await asyncio.gather(*[double(i) for i in range(n)])
    task = asyncio.ensure_future(double(n))
    return results, await task


@case((2,),)
async def nested_async_def_and_closure(n):
    async def inner(k):
        return n + await double(k)

    return await inner(1), [await inner(i) for i in range(n)]


@case(([3, 1, 2],),)
async def async_for_over_generator_with_tuple_target(xs):
    out = []
    async for i, x in AIter(list(enumerate(xs))):
        out.append(i * x)
    return out


@case((1,), call(0))
async def await_raises_propagates(flag):
    if flag:
        await fail("propagated")
    return "fine"


@case(([], [1, 2, 3]), ([], [1]))
async def async_return_inside_async_for(log, xs):
    async for x in AIter(xs):
        log.append(x)
        if x == 2:
            return x
    return None


async def _logged(log, what):
    log.append(what)
    return what


@case(([],),)
async def return_await_inside_async_with(log):
    async with ACM(log, "cm"):
        return await _logged(log, "inside")


@case(([], 0), ([], 1))
async def await_in_if_inside_try_except(log, flag):
    try:
        if flag:
            await fail("bad")
        r = await _logged(log, "ok")
    except ValueError:
        r = "caught"
    return r, log


class Tick:
    """An awaitable that returns ``v`` without suspending."""

    def __init__(self, v):
        self.v = v

    def __await__(self):
        return self.v
        yield


@case((0,), (1,))
async def async_try_except_finally_returns(x):
    # the clause's return belongs inside it, not after it, where `e` is deleted
    try:
        v = await Tick(x)
        if x:
            raise ValueError(v)
        return v
    except ValueError as e:
        return "err %s" % e
    finally:
        await Tick(-1)


@case((0,), (1,))
async def async_try_except_no_name_finally_returns(x):
    try:
        if x:
            raise ValueError(x)
        return await Tick(x)
    except ValueError:
        return "err"
    finally:
        await Tick(-1)


@case((0,), (1,))
async def async_try_except_plain_finally_returns(x):
    log = []
    try:
        if x:
            raise ValueError(x)
        return await Tick(x)
    except ValueError as e:
        return "err %s" % e
    finally:
        log.append(1)


@case(([0, 1, 2], []), ([], []))
async def async_for_try_except_continue_finally(xs, log):
    for x in xs:
        try:
            if x == 1:
                raise ValueError(x)
            if x == 2:
                return await Tick(x)
        except ValueError as e:
            log.append("err %s" % e)
            continue
        finally:
            await Tick(log.append(x))
    return None


@case(("1",), ("x",))
async def async_nested_try_raise_from(s):
    try:
        try:
            return int(await Tick(s))
        except ValueError as e:
            raise RuntimeError("wrapped") from e
    except RuntimeError as e:
        return str(e)


@case(([0, 1, 3], []), ([], []))
async def async_for_try_finally_return(xs, log):
    for x in xs:
        try:
            if x > 2:
                return await Tick(x)
        finally:
            if x:
                log.append(await Tick(x))


@case(([], {}), ([], {"k": 1}))
async def async_with_return_then_code_after(log, d):
    # a suppressing __aexit__ goes on after the with
    async with ACM(log, "a", suppress=True):
        return d["k"]
    log.append("after")
    return log


@case(([], {}), ([], {"k": 1}))
async def async_with_nested_return_then_code_after(log, d):
    async with ACM(log, "outer"):
        with CM(log, "inner", suppress=True):
            return d["k"]
        log.append("between")
    return log


@case(([1, 2],), ([],))
async def async_for_that_never_loops_back(xs):
    # the body always breaks: no jump goes back to the loop's head
    # (test_contextlib_async's test_async_gen_propagates_generator_exit)
    out = []
    async for x in AIter(xs):
        out.append(x)
        break
    async for x in AIter(xs):
        break
    else:
        out.append("empty")
    return out


@case((False, False), (True, False), (False, True))
async def async_generator_with_early_returns(flag, fail_first):
    # an async generator's `return` in the middle (`return None` does not compile there)
    try:
        if fail_first:
            await fail("early")
    except ValueError:
        return
    if flag:
        return
    yield flag


@case(([],), ([], True))
async def async_with_two_managers_then_raise(log, suppress=False):
    # the inner manager's suppressed path jumps back to the outer one's exit; 3.12+ leave
    # the jumps after the awaits' CLEANUP_THROW out of the protected range (test_grammar)
    try:
        async with ACM(log, "a"), ACM(log, "b", suppress=suppress):
            log.append("body")
        raise KeyError("done")
    except KeyError:
        log.append("raised")
    async with ACM(log, "c") as x, ACM(log, "d") as y:
        pass
    return log, x, y
