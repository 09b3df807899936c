"""Guard-skipping dispatch: run a chosen compiled version of ``forward`` directly.

``TorchCompileWrapperWithCustomDispatcher`` is a base class (vLLM uses it): a subclass
defines ``forward``; calling the object runs ``torch.compile``'d ``forward``. Every code
object Dynamo generates for ``forward`` is recorded in ``compiled_codes`` (by a bytecode
hook). A caller that knows which version applies -- and so does not need Dynamo's guards --
can then run it directly::

    with self.dispatch_to_code(0):
        out = self.forward(x)

``dispatch_to_code`` swaps ``forward.__code__`` for the block and restores it even when the
block raises; ``remove_hook()`` (or ``close()``) unregisters the bytecode hook.
"""
import contextlib
import threading
from abc import abstractmethod

from .errors import TorchNotAvailableError


class TorchCompileWrapperWithCustomDispatcher:
    def __init__(self, compiled_callable=None, compilation_mode=None, **compile_kwargs):
        try:
            import torch
        except Exception as exc:  # importable without torch; usable only with it
            raise TorchNotAvailableError(
                "optimization.TorchCompileWrapperWithCustomDispatcher", "%s: %s" % (type(exc).__name__, exc)
            ) from exc
        from .torch_debug import adapter

        if compiled_callable is None:
            if compilation_mode is not None:
                compile_kwargs.setdefault("mode", compilation_mode)
            compiled_callable = torch.compile(self.forward, **compile_kwargs)
        self.compiled_callable = compiled_callable
        self.original_code_object = self.__class__.forward.__code__
        self.compiled_codes = []
        self._swap_lock = threading.RLock()
        self._hook_handle = adapter.register_bytecode_hook(self.bytecode_hook)

    def __call__(self, *args, **kwargs):
        return self.compiled_callable(*args, **kwargs)

    @abstractmethod
    def forward(self, *args, **kwargs):
        ...

    def bytecode_hook(self, old_code, new_code):
        """Record the code Dynamo generated for our ``forward`` (other frames: ignored)."""
        if old_code is self.original_code_object:
            self.compiled_codes.append(new_code)
        return None

    def remove_hook(self):
        handle, self._hook_handle = self._hook_handle, None
        if handle is not None:
            handle.remove()

    close = remove_hook

    @contextlib.contextmanager
    def dispatch_to_code(self, index):
        """Run ``self.forward`` as compiled version ``index`` inside the block."""
        forward = self.__class__.forward
        with self._swap_lock:
            previous = forward.__code__
            forward.__code__ = self.compiled_codes[index]
            try:
                yield
            finally:
                forward.__code__ = previous
