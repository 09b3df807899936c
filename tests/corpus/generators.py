"""Generators: ``yield``, ``yield`` as an expression with ``send``, ``yield from``,
generators with ``try``/``finally``, ``return`` values, ``throw`` and ``close``."""
from ._harness import call, case, close_after, throw_after


@case((3,), (0,))
def simple_generator(n):
    for i in range(n):
        yield i * i


@case((2,),)
def generator_with_return_value(n):
    yield n
    yield n + 1
    return "done"


@case((), send=[10, 20, 30])
def yield_as_expression():
    total = 0
    while True:
        received = yield total
        if received is None:
            return total
        total += received


@case((1,), send=["a", "b"])
def yield_expression_in_arguments(start):
    log = []
    log.append((yield start))
    log.append((yield start + 1))
    yield log


@case(([1, 2], [3]),)
def yield_from_iterables(a, b):
    yield from a
    yield from b
    yield from (x * 10 for x in a)


@case((3,),)
def yield_from_generator_return_value(n):
    def inner():
        yield 1
        yield 2
        return n * 100

    result = yield from inner()
    yield result


@case((), send=[5, 6])
def yield_from_forwards_send():
    def echo():
        got = yield "ready"
        while got is not None:
            got = yield got * 2
        return "echo done"

    r = yield from echo()
    yield r


@case((2,), call(2).using(driver=close_after(1)))
def generator_finally_on_close(n):
    try:
        yield n
        yield n + 1
    finally:
        print("cleanup", n)


@case((2,), call(2).using(driver=throw_after(1, ValueError("boom"))))
def generator_catches_thrown(n):
    try:
        yield n
    except ValueError as e:
        yield "caught %s" % e
    yield "after"


@case(
    (2,),
    call(2).using(driver=throw_after(1, KeyError("k"))),
    call(2).using(driver=throw_after(1, ValueError("v"))),
)
def generator_throw_selective(n):
    try:
        yield n
    except ValueError:
        yield "caught"
    yield "after"


@case((5,), (0,))
def generator_with_early_return(n):
    for i in range(10):
        if i >= n:
            return i
        yield i


@case(([1, 2, 0, 4],),)
def generator_raises(xs):
    for x in xs:
        yield 10 // x


@case((3,), (7,))
def generator_with_loop_else_and_break(n):
    for i in range(n):
        if i == 5:
            break
        yield i
    else:
        yield "no break"
    yield "end"


@case((4,),)
def generator_closure(n):
    def counter():
        i = 0
        while i < n:
            yield i
            i += 1

    return list(counter()), sum(counter())


@case(([1, 2, 3],),)
def generator_expression_returned_and_listed(xs):
    g = (x * 2 for x in xs if x != 2)
    return list(g), list(g)


@case((3,), call(3).using(driver=throw_after(1, ValueError("x"))))
def yield_in_try_except_else(n):
    try:
        x = yield n
    except Exception:
        yield "error"
    else:
        yield ("else", x)
    finally:
        yield "finally"


@case((), send=[None, 1])
def bare_yield(*args):
    yield
    x = yield
    yield x


@case((3,),)
def yield_inside_with(n):
    import contextlib

    @contextlib.contextmanager
    def cm(log):
        log.append("enter")
        yield n
        log.append("exit")

    log = []
    with cm(log) as v:
        yield v
    yield log


@case((2,), limit=5)
def infinite_generator(step):
    i = 0
    while True:
        yield i
        i += step


# The compiler drops a yield it cannot reach, but the function stays a generator: the
# decompiled text must make it one again.
@case((2,), (0,))
def generator_yield_after_raise(n):
    if n:
        raise ValueError(n); yield n  # (one line: 3.8/3.9 keep the dead yield's code)
    return "no yield"


@case((2,),)
def generator_yield_under_if_false(n):
    n += 1
    if False:
        yield n


@case((2,),)
def generator_yield_under_while_false(n):
    while False:
        yield n
    return n * 2


@case(([],),)
def generator_return_before_yield(log):
    log.append("ran")
    return log
    yield


@case((["a"],),)
def generator_yield_from_after_return(xs):
    return len(xs)
    yield from xs


@case(([],),)
async def async_generator_return_before_yield(log):
    log.append("ran")
    return
    yield log


# 3.10+ drop the dead arm of a conditional expression, and with it a lambda's only yield
@case((2,),)
def generator_lambda_with_dead_yield(n):
    g = lambda x: (yield) if False else x  # noqa: E731
    gen = g(n)
    try:
        next(gen)
    except StopIteration as e:
        return type(gen).__name__, e.value
