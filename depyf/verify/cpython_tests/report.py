"""The referee's report: a table per run, the lists behind it, JSON, the exit status.

The exit status is 1 when a test's outcome changed, a module was not proven (refused,
unreadable, timed out, internal error), a module under test was imported from
somewhere else than its folder, or the original run could not load its tests (the run
would not have tested it: ``referee.harness_problems``); 0 otherwise.
"""
import json
import os
import re
from collections import OrderedDict

from .referee import PROVEN


def totals(entries):
    count = OrderedDict((k, 0) for k in ("modules", "proven", "refused", "internal_error",
                                         "tests", "same", "changed", "source_text_dependent",
                                         "flaky", "not_reached", "substitution_problems",
                                         "harness_problems"))
    for e in entries:
        count["modules"] += 1
        if e["status"] in PROVEN:
            count["proven"] += 1
        elif e["status"] == "internal-error":
            count["internal_error"] += 1
        else:
            count["refused"] += 1
        count["tests"] += e.get("total", 0)
        count["same"] += e.get("same", 0)
        for key in ("changed", "source_text_dependent", "flaky", "not_reached"):
            count[key] += len(e.get(key, ()))
        if _substitution_problem(e):
            count["substitution_problems"] += 1
        if e.get("harness_problems"):
            count["harness_problems"] += 1
    return count


def _substitution_problem(entry):
    sub = entry.get("substitution", {}).get("decompiled", {})
    return sub.get("problem")


def failed(entries):
    """Whether the run fails (see the module docstring)."""
    return any(e.get("changed") or e["status"] not in PROVEN or e.get("harness_problems")
               or _substitution_problem(e) == "from elsewhere" for e in entries)


def cause(reason):
    """A refusal's cause without the names, operands and offsets that make each one
    unique (the checker's first difference keeps its kind and its instructions)."""
    text = re.sub(r"^cannot decompile .*?Python \d+\.\d+: ", "", reason)
    text = re.sub(r"^[\w.<>]+: ", "", text)
    text = re.sub(r" \((no reading|a bug in depyf|depyf does not handle).*$", "", text)
    text = re.sub(r" at offset \d+ \(line \d+\)", "", text)
    text = re.sub(r"\bat ([A-Z_]+)[^,]*", r"at \1", text)  # the instruction, not its argument
    text = re.sub(r"<function [^>]*>|<result \d+>|<exception \d+>", "<_>", text)
    text = re.sub(r"\[[^\[\]]*\]|\([^()]*\)", "[..]", text)
    text = re.sub(r"\[[^\[\]]*\]", "[..]", text)
    text = re.sub(r"\b(name|global|cell|fast|local|attr|method|getattr|setattr) [\w.]+", r"\1 _", text)
    text = re.sub(r"'[^']*'|\b\d+\b", "_", text)
    return text[:200]


def refusals(entries):
    """{cause: [(module, file, reason), ...]} of every file not proven."""
    groups = {}
    for e in entries:
        for f in e.get("files", ()):
            if f["status"] in PROVEN:
                continue
            for reason in f["reasons"] or [f["status"]]:
                key = "%s: %s" % (f["status"], cause(reason))
                groups.setdefault(key, []).append((e["name"], f["file"], reason))
    return OrderedDict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


def format_table(result):
    entries = result["modules"]
    rows = [("module", "status", "tests", "same", "changed", "src-text", "flaky", "unreached",
             "note")]
    for e in entries:
        note = e.get("not_run") or _substitution_problem(e) or ""
        runs = e.get("runs", {})
        if runs.get("decompiled", {}).get("fatal"):
            note = "child failed: " + runs["decompiled"]["fatal"]
        elif runs.get("decompiled", {}).get("timed_out"):
            note = "decompiled run timed out"
        elif e.get("harness_problems"):
            problem = e["harness_problems"][0]
            note = "harness: %s %s" % (problem["test"], problem["detail"][-60:])
        rows.append((e["name"], e["status"], e.get("total", "-"), e.get("same", "-"),
                     len(e.get("changed", ())), len(e.get("source_text_dependent", ())),
                     len(e.get("flaky", ())), len(e.get("not_reached", ())), note[:70]))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(r, widths)) + "  " + str(r[-1])
             for r in rows]
    t = result["totals"]
    lines.append("")
    lines.append("Python %s, %s mode: %d modules (%d proven, %d refused, %d internal error); "
                 "%d tests: %d same, %d changed, %d source-text dependent, %d flaky, "
                 "%d not reached; %d with harness problems; %.0f s" % (
                     result["python"], result["mode"], t["modules"], t["proven"], t["refused"],
                     t["internal_error"], t["tests"], t["same"], t["changed"],
                     t["source_text_dependent"], t["flaky"], t["not_reached"],
                     t.get("harness_problems", 0), result["wall_seconds"]))
    lines.extend(_details(result))
    return "\n".join(lines)


def _details(result):
    lines = []
    for e in result["modules"]:
        for item in e.get("changed", ()):
            lines.append("CHANGED %s [%s text] %s: %s -> %s  (%s | %s)" % (
                e["name"], "proven" if item.get("proven_text") else "unproven", item["test"],
                item["original"], item["decompiled"], item["detail_original"][:100],
                item["detail_decompiled"][:160]))
    for key, label in (("source_text_dependent", "SOURCE-TEXT"), ("flaky", "FLAKY")):
        for e in result["modules"]:
            for item in e.get(key, ()):
                lines.append("%s %s %s: %s -> %s (control %s)" % (
                    label, e["name"], item["test"], item["original"], item["decompiled"],
                    item.get("control")))
    for reason, items in refusals(result["modules"]).items():
        lines.append("REFUSED x%d %s  e.g. %s %s" % (len(items), reason, items[0][0], items[0][1]))
    for name, why in result.get("excluded", ()):
        lines.append("EXCLUDED %s: %s" % (name, why))
    return lines


def write_json(path, result):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    os.replace(path + ".tmp", path)
