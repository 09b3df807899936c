"""The one module that touches private torch APIs.

Every other module of ``depyf.torch_debug`` goes through the functions here. Each function
detects the API it needs at runtime, calls it with keyword-tolerant wrappers, and, when the
installed torch lacks it, degrades with ONE warning that names what is missing (see
``missing``). A new torch release therefore means one place to look.

What is used, and why:

* ``torch._dynamo.convert_frame.register_bytecode_hook`` -- Dynamo calls the hook with
  ``(original_code, transformed_code)``; a returned code object replaces the transformed one.
* ``torch._dynamo.eval_frame._debug_get_cache_entry_list`` -- cache entries (transformed
  code, guard manager, compile id) of an original code object. Before torch 2.6 an entry
  has ``check_fn`` instead of ``guard_manager`` (a guard manager in 2.4-2.5, a function
  before), and before 2.5 no ``compile_id`` (``entry_guard``, ``compile_id_of_entry``).
* ``torch._dynamo.convert_frame.orig_code_map`` -- Dynamo's registry transformed code ->
  original code; it finds functions compiled before ``prepare_debug`` was entered.
* the structured trace logger ``torch.__trace`` (what ``TORCH_TRACE`` writes) -- graphs,
  kernels, graph-break and recompile reasons, each tagged with its compile id. Event names
  that changed are mapped (``TRACE_EVENT_ALIASES``); graph-break ids of releases whose text
  names none come from ``torch/_dynamo/graph_break_registry.json`` (``graph_break_id``).
* ``torch.fx.graph_module._exec_with_source`` -- where FX compiles the source of a
  GraphModule; wrapped so that graph code can be linked to its dump file for debuggers.
* ``torch._guards.CompileContext`` -- the compile id of the frame being compiled.
* ``torch._dynamo.trace_rules.add`` -- debug() has Dynamo skip debugpy's own frames.
* the locals of Dynamo's ``_compile`` frame (found by walking the stack from the bytecode
  hook, checked to be converting exactly the hook's code) -- the globals, backend and
  argument values (``self``) of the frame being compiled.
"""
import logging
import os
import sys
import warnings

import torch

_warned = set()


def missing(what, consequence):
    """Warn once per process that the installed torch lacks ``what``."""
    if what in _warned:
        return
    _warned.add(what)
    warnings.warn(
        "depyf: torch %s has no %s; %s." % (torch.__version__, what, consequence),
        RuntimeWarning,
        stacklevel=3,
    )


def _resolve(dotted):
    """Import ``a.b.c`` attribute by attribute; None when any part is missing."""
    parts = dotted.split(".")
    try:
        obj = __import__(parts[0])
        for i, part in enumerate(parts[1:], 1):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                obj = __import__(".".join(parts[: i + 1]), fromlist=["_"])
        return obj
    except Exception:
        return None


# ---------------------------------------------------------------------------------------
# Dynamo: bytecode hook, cache entries, compile ids
# ---------------------------------------------------------------------------------------


def register_bytecode_hook(hook):
    """Register ``hook(original_code, transformed_code)``; returns a handle with
    ``.remove()`` or None when this torch has no bytecode hook."""
    register = _resolve("torch._dynamo.convert_frame.register_bytecode_hook")
    if register is None:
        missing(
            "torch._dynamo.convert_frame.register_bytecode_hook",
            "transformed code is not dumped",
        )
        return None

    def tolerant(*args, **kwargs):
        # Dynamo 2.x calls hook(code, new_code); accept keywords and extra arguments too.
        values = list(args[:2])
        for name in ("code", "new_code"):
            if len(values) < 2 and name in kwargs:
                values.append(kwargs[name])
        return hook(*values)

    return register(tolerant)


def cache_entries(code):
    """Cache entries of an original code object (newest first); [] when unavailable."""
    get = _resolve("torch._dynamo.eval_frame._debug_get_cache_entry_list")
    if get is None:
        missing(
            "torch._dynamo.eval_frame._debug_get_cache_entry_list",
            "guards and full code are not dumped",
        )
        return []
    try:
        return list(get(code))
    except Exception:
        return []


def compiled_original_codes():
    """Original code objects Dynamo has transformed so far in this process (its
    ``orig_code_map`` registry), for dumping functions compiled before a session."""
    registry = _resolve("torch._dynamo.convert_frame.orig_code_map")
    if registry is None:
        missing("torch._dynamo.convert_frame.orig_code_map", "earlier compiles are not dumped")
        return []
    values = getattr(registry, "values", None)
    try:
        # ExactWeakKeyDictionary keeps its data in a dict attribute ``values`` (id -> value);
        # a plain mapping has a ``values()`` method.
        originals = list(values.values() if isinstance(values, dict) else values())
    except Exception:
        originals = []
    seen, out = set(), []
    for code in originals:
        if id(code) not in seen:
            seen.add(id(code))
            out.append(code)
    return out


def current_compile_id():
    """(frame_id, frame_compile_id, attempt) of the compile in progress, or None."""
    ctx = _resolve("torch._guards.CompileContext")
    if ctx is None:
        return None
    try:
        trace_id = ctx.current_trace_id()
        cid = trace_id.compile_id if trace_id is not None else ctx.current_compile_id()
        attempt = getattr(trace_id, "attempt", 0) if trace_id is not None else 0
    except Exception:
        return None
    if cid is None or getattr(cid, "frame_id", None) is None:
        return None
    if getattr(cid, "compiled_autograd_id", None) is not None:
        return None
    return (cid.frame_id, cid.frame_compile_id, attempt)


def compile_id_of_entry(entry):
    """(frame_id, frame_compile_id) of a cache entry, or None."""
    cid = getattr(entry, "compile_id", None)
    if cid is None:
        return None
    try:
        return (cid.frame_id, cid.frame_compile_id)
    except AttributeError:
        text = str(cid).strip("[]!")
        parts = text.split("/")
        try:
            return (int(parts[-2]), int(parts[-1]))
        except (ValueError, IndexError):
            return None


def _compile_frame_locals(code):
    """The locals of Dynamo's ``_compile`` frame converting ``code`` right now, or None.

    The bytecode hook is not given the frame; its caller holds it as a local named
    ``frame`` (or ``globals`` next to ``code``, with ``compiler_fn``). We walk up the
    Python stack looking for that.
    """
    frame = sys._getframe(2)
    depth = 0
    while frame is not None and depth < 60:
        local_vars = frame.f_locals
        candidate = local_vars.get("frame")
        if candidate is not None and getattr(candidate, "f_code", None) is code:
            return local_vars
        if isinstance(local_vars.get("globals"), dict) and local_vars.get("code") is code:
            return local_vars
        frame = frame.f_back
        depth += 1
    return None


def frame_globals_being_compiled(code):
    """The globals dict of the frame Dynamo is converting right now (where it installs
    ``__compiled_fn_*``), so that names the recompiled code needs can be bound there."""
    local_vars = _compile_frame_locals(code)
    if local_vars is None:
        return None
    g = getattr(local_vars.get("frame"), "f_globals", None)
    if isinstance(g, dict) and getattr(local_vars.get("frame"), "f_code", None) is code:
        return g
    g = local_vars.get("globals")
    return g if isinstance(g, dict) else None


def frame_locals_being_compiled(code):
    """The locals (argument name -> value) of the frame Dynamo is converting right now,
    found only when that frame runs exactly ``code``; None when this torch hides them
    (the caller then says so: ``missing``)."""
    local_vars = _compile_frame_locals(code)
    if local_vars is None:
        return None
    frame = local_vars.get("frame")
    if getattr(frame, "f_code", None) is code:
        found = getattr(frame, "f_locals", None)
        if isinstance(found, dict):
            return found
    found = local_vars.get("locals")
    return found if isinstance(found, dict) and local_vars.get("code") is code else None


def resume_code(value):
    """The code object of the resume function a ``__resume_at_*`` global stands for: the
    function's own code, or, when the resume function has free variables, the code Dynamo's
    factory (``_make_fn(closure)``, installed in its place) makes the function from; None
    for anything else."""
    code = getattr(value, "__code__", None)
    if code is None or code.co_name.startswith("torch_dynamo_resume_in_"):
        return code
    for cell in getattr(value, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if hasattr(inner, "co_name") and inner.co_name.startswith("torch_dynamo_resume_in_"):
            return inner
    return code


def is_compiling_function():
    """``torch.compiler.is_compiling`` (True while Dynamo traces the caller), or None."""
    fn = _resolve("torch.compiler.is_compiling") or _resolve("torch._dynamo.is_compiling")
    return fn if callable(fn) else None


def backend_being_compiled(code):
    """The registered name of the backend compiling ``code`` right now ('eager',
    'aot_eager', 'inductor', ...), or None when unknown (a user's own backend function)."""
    local_vars = _compile_frame_locals(code)
    fn = local_vars.get("compiler_fn") if local_vars is not None else None
    seen = 0
    while hasattr(fn, "_torchdynamo_orig_backend") and seen < 20:
        fn, seen = fn._torchdynamo_orig_backend, seen + 1
    if fn is None:
        return None
    name = getattr(fn, "compiler_name", None)  # torch.compile's inductor wrapper
    if isinstance(name, str):
        return name
    registry = _resolve("torch._dynamo.backends.registry._COMPILER_FNS")
    for key, value in (registry or {}).items():
        if value is fn:
            return key
    return None


# ---------------------------------------------------------------------------------------
# Structured trace (TORCH_TRACE payloads)
# ---------------------------------------------------------------------------------------

TRACE_LOGGER_NAME = "torch.__trace"
# Trace events renamed between releases: old name -> the name depyf knows (today's).
# torch 2.9 and older call Inductor's post-grad graph "after_post_grad_graph".
TRACE_EVENT_ALIASES = {"after_post_grad_graph": "inductor_post_grad_graph"}


class TraceSubscription:
    """Attach a logging handler to torch's structured-trace logger for a while.

    The handler receives every ``trace_structured`` event as a record with ``metadata``
    (a dict: event name -> event metadata, plus frame_id/frame_compile_id/attempt) and
    ``payload`` (a string or None). ``callback(name, metadata, record_meta, payload)`` is
    called for each event whose name is in ``names`` (artifacts by their artifact name).
    """

    def __init__(self, callback, names):
        self.callback = callback
        self.names = frozenset(names)
        self.logger = logging.getLogger(TRACE_LOGGER_NAME)
        self.handler = None
        self._old_level = None

    def attach(self):
        outer = self
        if _resolve("torch._logging.trace_structured") is None:  # torch 2.2 and older
            missing("structured trace (torch._logging.trace_structured)",
                    "no graph, kernel, graph-break or compile-time files are written")

        class _Handler(logging.Handler):
            def emit(self, record):
                meta = getattr(record, "metadata", None)
                if not isinstance(meta, dict):
                    return
                for key, value in meta.items():
                    name = key
                    if key == "artifact" and isinstance(value, dict):
                        name = value.get("name", key)
                    name = TRACE_EVENT_ALIASES.get(name, name)
                    if name in outer.names:
                        try:
                            outer.callback(name, value, meta, getattr(record, "payload", None))
                        except Exception as exc:  # never let a dump break compilation
                            missing("usable trace event %r (%s)" % (name, exc), "it is skipped")
                        return

        self.handler = _Handler(level=logging.DEBUG)
        self._old_level = self.logger.level
        if self.logger.level == logging.NOTSET or self.logger.level > logging.DEBUG:
            self.logger.setLevel(logging.DEBUG)
        self.logger.addHandler(self.handler)
        return self

    def detach(self):
        if self.handler is not None:
            self.logger.removeHandler(self.handler)
            self.handler = None
            if not self.logger.handlers and self._old_level is not None:
                self.logger.setLevel(self._old_level)


_GB_IDS = None


def graph_break_id(title):
    """The id (``GB0170``) torch gives graph breaks of this reason title ("Data-dependent
    branching"), read from ``torch/_dynamo/graph_break_registry.json``, for releases whose
    graph-break text names no id (2.9 and older); '' when unknown or ambiguous."""
    global _GB_IDS
    if _GB_IDS is None:
        _GB_IDS = {}
        path = os.path.join(os.path.dirname(torch.__file__), "_dynamo", "graph_break_registry.json")
        try:
            import json

            with open(path, encoding="utf-8") as f:
                registry = json.load(f)
            for gb_id, versions in registry.items():
                for version in versions:
                    title_ = version.get("Gb_type")
                    _GB_IDS[title_] = gb_id if _GB_IDS.get(title_, gb_id) == gb_id else ""
        except Exception:  # (no registry before 2.9: graph breaks are shown without ids)
            pass
    return _GB_IDS.get(title, "")


def trace_compile_key(record_meta):
    """(frame_id, frame_compile_id, attempt) of a structured-trace record, or None."""
    if "compiled_autograd_id" in record_meta:
        return None
    fid = record_meta.get("frame_id")
    fcid = record_meta.get("frame_compile_id")
    if fid is None or fcid is None:
        return None
    return (fid, fcid, record_meta.get("attempt", 0))


# ---------------------------------------------------------------------------------------
# FX: where GraphModule source is compiled
# ---------------------------------------------------------------------------------------


class FxSourcePatch:
    """Wrap ``torch.fx.graph_module._exec_with_source`` to see each GraphModule's source
    and the function it defines. ``on_source(src, namespace)`` is called after FX executed
    the source (``namespace`` then holds the new ``forward``)."""

    def __init__(self, on_source):
        self.on_source = on_source
        self.module = None
        self.original = None

    def install(self):
        module = _resolve("torch.fx.graph_module")
        original = getattr(module, "_exec_with_source", None) if module else None
        if original is None:
            missing(
                "torch.fx.graph_module._exec_with_source",
                "graph files are written but not linked to running graph code",
            )
            return self
        on_source = self.on_source

        def _exec_with_source(src, globals, *args, **kwargs):
            result = original(src, globals, *args, **kwargs)
            try:
                on_source(src, globals)
            except Exception as exc:
                missing("linkable FX source (%s)" % exc, "graph code is not linked")
            return result

        _exec_with_source.__wrapped__ = original
        module._exec_with_source = _exec_with_source
        self.module, self.original = module, original
        return self

    def uninstall(self):
        if self.module is not None:
            self.module._exec_with_source = self.original
            self.module = self.original = None


# ---------------------------------------------------------------------------------------
# Guards
# ---------------------------------------------------------------------------------------


class _CallableGuard:
    """A guard that is a plain function of the frame's locals (torch 2.3 and older: the
    cache entry's ``check_fn``), with the ``check(L)`` of later guard managers; its other
    attributes (``code_parts``, ``closure_vars``, ``global_scope``) are the function's."""

    def __init__(self, fn):
        self._fn = fn

    def check(self, f_locals):
        return self._fn(f_locals)

    def __getattr__(self, name):
        return getattr(self._fn, name)


def entry_guard(entry):
    """The guard object of a cache entry, with ``check(f_locals) -> bool``: its
    ``guard_manager`` (torch 2.6+), its ``check_fn`` (2.4-2.5: a guard manager; before:
    a function, wrapped), or None (one warning) when it has neither."""
    guard = getattr(entry, "guard_manager", None)
    if guard is None:
        guard = getattr(entry, "check_fn", None)
        if guard is not None and not hasattr(guard, "check") and callable(guard):
            guard = _CallableGuard(guard)
    if guard is None:
        missing("cache entry guards (guard_manager / check_fn)", "guards are not written as Python")
    return guard


def guard_tree(guard_manager):
    """Yield ``(source, leaf_kind, verbose_code_parts)`` for every leaf guard of the C++
    guard tree, depth first in check order. ``source`` is the Python expression of the
    value the leaf is applied to (``L['a']``, ``G['torch'].abs``; ``None`` for the root)."""
    root = getattr(guard_manager, "root", None)
    if root is None or not hasattr(root, "get_leaf_guards"):
        if not hasattr(guard_manager, "code_parts"):
            missing("guard tree API (guard_manager.root.get_leaf_guards)", "guards fall back to torch's check")
        return  # (torch 2.3 and older: a guard function; its code_parts are the guards)

    def walk(manager, is_root):
        source = None if is_root else _safe_call(manager, "get_source")
        for leaf in _safe_call(manager, "get_leaf_guards") or ():
            parts = list(_safe_call(leaf, "verbose_code_parts") or ())
            yield source, type(leaf).__name__, parts
        for child in _safe_call(manager, "get_child_managers") or ():
            yield from walk(child, False)

    yield from walk(root, True)
    # Relational guards (e.g. no tensor aliasing) and epilogue guards hang off the root in
    # some versions; they are included in the leaves above where torch exposes them.


def _safe_call(obj, method):
    fn = getattr(obj, method, None)
    if fn is None:
        return None
    try:
        return fn()
    except Exception:
        return None


def guard_closure_vars(guard_manager):
    """The helper names torch's guard code refers to (``___check_obj_id``, ...)."""
    closure = getattr(guard_manager, "closure_vars", None)
    return dict(closure) if isinstance(closure, dict) else {}


def guard_global_scope(guard_manager):
    scope = getattr(guard_manager, "global_scope", None)
    return scope if isinstance(scope, dict) else None


def saved_tensors_hooks_ids():
    """What torch's AUTOGRAD_SAVED_TENSORS_HOOKS guard compares: the ids of the top
    inlineable saved-tensors hooks, or None."""
    utils = _resolve("torch._functorch._aot_autograd.utils")
    get_hooks = getattr(utils, "top_saved_tensors_hooks", None)
    inlineable = getattr(utils, "saved_tensors_hooks_are_inlineable", None)
    if get_hooks is None or inlineable is None:
        raise NotImplementedError("saved tensors hooks helpers are missing")
    hooks = get_hooks()
    if not inlineable(hooks):
        return None
    return tuple(map(id, hooks))


def dispatch_keys_for_guard(tensor):
    """Dispatch key set of ``tensor`` as torch's tensor guard sees it (thread-local
    include/exclude sets applied), as its ``repr`` text."""
    keys = torch._C._dispatch_keys(tensor)
    include = getattr(torch._C, "_dispatch_tls_local_include_set", None)
    exclude = getattr(torch._C, "_dispatch_tls_local_exclude_set", None)
    if include is not None and exclude is not None:
        keys = (keys | include()) - exclude()
    return keys


# ---------------------------------------------------------------------------------------
# Logging, distributed, eval frame
# ---------------------------------------------------------------------------------------


_DEBUGGER_PACKAGES = ("debugpy", "pydevd")  # debugpy's pydevd is vendored inside it


def skip_debugger_frames():
    """Tell Dynamo to leave the debugger's own code alone (``torch._dynamo.trace_rules.add``):
    a debugger stopped in running dumped code calls its helpers from the trace function,
    inside the compiled frame, and Dynamo 2.4 tries to compile them (debugpy's variable
    view then shows an InternalTorchDynamoError instead of the locals). pdb is in the
    stdlib, which Dynamo always skips. Only for debugger packages already imported."""
    add = _resolve("torch._dynamo.trace_rules.add")
    loaded = [name for name in _DEBUGGER_PACKAGES if name in sys.modules]
    if not loaded:
        return
    if add is None:
        missing("torch._dynamo.trace_rules.add",
                "a debugger's own frames may be compiled by Dynamo while it inspects a dump file")
        return
    for name in loaded:
        try:
            add(name)
        except Exception:
            pass


def bytecode_logger():
    """torch's artifact logger for ``bytecode`` (enabled by ``TORCH_LOGS=+bytecode``)."""
    get = _resolve("torch._logging.getArtifactLogger")
    if get is None:
        missing("torch._logging.getArtifactLogger", "decompiled code is logged to 'depyf' instead")
        return logging.getLogger("depyf.bytecode")
    try:
        return get("torch._dynamo.convert_frame", "bytecode")
    except Exception:
        missing("the 'bytecode' logging artifact", "decompiled code is logged to 'depyf' instead")
        return logging.getLogger("depyf.bytecode")


def distributed_rank():
    """This process's rank in an initialized process group or under torchrun; else None."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        pass
    return None



def user_stack(limit=12):
    """The calling program's frames (outermost first) as ``(file, line, function)``,
    leaving out torch's, depyf's and the import machinery's: where a compile was triggered."""
    skip = (os.path.dirname(torch.__file__) + os.sep,
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep)
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(skip) and not filename.startswith("<frozen"):
            frames.append((filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    return frames[:limit][::-1]


METRIC_EVENTS = ("compilation_metrics", "bwd_compilation_metrics")


def compile_times(metrics):
    """Seconds per phase from a compilation-metrics event (torch's CompilationMetrics):
    {'total', 'dynamo', 'aot', 'inductor'}; a phase torch did not time is left out."""
    def seconds(key, scale):
        value = metrics.get(key) if isinstance(metrics, dict) else None
        return value / scale if isinstance(value, (int, float)) else None

    times = {
        "total": seconds("entire_frame_compile_time_s", 1.0),
        "backend": seconds("backend_compile_time_s", 1.0),
        "aot": seconds("aot_autograd_cumulative_compile_time_us", 1e6),
        "inductor": seconds("inductor_cumulative_compile_time_us", 1e6),
    }
    if times["total"] is not None and times["backend"] is not None:
        times["dynamo"] = max(times["total"] - times["backend"], 0.0)
    return {k: v for k, v in times.items() if v is not None}


def fx_imports():
    """The import lines FX's generated code relies on (``torch.fx.graph._custom_builtins``:
    ``import torch``, ``from torch import device``, ``from math import inf``...)."""
    builtins = _resolve("torch.fx.graph._custom_builtins")
    if not isinstance(builtins, dict):
        missing("torch.fx.graph._custom_builtins", "graph files import torch only")
        return ["import torch"]
    lines = [getattr(v, "import_str", None) for v in builtins.values()]
    return [line for line in lines if isinstance(line, str)] or ["import torch"]


def dtype_from_abbr(abbr):
    """The dtype of FX's printed abbreviation (``f32``, ``i64``, ``b8``...)."""
    abbrs = _resolve("torch.fx.graph.dtype_abbrs")
    for dtype, text in (abbrs or {}).items():
        if text == abbr:
            return dtype
    raise ValueError("unknown dtype abbreviation %r" % abbr)
