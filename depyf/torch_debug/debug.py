"""``debug()``: run the program with the dumped code, pausing once for breakpoints."""
import contextlib
import sys

from .prepare import capture
from .session import registry


@contextlib.contextmanager
def debug():
    """Inside the block, compiled functions run the code in the dump files written by the
    last ``prepare_debug`` of this process (the decompiled transformed code and, where
    linked, graph code), so debugger breakpoints set in those files are hit. Anything
    compiled anew is dumped and linked the same way.

    On entry it pauses once with ``breakpoint()`` so that breakpoints can be set;
    ``PYTHONBREAKPOINT=0`` skips the pause (as for any ``breakpoint()``).
    """
    session = registry.last
    if session is None:
        raise RuntimeError(
            "depyf.debug() replays the dump of an earlier `with depyf.prepare_debug(dir):` "
            "block in this process; run one first."
        )
    with capture(session.root):
        sys.stderr.write(
            "depyf: paused so you can set breakpoints in the files of %s (start with "
            "full_code_for_*.py; __transformed_code_*.py files and the __compiled_fn_*.py files "
            "whose header says breakpoints are hit are the running code). Continue to run the "
            "program.\n" % session.dir
        )
        breakpoint()  # noqa: T100 -- the documented pause; PYTHONBREAKPOINT=0 skips it
        yield
