"""Workloads whose graph breaks happen inside functions the compiled function calls,
compiled with ``torch._dynamo.config.nested_graph_breaks`` (torch 2.13+ here; off by default):
Dynamo then keeps the callers' frames and writes code that rebuilds their stacks
(``UNPACK_SEQUENCE n; BUILD_LIST n``) around the resume calls. Each is a function
``run(backend) -> list of tensors`` as in workloads.py; where torch has no nested graph
breaks (or no ``step_unsupported``) the same functions run with ordinary graph breaks."""
import contextlib

import torch

from workloads import _flat, _seed

# (torch 2.10 to 2.12 have the option, but 2.11 computes wrong results with it: a call
# inside a list display gets its stack values shuffled, a loop fails to trace)
HAS_NESTED = "nested_graph_breaks" in getattr(torch._dynamo.config, "_config", {}) and \
    tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 13)
# a graph break that only ends the current step (its stack must be empty): the kind whose
# nested form makes Dynamo rebuild the callers' stacks
STEP_BREAK = getattr(torch._dynamo, "step_unsupported", None) or torch._dynamo.graph_break


def nested_breaks():
    """Nested graph breaks on, where torch has them."""
    if HAS_NESTED:
        return torch._dynamo.config.patch(nested_graph_breaks=True)
    return contextlib.nullcontext()


def nb_leaf(x):
    y = x.sin() + 1
    STEP_BREAK()
    return y * 2


def nb_no_grad(x):
    x = x + 4
    with torch.no_grad():
        y = nb_leaf(x)
    return y + 8


def nb_stack_value(x):
    # `x * 2` waits on the stack while nb_leaf breaks
    return x * 2 + nb_leaf(x)


def nb_two_levels(x):
    return nb_no_grad(x).cos() * 3


def nb_in_display(x):
    return torch.cat([x, x.exp(), nb_leaf(x), x - 1])


def nb_keyword(x):
    return torch.add(x, other=nb_leaf(x), alpha=2)


def nb_loop(x):
    for i in range(2):
        x = x + nb_leaf(x) * i
    return x


def nb_plain_leaf(x):
    y = x.cos()
    torch._dynamo.graph_break()
    return y - 1


def nb_plain(x):
    return (x - 1, nb_plain_leaf(x + 16) + 32)[1]


def nb_unpack(x):
    a, b = nb_leaf(x).chunk(2)
    return a * b


NESTED_FUNCTIONS = [nb_no_grad, nb_stack_value, nb_two_levels, nb_in_display, nb_keyword,
                    nb_loop, nb_plain, nb_unpack]


def w_nested_breaks(backend):
    """Every function above, compiled with nested graph breaks, called twice."""
    _seed()
    x = torch.randn(4, 3)
    outs = []
    with nested_breaks():
        for fn in NESTED_FUNCTIONS:
            f = torch.compile(fn, backend=backend)
            outs += [f(x), f(x * 2)]
    return _flat(outs)


def w_nested_stack(backend):
    """The smoke suite's one: a value on the caller's stack and a caller inside no_grad."""
    _seed()
    x = torch.randn(4, 3)
    with nested_breaks():
        f = torch.compile(nb_stack_value, backend=backend)
        g = torch.compile(nb_two_levels, backend=backend)
        return _flat(f(x), g(x), f(x * 2))


def gen_breaks(x):
    for i in range(2):
        x = x * 2
        torch._dynamo.graph_break()
        yield x + i


def gen_user(x):
    return sum(gen_breaks(x)) + 1


def gen_next(x):
    g = gen_breaks(x)
    a = next(g)
    return a * next(g)


def w_generators(backend):
    """Generators that break inside, consumed by the compiled function (Dynamo 2.13
    gives such frames up: they run as they are; older releases may compile parts)."""
    _seed()
    x = torch.randn(5)
    outs = []
    with nested_breaks():
        for fn in (gen_user, gen_next):
            outs.append(torch.compile(fn, backend=backend)(x))
    return _flat(outs)
