"""Run ``python -m depyf`` as a user would: a subprocess, this checkout first on the path.
No subprocesses under WebAssembly (3.14 via pyodide): every test here is skipped there."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NO_SUBPROCESS = sys.platform == "emscripten"


def pytest_collection_modifyitems(config, items):
    if NO_SUBPROCESS:
        skip = pytest.mark.skip(reason="no subprocesses under WebAssembly (3.14 via pyodide)")
        here = os.path.dirname(os.path.abspath(__file__))
        for item in items:
            if str(item.fspath).startswith(here):
                item.add_marker(skip)


class Result:
    def __init__(self, proc):
        self.rc, self.out, self.err = proc.returncode, proc.stdout, proc.stderr

    def __repr__(self):
        return "<rc=%s\nstdout:\n%s\nstderr:\n%s>" % (self.rc, self.out, self.err)


def run_python(args, cwd=None, env=None, timeout=120):
    """``python ARGS`` with this checkout importable; a ``Result``."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [ROOT] + ([full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else []))
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    proc = subprocess.run([sys.executable] + list(args), cwd=cwd or ROOT, env=full_env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    return Result(proc)


@pytest.fixture
def depyf():
    """``depyf(*args, cwd=None, env=None)``: ``python -m depyf ARGS``."""
    def run(*args, **kwargs):
        return run_python(["-m", "depyf"] + list(args), **kwargs)
    return run


@pytest.fixture
def python():
    return run_python
