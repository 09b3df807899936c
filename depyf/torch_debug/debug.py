"""``debug()``: run the program with the dumped code, pausing once for breakpoints."""
import contextlib
import os
import pdb
import sys

from . import adapter
from .prepare import DumpContext, capture
from .session import registry


def debug():
    """Inside the block, compiled functions run the code in the dump files written by the
    last ``prepare_debug`` of this process (the decompiled transformed code and, where
    linked, graph code), so debugger breakpoints set in those files are hit. Anything
    compiled anew is dumped and linked the same way.

    On entry it pauses once with ``breakpoint()`` so that breakpoints can be set;
    ``PYTHONBREAKPOINT=0`` skips the pause (as for any ``breakpoint()``).

    Inside a ``prepare_debug`` block it uses that block's session (the code running there
    is already the dumped code): one dump, and it only pauses.
    """
    return DumpContext("debug()", _debug)


@contextlib.contextmanager
def _debug():
    active = registry.active
    session = active[0] if active is not None else registry.last
    if session is None:
        raise RuntimeError(
            "depyf.debug() replays the dump of an earlier `with depyf.prepare_debug(dir):` "
            "block in this process; run one first."
        )
    adapter.skip_debugger_frames()
    with capture(session.root, func="debug"), _pdb_finds_dump_files(session.dir):
        sys.stderr.write(
            "depyf: paused so you can set breakpoints in the files of %s (start with "
            "full_code_for_*.py; __transformed_code_*.py files and the __compiled_fn_*.py files "
            "whose header says breakpoints are hit are the running code). Continue to run the "
            "program.\n" % session.dir
        )
        breakpoint()  # noqa: T100 -- the documented pause; PYTHONBREAKPOINT=0 skips it
        yield


@contextlib.contextmanager
def _pdb_finds_dump_files(dump_dir):
    """Let pdb's ``b <file>:<line>`` take a dump file as the user sees it: relative to the
    current directory (``b dump_src_dir/__transformed_code_0_for_f.py:12``) or by its bare
    name in the dump folder. pdb itself looks relative names up only along ``sys.path``;
    the program's ``sys.path`` is left as it is (changing it would change its imports)."""
    original = pdb.Pdb.lookupmodule

    def lookupmodule(self, filename, *args, **kwargs):
        # the current directory first: a folder of the same name on sys.path (say the
        # quick start's ./dump_src_dir in a checkout on PYTHONPATH) is not the one meant
        here = os.path.abspath(filename)
        if filename.endswith(".py") and not os.path.isabs(filename) and os.path.isfile(here):
            return here
        found = original(self, filename, *args, **kwargs)
        if found is not None or not filename.endswith(".py"):
            return found
        candidate = os.path.join(dump_dir, filename)
        return candidate if os.path.isfile(candidate) else None

    pdb.Pdb.lookupmodule = lookupmodule
    try:
        yield
    finally:
        if pdb.Pdb.lookupmodule is lookupmodule:
            pdb.Pdb.lookupmodule = original
