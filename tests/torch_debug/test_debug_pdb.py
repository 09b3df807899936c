"""debug(): a scripted pdb session stops at breakpoints in dump files and shows tensors.

Breakpoints in __transformed_code_* files are hit only when the decompiled code is the
running code, so those cases wait on the decompiler (they fail with the file's header
reason until then); the "stand-in" case uses the hand-written decompilation of
test_replacement.py to show the transformed-code path works now. Graph files: under the eager backend the Dynamo-captured graph is the
code that runs; under aot_eager it is AOTAutograd's forward graph (the captured graph is
only traced at compile time, never run).
"""
import os
import queue
import subprocess
import sys
import threading

import pytest

from breakpoints import targets
from support import HERE, REPO

CASES = [
    ("transformed", "aot_eager"),
    ("transformed", "aot_eager", "stand-in"),
    ("resume", "aot_eager", "stand-in"),
    ("resume", "aot_eager"),
    ("captured_graph", "eager"),
    ("forward_graph", "aot_eager"),
]


class PdbDriver:
    def __init__(self, args, env, cwd=None):
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd,
                                     stderr=subprocess.STDOUT, text=True, env=env, bufsize=0)
        self.chunks = queue.Queue()
        self.transcript = ""
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        while True:
            c = self.proc.stdout.read(1)
            if not c:
                self.chunks.put(None)
                return
            self.chunks.put(c)

    def read_until_prompt(self, timeout=240):
        """Text up to the next '(Pdb) ' prompt; None when the program ended."""
        buf = ""
        while not buf.endswith("(Pdb) "):
            c = self.chunks.get(timeout=timeout)
            if c is None:
                self.transcript += buf
                return None
            buf += c
        self.transcript += buf
        return buf

    def send(self, line):
        self.transcript += line + "\n"
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_pdb_stops_in_dump_file(case, tmp_path):
    kind, backend = case[:2]
    dump = str(tmp_path / "dump")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, HERE, os.environ.get("PYTHONPATH", "")]),
               PYTHONBREAKPOINT="pdb.set_trace", TORCHINDUCTOR_COMPILE_THREADS="1")
    pdb = PdbDriver([sys.executable, os.path.join(HERE, "debug_session.py"), dump, backend] + list(case[2:]), env)
    try:
        assert pdb.read_until_prompt() is not None, pdb.transcript[-3000:]  # debug()'s pause
        bps = targets(dump, kind)
        for path, line in bps:
            pdb.send("b %s:%d" % (path, line))
            pdb.read_until_prompt()
        pdb.send("c")
        stops = []
        for _ in range(20):
            out = pdb.read_until_prompt()
            if out is None:
                break
            if any(os.path.basename(p) in out for p, _ in bps):
                pdb.send("p sorted((k, type(v).__name__) for k, v in locals().items())")
                stops.append(pdb.read_until_prompt())
            pdb.send("c")
        pdb.proc.wait(timeout=120)
    finally:
        if pdb.proc.poll() is None:
            pdb.proc.kill()
    assert "DEBUG-SESSION-DONE True" in pdb.transcript, pdb.transcript[-3000:]
    assert stops, "no breakpoint in %s was hit:\n%s\n--- header of the file:\n%s" % (
        [os.path.basename(p) for p, _ in bps], pdb.transcript[-2000:],
        "".join(open(bps[0][0]).readlines()[:6]))
    assert any("'Tensor'" in s for s in stops), stops
