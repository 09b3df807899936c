"""Helpers shared by the torch.compile integration tests."""
import ast
import glob
import os
import py_compile
import re
import socket
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# One line per measurement of the run (fallback count, decompile proofs, the dump walk);
# conftest prints them at the end, under the torch and Python versions, and writes them with
# the test outcomes to the JSON file DEPYF_TORCH_RESULT names (the torch matrix's results:
# tools/docs_tables.py record torch-matrix).
SUMMARY = []
FIGURES = {}


def summarize(line, **figures):
    """Print ``line`` now and in the run's summary; ``figures`` (numbers) go to the result file."""
    SUMMARY.append(line)
    FIGURES.update(figures)
    print("\n" + line)


def decompiler_gap():
    """Why the decompiler falls short on this torch release, when the torch matrix says it
    does (``TORCH_DECOMPILER_GAPS`` in noxfile.py, passed as DEPYF_TORCH_DECOMPILER_GAP); else
    None. The tests that need every code object to run as decompiled code then expect
    failure (an xfail that says how many) and fail when there is none to report, so the
    list shrinks as the decompiler catches up. The pinned full suite never sets it."""
    return os.environ.get("DEPYF_TORCH_DECOMPILER_GAP") or None


def expect_gap(failed, what, strict=True):
    """``failed``: how many code objects did not run as (or were refused as) decompiled
    code. ``strict``: a test over all the workloads, which fails when the gap is gone."""
    import pytest

    gap = decompiler_gap()
    if gap is None:
        return
    if failed:
        pytest.xfail("%s (a known gap on this torch release: %s)" % (what, gap))
    if strict:
        pytest.fail("noxfile.py's TORCH_DECOMPILER_GAPS lists this torch release, but no code "
                "object fell back: remove it from the list")


def dumped_py_files(root):
    return sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True))


def dump_dirs(root):
    """Every dump directory under ``root``: the folders holding a session marker
    (``.depyf_run.json``), including ``rank_*``/``process_*`` folders and earlier runs moved
    to ``previous_runs/``. Tests write their dumps under pytest's temporary folder, in
    process or from scripts, so walking it finds all of them."""
    found = set()
    for dirpath, _, filenames in os.walk(str(root)):
        if ".depyf_run.json" in filenames:
            found.add(dirpath)
    return sorted(found)


# depyf's own files: their text is depyf's, never torch's printouts
OWN_FILE = re.compile(r"(full_code_for_|__transformed_code_|depyf_overview)")
COMMENTED_OUT = re.compile(r"^# \(.* is not valid Python; shown as comments\)$", re.M)


def not_compiling(files):
    """'path: error' for each of ``files`` that py_compile refuses, and for each of depyf's
    own files that compiles only because its text was written as comments."""
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(files):
            try:
                py_compile.compile(path, cfile=os.path.join(tmp, "%d.pyc" % i), doraise=True)
            except py_compile.PyCompileError as exc:
                bad.append("%s: %s" % (path, exc.msg.strip().splitlines()[-1]))
                continue
            if OWN_FILE.match(os.path.basename(path)):
                with open(path, encoding="utf-8") as f:
                    note = COMMENTED_OUT.search(f.read())
                if note:
                    bad.append("%s: written as comments: %s" % (path, note.group(0)))
    return bad


def assert_all_compile(root):
    files = dumped_py_files(root)
    assert files, "no dump files under %s" % root
    bad = not_compiling(files)
    assert not bad, "dump files that are not valid Python:\n" + "\n".join(bad)


# names of dump files, as overviews and headers write them
DUMP_LINK = re.compile(r"(?:__transformed_code_\w+|full_code_for_\w+|__compiled_fn_\d+\.\w+\.\d+|"
                       r"__compiled_fn_\d+\.kernel_\d+)\.py")


def dump_links(folder):
    """Every dump file name that ``folder``'s overview (``OVERVIEW``, as a literal) or one of
    its dump files names."""
    with open(os.path.join(folder, "depyf_overview.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    data = [ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
            and any(getattr(t, "id", None) == "OVERVIEW" for t in n.targets)][0]
    named = set()

    def collect(value):
        if isinstance(value, dict):
            for v in list(value.keys()) + list(value.values()):
                collect(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                collect(v)
        elif isinstance(value, str) and DUMP_LINK.fullmatch(value):
            named.add(value)

    collect(data)
    for name in os.listdir(folder):
        if DUMP_LINK.fullmatch(name):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                named.update(DUMP_LINK.findall(f.read()))
    return named


def assert_links_resolve(folder):
    missing = sorted(n for n in dump_links(folder) if not os.path.isfile(os.path.join(folder, n)))
    assert not missing, "%s names files that are not there: %s" % (folder, missing)


def assert_bitwise_equal(expected, got, what):
    assert len(expected) == len(got), "%s: %d vs %d tensors" % (what, len(expected), len(got))
    for i, (a, b) in enumerate(zip(expected, got)):
        assert a.dtype == b.dtype and a.shape == b.shape, "%s: tensor %d differs in dtype/shape" % (what, i)
        assert a.equal(b), "%s: tensor %d differs" % (what, i)


def run_python(args, cwd=None, env=None, timeout=600, **kwargs):
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = REPO + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable] + list(args), cwd=cwd, env=full_env, timeout=timeout,
        capture_output=True, text=True, **kwargs
    )


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


def make_two_rank_dump(tmp_path):
    """Run DIST_SCRIPT under torchrun with two ranks (gloo, loopback); returns the dump
    directory, which holds rank_0/ and rank_1/."""
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
    return dump
