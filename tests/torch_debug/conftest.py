"""Fixtures for the torch.compile integration tests (the folder is skipped without torch:
nothing in it is collected). Helpers are in support.py."""
import os
import sys

import pytest

try:  # without torch the whole folder is skipped (not collected)
    import torch  # noqa: F401
except Exception:
    collect_ignore_glob = ["*.py"]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="session")
def dump_root(tmp_path_factory):
    """One folder holding every in-process workload's dump (the fallback count reads it)."""
    return str(tmp_path_factory.mktemp("dumps"))


@pytest.fixture
def no_pause(monkeypatch):
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")


RUNS_LAST = "test_every_dump_file_of_the_suite_compiles"


def pytest_collection_modifyitems(session, config, items):
    """The walk over every dump directory runs after the tests that write them."""
    items.sort(key=lambda item: item.name == RUNS_LAST)


RESULT_FILE = "DEPYF_TORCH_RESULT"  # the torch matrix's result of this run goes there (JSON)
_STARTED = []


def pytest_sessionstart(session):
    import time

    _STARTED.append(time.time())


def pytest_terminal_summary(terminalreporter, exitstatus):
    import platform

    import support

    if support.SUMMARY:
        import torch

        terminalreporter.section("torch %s, Python %s" % (torch.__version__, platform.python_version()))
        for line in support.SUMMARY:
            terminalreporter.write_line(line)
    if os.environ.get(RESULT_FILE):
        _write_result(os.environ[RESULT_FILE], terminalreporter, exitstatus)


def _write_result(path, terminalreporter, exitstatus):
    """The run's outcome counts, the figures the tests summarized (fallbacks, decompile
    proofs, the dump walk), its duration and versions: what the torch matrix table shows."""
    import datetime
    import json
    import platform
    import time

    import support
    import torch

    outcomes = {key: len(terminalreporter.stats.get(key, ()))  # as pytest's last line counts
                for key in ("passed", "failed", "skipped", "xfailed", "xpassed", "error")}
    result = {"torch": torch.__version__, "python": platform.python_version(),
              "exit_status": int(exitstatus), "outcomes": outcomes, "figures": dict(support.FIGURES),
              "test_seconds": round(time.time() - _STARTED[0], 1) if _STARTED else None,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
