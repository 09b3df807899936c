"""Dump directory policy: bad directories fail early, earlier runs are never overwritten,
processes and ranks write to separate folders."""
import glob
import json
import os
import re
import shutil
import textwrap
import warnings

import pytest
import torch

import depyf
import workloads
from support import assert_all_compile, assert_links_resolve, make_two_rank_dump, run_python
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


def test_the_same_folder_again_after_the_user_deleted_it(tmp_path):
    """A second prepare_debug on a folder this process used before makes it anew."""
    dump = tmp_path / "dump"
    for _ in range(2):
        torch._dynamo.reset()
        with depyf.prepare_debug(str(dump)):
            torch.compile(workloads.toy_example, backend="eager")(torch.randn(4), torch.randn(4))
        assert (dump / "full_code_for_toy_example_0.py").exists()
        assert_all_compile(str(dump))
        shutil.rmtree(dump)
    torch._dynamo.reset()


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
        mp.spawn(worker, args=(sys.argv[1],), nprocs=3, join=True)
''')


def test_three_processes_write_separate_complete_dumps(tmp_path):
    """(As the original's test: three children of torch.multiprocessing.spawn.)"""
    script = tmp_path / "mp_script.py"
    script.write_text(MP_SCRIPT)
    dump = tmp_path / "dump"
    proc = run_python([str(script), str(dump)], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    folders = sorted(glob.glob(str(dump / "process_*")))
    assert len(folders) == 3, os.listdir(str(dump))
    for folder in folders:
        assert os.path.exists(os.path.join(folder, "full_code_for_toy_0.py"))
        assert os.path.exists(os.path.join(folder, "__transformed_code_0_for_toy.py"))
        assert glob.glob(os.path.join(folder, "__compiled_fn_*.Captured_Graph.0.py"))
        assert_links_resolve(folder)
    assert_all_compile(str(dump))


def test_torchrun_two_ranks_write_separate_complete_dumps(tmp_path):
    dump = make_two_rank_dump(tmp_path)
    for rank in (0, 1):
        folder = dump / ("rank_%d" % rank)
        assert (folder / "full_code_for_toy_0.py").exists(), os.listdir(str(dump))
        assert (folder / "__transformed_code_0_for_toy.py").exists()
        assert glob.glob(str(folder / "__compiled_fn_*.Captured_Graph.0.py"))
        assert_links_resolve(str(folder))
    assert_all_compile(str(dump))


# ---- arguments a user can trip on -----------------------------------------------------


@pytest.mark.parametrize("bad,error", [(None, TypeError), ("", ValueError), ("  ", ValueError)])
def test_none_and_empty_dump_dir_are_refused_naming_the_argument(bad, error, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match="prepare_debug: dump_src_dir"):
        depyf.prepare_debug(bad)  # refused at the call, before any `with`
    assert os.listdir(str(tmp_path)) == []  # nothing written into the current directory


def test_tilde_is_the_home_directory(tmp_path, monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    torch._dynamo.reset()
    with depyf.prepare_debug("~/dump"):
        torch.compile(workloads.toy_example, backend="eager")(torch.randn(4), torch.randn(4))
    torch._dynamo.reset()
    assert (home / "dump" / "full_code_for_toy_example_0.py").exists()
    assert not (cwd / "~").exists()


NOT_ENTERED_SCRIPT = textwrap.dedent('''
    import sys, torch, depyf

    def f(x):
        return x.sin() + 1

    depyf.prepare_debug(sys.argv[1])
    print(torch.compile(f, backend="eager")(torch.zeros(2)).tolist())
''')


def test_prepare_debug_without_with_warns_at_the_users_line(tmp_path):
    script = tmp_path / "forgot_with.py"
    script.write_text(NOT_ENTERED_SCRIPT)
    proc = run_python([str(script), str(tmp_path / "dump")], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "[1.0, 1.0]"  # the program runs as it would
    assert "forgot_with.py:7: RuntimeWarning: depyf.prepare_debug(" in proc.stderr, proc.stderr[-3000:]
    assert "never entered" in proc.stderr and "`with depyf.prepare_debug(" in proc.stderr


def test_prepare_debug_as_a_decorator_dumps_and_does_not_warn(tmp_path):
    @depyf.prepare_debug(str(tmp_path))
    def run():
        torch.compile(workloads.toy_example, backend="eager")(torch.randn(4), torch.randn(4))

    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
        import gc
        gc.collect()
    torch._dynamo.reset()
    assert not [w for w in caught if "never entered" in str(w.message)]
    assert (tmp_path / "full_code_for_toy_example_0.py").exists()


# ---- debug() nested in prepare_debug() and the other way round ---------------------------


def _dump_summary(folder):
    ns = {}
    exec((folder / "depyf_overview.py").read_text(), ns)
    data = ns["OVERVIEW"]
    names = sorted(n for n in os.listdir(str(folder)) if n.endswith(".py"))
    ks = sorted({int(k) for n in names for k in re.findall(r"__compiled_fn_(\d+)", n)})
    # graph numbers go on across torch._dynamo.reset(): compare them by rank
    files = [re.sub(r"__compiled_fn_(\d+)", lambda m: "__compiled_fn_#%d" % ks.index(int(m.group(1))), n)
             for n in names]
    return files, [(b["id"], b["count"]) for b in data["graph_breaks"]], len(data["transformed_code"])


def _plain_dump(folder):
    torch._dynamo.reset()
    with depyf.prepare_debug(str(folder)):
        workloads.w_print("eager")
    torch._dynamo.reset()
    return _dump_summary(folder)


def test_debug_inside_prepare_debug_is_one_dump(tmp_path, no_pause):
    expected = _plain_dump(tmp_path / "plain")
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path / "nested")):
        with depyf.debug():
            workloads.w_print("eager")
    torch._dynamo.reset()
    assert _dump_summary(tmp_path / "nested") == expected
    assert expected[1] and all(count == 1 for _, count in expected[1]), expected


def test_prepare_debug_inside_debug_is_one_dump(tmp_path, no_pause):
    expected = _plain_dump(tmp_path / "plain")
    torch._dynamo.reset()
    dump = tmp_path / "nested"
    with depyf.prepare_debug(str(dump)):
        pass  # an earlier block: debug() replays this directory
    with depyf.debug():
        with depyf.prepare_debug(str(dump)):
            workloads.w_print("eager")
    torch._dynamo.reset()
    assert _dump_summary(dump) == expected


def test_nested_session_for_another_directory_is_refused(tmp_path, no_pause):
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path / "outer")):
        with pytest.raises(depyf.torch_debug.NestedSessionError, match="one dump session at a time"):
            with depyf.prepare_debug(str(tmp_path / "inner")):
                pass
        workloads.w_print("eager")  # the outer session still records
    torch._dynamo.reset()
    assert not (tmp_path / "inner").exists()
    assert _dump_summary(tmp_path / "outer") == _plain_dump(tmp_path / "plain")
