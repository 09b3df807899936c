"""Every dump file is valid Python, whatever torch's texts contain (issue 12, item 1 and
the walk over every dump directory the tests wrote)."""
import os

import torch

import depyf
import workloads
from support import assert_all_compile


def _dump(tmp_path, workload, backend="eager"):
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        workload(backend)
    torch._dynamo.reset()
    return tmp_path


def test_multi_line_recompile_reasons_stay_comments(tmp_path):
    """The third compile has two reasons, each spanning several lines ("User stack trace:"
    ...): every line is a comment, so the file compiles and is the running code."""
    dump = _dump(tmp_path, workloads.w_recompile_bias)
    third = (dump / "__transformed_code_2_for_linear_maybe_bias.py").read_text()
    notes = [l for l in third.splitlines() if "Compiled again" in l]
    assert len(notes) == 2, third[:2000]
    assert "#     User stack trace:" in third
    assert "This is the code that runs" in third
    overview = (dump / "depyf_overview.py").read_text()
    assert "#      User stack trace:" in overview
    assert_all_compile(str(dump))


def test_global_changed_twice_dumps_valid_python(tmp_path):
    dump = _dump(tmp_path, workloads.w_recompile_global)
    assert "Compiled again" in (dump / "__transformed_code_2_for_times_gain.py").read_text()
    assert_all_compile(str(dump))
