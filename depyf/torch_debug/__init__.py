"""torch.compile integration: readable, debuggable dumps of what torch.compile generates.

Modules, one job each: ``adapter`` (every private torch API), ``session`` (dump directory,
file naming, processes), ``folders`` (which folder a process may write to: a lock held until
it exits), ``transformed_code`` (bytecode hook), ``equivalence`` (is the
recompiled code safe to run), ``graphs`` (graph and kernel files), ``guards`` (guards as
Python), ``full_code`` and ``overview`` (summaries), ``prepare`` / ``debug`` (the context
managers), ``logging_hook`` (``install``/``uninstall``).
"""
from .debug import debug
from .logging_hook import install, uninstall
from .prepare import prepare_debug
from .session import DumpDirError, NestedSessionError

__all__ = ["prepare_debug", "debug", "install", "uninstall", "DumpDirError", "NestedSessionError"]
