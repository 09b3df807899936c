"""output/prove_module.py and the module entry points: a module's text is proven as a
whole, every code object in it against its original, and what is not proven is named,
refused, or (asked for) marked. The check is fed wrong texts, each wrong in one place."""
import textwrap

import pytest

import depyf
from depyf.decompiler.output.prove_module import prove_module
from depyf.errors import UnprovenError

ORIGINAL = textwrap.dedent('''\
    """A module."""
    import os
    LIMIT = 3


    def top(a):
        return a + LIMIT


    class Box:
        size = 2

        def get(self, key):
            return [k for k in key if k]


    def outer(x):
        def inner(y):
            return x + y
        return inner
''')

CODE = compile(ORIGINAL, "m", "exec")


def _wrong(old, new):
    assert old in ORIGINAL
    return ORIGINAL.replace(old, new)


def test_the_source_itself_is_proven():
    verdict = prove_module(CODE, ORIGINAL)
    assert verdict and verdict.unproven == [] and verdict.reason is None


@pytest.mark.parametrize("old, new, where", [
    ("return a + LIMIT", "return a - LIMIT", "top"),
    ("return [k for k in key if k]", "return [k for k in key if not k]", "Box.get"),
    ("return x + y", "return y + x", "outer.<locals>.inner"),
    ("    size = 2", "    size = 3", "Box"),
    ("LIMIT = 3", "LIMIT = 4", "<module>"),
    ('"""A module."""', '"""Another module."""', "<module>"),
    ("    return inner", "    return None", "outer"),
])
def test_one_wrong_place_is_named(old, new, where):
    verdict = prove_module(CODE, _wrong(old, new))
    assert not verdict
    assert [note.split(":")[0] for note in verdict.reason.split("; ")] == [where]


def test_two_wrong_places_are_both_named():
    text = _wrong("return a + LIMIT", "return a * LIMIT").replace("LIMIT = 3", "LIMIT = 5")
    verdict = prove_module(CODE, text)
    assert sorted(n.split(":")[0] for n in verdict.reason.split("; ")) == ["<module>", "top"]


def test_a_missing_function_is_the_parent_s_difference():
    verdict = prove_module(CODE, _wrong("    def inner(y):\n        return x + y\n"
                                        "    return inner", "    return x"))
    assert not verdict and verdict.reason.split(":")[0] == "outer"


def test_text_that_does_not_compile():
    verdict = prove_module(CODE, ORIGINAL + "\ndef (:\n")
    assert not verdict and "does not compile" in verdict.reason


def test_future_flags_are_not_lent_to_the_text():
    # the text must carry its own `from __future__ import annotations`
    source = "from __future__ import annotations\ndef f(a: int): pass\n"
    code = compile(source, "m", "exec")
    assert prove_module(code, source)
    assert not prove_module(code, source.replace("from __future__ import annotations\n", ""))


# ---- the entry points ----------------------------------------------------------------

def _unproven_module(monkeypatch):
    """decompile_module with a reading that gets ``top`` wrong (the stages are right:
    the printed tree is changed before the proof)."""
    import ast
    import depyf.decompiler.modules as modules

    real = modules.unparse

    def wrong_unparse(tree, indentation=4):
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and \
                    isinstance(node.left, ast.Name) and node.left.id == "a":
                node.op = ast.Sub()
        return real(tree, indentation)

    monkeypatch.setattr(modules, "unparse", wrong_unparse)


def test_decompile_module_refuses_what_is_not_proven(monkeypatch):
    assert 'A module.' in depyf.decompile_module(CODE).splitlines()[0]
    _unproven_module(monkeypatch)
    with pytest.raises(UnprovenError, match=r"top: ") as err:
        depyf.decompile_module(CODE)
    assert [u.code.co_name for u in err.value.verdict.unproven] == ["top"]
    assert "a - LIMIT" in err.value.source


def test_allow_unproven_marks_the_def_that_is_not_proven(monkeypatch):
    _unproven_module(monkeypatch)
    text = depyf.decompile_module(CODE, allow_unproven=True)
    lines = text.splitlines()
    k = lines.index("def top(a):")
    assert lines[k - 1].startswith("# depyf: NOT PROVEN to do what the bytecode does: top: ")
    assert sum("NOT PROVEN" in line for line in lines) == 1
    compile(text, "<marked>", "exec")


def test_allow_unproven_marks_the_module_on_its_first_line(monkeypatch):
    import depyf.decompiler.modules as modules
    real = modules.unparse
    monkeypatch.setattr(modules, "unparse",
                        lambda tree, indentation=4: real(tree, indentation).replace("LIMIT = 3", "LIMIT = 4"))
    text = depyf.decompile_module(CODE, allow_unproven=True)
    assert text.startswith("# depyf: NOT PROVEN to do what the bytecode does: <module>: ")


def test_decompiler_and_decompile_take_a_module_code_object():
    text = depyf.Decompiler(CODE).decompile()
    assert text == depyf.decompile(CODE) == depyf.decompile_module(CODE)
    d = depyf.Decompiler(CODE)
    d.decompile()
    assert d.verdict
