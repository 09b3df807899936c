"""``install()`` / ``uninstall()``: log the decompiled source of every transformed code
through torch's logging (artifact ``bytecode``: ``TORCH_LOGS="+bytecode"``).

The text logged is the readable one the dump shows in ``full_code_for_<fn>_<n>.py``:
Dynamo's bookkeeping folded away (``readable``), graphs called as ``__compiled_fn_<K>``.
The raw decompilation of the toy example is 48 lines of ``__temp_<n>`` juggling."""
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


def readable_text(code, new_code):
    """Dynamo's code ``new_code`` for ``code`` as the dump's reading copy shows it."""
    from . import readable
    from .transformed_code import (_kept_names, compiled_fn_number, dynamo_globals, name_part,
                                   rename_identifiers, short_compiled_fn_name)

    try:
        decompiler = Decompiler(new_code, fixed_globals=dynamo_globals(code, new_code))
        src = decompiler.decompile(overwrite_fn_name=name_part(code.co_name))
    except Exception as exc:
        return "# could not decompile %s: %s" % (code.co_name, exc)
    names = [n for n in new_code.co_names if compiled_fn_number(n) is not None]
    src = rename_identifiers(src, {n: short_compiled_fn_name(n) for n in names})
    try:  # temporaries renumbered: no dump file whose names the text must keep
        return readable.fold(src, None, keep=_kept_names(code, new_code), drop_profiling_calls=True)
    except Exception:
        return src


def _hook(code, new_code):
    log = adapter.bytecode_logger()
    if log.isEnabledFor(logging.DEBUG):  # decompile only when someone listens
        log.debug("depyf: decompiled transformed code of %s:\n%s", code.co_name, readable_text(code, new_code))
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
