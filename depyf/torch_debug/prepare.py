"""``prepare_debug``: dump everything torch.compile compiles inside the ``with`` block."""
import contextlib
import sys

from . import adapter, full_code, graphs, overview
from .session import registry
from .transformed_code import TransformedCodeHook


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
        """Dump functions compiled before this session, from their cache entries (found
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
                    resume = getattr(module_globals.get(name), "__code__", None) if name.startswith("__resume_") else None
                    if resume is not None:
                        self.session.note_original(resume, parent=code)
            for entry in reversed(entries):  # oldest first, like the compile order
                self.hook.record_existing(code, entry)

    def write_summaries(self):
        full_code.write_all(self.session)
        overview.write(self.session)


def _module_globals(filename):
    """The globals of the imported module defined in ``filename`` ({} if none)."""
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            return vars(module)
    return {}


@contextlib.contextmanager
def capture(dump_src_dir, replace=True, on_source=None):
    session = registry.open(dump_src_dir)
    cap = Capture(session, replace=replace, on_source=on_source)
    cap.dump_existing()
    cap.open()
    session.active = True
    try:
        yield cap
    finally:
        session.active = False
        cap.close()
        try:
            cap.write_summaries()
        except Exception as exc:
            session.warn_once("summary", "could not write full code / overview files: %s" % exc)


@contextlib.contextmanager
def prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False):
    """Dump everything ``torch.compile`` compiles inside the ``with`` block into
    ``dump_src_dir`` (layout and overwrite policy: see ``depyf.torch_debug.session``).

    Functions compiled before the block are dumped too: their original code objects are
    found in Dynamo's registry ``torch._dynamo.convert_frame.orig_code_map`` and their
    cache entries read with ``_debug_get_cache_entry_list``; their code keeps running
    unchanged (it was installed before we could replace it), and their files say so.

    ``clean_wild_fx_code`` is accepted for compatibility: FX code that belongs to no
    compiled graph is never written. ``log_bytecode=True`` also logs the decompiled source
    through torch's ``bytecode`` logging artifact (see ``depyf.install``).
    """
    on_source = None
    if log_bytecode:
        from .logging_hook import log_record

        on_source = log_record
    with capture(dump_src_dir, replace=True, on_source=on_source):
        yield
