"""The documentation's examples that need torch (marked ``<!-- test: run torch -->``; see
tests/docs_blocks.py), run as written: in a folder with a copy of examples/, with ``depyf``
and ``python`` on PATH being this interpreter."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import docs_blocks  # noqa: E402

BLOCKS = docs_blocks.blocks({"run torch"})


def test_there_are_torch_examples():
    assert BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_torch_example_runs(block, tmp_path):
    proc = docs_blocks.run(block, tmp_path)
    assert proc.returncode == 0, "%s\n--- stdout\n%s\n--- stderr\n%s" % (
        block.text, proc.stdout[-3000:], proc.stderr[-3000:])
    if "depyf run --report" in block.text:
        assert os.path.isfile(os.path.join(str(tmp_path), "dump_src_dir", "index.html"))
