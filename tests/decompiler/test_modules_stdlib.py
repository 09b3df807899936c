"""Every module of the stdlib corpus comes back whole from ``decompile_module``, proven
(its text compiled on its own, every code object in it checked against its original).

``KNOWN`` lists, per Python version, the modules that hold a def no reading of which is
proven yet (the stdlib round trip's own unproven items) or a module-level statement
read wrong; each is a strict xfail, so a fix forces the list to be updated.
"""
import sys

import pytest

import depyf
from depyf.equivalence import equivalent
from depyf.verify import stdlib_corpus

PY = "%d.%d" % sys.version_info[:2]

KNOWN = {}


def _params():
    known = KNOWN.get(PY, {})
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=known[name]))
            if name in known else name for name in stdlib_corpus.MODULES]


@pytest.mark.parametrize("name", _params())
def test_stdlib_module_is_proven(name):
    path, source, code = stdlib_corpus.compile_module(name)
    text = depyf.decompile_module(code)  # UnprovenError when any part is not proven
    recompiled = compile(text, path, "exec", dont_inherit=True)
    assert equivalent(code, recompiled, compare_name=False)


def test_known_names_real_modules():
    for modules in KNOWN.values():
        assert set(modules) <= set(stdlib_corpus.MODULES)
