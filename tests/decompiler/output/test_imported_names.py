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
    # the module's import decides, whatever the name is in the function (tokenize's
    # local `token` beside the module's `import token`)
    ("import token\ndef f(token):\n    return token.endswith(1)\n", "f", {"token"}),
    ("import token\ndef f(x):\n    token = x\n    def g():\n        return token.strip()\n"
     "    return g\n", "f", {"token"}),  # a cell
    ("def f(token):\n    return token.endswith(1)\n", "f", set()),  # a local, not imported
    # `x.f(*a)` reads f plain whatever x is; a method call on x elsewhere shows x is not
    # the module's import
    ("def f(x, a):\n    x.f(*a)\n    return x.g()\n", "f", set()),
    ("def f(a):\n    m.f(*a)\n    return m.g()\n", "f", set()),
]


def _function(src, name):
    code = compile(src, "<case>", "exec")
    return next(c for c in code.co_consts if getattr(c, "co_name", None) == name)


@pytest.mark.parametrize("src, name, expected", CASES, ids=[c[0].split("\n")[-2].strip() for c in CASES])
def test_imported_names(src, name, expected):
    if not V.LOAD_GLOBAL_NULL_BIT:
        expected = set()  # up to 3.10 every such call is a method call: nothing shows
    assert imported_names(_function(src, name)) == expected


def test_local_named_like_an_import_proves_bytecode_equal():
    """The proof recompiles the text with the module's import around it, so that the
    plain attribute call stays one (no product-machine run needed)."""
    from depyf.decompiler.api import Decompiler

    d = Decompiler(_function("import token\ndef f(token):\n    return token.endswith(1)\n", "f"))
    d.decompile()
    assert d.verdict.how == "bytecode-equal"
