"""``install()`` / ``uninstall()``: log the decompiled source of every transformed code
through torch's logging (artifact ``bytecode``: ``TORCH_LOGS="+bytecode"``)."""
import logging
import threading

from ..decompiler.api import Decompiler
from . import adapter


class _Installed:
    """The one logging hook of this process (install is idempotent)."""

    def __init__(self):
        self.handle = None
        self.lock = threading.Lock()


_installed = _Installed()


def decompiled_text(code, name=None):
    try:
        return Decompiler(code).decompile(overwrite_fn_name=name)
    except Exception as exc:
        return "# could not decompile %s: %s" % (code.co_name, exc)


def _hook(code, new_code):
    log = adapter.bytecode_logger()
    if log.isEnabledFor(logging.DEBUG):  # decompile only when someone listens
        log.debug("depyf: decompiled transformed code of %s:\n%s", code.co_name, decompiled_text(new_code, code.co_name))
    return None


def log_record(record):
    """Used by prepare_debug(log_bytecode=True): log a record's decompiled source."""
    log = adapter.bytecode_logger()
    log.debug("depyf: decompiled %s (%s):\n%s", record.func_name, record.file_name, record.source)


def install():
    """Log decompiled transformed code via torch's ``bytecode`` artifact logger."""
    with _installed.lock:
        if _installed.handle is None:
            _installed.handle = adapter.register_bytecode_hook(_hook)


def uninstall():
    with _installed.lock:
        if _installed.handle is not None:
            _installed.handle.remove()
            _installed.handle = None
