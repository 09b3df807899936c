"""depyf.decompiler.modules: a whole module decompiled, without a proof per def (the
first reading of each is what comes back), compared by behaviour with the original."""
import copy
import textwrap

import pytest

from depyf.decompiler.modules import decompile_module

# Shapes whose first reading once dropped a statement that a later reading (tried only
# by ``decompile``, which proves) got right: the module's text was silently wrong.
MODULE = textwrap.dedent('''
    import contextlib
    import sys


    def names(cache):
        # zipfile's FastLookup.namelist: a suppressing __exit__ goes on after the with
        with contextlib.suppress(KeyError):
            return cache["names"]
        cache["names"] = ["computed"]
        return cache["names"]


    def check(name, log):
        # tabnanny.check (3.8): the clause's `return` runs the clean-up of its name first
        try:
            f = {"ok": "text", "bad": None}[name]
        except KeyError as msg:
            log.append(str(msg))
            return
        try:
            f.upper()
        except AttributeError:
            return
        finally:
            log.append("close")
        if log:
            log.append("clean")


    def copy(mode, log):
        # shutil.copyfile (3.10): the clean-ups of the two returns are the same code on
        # the same lines, not copies of one block
        with contextlib.nullcontext():
            try:
                with contextlib.nullcontext():
                    if mode:
                        try:
                            log.append(mode.upper())
                            return mode
                        except AttributeError:
                            pass
                    elif mode is None or mode == 0:
                        try:
                            log.append(mode.real)
                            return mode
                        except AttributeError:
                            pass
                    log.append(sys.exc_info()[0])  # (no exception handled here)
            except OSError:
                raise
        return log
''')

CALLS = [
    ("names", ({},)), ("names", ({"names": [1]},)),
    ("check", ("ok", [])), ("check", ("ok", ["x"])), ("check", ("missing", [])),
    ("check", ("bad", [])),
    ("copy", ("a", [])),
    ("copy", (1, [])),
    ("copy", (None, [])),
    ("copy", (0, [])),
    ("copy", ("", [])),
]


def _outcome(fn, args):
    args = copy.deepcopy(args)
    try:
        return "returned", fn(*args), args
    except Exception as exc:  # the exception is part of the behaviour
        return "raised", repr(exc), args


@pytest.fixture(scope="module")
def namespaces():
    original, again = {}, {}
    exec(compile(MODULE, "<module>", "exec"), original)
    text = decompile_module(compile(MODULE, "<module>", "exec"))
    exec(compile(text, "<decompiled>", "exec"), again)
    return original, again


@pytest.mark.parametrize("name, args", CALLS)
def test_module_functions_behave_like_the_originals(namespaces, name, args):
    original, again = namespaces
    assert _outcome(again[name], args) == _outcome(original[name], args)
