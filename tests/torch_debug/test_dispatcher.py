"""The guard-skipping dispatcher keeps, per instance, only the code compiled for calls on
that instance (as the original: frames whose ``self`` is the wrapper), and dispatches only
to that."""
import threading
import warnings
from typing import Optional

import pytest
import torch

from depyf import optimization
from depyf.optimization import TorchCompileWrapperWithCustomDispatcher
from depyf.torch_debug import adapter


class Scale(torch.nn.Module):
    """x * k. Given ``k`` as a string, Dynamo guards on its value (a number that changes
    becomes a graph input instead, and the next instance reuses the compiled code)."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x, cache: Optional[torch.Tensor] = None):
        if cache is not None:
            return x * float(self.k) + cache
        return x * float(self.k)


class W(TorchCompileWrapperWithCustomDispatcher):
    """The shape of vLLM's wrapper: the model is set before ``super().__init__``, which
    is given ``torch.compile(self.forward)``."""

    def __init__(self, model):
        self.model = model
        super().__init__(torch.compile(self.forward, backend="eager"))

    def forward(self, x, cache: Optional[torch.Tensor] = None):
        return self.model(x, cache)


@pytest.fixture
def fresh():
    torch._dynamo.reset()
    made = []
    yield made
    for w in made:
        w.remove_hook()
    torch._dynamo.reset()


def _dispatch(w, index, *args):
    with w.dispatch_to_code(index):
        return w.forward(*args)


def test_an_instance_never_called_records_nothing_and_each_runs_its_own_code(fresh):
    a, b = W(Scale(1.0)), W(Scale(10.0))
    fresh.extend([a, b])
    x = torch.ones(1)
    assert b(x).item() == 10.0
    # before: a recorded b's code, and dispatching a to it returned b's result (10.0)
    assert a.compiled_codes == [] and len(b.compiled_codes) == 1
    with pytest.raises(IndexError):
        with a.dispatch_to_code(0):
            pass
    assert W.forward.__code__ is a.original_code_object  # nothing was swapped
    assert a(x).item() == 1.0
    assert len(a.compiled_codes) == 1 and len(b.compiled_codes) == 1
    assert a.compiled_codes[0] is not b.compiled_codes[0]
    assert _dispatch(a, 0, x).item() == 1.0
    assert _dispatch(b, 0, x).item() == 10.0


class Dispatching(W):
    """The original's test wrapper: compile twice (no cache, then a cache), then dispatch."""

    def __call__(self, x, cache=None):
        if len(self.compiled_codes) == 2:
            with self.dispatch_to_code(0 if cache is None else 1):
                return self.forward(x, cache)
        return self.compiled_callable(x, cache)


@pytest.mark.parametrize("reset_between", [False, True], ids=["shared-cache", "reset-between"])
def test_three_instances_with_recompiles_keep_their_own_codes(fresh, reset_between):
    wrappers = []
    for k in (2.0, 3.0, 5.0):
        if reset_between:
            torch._dynamo.reset()
        w = Dispatching(Scale(str(k)))
        fresh.append(w)
        wrappers.append(w)
        x, cache = torch.tensor([1.0]), torch.tensor([2.0])
        assert w(x).item() == k  # compiles
        assert w(x, cache).item() == k + 2  # a guard fails: compiles again
        assert len(w.compiled_codes) == 2
        new_x = torch.tensor([3.0])
        assert w(new_x).item() == 3 * k  # dispatched to its first code
        assert w(new_x, cache).item() == 3 * k + 2  # and to its second
    codes = [c for w in wrappers for c in w.compiled_codes]
    assert len({id(c) for c in codes}) == 6
    if not reset_between:  # all six are cache entries of the one forward, none shared
        assert len(adapter.cache_entries(W.forward.__code__)) == 6
    for w, k in zip(wrappers, (2.0, 3.0, 5.0)):  # still their own, after the others compiled
        assert len(w.compiled_codes) == 2
        assert w(torch.tensor([4.0])).item() == 4 * k
        assert _dispatch(w, 1, torch.tensor([4.0]), torch.tensor([1.0])).item() == 4 * k + 1


def test_exceptions_inside_dispatch_restore_and_remove_hook_stops_recording(fresh):
    a = W(Scale(2.0))
    fresh.append(a)
    a(torch.ones(2))
    original = W.forward.__code__
    with pytest.raises(ZeroDivisionError):
        with a.dispatch_to_code(0):
            assert W.forward.__code__ is a.compiled_codes[0]
            1 / 0
    assert W.forward.__code__ is original
    a.remove_hook()
    a.remove_hook()  # idempotent
    a(torch.ones(3, 3))  # a new shape: compiles again, unseen
    assert len(a.compiled_codes) == 1


def test_without_the_frame_it_falls_back_to_the_instance_being_called(fresh, monkeypatch):
    """A torch that hides the frame being compiled: the hook uses the instance whose
    compiled_callable runs in this thread (one warning says so)."""
    monkeypatch.setattr(adapter, "frame_locals_being_compiled", lambda code: None)
    monkeypatch.setattr(adapter, "_warned", set())
    a, b = W(Scale(1.0)), W(Scale(10.0))
    fresh.extend([a, b])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert b(torch.ones(1)).item() == 10.0
        assert a(torch.ones(1)).item() == 1.0
    assert sum("access to the frame Dynamo compiles" in str(w.message) for w in caught) == 1
    assert len(a.compiled_codes) == len(b.compiled_codes) == 1
    assert _dispatch(a, 0, torch.ones(1)).item() == 1.0
    assert _dispatch(b, 0, torch.ones(1)).item() == 10.0


class Outer(W):
    """A wrapper whose forward calls another wrapper, across a graph break."""

    def __init__(self, inner):
        self.inner = inner
        super().__init__(Scale(3.0))

    def forward(self, x, cache=None):
        y = self.model(x)
        print("depyf test: graph break in Outer.forward")
        return self.inner(y) + 1


def test_a_wrapper_calling_another_records_only_its_own_frames(fresh, capsys):
    inner = W(Scale(10.0))
    outer = Outer(inner)
    fresh.extend([inner, outer])
    x = torch.ones(1)
    assert outer(x).item() == 31.0
    assert len(outer.compiled_codes) == 1
    assert all(c.co_name == "forward" for c in outer.compiled_codes + inner.compiled_codes)
    assert not set(map(id, outer.compiled_codes)) & set(map(id, inner.compiled_codes))
    assert inner(x).item() == 10.0
    with outer.dispatch_to_code(0):
        assert outer.forward(x).item() == 31.0


def test_compiled_callable_is_the_given_callable_to_its_users(fresh):
    compiled = torch.compile(lambda x: x + 1, backend="eager")

    class Given(TorchCompileWrapperWithCustomDispatcher):
        def forward(self, x):
            return x + 1

    g = Given(compiled, True)  # the original's signature: (compiled_callable, use_custom_dispatcher)
    fresh.append(g)
    assert g.use_custom_dispatcher is True
    assert g.compiled_callable.__wrapped__ is compiled
    assert g.compiled_callable._torchdynamo_orig_callable is compiled._torchdynamo_orig_callable
    assert g(torch.zeros(1)).item() == 1.0
    assert Given(compiled, use_custom_dispatcher=False).use_custom_dispatcher is False


def test_concurrent_dispatch_of_two_instances_restores_the_original_code(fresh):
    a, b = W(Scale(1.0)), W(Scale(10.0))
    fresh.extend([a, b])
    a(torch.ones(1))
    b(torch.ones(1))
    results, errors = [], []

    def run(w, k):
        try:
            for _ in range(50):
                results.append(_dispatch(w, 0, torch.ones(1)).item() == k)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w, k)) for w, k in ((a, 1.0), (b, 10.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and all(results) and len(results) == 100
    assert W.forward.__code__ is a.original_code_object


def test_a_dropped_wrapper_unregisters_its_hook(fresh):
    import gc
    import weakref

    w = W(Scale(1.0))
    ref = weakref.ref(w)
    w(torch.ones(1))
    del w
    gc.collect()
    assert ref() is None  # torch's hook registry does not keep it alive
    assert optimization._calling.__dict__.get("stack", []) == []
