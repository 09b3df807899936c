"""What a dump file's header says about breakpoints is what a real pdb
session under debug() does, for each backend.

A breakpoint is set at the last statement of the function in every transformed-code file
and every Captured/Forward/Backward graph file; the program runs under debug() with a
backward pass; then a file's header says "breakpoints ... are hit" exactly when pdb stopped
in it. Measured (torch 2.13 CPU): transformed code runs under every backend; the captured
graph runs under eager; AOTAutograd's forward and backward graphs under aot_eager; under
inductor no graph file runs.
"""
import glob
import os
import re
import sys

import pytest

from breakpoints import last_statement_line
from support import HERE, REPO
from test_debug_pdb import PdbDriver

CLAIMS = ("breakpoints here are hit", "breakpoints set in this file are hit")
EXPECTED_RUNNING = {
    "eager": {"Captured_Graph"},
    "aot_eager": {"Forward_graph", "Backward_graph"},
    "inductor": set(),
}


def _files(dump):
    names = glob.glob(os.path.join(dump, "__transformed_code_*.py"))
    for stage in ("Captured_Graph", "Forward_graph", "Backward_graph"):
        names += glob.glob(os.path.join(dump, "__compiled_fn_*.%s.*.py" % stage))
    return sorted(names)


def _claims_hit(path):
    header = "".join(line for line in open(path).readlines()[:12] if line.startswith("#"))
    return any(c in header for c in CLAIMS)


def _run_pdb(dump, backend):
    """{file name: stopped there?} for a debug() session with breakpoints in every file."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, HERE, os.environ.get("PYTHONPATH", "")]),
               PYTHONBREAKPOINT="pdb.set_trace", TORCHINDUCTOR_COMPILE_THREADS="1")
    pdb = PdbDriver([sys.executable, os.path.join(HERE, "debug_session.py"), dump, backend, "grad"], env)
    hits = {}
    try:
        assert pdb.read_until_prompt() is not None, pdb.transcript[-3000:]
        for path in _files(dump):
            prefix = "forward" if "__compiled_fn_" in path else "__transformed_code_"
            hits[os.path.basename(path)] = False
            pdb.send("b %s:%d" % (path, last_statement_line(path, prefix)))
            pdb.read_until_prompt()
        pdb.send("c")
        for _ in range(80):
            out = pdb.read_until_prompt()
            if out is None:
                break
            for name in hits:
                if "%s(" % name in out:
                    hits[name] = True
            pdb.send("c")
        pdb.proc.wait(timeout=240)
    finally:
        if pdb.proc.poll() is None:
            pdb.proc.kill()
    assert "DEBUG-SESSION-DONE True" in pdb.transcript, pdb.transcript[-3000:]
    return hits


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_headers_say_where_breakpoints_are_hit(backend, tmp_path):
    dump = str(tmp_path / "dump")
    hits = _run_pdb(dump, backend)
    wrong = ["%s: header %s, pdb %s" % (name, "claims hit" if _claims_hit(os.path.join(dump, name))
                                        else "claims not hit", "stopped" if hit else "never stopped")
             for name, hit in sorted(hits.items()) if hit != _claims_hit(os.path.join(dump, name))]
    assert not wrong, "\n".join(wrong)
    running = {name.split(".")[1] for name, hit in hits.items() if hit and name.startswith("__compiled_fn_")}
    assert running == EXPECTED_RUNNING[backend], (running, hits)
    assert all(hit for name, hit in hits.items() if name.startswith("__transformed_code_")), hits


def test_documented_breakpoint_command_works_in_pdb(tmp_path):
    """The step-through guide's ``b dump_src_dir/<file>:<line>``, typed as written
    from the folder that holds ``dump_src_dir`` (pdb alone looks relative names up only
    along sys.path, where the dump folder is not), stops there."""
    guide = open(os.path.join(REPO, "docs", "guides", "step-through.md")).read()
    m = re.search(r"^\(Pdb\) (b (dump_src_dir/__transformed_code_0_for_toy_example\.py):(\d+))$", guide, re.M)
    assert m, "the step-through guide shows no `(Pdb) b dump_src_dir/...:<line>` command"
    command, rel, line = m.group(1), m.group(2), int(m.group(3))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, HERE, os.environ.get("PYTHONPATH", "")]),
               PYTHONBREAKPOINT="pdb.set_trace", TORCHINDUCTOR_COMPILE_THREADS="1")
    pdb = PdbDriver([sys.executable, os.path.join(HERE, "debug_session.py"), "dump_src_dir", "eager"], env,
                    cwd=str(tmp_path))
    try:
        assert pdb.read_until_prompt() is not None, pdb.transcript[-3000:]
        pdb.send(command)
        answer = pdb.read_until_prompt()
        assert "Breakpoint 1 at" in answer, answer
        pdb.send("c")
        stop = pdb.read_until_prompt()
        assert stop is not None, pdb.transcript[-3000:]
        pdb.send("p __file__ if False else (__name__, sorted(locals()))")
        pdb.read_until_prompt()
        pdb.send("c")
        while pdb.read_until_prompt() is not None:
            pdb.send("c")
        pdb.proc.wait(timeout=240)
    finally:
        if pdb.proc.poll() is None:
            pdb.proc.kill()
    path = str(tmp_path / rel)
    assert "> %s(%d)" % (path, line) in stop, stop
    assert "DEBUG-SESSION-DONE True" in pdb.transcript, pdb.transcript[-3000:]
