"""depyf.decompiler.symbolic.executor, temporaries mode: a COPY of a value that may be used
twice as it is (a constant) binds nothing. Dynamo (torch 2.4/2.5, Python 3.11+) passes
`None, None, None` to a context manager's ``__exit__`` as `LOAD_CONST None; COPY 1; COPY 1`,
on both paths of the try/finally it puts around a call that breaks the graph inside
`with torch.no_grad():`, while values for the resume call wait on the stack. Binding the
``__exit__`` method to a new temporary at each COPY made the two copies of the finally
body differ, so the normal path's copy stayed after the try and ran the exit twice. The
code objects here are assembled by hand in that shape (``tests/equivalence/asm.py``).
With torch 2.15 on 3.12 the exit is `cm.__exit__` loaded as an attribute, then
`PUSH_NULL; SWAP 2` (a permutation moving the NULL only, which binds nothing either)."""
import re
import types

import pytest

import depyf
from depyf.bytecode import versions as V
from depyf.decompiler import Decompiler

from equivalence.asm import PY, assemble

pytestmark = pytest.mark.skipif(not V.HAS_EXCEPTION_TABLE,
                                reason="COPY and the exception table are 3.11+")

NAMES = ("G", "__enter__", "__exit__")
G, ENTER, EXIT = range(3)


def _template(cm, h, a, y):
    return cm, h, a, y


def _call(n):
    return [("PRECALL", n), ("CALL", n)] if PY < (3, 12) else [("CALL", n)]


def _method(index):
    """`cm.<co_names[index]>` loaded for a call (callable and self slots)."""
    if PY < (3, 12):
        return [("LOAD_FAST", 0), ("LOAD_METHOD", index)]
    return [("LOAD_FAST", 0), ("LOAD_ATTR", index << 1 | 1)]


def _exit_call(nones):
    """`cm.__exit__(None, None, None)`, its value popped: the Nones as Dynamo passes
    them (one constant copied) or as a with statement's source would."""
    if nones == "copied":
        args = [("LOAD_CONST", 0), ("COPY", 1), ("COPY", 1)]
    else:
        args = [("LOAD_CONST", 0)] * 3
    if nones == "swapped":  # (torch 2.15 on 3.12: the attribute, then its NULL slot swapped under it)
        load = [("LOAD_FAST", 0), ("LOAD_ATTR", EXIT if PY < (3, 12) else EXIT << 1),
                ("PUSH_NULL", 0), ("SWAP", 2)]
        return load + args + _call(3) + [("POP_TOP", 0)]
    return _method(EXIT) + args + _call(3) + [("POP_TOP", 0)]


def _callee_h():
    return [("PUSH_NULL", 0), ("LOAD_FAST", 1)] if PY < (3, 13) else \
        [("LOAD_FAST", 1), ("PUSH_NULL", 0)]


def _no_grad_shape(nones="copied"):
    """`return G(h(a), y)` with `h(a)` alone inside `cm.__enter__()` / try / finally
    `cm.__exit__(None, None, None)`: G, h and a are loaded before the enter call and
    wait on the stack through it (Dynamo's `__resume_at_*` call around a graph break
    inside `with torch.no_grad():`)."""
    ops = [("LOAD_GLOBAL", G << 1 | 1)] + _callee_h() + [("LOAD_FAST", 2)]
    ops += _method(ENTER) + _call(0) + [("POP_TOP", 0)]
    ops += [("LABEL", "try"), ("NOP", 0)] + _call(1) + [("LABEL", "try_end"), ("NOP", 0)]
    ops += _exit_call(nones) + [("JUMP_FORWARD", "after")]
    ops += [("LABEL", "handler"), ("PUSH_EXC_INFO", 0)] + _exit_call(nones) + [("RERAISE", 0)]
    ops += [("LABEL", "cleanup"), ("COPY", 3), ("POP_EXCEPT", 0), ("RERAISE", 1)]
    ops += [("LABEL", "after"), ("NOP", 0), ("LOAD_FAST", 3)] + _call(2) + [("RETURN_VALUE", 0)]
    # (the handler's depth: G's call slots only; h and a are taken by the call)
    table = [("try", "try_end", "handler", 2, False), ("handler", "cleanup", "cleanup", 3, True)]
    return assemble(_template.__code__, ops, names=NAMES, consts=(None,), exceptions=table)


class _Manager:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *args):
        self.log.append(("exit", args[0].__name__ if args[0] else None, args[1:] == (None, None)))


def _behaviour(fn, raises):
    log = []

    def h(a):
        log.append(("h", a))
        if raises:
            raise KeyError(a)
        return a * 2
    fn.__globals__["G"] = lambda r, y: log.append(("G", r, y)) or (r, y)
    try:
        result = fn(_Manager(log), h, 5, 7)
    except KeyError as exc:
        result = ("raised", exc.args)
    return result, log


@pytest.mark.parametrize("nones", ["copied", "loaded", pytest.param("swapped", marks=pytest.mark.skipif(
    PY >= (3, 13), reason="3.13 loads the NULL slot after the callable: nothing to swap"))])
def test_exit_with_copied_nones_runs_once_on_the_normal_path(nones):
    code = _no_grad_shape(nones)
    decompiler = Decompiler(code)
    text = decompiler.decompile()
    assert decompiler.verdict
    body = re.sub(r"__temp_\d+", "__temp_N", text)
    assert body.count("__exit__") == 1, text
    assert "finally:\n        cm.__exit__(None, None, None)\n" in body, text
    ns = {}
    exec(text, ns)
    for raises in (False, True):  # (the assembled code runs as the text does)
        assert _behaviour(types.FunctionType(code, {}), raises) == \
            _behaviour(ns["_template"], raises)
    assert _behaviour(ns["_template"], False)[1] == ["enter", ("h", 5), ("exit", None, True),
                                                      ("G", 10, 7)]


def test_public_decompile_proves_the_shape():
    assert "finally:" in depyf.decompile(_no_grad_shape())
