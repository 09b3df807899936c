"""``depyf_overview.py``: one page for the whole run (of this process).

Lists every compiled function with its cache entries and files, whether the decompiled
code runs or Dynamo's does (and why), graph breaks de-duplicated with counts, the user's
source line and torch's reason text and id (``GB0059``...), and recompiles with the guard
that failed. It is valid Python: text is in comments, and the same facts are in the dict
``OVERVIEW`` for tools.
"""
import json
import linecache
import pprint
import re

from . import adapter, compile_info

EVENTS = ("dynamo_graph_break_reason", "recompile_reasons") + adapter.METRIC_EVENTS


class GraphBreak:
    def __init__(self, gb_id, filename, line, title, explanation):
        self.gb_id, self.filename, self.line = gb_id, filename, line
        self.title, self.explanation = title, explanation
        self.count = 0
        self.compile_ids = []
        self.hints = []  # torch's "Hint:" lines
        self.url = ""  # torch's documentation page of this graph break

    def source_line(self):
        return linecache.getline(self.filename, self.line).strip() if self.filename else ""


def parse_graph_break(payload):
    """(gb id, file, line, reason title, explanation) from torch's graph-break text."""
    where = re.search(r"Graph break in user code at (.+):(\d+)", payload)
    gb = re.search(r"/gb/(gb\d+)\.html", payload)
    title = ""
    m = re.search(r"Graph Break Reason: (.*)\n\s*\n?(.*)", payload)
    if m:
        title = m.group(2).strip() or m.group(1).strip()
        if not m.group(2).strip() or title.startswith("Explanation"):
            title = m.group(1).strip()
    if not title:  # torch 2.8 and older: "Reason: Data-dependent jump"
        m = re.search(r"^Reason: (.*)$", payload, re.M)
        title = m.group(1).strip() if m else ""
    expl = re.search(r"Explanation: (.*)", payload)
    return (
        gb.group(1).upper() if gb else adapter.graph_break_id(title),
        where.group(1) if where else "",
        int(where.group(2)) if where else 0,
        title,
        expl.group(1).strip() if expl else "",
    )


def parse_hints(payload):
    """(hint texts, documentation URL) from torch's graph-break text, each hint once: the
    text holds the message twice (torch's account of the break, then the traceback that
    ends in the same exception)."""
    hints = list(dict.fromkeys(h.strip() for h in re.findall(r"^\s*Hint: (.*)$", payload, re.M)))
    url = re.search(r"(https?://\S+/gb/gb\d+\.html)", payload)
    return hints, url.group(1) if url else ""


def parse_recompile(payload):
    """One reason per failed guard. torch sends a single reason as the raw (multi-line)
    string and several as a JSON list of such strings."""
    text = str(payload)
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
            if isinstance(data, list):
                return [str(x) for x in data if str(x).strip()]
        except ValueError:
            pass
    return [text] if text.strip() else []


def comment_lines(text, first, rest="#     "):
    """``text`` as comment lines: ``first`` + its first line, ``rest`` + each further
    line. Reasons from torch span several lines (a guard, then "User stack trace:"...);
    each line must be a comment or the dump file is not Python."""
    assert first.startswith("#") and rest.startswith("#")
    lines = [line.rstrip() for line in str(text).splitlines() if line.strip()] or [""]
    return [first + lines[0]] + [rest + line for line in lines[1:]]


class OverviewCollector:
    """Collects graph breaks and recompile reasons from trace events for a session."""

    def __init__(self, session):
        self.session = session

    def on_event(self, event, record_meta, payload):
        key = adapter.trace_compile_key(record_meta)
        cid = "%s/%s" % key[:2] if key else "?"
        s = self.session
        with s.lock:
            if event == "dynamo_graph_break_reason" and isinstance(payload, str):
                gb_id, filename, line, title, expl = parse_graph_break(payload)
                k = (gb_id, filename, line, title)
                gb = s.graph_breaks.get(k)
                if gb is None:
                    gb = s.graph_breaks[k] = GraphBreak(gb_id, filename, line, title, expl)
                gb.count += 1
                gb.compile_ids.append(cid)
                if not gb.url:
                    gb.hints, gb.url = parse_hints(payload)
            elif event in adapter.METRIC_EVENTS:
                compile_info.on_metrics(s, event, cid, record_meta.get(event))
            elif event == "recompile_reasons" and payload is not None:
                for reason in parse_recompile(payload):
                    s.recompiles.append((cid, reason))


UNREPORTED = "(torch did not report the reason)"


def note_unreported_breaks(session, compile_key, original, resume_codes):
    """Graph breaks of a compile that torch did not report: releases before 2.6 put no
    ``dynamo_graph_break_reason`` in the structured trace. The compile's resume functions
    (``torch_dynamo_resume_in_<fn>_at_<line>``) still say where it broke: one graph break
    each, without a reason, and one warning."""
    if compile_key is None or not resume_codes:
        return
    cid = "%s/%s" % tuple(compile_key[:2])
    with session.lock:
        if any(cid in gb.compile_ids for gb in session.graph_breaks.values()):
            return
        for code in resume_codes:
            m = re.search(r"_at_(\d+)$", code.co_name)
            line = int(m.group(1)) if m else code.co_firstlineno
            k = ("", original.co_filename, line, UNREPORTED)
            gb = session.graph_breaks.get(k)
            if gb is None:
                gb = session.graph_breaks[k] = GraphBreak("", original.co_filename, line, UNREPORTED, "")
            gb.count += 1
            gb.compile_ids.append(cid)
    adapter.missing("graph-break reasons in its structured trace (dynamo_graph_break_reason)",
                    "graph breaks are listed where Dynamo resumed, without a reason")


def notes_for(session, compile_key):
    """Comment lines saying why compile ``compile_key`` happened and where it broke: its
    recompile reasons (the guard that failed) and its graph breaks (with the user's line)."""
    if compile_key is None:
        return []
    cid = "%s/%s" % tuple(compile_key[:2])
    lines = []
    with session.lock:
        for rcid, reason in session.recompiles:
            if rcid == cid:
                lines.extend(comment_lines(reason, "# Compiled again because a guard of an earlier entry failed: "))
        for gb in session.graph_breaks.values():
            if cid in gb.compile_ids:
                lines.append("# Graph break: %s %s at %s:%s" % (gb.gb_id, gb.title, gb.filename, gb.line))
                if gb.source_line():
                    lines.append("#     %s" % gb.source_line())
                lines.extend("#     Hint: %s" % h for h in gb.hints)
                if gb.url:
                    lines.append("#     Documentation: %s" % gb.url)
    return lines


def _resumes_called_by(session, file_name):
    """{``__resume_at_*`` global: its dump file} for the transformed code in ``file_name``."""
    return {
        link.global_name: link.file_name
        for links in session.resume_links.values()
        for link in links
        if link.caller_file == file_name
    }


def _full_code_file(session, root):
    from .session import name_part

    n = session.full_code_index.get(id(root))
    return None if n is None else "full_code_for_%s_%d.py" % (name_part(root.co_name), n)


def overview_data(session):
    functions = []
    code_ids = {key: i for i, key in enumerate(session.originals)}
    for record in session.records:
        root = session.root_of(record.original)
        functions.append({
            "function": record.original.co_name,
            "defined_at": "%s:%s" % (record.original.co_filename, record.original.co_firstlineno),
            "compile_id": "%s/%s" % record.compile_key[:2] if record.compile_key else "?",
            "file": record.file_name,
            "graphs": ["__compiled_fn_%d" % k for k in record.compiled_fns],
            "running_code": "decompiled" if record.used else "dynamo",
            "why_not_decompiled": None if record.used else record.reason,
            # for tools (the HTML report): which code object, user function and file
            "code_object": code_ids.get(id(record.original)),
            "root_function": root.co_name,
            "full_code_file": _full_code_file(session, root),
            "resumes": _resumes_called_by(session, record.file_name),
        })
    breaks = [
        {
            "id": gb.gb_id,
            "reason": gb.title,
            "explanation": gb.explanation,
            "where": "%s:%s" % (gb.filename, gb.line),
            "source_line": gb.source_line(),
            "count": gb.count,
            "compile_ids": gb.compile_ids,
            "hints": gb.hints,
            "documentation": gb.url,
        }
        for gb in session.graph_breaks.values()
    ]
    recompiles = [{"compile_id": cid, "failed_guard": reason} for cid, reason in session.recompiles]
    return {
        "transformed_code": functions,
        "graph_breaks": breaks,
        "recompiles": recompiles,
        "compiles": compile_info.data(session),
        "graph_files": {"__compiled_fn_%d" % k: v for k, v in sorted(session.compiled_fn_files.items())},
        "counts": {
            "decompiled_and_running": sum(1 for r in session.records if r.used),
            "fell_back_to_dynamo": sum(1 for r in session.records if not r.used),
        },
    }


def overview_text(session):
    data = overview_data(session)
    lines = ["# depyf overview of this run (%s), dump folder %s" % (session.run_id, session.dir), "#"]
    c = data["counts"]
    lines.append("# transformed code objects: %d decompiled and running, %d running Dynamo's own bytecode"
                 % (c["decompiled_and_running"], c["fell_back_to_dynamo"]))
    lines.append("#")
    lines.append("# == compiled functions ==")
    for f in data["transformed_code"]:
        lines.append("#  %-45s compile %-6s %s -> %s  [%s]" % (
            f["function"], f["compile_id"], f["file"], ", ".join(f["graphs"]) or "(no graph)", f["running_code"]))
        if f["why_not_decompiled"]:
            why = f["why_not_decompiled"].splitlines()
            lines.append("#      not running the decompiled code: %s" % " ".join(why[:2]))
    lines.append("#")
    lines.append("# == graph breaks (de-duplicated) ==")
    for b in sorted(data["graph_breaks"], key=lambda b: -b["count"]):
        lines.append("#  %dx %s %s at %s" % (b["count"], b["id"] or "", b["reason"], b["where"]))
        if b["source_line"]:
            lines.append("#      %s" % b["source_line"])
        if b["explanation"]:
            lines.append("#      %s" % b["explanation"])
        lines.extend("#      Hint: %s" % h for h in b["hints"])
        if b["documentation"]:
            lines.append("#      Documentation: %s" % b["documentation"])
    lines.append("#")
    lines.append("# == recompiles (the guard that failed) ==")
    for r in data["recompiles"]:
        lines.extend(comment_lines(r["failed_guard"], "#  compile %s: " % r["compile_id"], "#      "))
    lines.append("#")
    lines.extend(_compile_section(session, data))
    lines.append("")
    lines.append("OVERVIEW = " + pprint.pformat(data, width=100, sort_dicts=False))
    return "\n".join(lines) + "\n"


def _compile_section(session, data):
    """Per compile: function and file, where it was triggered, its times, why it was compiled
    again, and its graph breaks."""
    lines = ["# == compiles (trigger stack, compile time, recompile reasons, graph breaks) =="]
    for f in data["transformed_code"]:
        cid = f["compile_id"]
        info = data["compiles"].get(cid, {})
        lines.append("#  compile %s: %s -> %s" % (cid, f["function"], f["file"]))
        if info.get("trigger"):
            lines.append("#      triggered from (outermost first):")
            lines.extend("#        %s" % frame for frame in info["trigger"])
        lines.extend("#      " + line[2:] for line in compile_info.cost_lines(session, cid))
        for r in data["recompiles"]:
            if r["compile_id"] == cid:
                lines.append("#      recompiled because: %s" % " ".join(str(r["failed_guard"]).split()))
        for b in data["graph_breaks"]:
            if cid in b["compile_ids"]:
                lines.append("#      graph break %s %s at %s%s" % (
                    b["id"], b["reason"], b["where"], " (%s)" % b["documentation"] if b["documentation"] else ""))
    return lines


def write(session):
    from .session import OVERVIEW_NAME

    session.write(OVERVIEW_NAME, overview_text(session))
