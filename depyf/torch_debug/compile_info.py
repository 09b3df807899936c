"""Per compile: where it was triggered and what it cost (what tlparse shows per compile id).

* the trigger: the program's stack when Dynamo converted the frame (taken in the bytecode
  hook, ``adapter.user_stack``); for a resume function the innermost frame is the
  transformed code that called it;
* the cost: torch's compilation-metrics events (``compilation_metrics``, and
  ``bwd_compilation_metrics`` for a backward compiled at its first call), reduced to
  seconds per phase by ``adapter.compile_times``: total, Dynamo (total minus backend),
  AOTAutograd, Inductor.

The overview prints both for every compile; a transformed file's header names the
trigger (its file is written before torch reports the times), ``full_code`` gives both.
"""
import os

from . import adapter


def note_trigger(session, compile_key, stack):
    if compile_key is not None and stack:
        with session.lock:
            session.triggers["%s/%s" % tuple(compile_key[:2])] = stack


def on_metrics(session, event, cid, metrics):
    times = adapter.compile_times(metrics)
    if times:
        with session.lock:
            session.compile_times.setdefault(cid, {})[
                "backward" if event.startswith("bwd_") else "forward"] = times


def trigger_line(session, compile_key):
    """One header line: where the compile was triggered (the innermost program frame)."""
    stack = session.triggers.get("%s/%s" % tuple(compile_key[:2])) if compile_key else None
    if not stack:
        return []
    filename, line, name = stack[-1]
    return ["# Compiled when called from %s:%d in %s (the whole stack: depyf_overview.py)."
            % (os.path.basename(filename), line, name)]


def format_times(times):
    """'total 0.187 s (Dynamo 0.182 s, AOT 0.005 s)' for one phase dict."""
    if not times:
        return "not reported by torch"
    parts = ["%s %.3f s" % (label, times[key]) for key, label in
             (("dynamo", "Dynamo"), ("aot", "AOT"), ("inductor", "Inductor")) if key in times]
    total = "total %.3f s" % times["total"] if "total" in times else "times"
    return "%s (%s)" % (total, ", ".join(parts)) if parts else total


def cost_lines(session, cid):
    """Comment lines with the compile times of ``cid`` ('0/0')."""
    with session.lock:
        times = dict(session.compile_times.get(cid, {}))
    lines = []
    for phase in ("forward", "backward"):
        if phase in times:
            lines.append("# Compile time%s: %s" % (
                " of the backward" if phase == "backward" else "", format_times(times[phase])))
    return lines


def data(session):
    """{compile id: {'trigger': [...], 'seconds': {...}}} for the overview's dict."""
    with session.lock:
        ids = list(dict.fromkeys(list(session.triggers) + list(session.compile_times)))
        return {
            cid: {
                "trigger": ["%s:%d in %s" % f for f in session.triggers.get(cid, [])],
                "seconds": session.compile_times.get(cid, {}),
            }
            for cid in ids
        }
