"""Run test modules in a fresh interpreter (``child.py``) and read back each test's outcome.

The child runs the interpreter that runs depyf (``sys.executable``) with ``-S -s -B -X
frozen_modules=off``: no ``site`` (a virtual environment's ``.pth`` files import modules
before the folder under test is on the path), no user site, no ``.pyc`` written, and
3.11+'s frozen standard modules read from their files, so that a copy in the folder
under test can stand in for them (older versions ignore the unknown ``-X`` option). Its
environment is this one without ``PYTHON*`` variables, with ``PYTHONHASHSEED=0``; it runs
in its own empty working folder, in a process group of its own, killed at ``timeout``.
"""
import marshal
import os
import shutil
import signal
import subprocess
import sys
import time

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
FLAGS = ["-S", "-s", "-B", "-X", "frozen_modules=off"]
# Outcomes from the least to the most severe: a test's outcome is the most severe one
# recorded for it (its own and its subtests'); a skipped subtest does not hide a pass.
SEVERITY = ["skip", "pass", "xfail", "xpass", "fail", "error", "timeout", "missing"]


class Run:
    """One child run: ``outcomes`` {test id: kind}, ``details`` {test id: first failure
    line}, ``imports`` [(module, file)] as imported, ``loaded`` [(module, __file__)] of
    the targets in ``sys.modules`` at the end, ``preloaded`` targets imported before the
    recorder, ``fatal`` (the harness in the child failed), ``timed_out`` and ``running``
    (the test that was running when the run was killed), ``durations`` {test id:
    seconds}, ``returncode``, ``seconds``,
    ``log`` (the end of its output)."""

    def __init__(self):
        self.outcomes = {}
        self.details = {}
        self.durations = {}
        self.imports = []
        self.loaded = []
        self.preloaded = []
        self.fatal = None
        self.done = False
        self.timed_out = False
        self.running = None
        self.returncode = None
        self.seconds = 0.0
        self.log = ""

    def add(self, item):
        kind = item[0]
        if kind == "start":
            self.running = item[1]
        elif kind == "outcome":
            test, outcome, detail = item[1:4]
            if len(item) > 4:
                self.durations[test] = self.durations.get(test, 0.0) + item[4]
            old = self.outcomes.get(test)
            if old is None or SEVERITY.index(outcome) > SEVERITY.index(old):
                self.outcomes[test] = outcome
                if detail:
                    self.details[test] = detail
            if test == self.running:
                self.running = None
        elif kind == "import":
            self.imports.append((item[1], item[2]))
        elif kind == "loaded":
            self.loaded.append((item[1], item[2]))
        elif kind == "preloaded":
            self.preloaded.append(item[1])
        elif kind == "fatal":
            self.fatal = item[1]
        elif kind == "done":
            self.done = True
            self.running = None

    def summary(self):
        counts = {}
        for outcome in self.outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        return {"seconds": round(self.seconds, 1), "returncode": self.returncode,
                "timed_out": self.timed_out, "running_at_timeout": self.running,
                "fatal": self.fatal, "completed": self.done, "counts": counts}


def child_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_tests(workdir, tests, targets, lib=None, test_dir=None, timeout=600.0, per_test=120.0,
              python=None, limits=None):
    """Run the test modules ``tests`` in a child; returns a ``Run``. ``workdir`` (created
    empty) holds the arguments, the records, the log and the child's working folder.
    Each test may take ``per_test`` seconds, or ``limits[test id]``."""
    if os.path.exists(workdir):
        shutil.rmtree(workdir)
    cwd = os.path.join(workdir, "cwd")
    os.makedirs(cwd)
    args_path = os.path.join(workdir, "args.marshal")
    out = os.path.join(workdir, "records.marshal")
    script = os.path.join(workdir, "child.py")
    shutil.copyfile(CHILD, script)  # its folder becomes sys.path[0]: nothing else in it
    with open(args_path, "wb") as f:
        marshal.dump({"lib": lib, "test_dir": test_dir, "targets": list(targets),
                      "test_root": os.path.dirname(test_dir) if test_dir else None,
                      "tests": list(tests), "per_test": float(per_test or 0), "out": out,
                      "limits": dict(limits or {})}, f)
    log_path = os.path.join(workdir, "log.txt")
    run = Run()
    start = time.perf_counter()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([python or sys.executable] + FLAGS + [script, args_path],
                                cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            run.returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            _kill(proc)
            run.returncode = proc.wait()
    run.seconds = time.perf_counter() - start
    _read_records(out, run)
    if run.timed_out and run.running is not None:
        run.outcomes[run.running] = "timeout"
        run.details[run.running] = "the test module ran past its limit of %g s here" % timeout
    elif not run.done and run.running is not None:
        run.outcomes[run.running] = "error"
        run.details[run.running] = "the child process ended here (exit status %s)" % run.returncode
    with open(log_path, "rb") as f:
        run.log = f.read()[-3000:].decode("utf-8", "replace")
    return run


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


def _read_records(path, run):
    if not os.path.exists(path):
        return
    with open(path, "rb") as f:
        while True:
            try:
                item = marshal.load(f)
            except (EOFError, ValueError, TypeError):  # the end, or a record cut short
                break
            run.add(item)
