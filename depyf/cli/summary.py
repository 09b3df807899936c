"""The few lines ``depyf run`` prints after the program: read from the dump's
``depyf_overview.py`` (its ``OVERVIEW`` dict, read as a literal, never executed)."""
import os

# The dump-folder reading is the report's (depyf/report/dump.py), imported when a summary
# is printed: the command line itself starts without the report package.
_RESUME_PREFIXES = ("torch_dynamo_resume_in_", "__resume_at_")


def read_overview(folder):
    """The ``OVERVIEW`` dict of ``folder``'s depyf_overview.py, or None without one
    (the report's reader: a literal, never executed)."""
    from ..report.dump import ReportError, overview_path, read_overview as read

    try:
        return read(overview_path(folder))
    except ReportError:
        return None


def _is_resume(entry):
    root = entry.get("root_function")
    if root is not None:
        return root != entry.get("function")
    return entry.get("function", "").startswith(_RESUME_PREFIXES)


def summary_lines(data, folder):
    """The summary of one dump folder's ``OVERVIEW`` (``data``)."""
    entries = data.get("transformed_code", [])
    users = []
    for e in entries:
        if not _is_resume(e) and e.get("function") not in users:
            users.append(e.get("function"))
    resumes = sum(1 for e in entries if _is_resume(e))
    breaks = data.get("graph_breaks", [])
    fallbacks = [e for e in entries if e.get("running_code") == "dynamo"]
    shown = ", ".join(users[:5]) + (", ..." if len(users) > 5 else "")
    lines = ["  functions compiled  %d%s" % (len(users), " (%s)" % shown if users else ""),
             "  compiles            %d%s" % (len(entries), " (%d of resume functions after graph "
                                                           "breaks)" % resumes if resumes else "")]
    total = sum(b.get("count", 1) for b in breaks)
    lines.append("  graph breaks        %d%s" % (
        total, " (%d distinct)" % len(breaks) if len(breaks) != total else ""))
    for b in sorted(breaks, key=lambda b: -b.get("count", 1))[:3]:
        where = b.get("where", "")
        lines.append("      %dx %s %s at %s" % (b.get("count", 1), b.get("id") or "",
                                                 b.get("reason", ""), _short(where)))
    lines.append("  recompiles          %d" % len(data.get("recompiles", [])))
    lines.append("  fallbacks           %d%s" % (len(fallbacks), " (running Dynamo's own bytecode, "
                                                 "not the decompiled code)" if fallbacks else ""))
    return lines


def _short(where):
    path, sep, line = where.rpartition(":")
    if not sep:
        return where
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        rel = path
    return "%s:%s" % (rel if len(rel) < len(path) else path, line)


def dump_folders(root):
    """The folders under ``root`` that hold an overview: the root itself, then
    ``rank_*/`` and ``process_*/`` (the report's ``find_ranks``)."""
    from ..report.dump import ReportError, find_ranks

    try:
        return [folder for _, folder in find_ranks(root)]
    except ReportError:
        return []
