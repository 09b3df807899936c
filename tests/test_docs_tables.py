"""tools/docs_tables.py: the measurement pages match their data, every generated block of a
page has data, rows kept per key are replaced one key at a time, and a torch matrix
session's output or result file gives its row."""
import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import docs_matrix  # noqa: E402
import docs_tables  # noqa: E402


def test_measurement_tables_are_up_to_date_with_their_data():
    """(The ``cli`` block is argparse's help, which differs between Python versions: the nox
    ``docs`` session checks it on its own interpreter.)"""
    for path in docs_tables.pages():
        text = open(path, encoding="utf-8").read()
        for match in docs_tables.BLOCK.finditer(text):
            if match.group(2) in docs_tables.MEASUREMENTS:
                wanted = "\n".join(docs_tables.generate(match.group(2))) + "\n"
                assert match.group(3) == wanted, "%s: run python tools/docs_tables.py" % path


def test_every_generated_block_has_data():
    for path in docs_tables.pages():
        text = open(path, encoding="utf-8").read()
        for match in docs_tables.BLOCK.finditer(text):
            name = match.group(2)
            assert name in docs_tables.OTHER_BLOCKS or name in docs_tables.MEASUREMENTS, (path, name)
            assert "Not measured yet" not in match.group(3), (path, name)


def _matrix_row(session, passed):
    return {"session": session, "torch": "2.9.1", "python": "3.11.7",
            "outcomes": dict.fromkeys(docs_matrix.OUTCOMES, passed), "figures": {},
            "test_seconds": None, "session_seconds": None, "nox": "was successful",
            "recorded": {"date": "2026-01-01", "depyf": "abc1234", "machine": "m", "command": None}}


def test_rows_kept_per_key_are_replaced_one_key_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(docs_tables, "DATA", str(tmp_path))
    docs_tables._merge("torch-matrix", [_matrix_row("torch-2.9", 1), _matrix_row("torch-2.8", 1)])
    newer = _matrix_row("torch-2.9", 2)
    newer["recorded"]["depyf"] = "def5678"
    docs_tables._merge("torch-matrix", [newer])
    rows = json.load(open(os.path.join(str(tmp_path), "torch-matrix.json")))["rows"]
    assert [(r["session"], r["recorded"]["depyf"]) for r in rows] == [
        ("torch-2.8", "abc1234"), ("torch-2.9", "def5678")]
    block = "\n".join(docs_tables.measurement_block("torch-matrix"))
    assert "| 2.9.1 | 3.11.7 | `torch-2.9` | **passed** |" in block


LOG = """nox > Running session torch-2.9
nox > python -m pytest tests/torch_debug/test_workloads.py -q -ra
.....ssx.F                                                               [100%]
======================= torch 2.9.1+cu128, Python 3.11.7 =======================
transformed/resume code objects: 60 decompiled and running, 2 fell back to Dynamo's bytecode
depyf.decompile on Dynamo's generated code objects: 60 of 62 proven
walked 50 dump directories, 460 .py files, 0 not valid Python
=========================== short test summary info ============================
FAILED tests/torch_debug/test_example.py::test_readme_example
1 failed, 61 passed, 6 skipped, 2 xfailed, 4 warnings in 125.76s (0:02:05)
nox > Session torch-2.9 failed.
"""


def test_a_matrix_row_from_a_session_output(tmp_path):
    log = tmp_path / "torch-2.9.log"
    log.write_text(LOG)
    (tmp_path / "summary").write_text("torch-2.9 rc=1 342s 19:31\n")
    row = docs_matrix.matrix_row(str(log))
    assert (row["session"], row["torch"], row["python"], row["nox"]) == (
        "torch-2.9", "2.9.1+cu128", "3.11.7", "failed")
    assert row["outcomes"] == {"passed": 61, "failed": 1, "skipped": 6, "xfailed": 2,
                               "xpassed": 0, "error": 0}
    assert row["figures"] == {"decompiled_and_running": 60, "fell_back": 2,
                              "decompile_proven": 60, "decompile_generated": 62}
    assert (row["test_seconds"], row["session_seconds"]) == (125.76, 342.0)


def test_a_matrix_row_from_the_result_file_the_tests_write(tmp_path):
    log = tmp_path / "torch-2.9.log"
    log.write_text("nox > Session torch-2.9 was successful in 4 minutes.\n")
    result = tmp_path / "torch-2.9.json"
    result.write_text(json.dumps({
        "torch": "2.9.1", "python": "3.11.7", "exit_status": 0,
        "outcomes": {"passed": 66, "failed": 0, "skipped": 0, "xfailed": 0, "xpassed": 0, "error": 0},
        "figures": {"decompiled_and_running": 71, "fell_back": 0, "decompile_proven": 70,
                    "decompile_generated": 70},
        "test_seconds": 120.0, "date": "2026-01-01 10:00 UTC"}))
    row = docs_matrix.matrix_row(str(log), str(result))
    assert row["outcomes"]["passed"] == 66 and row["figures"]["decompile_generated"] == 70
    assert (row["nox"], row["session_seconds"]) == ("was successful", 240.0)


@pytest.mark.parametrize("name", ["compile-overhead", "deep-model", "cpython-tests",
                                  "torch-source-corpus", "torch-matrix"])
def test_each_measurement_has_a_page(name):
    marker = "<!-- generated: %s -->" % name
    assert any(marker in open(p, encoding="utf-8").read() for p in docs_tables.pages()), name


def test_the_rows_of_a_record_run(tmp_path):
    """What ``record torch-matrix`` leaves in its folder per session: the output, the
    result file and the session's duration and exit status."""
    (tmp_path / "torch-2.9.log").write_text(LOG)
    (tmp_path / "torch-2.9.json").write_text(json.dumps({
        "torch": "2.9.1", "python": "3.11.7", "exit_status": 1,
        "outcomes": {"passed": 61, "failed": 1, "skipped": 6, "xfailed": 2, "xpassed": 0, "error": 0},
        "figures": {"decompiled_and_running": 60, "fell_back": 2}, "test_seconds": 125.0,
        "date": "2026-01-01 10:00 UTC"}))
    (tmp_path / "torch-2.9.meta").write_text(json.dumps({"session_seconds": 400.0, "exit_status": 1}))
    [row] = docs_matrix.matrix_reduce(str(tmp_path))
    assert (row["command"], row["session_seconds"], row["nox"]) == ("nox -s torch-2.9", 400.0, "failed")
    assert row["torch"] == "2.9.1" and row["test_seconds"] == 125.0


def test_no_row_from_a_session_whose_tests_did_not_run(tmp_path):
    log = tmp_path / "torch-2.10.log"
    log.write_text("nox > python -m pip install torch==2.10.0\nnox > Session torch-2.10 failed.\n")
    assert docs_matrix.matrix_row(str(log)) is None
