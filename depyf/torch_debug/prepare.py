"""``prepare_debug``: dump everything torch.compile compiles inside the ``with`` block."""
import contextlib
import glob
import logging
import os
import sys
import warnings

from . import adapter, full_code, graphs, overview, resume
from .session import NestedSessionError, dump_dir_path, registry
from .gc_pause import paused_gc
from .transformed_code import TransformedCodeHook

# Where the dump is and how to see it, said once when a session ends. A library only logs:
# the program decides whether INFO messages of the "depyf" logger are shown.
log = logging.getLogger("depyf")


class Capture:
    """Everything attached to torch for one ``with`` block, detached in ``close``.

    * a bytecode hook (transformed code -> dump files, replaced by the decompiled code),
    * a structured-trace subscription (graphs, kernels, graph breaks, recompiles),
    * a wrapper around FX's source compilation (links graph code to its file).
    """

    def __init__(self, session, replace=True, on_source=None):
        self.session = session
        self.graphs = graphs.GraphDumper(session)
        self.overview = overview.OverviewCollector(session)
        self.hook = TransformedCodeHook(session, self.graphs, replace=replace, on_source=on_source)
        self._handle = self._trace = self._fx = None

    def _on_trace(self, name, value, record_meta, payload):
        if name in graphs.STAGES:
            self.graphs.on_event(name, record_meta, payload)
        else:
            self.overview.on_event(name, record_meta, payload)

    def open(self):
        self._handle = adapter.register_bytecode_hook(self.hook)
        self._trace = adapter.TraceSubscription(
            self._on_trace, set(graphs.STAGES) | set(overview.EVENTS)
        ).attach()
        self._fx = adapter.FxSourcePatch(self.graphs.on_fx_source).install()
        return self

    def close(self):
        for closer in (
            lambda: self._handle is not None and self._handle.remove(),
            lambda: self._trace is not None and self._trace.detach(),
            lambda: self._fx is not None and self._fx.uninstall(),
        ):
            try:
                closer()
            except Exception as exc:  # keep detaching the rest
                self.session.warn_once("detach", "could not detach from torch cleanly: %s" % exc)

    def dump_existing(self):
        """Dump functions compiled before this dump session, from their cache entries (found
        through Dynamo's registry of original code objects, ``orig_code_map``). Resume
        functions are put under their function when its module's globals hold them."""
        found = []
        for code in adapter.compiled_original_codes():
            if id(code) in self.session.originals:
                continue
            entries = adapter.cache_entries(code)
            if entries:
                found.append((code, entries))
        for code, _ in found:
            self.session.note_original(code)
        for code, entries in found:
            module_globals = _module_globals(code.co_filename)
            for entry in entries:
                for name in getattr(entry.code, "co_names", ()):  # (code None: not converted)
                    resume = adapter.resume_code(module_globals.get(name)) if name.startswith("__resume_") else None
                    if resume is not None:
                        self.session.note_original(resume, parent=code)
            for entry in reversed(entries):  # oldest first, like the compile order
                self.hook.record_existing(code, entry)

    def write_summaries(self):
        with paused_gc():  # (see gc_pause)
            resume.write_uncompiled(self.session)
            full_code.write_all(self.session)
            overview.write(self.session)


def _module_globals(filename):
    """The globals of the imported module defined in ``filename`` ({} if none)."""
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            return vars(module)
    return {}


@contextlib.contextmanager
def capture(dump_src_dir, replace=True, on_source=None, func="prepare_debug"):
    """The dump session of ``dump_src_dir`` for a ``with`` block. Inside a block of the
    same directory it is that block's session (a second set of hooks would dump and count
    everything twice); inside a block of another directory it is refused."""
    active = registry.active
    if active is not None:
        session, cap = active
        if registry.key(dump_src_dir) != session.key:
            if registry.on_nested is not None:  # `depyf run`: the inner block joins its session
                registry.on_nested(session, dump_src_dir, func)
                yield cap
                return
            raise NestedSessionError(
                "depyf.%s(%r) inside the dump session of %r: one dump session at a time "
                "(torch's hooks are process-wide, so both would record everything). Use the "
                "same directory or leave the outer block first." % (func, dump_src_dir, session.root)
            )
        yield cap  # the enclosing block detaches and writes the summaries
        return
    session = registry.open(dump_src_dir)
    cap = Capture(session, replace=replace, on_source=on_source)
    cap.dump_existing()
    cap.open()
    session.active = True
    registry.active = (session, cap)
    try:
        yield cap
    finally:
        registry.active = None
        session.active = False
        cap.close()
        try:
            cap.write_summaries()
        except Exception as exc:
            session.warn_once("summary", "could not write full code / overview files: %s" % exc)
        _log_where(session)


def _log_where(session):
    """Log (INFO, logger "depyf") the dump folder, the file to start with and the command
    that opens the report. Nothing is logged when nothing was compiled."""
    first = sorted(glob.glob(os.path.join(session.dir, "full_code_for_*.py")))
    if not first:
        return
    log.info("depyf: torch.compile's code is in %s (start with %s)", session.dir,
             os.path.basename(first[0]))
    log.info("depyf: see it as a web page: depyf report %s --open", session.root)


class DumpContext(contextlib.ContextDecorator):
    """What ``prepare_debug()`` and ``debug()`` return: a context manager (also usable as a
    decorator) that warns when it is dropped without ever being entered, since
    ``depyf.prepare_debug(d)`` on a line of its own dumps nothing and says nothing."""

    def __init__(self, what, factory):
        self._what, self._factory = what, factory
        self._used = False
        self._open = []

    def __enter__(self):
        self._used = True
        cm = self._factory()
        result = cm.__enter__()
        self._open.append(cm)
        return result

    def __exit__(self, *exc_info):
        return self._open.pop().__exit__(*exc_info)

    def __call__(self, func):
        self._used = True
        return super().__call__(func)

    def __del__(self):
        if self._used:
            return
        try:
            warnings.warn(
                "depyf.%s was called but never entered, so nothing is dumped; use it as "
                "`with depyf.%s:`" % (self._what, self._what),
                RuntimeWarning,
                stacklevel=2,
            )
        except Exception:  # interpreter shutdown
            pass


def prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False):
    """Dump everything ``torch.compile`` compiles inside the ``with`` block into
    ``dump_src_dir`` (layout and overwrite policy: see ``depyf.torch_debug.session``).
    ``~`` is expanded; ``None`` and ``""`` are refused at the call. Calling it without
    ``with`` warns (nothing is dumped). Nested in a block of the same directory (or in
    ``debug()``) it continues that block's session; another directory raises
    ``NestedSessionError``.

    Functions compiled before the block are dumped too: their original code objects are
    found in Dynamo's registry ``torch._dynamo.convert_frame.orig_code_map`` and their
    cache entries read with ``_debug_get_cache_entry_list``; their code keeps running
    unchanged (it was installed before we could replace it), and their files say so.

    ``clean_wild_fx_code`` is accepted for compatibility: FX code that belongs to no
    compiled graph is never written. ``log_bytecode=True`` also logs the decompiled source
    through torch's ``bytecode`` logging artifact (see ``depyf.install``).
    """
    dump_dir_path(dump_src_dir)  # refuse a bad argument here, not at `with`
    on_source = None
    if log_bytecode:
        from .logging_hook import log_record

        on_source = log_record

    def factory():
        return _no_value(capture(dump_src_dir, replace=True, on_source=on_source))

    return DumpContext("prepare_debug(%r)" % (dump_src_dir,), factory)


@contextlib.contextmanager
def _no_value(cm):
    """``cm`` with nothing bound by ``as`` (prepare_debug yields None, as documented)."""
    with cm:
        yield
