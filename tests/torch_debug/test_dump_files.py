"""Every dump file is valid Python and tells the truth about where its text comes from
(headers, comments, and the walk over every dump directory the tests wrote)."""
import os
import textwrap

import torch

import depyf
import workloads
from support import assert_all_compile, dump_dirs, not_compiling, run_python, summarize


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


WARM_SCRIPT = textwrap.dedent('''
    import sys, torch, depyf

    def scaled_sin(x):
        y = torch.sin(x) * 2
        return y + 1

    with depyf.prepare_debug(sys.argv[1]):
        torch.compile(scaled_sin, backend="inductor")(torch.randn(8))
''')


def test_warm_cache_graphs_say_their_comments_are_another_runs(tmp_path):
    """The same script run from two folders with one Inductor cache: the second run's
    post-grad graph comes from the cache with the first script's path in its comments."""
    env = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    dumps = {}
    for run in ("first", "second"):
        (tmp_path / run).mkdir()
        script = tmp_path / run / "warm.py"
        script.write_text(WARM_SCRIPT)
        dumps[run] = tmp_path / run / "dump"
        proc = run_python([str(script), str(dumps[run])], cwd=str(tmp_path / run), env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
    stale = [p for p in sorted(dumps["second"].glob("__compiled_fn_*.py"))
             if str(tmp_path / "first" / "warm.py") in p.read_text()]
    assert stale, "the warm run should serve a graph with the first run's comments"
    for path in stale:
        header = path.read_text().split("\nclass ")[0]
        assert "Served from torch's compile cache" in header, path.name
        assert str(tmp_path / "first" / "warm.py") + ":5" in header, header
    for path in list(dumps["first"].glob("*.py")) + [
            p for p in dumps["second"].glob("*.py") if p not in stale]:
        assert "Served from torch's compile cache" not in path.read_text(), path
    assert_all_compile(str(tmp_path))


def test_every_dump_file_of_the_suite_compiles(tmp_path_factory, no_pause):
    """Walks every dump directory the tests of this pytest run wrote (in process and from
    scripts; conftest runs this test last) and py_compiles every .py in them. Run alone, it
    dumps the eager workloads first."""
    base = tmp_path_factory.getbasetemp()
    dirs = dump_dirs(base)
    if not dirs:
        root = tmp_path_factory.mktemp("walk")
        for name, (run, _) in sorted(workloads.WORKLOADS.items()):
            _dump(root / name, run)
        dirs = dump_dirs(base)
    files = [os.path.join(d, n) for d in dirs for n in sorted(os.listdir(d)) if n.endswith(".py")]
    bad = not_compiling(files)
    summarize("walked %d dump directories, %d .py files, %d not valid Python"
              % (len(dirs), len(files), len(bad)),
              dump_dirs=len(dirs), dump_files=len(files), dump_files_invalid=len(bad))
    assert files
    assert not bad, "dump files that are not valid Python:\n" + "\n".join(bad)
