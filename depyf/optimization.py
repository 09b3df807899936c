"""Guard-skipping dispatch: run a chosen compiled version of ``forward`` directly.

``TorchCompileWrapperWithCustomDispatcher`` is a base class (vLLM's compilation wrapper
descends from it): a subclass defines ``forward``; calling the object runs
``torch.compile``'d ``forward``. The code objects Dynamo generates for ``forward`` *called
on this instance* are recorded in ``compiled_codes`` (by a bytecode hook); code compiled
for another instance of the class is not. A caller that knows which version applies -- and
so does not need Dynamo's guards -- can then run it directly::

    with self.dispatch_to_code(0):
        out = self.forward(x)

Which instance a compile is for: the bytecode hook is given only (old code, new code), so
it asks the adapter for the arguments of the frame Dynamo is converting (the frame whose
code is exactly ``forward``'s) and compares its first argument (``self``) with this
instance. When the installed torch hides that frame, the hook falls back (with one
warning) to the instance whose ``compiled_callable`` this thread is calling right now
(recorded around every call of ``compiled_callable``, re-entrant, per thread).

``dispatch_to_code`` swaps ``forward.__code__`` for the block and restores it even when the
block raises (one lock per function, since all instances of a class share it);
``remove_hook()`` (or ``close()``) unregisters the bytecode hook.
"""
import contextlib
import threading
import weakref
from abc import abstractmethod

from .errors import TorchNotAvailableError

_calling = threading.local()  # .stack: instances whose compiled_callable runs in this thread
_locks_guard = threading.Lock()
_swap_locks = weakref.WeakKeyDictionary()  # forward function -> RLock for its __code__


def _is_compiling():
    return False  # replaced by torch.compiler.is_compiling once torch is imported


def _swap_lock(function):
    with _locks_guard:
        lock = _swap_locks.get(function)
        if lock is None:
            lock = _swap_locks[function] = threading.RLock()
        return lock


class _RecordingCall:
    """``compiled_callable`` as stored: calls the callable it wraps, noting (per thread)
    which wrapper instance the call is for. Other attributes are the wrapped callable's."""

    def __init__(self, owner, fn):
        self._owner = weakref.ref(owner)
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        if _is_compiling():  # traced by Dynamo (a wrapper called inside a compiled region)
            return self.__wrapped__(*args, **kwargs)
        stack = _calling.__dict__.setdefault("stack", [])
        stack.append(self._owner())
        try:
            return self.__wrapped__(*args, **kwargs)
        finally:
            stack.pop()

    def __getattr__(self, name):
        try:
            fn = self.__dict__["__wrapped__"]
        except KeyError:
            raise AttributeError(name) from None
        return getattr(fn, name)

    def __repr__(self):
        return "<compiled_callable of %r: %r>" % (self._owner(), self.__wrapped__)


class TorchCompileWrapperWithCustomDispatcher:
    """Subclasses implement ``forward`` (and usually ``__call__`` with their dispatch
    logic). ``compiled_callable`` defaults to ``torch.compile(self.forward,
    mode=compilation_mode, **compile_kwargs)``. The original's signature
    ``(compiled_callable, use_custom_dispatcher=True)`` is accepted as is; a string given as
    the second positional argument is taken as ``compilation_mode``."""

    def __init__(self, compiled_callable=None, use_custom_dispatcher=True, compilation_mode=None,
                 **compile_kwargs):
        try:
            import torch
        except Exception as exc:  # importable without torch; usable only with it
            raise TorchNotAvailableError(
                "optimization.TorchCompileWrapperWithCustomDispatcher", "%s: %s" % (type(exc).__name__, exc)
            ) from exc
        from .torch_debug import adapter

        global _is_compiling
        _is_compiling = adapter.is_compiling_function() or _is_compiling
        if isinstance(use_custom_dispatcher, str):  # our earlier (compiled_callable, mode) order
            compilation_mode, use_custom_dispatcher = use_custom_dispatcher, True
        if compiled_callable is None:
            if compilation_mode is not None:
                compile_kwargs.setdefault("mode", compilation_mode)
            compiled_callable = torch.compile(self.forward, **compile_kwargs)
        self.compiled_callable = compiled_callable
        self.original_code_object = self.__class__.forward.__code__
        self.compiled_codes = []
        self.use_custom_dispatcher = use_custom_dispatcher
        self._hook_handle = adapter.register_bytecode_hook(_weak_hook(self))
        if self._hook_handle is not None:  # unregistered when the instance goes away
            weakref.finalize(self, self._hook_handle.remove)

    @property
    def compiled_callable(self):
        return self.__dict__.get("_compiled_callable")

    @compiled_callable.setter
    def compiled_callable(self, fn):
        self.__dict__["_compiled_callable"] = None if fn is None else _RecordingCall(self, fn)

    def __call__(self, *args, **kwargs):
        return self.compiled_callable(*args, **kwargs)

    @abstractmethod
    def forward(self, *args, **kwargs):
        ...

    def bytecode_hook(self, old_code, new_code):
        """Record the code Dynamo generated for ``forward`` called on this instance (other
        frames, and ``forward`` of other instances: ignored)."""
        if old_code is self.original_code_object and self._compiled_for(old_code) is self:
            self.compiled_codes.append(new_code)
        return None

    def _compiled_for(self, code):
        """The instance (first argument) of the ``forward`` frame being compiled."""
        from .torch_debug import adapter

        local_vars = adapter.frame_locals_being_compiled(code)
        if local_vars is not None and code.co_argcount and code.co_varnames[0] in local_vars:
            return local_vars[code.co_varnames[0]]
        adapter.missing(
            "access to the frame Dynamo compiles",
            "the dispatcher records code for the instance whose compiled_callable is running",
        )
        stack = getattr(_calling, "stack", None)
        return stack[-1] if stack else None

    def remove_hook(self):
        handle, self._hook_handle = getattr(self, "_hook_handle", None), None
        if handle is not None:
            handle.remove()

    close = remove_hook

    @contextlib.contextmanager
    def dispatch_to_code(self, index):
        """Run ``self.forward`` as this instance's compiled version ``index`` inside the
        block (``IndexError`` before anything is swapped when there is no such version)."""
        code = self.compiled_codes[index]
        forward = self.__class__.forward
        with _swap_lock(forward):
            previous = forward.__code__
            forward.__code__ = code
            try:
                yield
            finally:
                forward.__code__ = previous


def _weak_hook(wrapper):
    """A bytecode hook that calls ``wrapper.bytecode_hook`` without keeping ``wrapper``
    alive (torch's hook registry lives as long as the process)."""
    ref = weakref.ref(wrapper)

    def hook(old_code, new_code):
        owner = ref()
        return None if owner is None else owner.bytecode_hook(old_code, new_code)

    return hook
