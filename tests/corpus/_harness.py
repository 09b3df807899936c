"""What the corpus files import: the ``case`` decorator and a few shared helpers.

A corpus file is a plain Python module of module-level functions, each marked with
``@case(...)``. The decorator only records example inputs (it returns the function
unchanged), so the function that ``depyf.decompile`` sees is exactly what was written.

    @case((1, 2), (3, -4), call(1, b=2))
    def add(a, b=0):
        return a + b

Each positional argument of ``case`` is one call: a tuple of positional arguments, or
``call(*args, **kwargs)`` when keyword arguments are needed. ``case()`` with no inputs
means one call with no arguments. Options (keywords of ``case``, or of
``call(...).using(...)`` for one input only):

- ``send``: values sent with ``.send()``/``.asend()`` after the first ``next``, for
  generator and async-generator cases (the rest is consumed with ``next``);
- ``driver``: a function applied to the call's result (a generator, a coroutine...)
  instead of the default driver; its return value is what gets compared;
- ``min_python`` / ``max_python``: ``(major, minor)`` bounds for a single case whose
  syntax exists everywhere but whose meaning differs (files whose *syntax* needs a newer
  Python declare ``# min-python: 3.X`` in their first lines instead).
- ``limit``: the most items a generator driver takes (default 1000).
"""
import collections

#: module name -> the case functions of that module, in definition order.
REGISTRY = collections.defaultdict(list)

_OPTIONS = ("send", "driver", "min_python", "max_python", "limit")


class Call:
    """One call of a case: positional and keyword arguments, and options for this call
    only (``call(2).using(driver=...)``) that override the case's options."""

    __slots__ = ("args", "kwargs", "options")

    def __init__(self, args, kwargs, options=None):
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.options = dict(options or {})

    def using(self, **options):
        _check_options(options)
        return Call(self.args, self.kwargs, dict(self.options, **options))

    def __repr__(self):
        parts = [repr(a) for a in self.args]
        parts += ["%s=%r" % kv for kv in self.kwargs.items()]
        return "(%s)" % ", ".join(parts)


def call(*args, **kwargs):
    return Call(args, kwargs)


class CaseSpec:
    __slots__ = ("calls", "options")

    def __init__(self, calls, options):
        self.calls = calls
        self.options = options


def _check_options(options):
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise TypeError("unknown case option(s): %s" % ", ".join(sorted(unknown)))


def case(*inputs, **options):
    _check_options(options)
    calls = []
    for item in inputs or ((),):
        if isinstance(item, Call):
            calls.append(item)
        elif isinstance(item, tuple):
            calls.append(Call(item, {}))
        else:
            raise TypeError("a case input is an args tuple or call(...), not %r" % (item,))

    def mark(fn):
        fn.__corpus_case__ = CaseSpec(calls, options)
        REGISTRY[fn.__module__].append(fn)
        return fn

    return mark


# --- helpers shared by several corpus files -------------------------------------------


class CM:
    """A context manager that logs ``enter``/``exit`` (with the exception type) to ``log``.

    ``value`` is what ``__enter__`` returns (default: the manager's name); ``suppress``
    makes ``__exit__`` swallow the exception.
    """

    def __init__(self, log, name, value=None, suppress=False):
        self.log = log
        self.name = name
        self.value = name if value is None else value
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self.value

    def __exit__(self, typ, exc, tb):
        self.log.append("exit %s %s" % (self.name, typ.__name__ if typ else None))
        return self.suppress


class ACM(CM):
    """The asynchronous twin of ``CM``."""

    async def __aenter__(self):
        return self.__enter__()

    async def __aexit__(self, typ, exc, tb):
        return self.__exit__(typ, exc, tb)


class AIter:
    """An async iterator over ``items`` that yields control to the loop at every step."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        self.pos = 0
        return self

    async def __anext__(self):
        import asyncio

        await asyncio.sleep(0)
        if self.pos >= len(self.items):
            raise StopAsyncIteration
        self.pos += 1
        return self.items[self.pos - 1]


def throw_after(n, exc):
    """A generator driver: take ``n`` items, then ``throw(exc)``, then drain the rest."""

    def drive(gen):
        out = [next(gen) for _ in range(n)]
        try:
            out.append(("after-throw", gen.throw(exc)))
            out.extend(gen)
        except Exception as e:  # compared as data
            out.append(("raised", type(e).__name__, e.args))
        return out

    return drive


def close_after(n):
    """A generator driver: take ``n`` items, then ``close()``."""

    def drive(gen):
        out = [next(gen) for _ in range(n)]
        gen.close()
        return out

    return drive
