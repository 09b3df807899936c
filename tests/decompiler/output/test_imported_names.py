"""depyf.decompiler.output.prove.imported_names: which globals the bytecode shows the
module imported (3.11+ calls ``mod.f()`` on an imported name as an attribute load, not a
method load), so that the proof rebuilds those imports around the text."""
import pytest

from depyf.bytecode import versions as V
from depyf.decompiler.output.prove import imported_names

CASES = [
    # module source, the function's name, the imports it shows (3.11/3.12)
    ("import os\ndef f(x):\n    return os.f(x)\n", "f", {"os"}),
    ("def f(x):\n    return g.f(x)\n", "f", set()),  # not imported: a method call
    ("import os\ndef f(x):\n    return os.path\n", "f", set()),  # no call: nothing to tell
    ("import os, re\ndef f(x):\n    def h():\n        return re.sub(x)\n    return os.f(h)\n", "f",
     {"os", "re"}),  # nested code counts too
    ("from os import path\ndef f(x):\n    return path.join(x)\n", "f", {"path"}),
]


def _function(src, name):
    code = compile(src, "<case>", "exec")
    return next(c for c in code.co_consts if getattr(c, "co_name", None) == name)


@pytest.mark.parametrize("src, name, expected", CASES, ids=[c[0].split("\n")[-2].strip() for c in CASES])
def test_imported_names(src, name, expected):
    if not V.LOAD_GLOBAL_NULL_BIT:
        expected = set()  # up to 3.10 every such call is a method call: nothing shows
    assert imported_names(_function(src, name)) == expected
