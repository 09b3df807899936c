"""Folder claims (depyf.torch_debug.folders), without compiling anything."""
import os
import warnings

import pytest

from depyf.report.dump import _SUBFOLDER
from depyf.torch_debug import folders

fcntl = pytest.importorskip("fcntl")


def _hold(folder):
    """Lock ``folder``'s lock file through another open file, as another process would."""
    os.makedirs(str(folder), exist_ok=True)
    fd = os.open(os.path.join(str(folder), folders.LOCK_NAME), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_held_folder_sends_this_process_to_its_fallback(tmp_path):
    root = tmp_path / "dump"
    fd = _hold(root)
    try:
        assert folders.claim(str(root)) is False
        assert folders.choose(str(root), "", 4242) == "process_4242"
        fd2 = _hold(root / "rank_1")
        try:
            assert folders.choose(str(root), "rank_1", 4242) == "rank_1_pid4242"
        finally:
            os.close(fd2)
        assert folders.choose(str(root), "", 4242) == "process_4242"  # ours now: kept
        assert folders.held_by_this_process(str(root / "process_4242"))
    finally:
        os.close(fd)
    assert folders.claim(str(root)) is True  # released by its holder: free


def test_fallback_names_are_found_by_the_report():
    for wanted in ("", "rank_3", "process_77"):
        names = list(folders.fallback_names(wanted, 77))[:3]
        assert wanted not in names
        assert all(_SUBFOLDER.match(n) for n in names), names


def test_a_file_system_without_locks_grants_the_claim_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(folders, "_try_lock", lambda fd: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert folders.claim(str(tmp_path / "nfs")) is True
    assert any("cannot be locked" in str(w.message) for w in caught)
