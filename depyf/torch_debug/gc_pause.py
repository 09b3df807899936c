"""``paused_gc()``: the cyclic garbage collector held off while depyf works inside a compile.

depyf's work on one transformed code object (decompiling, folding, proving) allocates many
short-lived objects (AST nodes, symbolic terms) and frees them by reference counting: its
steps build no reference cycles (tests/torch_debug/test_gc_pause.py), so nothing of it is
left for the collector. Left on, the collector still runs a full collection each time
enough of them survive a young one, and under ``torch.compile`` a full collection walks
every object of torch, the model and Dynamo's state: on a deep model that was a third of
depyf's time. The collector is switched back on (if it was on) when the block ends, and
collects then as usual.
"""
import contextlib
import gc


@contextlib.contextmanager
def paused_gc():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
