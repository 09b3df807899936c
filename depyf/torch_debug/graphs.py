"""Graph and kernel files: ``__compiled_fn_<K>.<Stage>.<n>.py`` and
``__compiled_fn_<K>.kernel_<n>.py``.

The graphs come from torch's structured trace (what ``TORCH_TRACE`` records), each event
tagged with its compile id ``[frame/attempt]``:

=========================  ==================
trace event                stage in file name
=========================  ==================
dynamo_output_graph        Captured_Graph
aot_joint_graph            Joint_graph
aot_forward_graph          Forward_graph
aot_inference_graph        Forward_graph
aot_backward_graph         Backward_graph
inductor_post_grad_graph   AFTER_POST_GRAD
inductor_output_code       kernel
=========================  ==================

``<K>`` is the number in the global ``__compiled_fn_<K>_<uuid>`` that the transformed code
calls. Dynamo creates that name just before it hands a captured graph to the backend, so
within one compile id the i-th ``dynamo_output_graph`` belongs to the i-th smallest ``K``
that the transformed code of that compile refers to; every later event of the same compile
(AOT graphs, kernels, a lazily compiled backward) belongs to the latest captured graph.
Events arrive before the bytecode hook tells us the ``K``s, so they are buffered per compile
id and written when the hook runs.

Linking graph code to its file: FX compiles each GraphModule's ``forward`` from generated
source. When that source is the code of a stage we dump (same assigned names, same compile
id), the stage file is written as that exact source (the readable printout with shapes
follows as comments) and the function's code object is re-pointed at the file, so
debugger breakpoints in e.g. ``__compiled_fn_1.Forward_graph.0.py`` (aot_eager) or
``__compiled_fn_1.Captured_Graph.0.py`` (eager backend) are hit.
"""
import functools
import re

from . import adapter, graph_runner

STAGES = {
    "dynamo_output_graph": "Captured_Graph",
    "aot_joint_graph": "Joint_graph",
    "aot_forward_graph": "Forward_graph",
    "aot_inference_graph": "Forward_graph",
    "aot_backward_graph": "Backward_graph",
    "inductor_post_grad_graph": "AFTER_POST_GRAD",
    "inductor_output_code": "kernel",
}
_LINKABLE = {"Captured_Graph", "Forward_graph", "Backward_graph"}
_SRC_ASSIGN = re.compile(r"^    ([A-Za-z_]\w*) = (.*)$", re.M)
# boxed calling convention: ``args_iter = iter(args_list)``, ``arg0_1 = next(args_iter)``
_UNBOXING = re.compile(r"^(iter|next)\(args_\w+\)")
_READABLE_ASSIGN = re.compile(r'^        ([A-Za-z_]\w*)(?:: "[^"]*")? = ')
_MAX_PENDING = 32
# FX's source comments: ``# File: /path/script.py:12 in fn, code: ...``
_CITATION = re.compile(r"# File: (.+?):(\d+) in ")


def assigned_names_in_source(src):
    """Names assigned in the body of FX-generated ``def forward`` source, in order."""
    return tuple(name for name, rhs in _SRC_ASSIGN.findall(src) if not _UNBOXING.match(rhs))


def assigned_names_in_readable(text):
    """Names assigned in the top-level ``forward`` of a ``print_readable`` printout."""
    names, inside = [], False
    for line in text.splitlines():
        if not inside:
            if line.startswith("    def forward("):
                inside = True
            continue
        if line.strip() and not line.startswith("        ") and not line.startswith("    )"):
            break
        m = _READABLE_ASSIGN.match(line)
        if m:
            names.append(m.group(1))
    return tuple(names)


def cited_lines(text):
    """The (file, line) pairs that FX's ``# File:`` comments in ``text`` cite."""
    return {(path, int(line)) for path, line in _CITATION.findall(text)}


def stale_citations(text, captured_text):
    """Lines ``text`` cites that the captured graph of the same compile does not. Torch
    serves graphs from its caches (AOTAutograd, FX graph cache) with the comments of the
    run that first compiled them, so these point into another run's script."""
    if not captured_text:
        return []
    return sorted(cited_lines(text) - cited_lines(captured_text))


def as_valid_python(text):
    """Torch's ``text`` if it compiles; else with ``class <lambda>``-style names fixed;
    else every line commented out (with a note), so that every dump file compiles."""
    if compiles(text):
        return text
    fixed = re.sub(r"^(\s*class )<(\w+)>", r"\1_\2_", text, flags=re.M)
    if compiles(fixed):
        return fixed
    return commented_out(text, "torch's text")


def commented_out(text, whose):
    """``text`` as comment lines, under a note that ``whose`` text is not valid Python."""
    return "# (%s is not valid Python; shown as comments)\n" % whose + "\n".join(
        "# " + line for line in text.splitlines()
    ) + "\n"


@functools.lru_cache(maxsize=8)
def compiles(text):
    """Whether ``text`` is valid Python (what py_compile checks, without writing a .pyc).
    Remembered for the last few texts: one printout is checked for its input specs and
    again for each stage file that shows it (a deep model's printout is about 1 MB)."""
    try:
        compile(text, "<depyf graph>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


def relocate(code, filename, line_offset):
    """``code`` (and nested code) re-pointed to ``filename``, lines shifted by the offset."""
    consts = tuple(
        relocate(c, filename, line_offset) if hasattr(c, "co_code") else c for c in code.co_consts
    )
    return code.replace(
        co_filename=filename, co_firstlineno=code.co_firstlineno + line_offset, co_consts=consts
    )


# (backend, stage) whose linked graph code is what runs when the compiled graph is called
# (measured with pdb sessions under debug(): tests/torch_debug/test_debug_headers.py)
RUNS = {("eager", "Captured_Graph"), ("aot_eager", "Forward_graph"), ("aot_eager", "Backward_graph")}
_RUNS_TEXT = "graph files that run: Captured_Graph under eager, Forward/Backward_graph under aot_eager"


def running_lines(stage, backend, linked):
    """What a graph file's header may truthfully say about breakpoints, for its backend."""
    if linked and (backend, stage) in RUNS:
        return ["# Under the %s backend this file is the code that runs for this graph: "
                "breakpoints here are hit." % backend]
    if linked and backend is None:
        return ["# The graph's code was compiled from this file; whether it runs depends on the "
                "backend (%s)." % _RUNS_TEXT]
    if stage == "kernel":
        return ["# A copy for reading: Inductor runs this code from its own cache file, so "
                "breakpoints here are not hit."]
    return ["# A copy for reading: under the %s backend this graph's code does not run, so "
            "breakpoints here are not hit (%s)." % (backend or "this", _RUNS_TEXT)]


class _Entry:
    __slots__ = ("stage", "event", "payload", "k", "file", "path", "offset", "names", "fns", "specs")

    def __init__(self, stage, event, payload):
        self.stage, self.event, self.payload = stage, event, payload
        self.k = self.file = self.path = self.offset = None
        self.names = assigned_names_in_readable(payload) if stage in _LINKABLE else ()
        self.fns = []  # (src, function) pairs whose code is this stage's code
        self.specs = _UNREAD  # graph_runner.input_specs of the payload, once read

    def input_specs(self):
        """The payload's input specs, read once (a stage file is rewritten when another
        FX source is linked to it)."""
        if self.specs is _UNREAD:
            # (the signature alone when it parses: a deep model's printout is megabytes,
            # and a linked file holds it only as comments)
            self.specs = graph_runner.header_specs(self.payload)
            if self.specs is None:
                self.specs = graph_runner.input_specs(as_valid_python(self.payload))
        return self.specs


_UNREAD = object()


class _Compile:
    def __init__(self):
        self.attempt = 0
        self.slots = []  # one list of _Entry per captured graph
        self.ks = None
        self.function = None
        self.transformed_file = None
        self.backend = None  # registered backend name, None if unknown
        self.pending = []  # FX sources not matched yet: (names, src, function)


class GraphDumper:
    """Receives trace events and FX sources for one session and writes graph files."""

    def __init__(self, session):
        self.session = session
        self.compiles = {}

    # ---- trace events ----------------------------------------------------------------

    def on_event(self, event, record_meta, payload):
        stage = STAGES.get(event)
        key = adapter.trace_compile_key(record_meta)
        if stage is None or key is None or not isinstance(payload, str):
            return
        with self.session.lock:
            c = self.compiles.setdefault(key[:2], _Compile())
            if key[2] > c.attempt and c.ks is None:
                c.attempt, c.slots, c.pending = key[2], [], []  # the compile was restarted
            if event == "dynamo_output_graph" or not c.slots:
                c.slots.append([])
            entry = _Entry(stage, event, payload)
            c.slots[-1].append(entry)
            self._match_pending(c, entry)
            if c.ks is not None:
                self._write(c, len(c.slots) - 1, entry)

    def compiled(self, key, ks, original, transformed_file=None, backend=None):
        """Called by the bytecode hook: compile ``key`` calls graphs ``ks`` (sorted)."""
        if key is None:
            return
        with self.session.lock:
            c = self.compiles.setdefault(key[:2], _Compile())
            c.ks, c.function, c.transformed_file = list(ks), original.co_name, transformed_file
            c.backend = backend
            for i, slot in enumerate(c.slots):
                for entry in slot:
                    if entry.file is None:
                        self._write(c, i, entry)

    # ---- FX sources ------------------------------------------------------------------

    def on_fx_source(self, src, namespace):
        fn = namespace.get("forward") if isinstance(namespace, dict) else None
        if not hasattr(fn, "__code__"):
            return
        names = assigned_names_in_source(src)
        if not names:
            return
        key = adapter.current_compile_id()
        with self.session.lock:
            if key is None:
                # compiled lazily, outside any compile (e.g. at a graph's first call):
                # the graph of any compile of this dump session with the same assignments
                candidates = list(self.compiles.values())[::-1]
            else:
                candidates = [self.compiles.setdefault(key[:2], _Compile())]
            for c in candidates:
                for slot in reversed(c.slots):
                    for entry in reversed(slot):
                        if entry.names == names:
                            self._attach(c, entry, src, fn)
                            return
            if key is not None:
                candidates[0].pending.append((names, src, fn))
                del candidates[0].pending[:-_MAX_PENDING]

    def _match_pending(self, c, entry):
        if not entry.names:
            return
        keep = []
        for names, src, fn in c.pending:
            if names == entry.names:
                entry.fns.append((src, fn))
            else:
                keep.append((names, src, fn))
        c.pending = keep

    def _attach(self, c, entry, src, fn):
        entry.fns.append((src, fn))
        if entry.file is not None:
            self._link(c, entry, src, fn)

    # ---- writing ---------------------------------------------------------------------

    def _k_for_slot(self, c, i):
        if not c.ks:
            return None
        return c.ks[i] if i < len(c.ks) else c.ks[-1]

    def _write(self, c, slot_index, entry):
        k = self._k_for_slot(c, slot_index)
        if k is None:
            return
        session = self.session
        if entry.stage == "kernel":
            n = session.next_index(("kernel", k))
            entry.file = "__compiled_fn_%d.kernel_%d.py" % (k, n)
        else:
            n = session.next_index(("stage", k, entry.stage))
            entry.file = "__compiled_fn_%d.%s.%d.py" % (k, entry.stage, n)
        entry.k = k
        session.compiled_fn_files.setdefault(k, []).append(entry.file)
        if entry.fns:
            for src, fn in entry.fns:
                self._link(c, entry, src, fn)
        elif entry.stage == "kernel":  # Inductor's module: imports its own names, has its own main
            entry.path = session.write(entry.file, self._header(c, k, entry) + as_valid_python(entry.payload))
        else:
            body = as_valid_python(entry.payload)
            entry.path = session.write(entry.file, self._header(c, k, entry) + graph_runner.prologue(
                adapter.fx_imports()) + body + graph_runner.epilogue(graph_runner.input_specs(body)))

    def _header(self, c, k, entry, linked=False):
        what = {
            "Captured_Graph": "the graph Dynamo captured",
            "Joint_graph": "AOTAutograd's joint forward+backward graph",
            "Forward_graph": "AOTAutograd's forward (or inference) graph",
            "Backward_graph": "AOTAutograd's backward graph",
            "AFTER_POST_GRAD": "Inductor's graph after its post-grad passes",
            "kernel": "Inductor's output code (the kernels and the wrapper that calls them)",
        }[entry.stage]
        lines = [
            "# %s: %s for __compiled_fn_%d (trace event %r)." % (entry.file, what, k, entry.event),
            "# Called as __compiled_fn_%d by %s (compile %s)."
            % (k, c.transformed_file or "the transformed code of %s" % c.function, self._cid(c)),
        ]
        lines.extend(running_lines(entry.stage, c.backend, linked))
        lines.extend(self._cache_note(c, entry))
        return "\n".join(lines) + "\n"

    def _cache_note(self, c, entry):
        """Header lines for a graph whose source comments are another run's (warm cache)."""
        slot = next((s for s in c.slots if entry in s), [])
        captured = next((e for e in slot if e.stage == "Captured_Graph"), None)
        if captured is None or captured is entry:
            return []
        stale = stale_citations(entry.payload, captured.payload)
        if not stale:
            return []
        shown = ", ".join("%s:%d" % pl for pl in stale[:4]) + (" ..." if len(stale) > 4 else "")
        return [
            "# Served from torch's compile cache: the source comments below are those of the run",
            "# that first compiled this graph, not of this run. Lines cited that this compile's",
            "# captured graph (%s) does not cite:" % (captured.file or "Captured_Graph"),
            "#   " + shown,
        ]

    def _cid(self, c):
        for key, value in self.compiles.items():
            if value is c:
                return "%s/%s" % key
        return "?"

    def _link(self, c, entry, src, fn):
        """Write the stage file as the exact source of ``fn`` and point ``fn`` at it."""
        header = self._header(c, entry.k, entry, linked=True) + graph_runner.prologue(adapter.fx_imports())
        readable = "\n".join("# " + line for line in entry.payload.splitlines())
        text = "%s%s\n\n\n# The same graph with shapes, as torch printed it:\n%s\n%s" % (
            header,
            src.rstrip("\n"),
            readable,
            graph_runner.epilogue(entry.input_specs()),
        )
        entry.path = self.session.write(entry.file, text)
        code = fn.__code__
        if code.co_filename != entry.path:
            fn.__code__ = relocate(code, entry.path, header.count("\n"))
