"""Unrelated processes started on one dump directory (not multiprocessing children, not
ranks): each writes complete files to a folder of its own, nothing of a live process is
moved or overwritten, and every link of every overview names the file that holds it."""
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import torch

import depyf
import workloads
from depyf.report import build
from depyf.report.dump import find_ranks, read_overview
from support import REPO, assert_all_compile, dump_links

# process i compiles fn_<i>, whose graph multiplies by FACTORS[i] (so a file holding
# another process's code is told apart by its name and by its graph)
FACTORS = (2.0, 3.0, 5.0)
SCRIPT = textwrap.dedent('''
    import os, sys, time, torch, depyf

    def fn_0(x):
        y = x * 2.0
        print("depyf test: break in fn_0")
        return y + 0.5

    def fn_1(x):
        y = x * 3.0
        print("depyf test: break in fn_1")
        return y + 1.5

    def fn_2(x):
        y = x * 5.0
        print("depyf test: break in fn_2")
        return y + 2.5

    dump, i, sync, n_ready, order = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]

    def compile_and_run():
        f = torch.compile([fn_0, fn_1, fn_2][i], backend="eager")
        for n in (4, 4, 6):
            f(torch.ones(n))

    def wait():
        """Until n_ready processes are inside their session and hold_<i> is gone."""
        deadline = time.time() + 300
        while (sum(n.startswith("ready_") for n in os.listdir(sync)) < n_ready
               or os.path.exists(os.path.join(sync, "hold_%d" % i))):
            assert time.time() < deadline, "the other processes never came"
            time.sleep(0.05)

    with depyf.prepare_debug(dump):
        if order == "compile-first":
            compile_and_run()
        open(os.path.join(sync, "ready_%d" % i), "w").close()
        wait()
        if order != "compile-first":
            compile_and_run()
    print("DONE", os.getpid())
''')


def _start(tmp_path, dump, i, n_ready, order="wait-first"):
    script = tmp_path / "shared_script.py"
    if not script.exists():
        script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONWARNINGS="always", TORCHINDUCTOR_COMPILE_THREADS="1")
    return subprocess.Popen([sys.executable, str(script), str(dump), str(i), str(tmp_path / "sync"),
                             str(n_ready), order], cwd=str(tmp_path), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc):
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    return out, err


def _wait_for(path, proc):
    deadline = time.time() + 300
    while not os.path.exists(str(path)):
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.time() < deadline
        time.sleep(0.05)


def check_folder(folder):
    """Every file named by the overview, and every dump file named in another dump file,
    exists in ``folder`` and holds the code of the one function this folder's process
    compiled; returns that function's index."""
    data = read_overview(os.path.join(folder, "depyf_overview.py"))
    roots = {item["root_function"] for item in data["transformed_code"]}
    assert len(roots) == 1, (folder, roots)
    i = int(roots.pop()[len("fn_"):])
    named = dump_links(folder)
    for kind in ("full_code_for_fn_", "__transformed_code_0_for_fn_",
                 "__transformed_code_0_for_torch_dynamo_resume_in_fn_", "__compiled_fn_"):
        assert any(n.startswith(kind) for n in named), (kind, named)
    for name in sorted(named):
        path = os.path.join(folder, name)
        assert os.path.isfile(path), "%s names %s, which is not there" % (folder, name)
        for j in map(int, re.findall(r"(?:_for|_in)_fn_(\d+)", name)):
            assert j == i, "%s: %s belongs to another process" % (folder, name)
        text = open(path, encoding="utf-8").read()
        if name.startswith("full_code_for_"):
            assert "def fn_%d(x):" % i in text and "x * %s" % FACTORS[i] in text, name
        if ".Captured_Graph." in name and "l_x_" in text:
            assert "* %s" % FACTORS[i] in text, "%s holds another process's graph" % path
    return i


def check_dump(dump, pids):
    """The folders of ``dump`` are the processes' (one each); returns {i: folder}."""
    assert not (dump / "previous_runs").exists()  # nothing of a live process was moved
    folders = {}
    for _, folder in find_ranks(str(dump)):
        i = check_folder(folder)
        assert i not in folders, "two folders hold fn_%d" % i
        folders[i] = folder
        with open(os.path.join(folder, ".depyf_run.json")) as f:
            assert json.load(f)["pid"] == pids[i]
        assert not [n for n in os.listdir(folder) if re.search(r"\.\d{8}-\d{6}-pid\d+\.py$", n)]
    assert sorted(folders) == sorted(pids), (folders, pids)
    assert_all_compile(str(dump))
    return folders


def test_three_processes_started_together_on_one_folder(tmp_path):
    dump = tmp_path / "dump"
    (tmp_path / "sync").mkdir()
    procs = [_start(tmp_path, dump, i, n_ready=3) for i in range(3)]
    outputs = [_finish(p) for p in procs]
    pids = {i: p.pid for i, p in enumerate(procs)}
    folders = check_dump(dump, pids)
    in_root = [i for i, f in folders.items() if f == str(dump)]
    assert len(in_root) == 1
    for i, (_, err) in enumerate(outputs):
        moved = err.count("is in use by another running process")
        if i in in_root:
            assert moved == 0, err[-2000:]
        else:  # said once, naming the subfolder
            assert moved == 1, err[-2000:]
            assert folders[i] == str(dump / ("process_%d" % pids[i]))
            assert "writes its dump to the subfolder %s" % folders[i] in err
    index = build(str(dump))
    html = open(index, encoding="utf-8").read()
    for i, folder in folders.items():
        label = "main" if folder == str(dump) else os.path.basename(folder)
        assert 'id="rank-%s"' % label in html, label
        assert "fn_%d" % i in html


def test_a_process_started_while_another_runs_then_a_later_run(tmp_path):
    dump = tmp_path / "dump"
    sync = tmp_path / "sync"
    sync.mkdir()
    (sync / "hold_0").write_text("")
    first = _start(tmp_path, dump, 0, n_ready=1, order="compile-first")
    _wait_for(sync / "ready_0", first)  # inside its session, files written, still running
    before = {n: os.path.getmtime(str(dump / n)) for n in os.listdir(str(dump))}
    second = _start(tmp_path, dump, 1, n_ready=1)
    _, err = _finish(second)
    assert "writes its dump to the subfolder %s" % (dump / ("process_%d" % second.pid)) in err
    assert {n: os.path.getmtime(str(dump / n)) for n in before} == before  # untouched
    (sync / "hold_0").unlink()
    _finish(first)
    check_dump(dump, {0: first.pid, 1: second.pid})
    # a later run: the first has ended, so its files are an earlier run's; the second's
    # folder stays where it is
    third = _start(tmp_path, dump, 2, n_ready=1)
    _, err = _finish(third)
    assert "is in use" not in err and "dump files of an earlier run" in err, err[-2000:]
    earlier = [os.path.join(str(dump / "previous_runs"), n) for n in os.listdir(str(dump / "previous_runs"))]
    assert len(earlier) == 1 and earlier[0].endswith("-pid%d" % first.pid)
    assert check_folder(earlier[0]) == 0  # moved together: its links still resolve
    assert check_folder(str(dump)) == 2
    assert check_folder(str(dump / ("process_%d" % second.pid))) == 1


def test_a_crashed_process_leaves_an_earlier_run(tmp_path, no_pause):
    """``kill -9`` inside the session: the operating system drops its claim, so the next
    session takes the folder and moves the crashed run's files aside."""
    dump = tmp_path / "dump"
    sync = tmp_path / "sync"
    sync.mkdir()
    (sync / "hold_0").write_text("")
    crashed = _start(tmp_path, dump, 0, n_ready=1, order="compile-first")
    _wait_for(sync / "ready_0", crashed)
    crashed.send_signal(signal.SIGKILL)
    crashed.communicate(timeout=60)
    left = sorted(n for n in os.listdir(str(dump)) if n.startswith("__transformed_code_"))
    assert left
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with depyf.prepare_debug(str(dump)):
            torch.compile(workloads.toy_example, backend="eager")(torch.randn(4), torch.randn(4))
    torch._dynamo.reset()
    assert not [w for w in caught if "in use" in str(w.message)]
    moved = dump / "previous_runs" / os.listdir(str(dump / "previous_runs"))[0]
    assert str(moved).endswith("-pid%d" % crashed.pid)
    assert sorted(n for n in os.listdir(str(moved)) if n.startswith("__transformed_code_")) == left
    assert (dump / "full_code_for_toy_example_0.py").exists()


def test_a_live_pid_in_an_unlocked_marker_is_an_earlier_run(tmp_path, no_pause):
    """Liveness is the lock, not the pid: a marker naming a running process (here pid 1,
    as after pid reuse) whose folder nobody holds is an earlier run."""
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / ".depyf_run.json").write_text(json.dumps({"run": "reused", "pid": 1}))
    (dump / "full_code_for_toy_example_0.py").write_text("# earlier\n")
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with depyf.prepare_debug(str(dump)):
            torch.compile(workloads.toy_example, backend="eager")(torch.randn(4), torch.randn(4))
    torch._dynamo.reset()
    assert (dump / "previous_runs" / "reused" / "full_code_for_toy_example_0.py").read_text() == "# earlier\n"
