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


def pytest_terminal_summary(terminalreporter):
    import platform

    import support

    if support.SUMMARY:
        import torch

        terminalreporter.section("torch %s, Python %s" % (torch.__version__, platform.python_version()))
        for line in support.SUMMARY:
            terminalreporter.write_line(line)
