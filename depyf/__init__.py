"""depyf: decompile Python bytecode, and open up what torch.compile generates.

The decompiler (``decompile``, ``Decompiler``, ``decompile_module``) is stdlib-only.
The torch integration (``prepare_debug``, ``debug``, ``install``, ``uninstall``) is
loaded lazily, so ``import depyf`` works without torch installed.
"""
from .errors import (DecompilationError, InternalError, TorchNotAvailableError, UnprovenError,
                     UnsupportedInstruction, UnsupportedPycError, UnsupportedShape)
from .decompiler.api import Decompiler, decompile
from .decompiler.modules import decompile_module, decompile_pyc

__version__ = "0.1.0"

_TORCH_FEATURES = ("prepare_debug", "debug", "install", "uninstall")


def __getattr__(name):
    # PEP 562 lazy attributes: torch is imported only when a torch feature is used.
    if name in _TORCH_FEATURES:
        try:
            import torch  # noqa: F401
        except Exception as exc:  # ImportError, or a broken torch install
            cause = "%s: %s" % (type(exc).__name__, exc)

            def _unavailable(*args, **kwargs):
                raise TorchNotAvailableError(name, cause)

            _unavailable.__name__ = name
            return _unavailable
        from . import torch_debug

        return getattr(torch_debug, name)
    if name in ("optimization", "report", "utils"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'depyf' has no attribute %r" % name)


__all__ = [
    "decompile",
    "Decompiler",
    "DecompilationError",
    "UnprovenError",
    "UnsupportedInstruction",
    "UnsupportedShape",
    "InternalError",
    "UnsupportedPycError",
    "TorchNotAvailableError",
    "decompile_module",
    "decompile_pyc",
    "prepare_debug",
    "debug",
    "install",
    "uninstall",
]
