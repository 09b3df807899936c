"""depyf's work inside a compile runs with the cyclic collector paused (``gc_pause``):
what it allocates must then be freed by reference counting alone. Each step of the hook
(folding, the checker's exploration, the proxy runs) is run here with the collector off,
and the collector is then asked how many unreachable objects it found: none may be left
for it (a leftover cycle is collected by torch's next collection, which walks all of it)."""
import gc
import textwrap

import pytest

from depyf.equivalence import equivalent
from depyf.torch_debug import proxy_run, readable
from depyf.torch_debug.gc_pause import paused_gc

# Dynamo-like: temporaries, a graph call, a loop copying a dict back, a branch
DYNAMO_LIKE = textwrap.dedent("""
    def f(x, d, out):
        tmp_1 = []
        tmp_2 = x
        __temp_3 = g(tmp_2, d['w'])
        del tmp_2
        for k, v in d.items():
            out[k] = v
        if __temp_3:
            tmp_4 = h(__temp_3)
            return tmp_4
        return resume(__temp_3, tmp_1)
""")
SAME = textwrap.dedent("""
    def f(x, d, out):
        __temp_3 = g(x, d['w'])
        for k, v in d.items():
            out[k] = v
        if __temp_3:
            return h(__temp_3)
        return resume(__temp_3, [])
""")


def _code(src):
    ns = {}
    exec(compile(src, "<test>", "exec"), ns)
    return ns["f"].__code__


def garbage_left_by(work):
    """Unreachable objects the cyclic collector finds after ``work()`` ran with it off."""
    gc.collect()
    with paused_gc():
        work()
        return gc.collect()


def test_folding_leaves_no_cycles():
    assert readable.fold(DYNAMO_LIKE, "f") != DYNAMO_LIKE  # (it did fold something)
    assert garbage_left_by(lambda: readable.fold(DYNAMO_LIKE, "f")) == 0


def test_the_checkers_exploration_leaves_no_cycles():
    a, b = _code(DYNAMO_LIKE), _code(SAME)
    assert equivalent(a, b)  # (a loop: states joined at its head, lineages superseded)
    assert garbage_left_by(lambda: equivalent(a, b)) == 0


def test_proxy_runs_leave_no_cycles():
    a, b = _code(DYNAMO_LIKE), _code(SAME)
    assert proxy_run.compare(b, a, {}, {}) is None
    assert garbage_left_by(lambda: proxy_run.compare(b, a, {}, {})) == 0


def test_the_measure_sees_a_cycle():
    def cycle():
        node = []
        node.append(node)

    assert garbage_left_by(cycle) == 1


def test_no_instruction_records_outlive_a_compile(tmp_path):
    """What survives the hook is promoted into the collector's oldest generation, which
    every later full collection of torch's heap walks: the instruction records depyf
    decodes (thousands for a deep model's transformed code) are dropped when it ends."""
    torch = pytest.importorskip("torch")
    import depyf
    from depyf.bytecode import reader

    def fn(x):
        y = x.sin() + 1
        print("graph break")
        return y.cos()

    with depyf.prepare_debug(str(tmp_path)):
        torch.compile(fn, backend="eager")(torch.ones(3))
    gc.collect()
    assert not [o for o in gc.get_objects() if type(o) is reader.Instruction]
