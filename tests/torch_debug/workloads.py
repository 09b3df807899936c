"""Workloads for the torch.compile integration tests: tiny, CPU, deterministic.

Each workload is a function ``run(backend) -> list of tensors`` (outputs, then gradients)
that builds its inputs from a fixed seed, compiles with ``torch.compile(backend=backend)``
and runs. Functions are defined at module level (or as constants of the workload) so that
calling a workload again reuses the same code objects and so hits Dynamo's cache.
"""
import torch
import torch.nn as nn

SCALE = 2.0


def _seed():
    torch.manual_seed(0)


def _flat(*values):
    out = []
    for v in values:
        if isinstance(v, torch.Tensor):
            out.append(v.detach().clone())
        elif isinstance(v, dict):
            for k in sorted(v):
                out.extend(_flat(v[k]))
        elif isinstance(v, (list, tuple)):
            out.extend(_flat(*v))
        elif isinstance(v, (int, float, bool)):
            out.append(torch.tensor(v))
        elif hasattr(v, "to_tuple"):
            out.extend(_flat(v.to_tuple()))
    return out


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def w_toy(backend):
    _seed()
    f = torch.compile(toy_example, backend=backend)
    outs = []
    for _ in range(6):
        a = torch.randn(10, requires_grad=True)
        out = f(a, torch.randn(10))
        out.sum().backward()
        outs += [out, a.grad]
    return _flat(outs)


def gb_print(x):
    y = x.sin() * SCALE
    print("depyf test: graph break from print")
    return y.cos() + 1


def w_print(backend):
    _seed()
    f = torch.compile(gb_print, backend=backend)
    x = torch.randn(4, 3)
    return _flat(f(x), f(x * 2))


def gb_item(x):
    n = x.sum().item()
    return x * n + 1


def w_item(backend):
    _seed()
    f = torch.compile(gb_item, backend=backend)
    return _flat(f(torch.randn(5)), f(torch.randn(5)))


def gb_closure(x):
    scale = x.mean()

    def inner(y):
        z = y * scale
        print("depyf test: break inside a closure")
        return z + scale

    return inner(x) * 2


def w_closure(backend):
    _seed()
    f = torch.compile(gb_closure, backend=backend)
    return _flat(f(torch.randn(6)))


def _decorated(fn):
    def wrapper(x):
        y = fn(x)
        print("depyf test: break inside a decorator's wrapper")
        return y + 1

    return wrapper


# a decorator's wrapper (transformers' `forward`s are such): the resume function keeps the
# wrapper's free variable `fn`, used only by the code before the break (which it jumps over)
gb_wrapper = _decorated(torch.sin)


def w_wrapper(backend):
    _seed()
    f = torch.compile(gb_wrapper, backend=backend)
    return _flat(f(torch.randn(5)), f(torch.randn(5)))


def gb_no_grad(x, w):
    y = x @ w
    with torch.no_grad():
        s = y.abs().max()
        print("depyf test: break inside no_grad")
        t = y / s
    return (y * t.detach()).sum()


def w_no_grad(backend):
    _seed()
    f = torch.compile(gb_no_grad, backend=backend)
    x = torch.randn(3, 4)
    w = torch.randn(4, 2, requires_grad=True)
    out = f(x, w)
    out.backward()
    return _flat(out, w.grad)


def loop_over_list(xs):
    total = xs[0] * 0
    for i, x in enumerate(xs):
        total = total + x * (i + 1)
    return total.relu()


def w_loop(backend):
    _seed()
    f = torch.compile(loop_over_list, backend=backend)
    return _flat(f([torch.randn(3) for _ in range(4)]))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def w_mlp_train(backend):
    _seed()
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cmodel = torch.compile(model, backend=backend)
    outs = []
    for _ in range(3):
        x, y = torch.randn(5, 8), torch.randn(5, 4)
        loss = ((cmodel(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        outs += [loss] + [p.grad for p in model.parameters()]
        opt.step()
    return _flat(outs, list(model.parameters()))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv(x)))
        return self.fc(x.flatten(1))


def w_cnn(backend):
    _seed()
    model = CNN()
    out = torch.compile(model, backend=backend)(torch.randn(2, 1, 8, 8))
    out.sum().backward()
    return _flat(out, [p.grad for p in model.parameters()])


def dict_tuple_out(x):
    return {"sum": x.sum(), "pair": (x * 2, x - 1)}, (x.max(), [x.min()])


def w_dict_tuple(backend):
    _seed()
    return _flat(torch.compile(dict_tuple_out, backend=backend)(torch.randn(4)))


def try_except(x):
    try:
        y = x * 2
        if x.shape[0] > 3:
            raise ValueError("too long")
    except ValueError:
        y = x - 1
    return y.exp()


def w_try_except(backend):
    _seed()
    f = torch.compile(try_except, backend=backend)
    return _flat(f(torch.randn(5)), f(torch.randn(2)))


def kw_only(x, *, scale=1.0, shift):
    return x * scale + shift


def w_kwonly(backend):
    _seed()
    f = torch.compile(kw_only, backend=backend)
    return _flat(f(torch.randn(3), shift=torch.ones(3)), f(torch.randn(3), scale=3.0, shift=torch.zeros(3)))


def make_counter(x0):
    state = x0

    def step(x):
        nonlocal state
        state = state * 0.5 + x
        return state.tanh()

    return step


def w_nonlocal(backend):
    _seed()
    step = torch.compile(make_counter(torch.zeros(3)), backend=backend)
    return _flat([step(torch.randn(3)) for _ in range(3)])


def dyn(x):
    return (x * x.shape[0]).softmax(-1)


def w_dynamic_recompile(backend):
    _seed()
    f = torch.compile(dyn, backend=backend)
    return _flat(f(torch.randn(4)), f(torch.randn(6)), f(torch.randn(9)))


def w_mark_dynamic(backend):
    _seed()
    f = torch.compile(dyn, backend=backend)
    x = torch.randn(5, 3)
    torch._dynamo.mark_dynamic(x, 0)
    return _flat(f(x), f(torch.randn(7, 3)))


class Seq16(nn.Sequential):
    """16 Linear layers: the graph takes 33 inputs (x and the 32 parameters), so Dynamo
    calls it with more than 30 positional arguments."""

    def __init__(self):
        super().__init__(*[nn.Linear(6, 6) for _ in range(16)])


def w_seq16(backend):
    _seed()
    model = Seq16()
    x = torch.randn(3, 6)
    out = torch.compile(model, backend=backend)(x)
    out.sum().backward()
    return _flat(out, [p.grad for p in model.parameters()])


def vmap_lambda(x, w):
    # `w` is captured by the lambda: a cell variable of this frame (MAKE_CELL)
    return torch.func.vmap(lambda row: (row * w).sum())(x) + 1


def w_vmap_lambda(backend):
    _seed()
    f = torch.compile(vmap_lambda, backend=backend)
    x = torch.randn(4, 3)
    w = torch.randn(3, requires_grad=True)
    out = f(x, w)
    out.sum().backward()
    return _flat(out, w.grad)


def dict_comprehension(xs):
    # `scale` is used inside the comprehension: a cell variable on 3.11 (MAKE_CELL)
    scale = xs["a"].mean()
    scaled = {k: v * scale for k, v in xs.items()}
    return scaled["a"] + scaled["b"], scaled


def w_dict_comprehension(backend):
    _seed()
    f = torch.compile(dict_comprehension, backend=backend)
    return _flat(f({"a": torch.randn(4), "b": torch.randn(4)}))


class Tracker:
    """A user context manager (not one Dynamo knows): counts how often it was entered."""

    def __init__(self):
        self.depth = 0
        self.entered = 0

    def __enter__(self):
        self.depth += 1
        self.entered += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        return False


TRACKER = Tracker()


def with_tracker(x):
    # Dynamo cannot enter a global user context manager: it compiles the graph up to the
    # `with` (two ops, so it has a point to resume from) and keeps the rest as bytecode
    y = x.sin() + 1
    with TRACKER as t:
        z = y * 2 + t.depth
    return y, z


def w_context_manager(backend):
    _seed()
    TRACKER.depth = TRACKER.entered = 0
    f = torch.compile(with_tracker, backend=backend)
    out = _flat(f(torch.randn(5)), f(torch.randn(5)))
    return out + [torch.tensor([TRACKER.depth, TRACKER.entered])]


def w_hook_lambda(backend):
    _seed()
    model = MLP()
    # a forward hook given as a lambda; the print breaks the graph inside it, so Dynamo
    # compiles the lambda's own frame (co_name '<lambda>')
    model.fc1.register_forward_hook(
        lambda mod, args, out: (print("depyf test: break inside a lambda hook"), out * 2)[1])
    cmodel = torch.compile(model, backend=backend)
    x = torch.randn(5, 8)
    out = cmodel(x)
    out.sum().backward()
    return _flat(out, [p.grad for p in model.parameters()])


class Scaled(MLP):
    """A method that calls super(): its code has the free variable __class__."""

    def forward(self, x):
        y = super().forward(x * 2)
        return y.tanh() + 1


def w_super(backend):
    _seed()
    model = Scaled()
    out = torch.compile(model, backend=backend)(torch.randn(5, 8))
    out.sum().backward()
    return _flat(out, [p.grad for p in model.parameters()])


def say_hello(x):
    """The original's functions without a graph (no tensors at all)."""
    s = "Hello" + x
    print(s)


def assert_print_comprehension(a, b):
    assert a
    print(b)
    [a for _ in [None]]


class CellModel(nn.Module):
    """The original's cell-variable case: ``forward`` defines a function that reads ``self``,
    so ``self`` is a cell variable of ``forward`` (the replacement code must keep it one)."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(1, 1)

    def forward(self, x):
        def forward_function(x):
            return self.linear(x)

        return forward_function(x)


def w_cellvars(backend):
    _seed()
    model = CellModel()
    out = torch.compile(model, backend=backend)(torch.tensor([[1.0], [2.0]]))
    out.sum().backward()
    return _flat(out, [p.grad for p in model.parameters()])


def linear_maybe_bias(x, w, bias=None):
    y = x @ w
    if bias is not None:
        y = y + bias
    return y


def w_recompile_bias(backend):
    """Guards fail twice (bias None, then a tensor, then another shape): the third compile
    has two recompile reasons, each several lines long."""
    _seed()
    f = torch.compile(linear_maybe_bias, backend=backend)
    x, w, bias = torch.randn(2, 3), torch.randn(3, 4), torch.randn(4)
    return _flat(f(x, w), f(x, w, bias), f(torch.randn(5, 3), w, bias))


GAIN = 1


def times_gain(x):
    return x * GAIN


def w_recompile_global(backend):
    """A global the graph reads changes twice: three compiles, guards on its value."""
    global GAIN
    _seed()
    f = torch.compile(times_gain, backend=backend)
    outs = []
    try:
        for gain in (1, 2, 3):
            GAIN = gain
            outs.append(f(torch.randn(3)))
    finally:
        GAIN = 1
    return _flat(outs)


WORKLOADS = {
    "toy": (w_toy, ["toy_example"]),
    "print": (w_print, ["gb_print"]),
    "item": (w_item, ["gb_item"]),
    "closure": (w_closure, ["gb_closure"]),
    "wrapper": (w_wrapper, ["wrapper"]),
    "no_grad": (w_no_grad, ["gb_no_grad"]),
    "loop": (w_loop, ["loop_over_list"]),
    "mlp_train": (w_mlp_train, ["forward"]),
    "cnn": (w_cnn, ["forward"]),
    "dict_tuple": (w_dict_tuple, ["dict_tuple_out"]),
    "try_except": (w_try_except, ["try_except"]),
    "kwonly": (w_kwonly, ["kw_only"]),
    "nonlocal": (w_nonlocal, ["step"]),
    "dynamic_recompile": (w_dynamic_recompile, ["dyn"]),
    "mark_dynamic": (w_mark_dynamic, ["dyn"]),
    # nn.Sequential is compiled through torch's own wrapper frame `inner`
    "seq16": (w_seq16, ["inner"]),
    "vmap_lambda": (w_vmap_lambda, ["vmap_lambda"]),
    "dict_comprehension": (w_dict_comprehension, ["dict_comprehension"]),
    "context_manager": (w_context_manager, ["with_tracker"]),
    # the files of a `<lambda>` frame are named for `lambda`
    "hook_lambda": (w_hook_lambda, ["forward", "lambda"]),
    "super": (w_super, ["forward"]),
    "cellvars": (w_cellvars, ["forward"]),
    "recompile_bias": (w_recompile_bias, ["linear_maybe_bias"]),
    "recompile_global": (w_recompile_global, ["times_gain"]),
}


def w_nested_stack(backend):
    """Graph breaks inside called functions (nested_workloads.py, which imports from here)."""
    from nested_workloads import w_nested_stack as run

    return run(backend)


WORKLOADS["nested_stack"] = (w_nested_stack, ["nb_stack_value", "nb_two_levels"])
