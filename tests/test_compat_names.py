"""The public names of the original depyf import here (with and without torch), and the
compatibility table of the documentation (docs/compatibility.md) lists every one of them."""
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the original's public names: its __init__ and its submodules
ORIGINAL_NAMES = ["decompile", "Decompiler", "prepare_debug", "debug", "install", "uninstall",
                  "optimization", "utils", "__version__"]
NOT_PROVIDED = ["explain", "code_transform"]
ALSO_LISTED = ["decompiler"] + NOT_PROVIDED

IMPORTS = """
import sys
{block}
from depyf import decompile, Decompiler, prepare_debug, debug, install, uninstall, optimization, utils, __version__
import depyf, depyf.optimization, depyf.utils
from depyf.optimization import TorchCompileWrapperWithCustomDispatcher
from depyf.utils import (safe_create_directory, get_function_signature, collect_all_code_objects,
                         get_code_owner, decompile_ensure)
assert isinstance(__version__, str) and __version__
assert depyf.optimization is optimization and depyf.utils is utils
for name in {names!r}:
    assert getattr(depyf, name) is not None, name
print("torch" in sys.modules)
"""

# a torch package that cannot be imported, first on sys.path
NO_TORCH = """
import os, tempfile
d = tempfile.mkdtemp()
os.mkdir(os.path.join(d, "torch"))
open(os.path.join(d, "torch", "__init__.py"), "w").write("raise ImportError('no torch here')")
sys.path.insert(0, d)
"""


NO_SUBPROCESS = pytest.mark.skipif(
    sys.platform == "emscripten", reason="no subprocesses under WebAssembly (3.14 via pyodide)")


def _run(block):
    code = IMPORTS.format(block=block, names=ORIGINAL_NAMES)
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


@NO_SUBPROCESS
def test_every_public_name_of_the_original_imports_without_torch():
    proc = _run(NO_TORCH)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"  # nothing imported torch


@NO_SUBPROCESS
def test_torch_features_say_torch_is_missing_when_used():
    proc = _run(NO_TORCH + "\nimport depyf\n"
                "try:\n    depyf.prepare_debug('x')\nexcept ImportError as e:\n"
                "    print(type(e).__name__)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "TorchNotAvailableError"


COMPATIBILITY_PAGE = os.path.join(REPO, "docs", "compatibility.md")


def _table_rows():
    text = open(COMPATIBILITY_PAGE, encoding="utf-8").read()
    tables = re.findall(r"(?m)^\|.*\|$", text)
    assert len([row for row in tables if set(row) <= set("|-: ")]) == 1, "one table on the page"
    return [row.split("|")[1] for row in tables[2:]]  # (header and rule left out)


def test_the_compatibility_page_has_one_table_naming_every_name():
    first_cells = _table_rows()
    assert first_cells
    listed = " ".join(first_cells)
    for name in ORIGINAL_NAMES + ALSO_LISTED:
        assert re.search(r"`depyf\.%s\b" % re.escape(name), listed), name
    for name in NOT_PROVIDED:
        row = [r for r in first_cells if "`depyf.%s`" % name in r or "`depyf.%s " % name in r]
        assert row, name
    readme = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
    assert "docs/compatibility.md" in readme  # the front door links to the table
