"""Graph breaks inside called functions with ``nested_graph_breaks`` on, and generators
that break: outputs bitwise equal with and without prepare_debug, and every transformed and
resume code object Dynamo makes runs as decompiled code (no fallback to Dynamo's bytecode:
its stack rebuilding around the resume calls, ``UNPACK_SEQUENCE n; BUILD_LIST n``, is read
as an assignment to temporaries)."""
import os

import pytest
import torch

import depyf
from nested_workloads import HAS_NESTED, w_generators, w_nested_breaks
from support import assert_all_compile, assert_bitwise_equal
from test_workloads import _overview_counts, run_reference


@pytest.mark.parametrize("name,workload", [("nested_breaks", w_nested_breaks),
                                           ("generators", w_generators)])
def test_nested_graph_breaks_run_as_decompiled_code(name, workload, dump_root, no_pause):
    reference = run_reference(workload, "eager", name)
    torch._dynamo.reset()
    dump_dir = os.path.join(dump_root, "%s-eager" % name)
    with depyf.prepare_debug(dump_dir):
        dumped = workload("eager")
    torch._dynamo.reset()
    assert_bitwise_equal(reference, dumped, "%s with prepare_debug" % name)
    used, fell_back, details = _overview_counts(dump_dir)
    assert fell_back == 0, "%d of %d code objects fell back:\n%s" % (
        fell_back, used + fell_back, "\n".join(details))
    if name == "nested_breaks":
        # each function: its own code and the resume functions of the break
        assert used >= 8, used
        assert_all_compile(dump_dir)


@pytest.mark.skipif(not HAS_NESTED, reason="torch %s has no nested graph breaks" % torch.__version__)
def test_the_stack_rebuilding_is_in_the_transformed_code(dump_root, no_pause):
    """The shape this is about is really there: some code Dynamo made for the nested
    workloads unpacks a list onto the stack and builds a list of the items."""
    import dis

    from test_workloads import GENERATED

    if not any(case.startswith("nested_breaks/") for case, _, _ in GENERATED):
        run_reference(w_nested_breaks, "eager", "nested_breaks")
        torch._dynamo.reset()
    shapes = 0
    for case, _, new_code in GENERATED:
        if case.startswith("nested_breaks/"):
            ops = [i.opname for i in dis.get_instructions(new_code)]
            shapes += sum(a == "UNPACK_SEQUENCE" and b == "BUILD_LIST" for a, b in zip(ops, ops[1:]))
    assert shapes, "no UNPACK_SEQUENCE + BUILD_LIST in Dynamo's code for the nested workloads"
