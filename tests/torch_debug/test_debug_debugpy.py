"""debug() through debugpy (the engine VS Code uses), with this test as the DAP client over
a socket on 127.0.0.1: setBreakpoints on a dump file, continue, stackTrace, variables.

As in the pdb tests, breakpoints in __transformed_code_* files need the decompiled code to
be the running code (they wait on the decompiler until then); the "stand-in" case uses the
hand-written decompilation of test_replacement.py to show that path works now."""
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from breakpoints import targets
from support import HERE, REPO

debugpy = pytest.importorskip("debugpy")


class DapClient:
    def __init__(self, port, timeout=240):
        deadline = time.time() + 60
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.3)
        self.buf = b""
        self.seq = 0
        self.events = []

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.seq

    def _read_message(self):
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("debug adapter closed the connection")
            self.buf += chunk
        header, _, rest = self.buf.partition(b"\r\n\r\n")
        length = int([h for h in header.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("debug adapter closed the connection")
            rest += chunk
        self.buf = rest[length:]
        return json.loads(rest[:length])

    def response(self, seq):
        while True:
            msg = self._read_message()
            if msg.get("type") == "response" and msg.get("request_seq") == seq:
                return msg
            if msg.get("type") == "event":
                self.events.append(msg)

    def request(self, command, **arguments):
        return self.response(self.send(command, **arguments))

    def wait_event(self, *names):
        for i, ev in enumerate(self.events):
            if ev["event"] in names:
                return self.events.pop(i)
        while True:
            msg = self._read_message()
            if msg.get("type") == "event":
                if msg["event"] in names:
                    return msg
                self.events.append(msg)


CASES = [("transformed", "aot_eager"), ("transformed", "aot_eager", "stand-in"), ("captured_graph", "eager")]


@pytest.mark.parametrize("case", CASES, ids=["-".join(c) for c in CASES])
def test_debugpy_client_hits_breakpoint_in_dump_file(case, tmp_path):
    kind, backend = case[:2]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dump = str(tmp_path / "dump")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, HERE, os.environ.get("PYTHONPATH", "")]),
               TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("PYTHONBREAKPOINT", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugpy", "--listen", "127.0.0.1:%d" % port, "--wait-for-client",
         os.path.join(HERE, "debug_session.py"), dump, backend] + list(case[2:]),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    hits = []
    finished = False
    try:
        dap = DapClient(port)
        dap.request("initialize", adapterID="python", clientID="depyf-test", linesStartAt1=True,
                    columnsStartAt1=True, pathFormat="path")
        attach = dap.send("attach", justMyCode=False)
        dap.wait_event("initialized")
        dap.request("configurationDone")
        dap.response(attach)
        stopped = dap.wait_event("stopped")  # debug()'s pause
        bps = targets(dump, kind)
        by_file = {}
        for path, line in bps:
            by_file.setdefault(path, []).append({"line": line})
        for path, lines in by_file.items():
            dap.request("setBreakpoints", source={"path": path}, breakpoints=lines)
        thread = stopped["body"]["threadId"]
        dap.request("continue", threadId=thread)
        for _ in range(10):
            ev = dap.wait_event("stopped", "terminated", "exited")
            if ev["event"] != "stopped":
                break
            thread = ev["body"]["threadId"]
            trace = dap.request("stackTrace", threadId=thread, startFrame=0, levels=1)
            if not trace.get("success", True) or not trace.get("body", {}).get("stackFrames"):
                # under load a stop can be reported for a thread that already runs on
                # ("not suspended"): the next stopped event is the one to look at
                continue
            frame = trace["body"]["stackFrames"][0]
            path = frame.get("source", {}).get("path", "")
            if os.path.realpath(path) in {os.path.realpath(p) for p in by_file}:
                scopes = dap.request("scopes", frameId=frame["id"])["body"]["scopes"]
                local = [s for s in scopes if s["name"].lower().startswith("local")][0]
                variables = dap.request("variables", variablesReference=local["variablesReference"])["body"]["variables"]
                hits.append((os.path.basename(path), frame["line"],
                             {v["name"]: v.get("type") for v in variables}))
                if len(hits) >= 2:
                    break
            dap.request("continue", threadId=thread)
        dap.send("disconnect", terminateDebuggee=True)
        finished = True
    finally:
        if not finished:  # a failed step leaves the debuggee paused: end it now
            proc.kill()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert hits, "no breakpoint in %s was hit (header: %s)" % (
        [os.path.basename(p) for p, _ in bps], "".join(open(bps[0][0]).readlines()[:5]))
    assert any("Tensor" in types.values() for _, _, types in hits), hits
