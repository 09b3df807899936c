"""``full_code_for_<fn>_<n>.py``: everything torch.compile did to one user function.

One file per user function (resume functions are listed under the function they came
from), valid Python, in reading order:

1. the original source;
2. for each code object (the function, then each resume function) and each of its cache
   entries, newest first as Dynamo checks them: the guard function (see ``guards``) and
   the transformed code (a copy of ``__transformed_code_<i>_for_<fn>.py`` for reading:
   the file's text is already folded, see ``readable``; this copy also leaves out Dynamo's
   profiler calls, which the running code keeps);
3. the compiled graphs those call, with the files that hold them.

Guard functions use names from torch's guard closure; ``depyf.torch_debug.guards.
guard_namespace(entry)`` gives them (the file compiles as is; to run a guard, exec its
``def`` in that namespace).
"""
import inspect
import linecache
import os
import re
import textwrap

from ..decompiler.api import Decompiler
from . import adapter, compile_info, guards, local_names, readable
from .closure_text import as_module_text, closure_wrapped
from .graphs import commented_out
from .transformed_code import (
    compiled_fn_number,
    dis_listing,
    name_part,
    rename_identifiers,
    short_compiled_fn_name,
)

_DEF_START = re.compile(r"^\s*(@|def\s|async\s+def\s)")


def _source_lines(code):
    """The lines of ``code``'s definition. ``inspect.getsource`` first maps the file to its
    module, computing the path of every module imported since its last call (tens of
    milliseconds after a torch compile has imported hundreds); a file on disk needs none
    of that: its lines from ``linecache``, the block starting at ``co_firstlineno`` (the
    first decorator or the ``def``)."""
    filename = code.co_filename
    first = code.co_firstlineno
    if os.path.isfile(filename):
        linecache.checkcache(filename)
        lines = linecache.getlines(filename)
        if 0 < first <= len(lines) and _DEF_START.match(lines[first - 1]):
            return inspect.getblock(lines[first - 1:])
    return inspect.getsourcelines(code)[0]


def original_source(code):
    """The source of ``code``'s definition as a module compiles it: a closure that
    declares ``nonlocal`` (or uses ``super()``, ``__class__``) nested in a function that
    binds its free variables (``closure_wrapped``); None where there is none."""
    try:
        src = textwrap.dedent("".join(_source_lines(code)))
    except (OSError, TypeError):
        return None
    candidates = [src]
    if code.co_freevars:
        candidates.append("\n".join(closure_wrapped(src.splitlines(), code.co_name, code.co_freevars)) + "\n")
    for text in candidates:
        try:
            compile(text, "<depyf original>", "exec", dont_inherit=True)
            return text
        except (SyntaxError, ValueError):
            continue
    return None


def readable_copy(source, keep=(), folded=False):
    """A copy of transformed source for reading: folded (``readable.fold``), and without
    Dynamo's profiler calls. Temporaries keep the names they have in the dump file.
    ``folded``: the source is the folded text already; only the profiler calls go (the
    folding is most of what prepare_debug adds to compile time)."""
    try:
        if folded:
            return readable.drop_profiling_calls(source)
        return readable.fold(source, None, keep=keep, drop_profiling_calls=True, renumber=False)
    except Exception:
        return source


def _transformed_text(session, entry, func_name):
    """(text, record-or-None) for the transformed code of one cache entry."""
    if entry.code is None:
        # Dynamo keeps such entries for frames it decided not to convert: the original
        # bytecode runs when the guard passes
        return "# this cache entry has no transformed code: the original bytecode runs\n", None
    record = session.records_by_code.get(id(entry.code))
    keep = set(record.original.co_varnames) if record is not None else set()
    keep |= set(getattr(entry.code, "co_freevars", ())) | set(getattr(entry.code, "co_cellvars", ()))
    if record is not None:  # as the source spells them (local_names)
        keep = {record.aliases.get(n, n) for n in keep}
    if record is not None and getattr(record, "reading_source", None) is not None:
        return record.reading_source, record  # (made by the hook from its fold's tree)
    if record is not None and record.source is not None:
        return readable_copy(record.source, keep, getattr(record, "source_folded", False)), record
    if record is not None:  # decompilation failed once already: do not try again
        return "# %s could not be decompiled; its bytecode is listed in %s\n" % (
            func_name, record.file_name), record
    try:
        spelled = local_names.rename_locals(entry.code, local_names.stand_ins(entry.code))
        src = Decompiler(spelled).decompile(overwrite_fn_name=func_name)
        names = [n for n in entry.code.co_names if compiled_fn_number(n) is not None]
        return readable_copy(rename_identifiers(src, {n: short_compiled_fn_name(n) for n in names}), keep), record
    except Exception as exc:
        text = "# %s could not be decompiled (%s); its bytecode:\n%s\n" % (
            func_name, str(exc).splitlines()[0] if str(exc) else type(exc).__name__, dis_listing(entry.code))
        return text, record


def syntax_error(text):
    """Why ``text`` does not compile, in one line; None where it compiles."""
    try:
        compile(text, "<depyf full code>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return "%s, line %s" % (getattr(exc, "msg", None) or exc, getattr(exc, "lineno", "?"))
    return None


def full_code_text(session, root, codes):
    lines = [
        "# full_code_for_%s: what torch.compile did to `%s` (%s:%s)."
        % (root.co_name, root.co_name, root.co_filename, root.co_firstlineno),
        "# Read top to bottom: the original function, then for each code object and each cache",
        "# entry (newest first, as Dynamo tries them) its guard and the code that runs when the",
        "# guard passes. Graphs `__compiled_fn_<K>` are in the files __compiled_fn_<K>.*.py.",
        "# Guard functions use torch's guard helpers: exec them in",
        "# depyf.torch_debug.guards.guard_namespace(cache_entry) to run them.",
        "from __future__ import annotations  # the original's annotations name the module's types",
        "import torch",
        "",
    ]
    src = original_source(root)
    lines.append("# ===== original source of %s =====" % root.co_name)
    lines.append(src.rstrip("\n") if src else "# (source not available)")
    lines.append("")
    used_ks = []
    for code in codes:
        entries = adapter.cache_entries(code)
        kind = "resume function" if code is not root else "function"
        lines.append("")
        lines.append("# ===== %s %s: %d cache entr%s =====" % (
            kind, code.co_name, len(entries), "y" if len(entries) == 1 else "ies"))
        for j, entry in enumerate(entries):
            gname = "__guard_%d_for_%s" % (j, name_part(code.co_name))
            gsrc, _ = guards.guard_function_source(entry, gname)
            record = session.records_by_code.get(id(entry.code))
            tname = record.func_name if record else "__transformed_code_for_%s_entry_%d" % (
                name_part(code.co_name), j)
            text, record = _transformed_text(session, entry, tname)
            text = as_module_text(text, tname, getattr(entry.code, "co_freevars", ()))
            lines.append("")
            if record is not None:
                lines.append("# cache entry %d: file %s (%s)" % (
                    j, record.file_name, "the running code" if record.used else "NOT the running code: " + record.reason.splitlines()[0]))
                lines.extend(getattr(record, "links", []))
                lines.extend(record.notes)
                if record.compile_key:
                    lines.extend(compile_info.cost_lines(session, "%s/%s" % tuple(record.compile_key[:2])))
                used_ks.extend(record.compiled_fns)
            else:
                lines.append("# cache entry %d: compiled before prepare_debug; readable copy only" % j)
                used_ks.extend(compiled_fn_number(n) for n in getattr(entry.code, "co_names", ())
                               if compiled_fn_number(n) is not None)
            lines.append(gsrc.rstrip("\n"))
            lines.append("")
            lines.append(text.rstrip("\n"))
    ks = sorted(set(k for k in used_ks if k is not None))
    if ks:
        lines.append("")
        lines.append("# ===== compiled graphs called above =====")
        for k in ks:
            files = session.compiled_fn_files.get(k, [])
            lines.append("# __compiled_fn_%d: %s" % (k, ", ".join(files) if files else "(no graph files recorded)"))
    return "\n".join(lines) + "\n"


def write_all(session):
    """(Re)write the full-code file of every user function the session saw."""
    roots, groups = [], {}
    for code in list(session.originals.values()):
        root = session.root_of(code)
        if id(root) not in groups:
            roots.append(root)
            groups[id(root)] = [root]
        if code not in groups[id(root)]:
            groups[id(root)].append(code)
    for root in roots:
        n = session.full_code_index.get(id(root))
        if n is None:
            n = session.full_code_index[id(root)] = session.next_index(("full_code", name_part(root.co_name)))
        text = full_code_text(session, root, groups[id(root)])
        name = "full_code_for_%s_%d.py" % (name_part(root.co_name), n)
        error = syntax_error(text)
        if error is not None:  # depyf's own text: a fault of depyf's, said aloud
            session.warn_once(("full_code", name), "%s is not valid Python (%s): written as comments" % (name, error))
            text = commented_out(text, "depyf's text (%s)" % error)
        session.write(name, text)
