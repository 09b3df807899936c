"""``depyf run`` where torch cannot be imported: a clear error, not a traceback."""
import importlib.util

import pytest


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed here")
def test_run_names_the_extra_to_install(depyf, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("print('ran')\n")
    r = depyf("run", str(script))
    assert r.rc == 1, r
    assert "ran" not in r.out
    assert "depyf run needs PyTorch" in r.err and "pip install depyf[torch]" in r.err, r
    assert "Traceback" not in r.err, r


def test_run_usage_errors(depyf):
    r = depyf("run")
    assert r.rc == 2 and "give the program to run" in r.err, r
    r = depyf("run", "--dump-dir")
    assert r.rc == 2 and "expected one argument" in r.err, r
    r = depyf("run", "--dump-dir", "", "x.py")
    assert r.rc == 2 and "--dump-dir is empty" in r.err, r
    r = depyf("run", "-h")
    assert r.rc == 0 and "depyf run [-h]" in r.out, r
