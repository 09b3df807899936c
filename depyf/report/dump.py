"""Reading a dump directory into what the report shows.

Facts come from ``depyf_overview.py``'s ``OVERVIEW`` dict (read with ``ast.literal_eval``,
never executed) and from the dump files it names. Guards and the user's source come from
``full_code_for_<fn>_<n>.py``: its top-level functions are, per cache entry, the guard
``__guard_<j>_for_<code>`` followed by the transformed function (named like its
``__transformed_code_<i>_for_<code>.py`` file), and the original source sits between the
``# ===== original source of`` line and the next ``# =====`` line.

This module must not import torch: a report is built wherever the dump is copied to.
"""
import ast
import os
import re

OVERVIEW_NAME = "depyf_overview.py"  # depyf.torch_debug.session.OVERVIEW_NAME
MARKER = ".depyf_run.json"  # depyf.torch_debug.session.MARKER
# rank_<r>, process_<pid>, and the folders of a process that found its folder in use by
# another live process: process_<pid>_<n>, rank_<r>_pid<pid>[_<n>]
_SUBFOLDER = re.compile(r"^(rank|process)_(\d+)(?:_pid(\d+))?(?:_(\d+))?$")
_GRAPH_FILE = re.compile(r"^(__compiled_fn_\d+)\.(?:(\w+?)\.(\d+)|kernel_(\d+))\.py$")
STAGE_ORDER = ("Captured_Graph", "Joint_graph", "Forward_graph", "Backward_graph",
               "AFTER_POST_GRAD", "kernel")
STAGE_LABELS = {
    "Captured_Graph": "captured (Dynamo)",
    "Joint_graph": "AOT joint",
    "Forward_graph": "AOT forward",
    "Backward_graph": "AOT backward",
    "AFTER_POST_GRAD": "post-grad",
    "kernel": "kernel (Inductor)",
}


class ReportError(Exception):
    """The folder cannot be reported on (not a depyf dump directory, unreadable)."""


class Entry:
    """One cache entry: a transformed code object with its guard, graphs and history."""

    def __init__(self, info):
        self.info = info  # the OVERVIEW["transformed_code"] item
        self.file = info["file"]
        self.stem = self.file[:-3] if self.file.endswith(".py") else self.file
        self.compile_id = info.get("compile_id", "?")
        self.guard_source = None  # from the full_code file
        self.readable_source = None
        self.transformed_text = None  # the __transformed_code_ file as written
        self.recompile_reasons = []
        self.callers = []  # (caller Entry, resume global name)
        self.times = {}
        self.trigger = []


class CodeObject:
    """A user function or one of its resume functions, with its cache entries in order."""

    def __init__(self, key, name):
        self.key, self.name = key, name
        self.entries = []


class Function:
    """A user function (one ``full_code_for_`` file): its source and its code objects."""

    def __init__(self, name, full_code_file):
        self.name, self.full_code_file = name, full_code_file
        stem = full_code_file[len("full_code_for_"):-3] if full_code_file else name
        self.slug = "fn_" + re.sub(r"[^\w.-]", "_", stem)
        self.codes = []
        self.source, self.source_file, self.first_line = None, None, 1
        self.graph_breaks = []

    def entries(self):
        return [e for c in self.codes for e in c.entries]


class Rank:
    """One process's dump folder (the directory itself, ``rank_<r>/`` or ``process_<pid>/``)."""

    def __init__(self, label, path):
        self.label, self.path = label, path
        self.label = label if label != "." else "main"
        self.slug = self.label
        self.overview = {}
        self.functions = []
        self.graphs = {}  # '__compiled_fn_K' -> [(stage, n, file name)] in stage order
        self.entries_by_file = {}


def find_ranks(dump_dir):
    """[(label, folder)]: the dump folders of ``dump_dir`` (itself, rank_*/, process_*/)."""
    if not os.path.isdir(dump_dir):
        raise ReportError("%s is not a directory (expected a depyf dump directory, written by "
                          "depyf.prepare_debug or `depyf run`)" % dump_dir)
    found = []
    if _is_dump(dump_dir):
        found.append((".", dump_dir))
    subs = [n for n in os.listdir(dump_dir) if _SUBFOLDER.match(n)]
    subs.sort(key=_subfolder_order)
    found.extend((n, os.path.join(dump_dir, n)) for n in subs if _is_dump(os.path.join(dump_dir, n)))
    if not found:
        raise ReportError(
            "%s is not a depyf dump directory: it holds no %s (nor do rank_*/ or process_*/ "
            "subfolders). Make one with `with depyf.prepare_debug(%r): ...` or `depyf run`."
            % (dump_dir, OVERVIEW_NAME, dump_dir))
    return found


def _subfolder_order(name):
    kind, number, pid, n = _SUBFOLDER.match(name).groups()
    return (kind, int(number), int(pid or 0), int(n or 0))


def overview_path(folder):
    return os.path.join(folder, OVERVIEW_NAME)


def _is_dump(folder):
    return os.path.isfile(overview_path(folder))


def read_overview(path):
    """The ``OVERVIEW`` dict of a ``depyf_overview.py`` (a literal: evaluated, not run)."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError) as exc:
        raise ReportError("cannot read %s: %s" % (path, exc)) from exc
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "OVERVIEW" for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError as exc:
                raise ReportError("%s: OVERVIEW is not a literal (%s)" % (path, exc)) from exc
    raise ReportError("%s has no OVERVIEW dict (written by an older depyf?)" % path)


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def load_rank(label, folder):
    rank = Rank(label, folder)
    ov = rank.overview = read_overview(overview_path(folder))
    rank.graphs = _graph_stages(ov.get("graph_files", {}))
    functions, codes = {}, {}
    for info in ov.get("transformed_code", []):
        entry = Entry(info)
        root = info.get("root_function") or info["function"]
        fkey = info.get("full_code_file") or root
        fn = functions.get(fkey)
        if fn is None:
            fn = functions[fkey] = Function(root, info.get("full_code_file"))
            rank.functions.append(fn)
        ckey = (fkey, info.get("code_object", info["function"]))
        code = codes.get(ckey)
        if code is None:
            code = codes[ckey] = CodeObject(ckey[1], info["function"])
            fn.codes.append(code)
        code.entries.append(entry)
        rank.entries_by_file[entry.file] = entry
        entry.transformed_text = _read(os.path.join(folder, entry.file))
        compile_info = ov.get("compiles", {}).get(entry.compile_id, {})
        entry.times = compile_info.get("seconds", {})
        entry.trigger = compile_info.get("trigger", [])
        entry.recompile_reasons = [r["failed_guard"] for r in ov.get("recompiles", [])
                                   if r.get("compile_id") == entry.compile_id]
    for entry in rank.entries_by_file.values():
        for name, target in entry.info.get("resumes", {}).items():
            callee = rank.entries_by_file.get(target)
            if callee is not None:
                callee.callers.append((entry, name))
    for fn in rank.functions:
        _read_full_code(rank, fn)
        ids = {e.compile_id for e in fn.entries()}
        fn.graph_breaks = [b for b in ov.get("graph_breaks", []) if ids & set(b.get("compile_ids", []))]
    return rank


def _graph_stages(graph_files):
    out = {}
    for name, files in graph_files.items():
        stages = []
        for file_name in files:
            m = _GRAPH_FILE.match(file_name)
            if not m:
                continue
            stage = m.group(2) or "kernel"
            n = int(m.group(3) if m.group(3) is not None else m.group(4))
            order = STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER)
            stages.append((order, n, stage, file_name))
        stages.sort(key=lambda s: (s[0], s[1]))
        out[name] = [(stage, n, file_name) for _, n, stage, file_name in stages]
    return out


def _read_full_code(rank, fn):
    """Guards, readable copies and the original source of ``fn`` from its full_code file."""
    if not fn.full_code_file:
        return
    text = _read(os.path.join(rank.path, fn.full_code_file))
    if text is None:
        return
    lines = text.splitlines()
    fn.source = _original_section(lines, fn.name)
    first = [e for c in fn.codes if c.name == fn.name for e in c.entries]
    where = (first[0] if first else fn.entries()[0]).info.get("defined_at", "")
    file_part, _, line = where.rpartition(":")
    if first and line.isdigit():
        fn.source_file, fn.first_line = file_part, int(line)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for guard, code in zip(defs, defs[1:] + [None]):
        if not guard.name.startswith("__guard_"):
            continue
        # the entry is named on the comment line that opens it ("# cache entry <j>: file
        # <name>.py (...)"): its transformed code may be no def (it could not be decompiled)
        named = _entry_file_above(lines, guard)
        entry = rank.entries_by_file.get(named) if named else None
        if entry is None and code is not None:
            entry = rank.entries_by_file.get(code.name + ".py")
        if entry is not None:
            entry.guard_source = _segment(lines, guard)
            if code is not None and code.name + ".py" == entry.file:
                entry.readable_source = _segment(lines, code)


_ENTRY_LINE = re.compile(r"^# cache entry \d+: file (\S+\.py)\b")


def _entry_file_above(lines, node):
    """The file named by the nearest "# cache entry" line above ``node``, or None."""
    for k in range(node.lineno - 2, -1, -1):
        found = _ENTRY_LINE.match(lines[k])
        if found:
            return found.group(1)
        if lines[k].startswith("def ") or lines[k].startswith("# ===== "):
            return None
    return None


def _segment(lines, node):
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return "\n".join(lines[start - 1:node.end_lineno]) + "\n"


def _original_section(lines, name):
    head = "# ===== original source of %s =====" % name
    if head not in lines:
        return None
    start = lines.index(head) + 1
    end = start
    while end < len(lines) and not lines[end].startswith("# ===== "):
        end += 1
    src = "\n".join(lines[start:end]).rstrip("\n") + "\n"
    return None if src.startswith("# (source not available)") else src


def load(dump_dir):
    """[Rank] for a dump directory; ReportError when it is none."""
    dump_dir = os.path.abspath(os.path.expanduser(os.fspath(dump_dir)))
    return [load_rank(label, folder) for label, folder in find_ranks(dump_dir)]
