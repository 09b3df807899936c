"""Dump directory policy: bad directories fail early, earlier runs are never overwritten,
processes and ranks write to separate folders."""
import glob
import json
import os
import socket
import textwrap
import warnings

import pytest
import torch

import depyf
import workloads
from support import assert_all_compile, run_python
from depyf.torch_debug import DumpDirError


def test_unwritable_dump_dir_fails_before_running(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    ran = []
    with pytest.raises(DumpDirError, match="cannot write dump files"):
        with depyf.prepare_debug(str(blocker / "dump")):
            ran.append(True)
    assert not ran


def test_earlier_run_is_moved_not_overwritten(tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / ".depyf_run.json").write_text(json.dumps({"run": "old-run"}))
    (dump / "full_code_for_toy_example_0.py").write_text("# from an earlier run\n")
    (dump / "notes.txt").write_text("the user's own file")
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with depyf.prepare_debug(str(dump)):
            torch.compile(workloads.toy_example, backend="eager")(torch.randn(4), torch.randn(4))
    torch._dynamo.reset()
    assert any("earlier run" in str(w.message) for w in caught)
    old = dump / "previous_runs" / "old-run" / "full_code_for_toy_example_0.py"
    assert old.read_text() == "# from an earlier run\n"
    assert (dump / "notes.txt").read_text() == "the user's own file"
    assert "earlier run" not in (dump / "full_code_for_toy_example_0.py").read_text()
    assert_all_compile(str(dump))


def test_functions_compiled_before_the_session_are_dumped(tmp_path, no_pause):
    torch._dynamo.reset()
    f = torch.compile(workloads.loop_over_list, backend="eager")
    f([torch.randn(3)])
    with depyf.prepare_debug(str(tmp_path)):
        pass
    assert (tmp_path / "full_code_for_loop_over_list_0.py").exists()
    text = (tmp_path / "__transformed_code_0_for_loop_over_list.py").read_text()
    assert "compiled before prepare_debug" in text
    assert_all_compile(str(tmp_path))
    torch._dynamo.reset()


MP_SCRIPT = textwrap.dedent('''
    import sys, torch, torch.multiprocessing as mp
    import depyf

    def toy(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    def worker(i, dump):
        with depyf.prepare_debug(dump):
            f = torch.compile(toy, backend="eager")
            for _ in range(4):
                f(torch.randn(8), torch.randn(8))

    if __name__ == "__main__":
        mp.spawn(worker, args=(sys.argv[1],), nprocs=2, join=True)
''')


def test_two_processes_write_separate_complete_dumps(tmp_path):
    script = tmp_path / "mp_script.py"
    script.write_text(MP_SCRIPT)
    dump = tmp_path / "dump"
    proc = run_python([str(script), str(dump)], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    folders = sorted(glob.glob(str(dump / "process_*")))
    assert len(folders) == 2, os.listdir(str(dump))
    for folder in folders:
        assert os.path.exists(os.path.join(folder, "full_code_for_toy_0.py"))
        assert os.path.exists(os.path.join(folder, "__transformed_code_0_for_toy.py"))
        assert glob.glob(os.path.join(folder, "__compiled_fn_*.Captured_Graph.0.py"))
    assert_all_compile(str(dump))


DIST_SCRIPT = textwrap.dedent('''
    import os, sys, torch, torch.distributed as dist
    import depyf

    def toy(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    dist.init_process_group("gloo")
    with depyf.prepare_debug(sys.argv[1]):
        f = torch.compile(toy, backend="eager")
        t = torch.ones(4) * dist.get_rank()
        dist.all_reduce(t)
        for _ in range(4):
            f(torch.randn(8) + t.sum(), torch.randn(8))
    dist.destroy_process_group()
''')


def test_torchrun_two_ranks_write_separate_complete_dumps(tmp_path):
    script = tmp_path / "dist_script.py"
    script.write_text(DIST_SCRIPT)
    dump = tmp_path / "dump"
    with socket.socket() as s:  # a free port on the loopback interface
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run_python(
        ["-m", "torch.distributed.run", "--nproc_per_node=2", "--master_addr=127.0.0.1",
         "--master_port=%d" % port, str(script), str(dump)],
        cwd=str(tmp_path), timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    for rank in (0, 1):
        folder = dump / ("rank_%d" % rank)
        assert (folder / "full_code_for_toy_0.py").exists(), os.listdir(str(dump))
        assert (folder / "__transformed_code_0_for_toy.py").exists()
        assert glob.glob(str(folder / "__compiled_fn_*.Captured_Graph.0.py"))
    assert_all_compile(str(dump))
