"""Summaries of round-trip results: the printed table, the JSON file, the failure worklist."""
import json
import platform
import sys
from collections import Counter, OrderedDict, defaultdict

SLOW_SECONDS = 1.0  # the project's target: no single code object over 1 s


def _pct(part, whole):
    return round(100.0 * part / whole, 2) if whole else 0.0


def summarize(results):
    """Counts, rates and timings for a list of ``Result``."""
    n = len(results)
    decompiled = sum(r.decompiled for r in results)
    compiles = sum(r.compiles for r in results)
    equal = sum(r.equal for r in results)
    proven = sum(r.proven for r in results)
    seconds = sum(r.seconds for r in results)
    slowest = max(results, key=lambda r: r.seconds) if results else None
    return OrderedDict(
        objects=n,
        decompiled=decompiled,
        compiles=compiles,
        equal=equal,
        proven=proven,
        decompiled_pct=_pct(decompiled, n),
        compiles_pct=_pct(compiles, n),
        equal_pct=_pct(equal, n),
        proven_pct=_pct(proven, n),
        different=sum((r.proof or "").startswith("different") for r in results),
        temp_names=sum(r.temps for r in results),
        decompile_seconds=round(seconds, 4),
        objects_per_second=round(n / seconds, 1) if seconds > 0 else None,
        slowest_seconds=round(slowest.seconds, 4) if slowest else 0.0,
        slowest_object="%s:%s" % (slowest.module, slowest.qualname) if slowest else None,
        over_1s=sum(r.seconds > SLOW_SECONDS for r in results),
        timeouts=sum(r.category is not None and r.category.startswith("DecompileTimeout")
                     for r in results),
        not_run=sum(r.stage == "not run" for r in results),
    )


def by_module(results):
    groups = OrderedDict()
    for r in results:
        groups.setdefault(r.module, []).append(r)
    return OrderedDict((m, summarize(rs)) for m, rs in groups.items())


def failure_groups(results):
    """``[(count, stage, category, [results])]`` for failed objects, most frequent first."""
    groups = defaultdict(list)
    for r in results:
        if not r.equal:
            groups[(r.stage, r.category)].append(r)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][0] or "", kv[0][1] or ""))
    return [(len(rs), stage, category, rs) for (stage, category), rs in ordered]


def format_table(results, unchecked_anonymous=0, wall_seconds=None):
    rows = [("module", "objects", "decompiled %", "compiles %", "bytecode-equal %",
             "proven %", "__temp names", "slowest s")]
    for module, s in by_module(results).items():
        rows.append(_row(module, s))
    total = summarize(results)
    rows.append(_row("TOTAL", total))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells))
        if k == 0 or k == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    lines.append("Python %s (%s)" % (platform.python_version(), sys.executable))
    lines.append(
        "code objects: %d; decompiled %d (%.2f%%), compiles %d (%.2f%%), bytecode-equal %d (%.2f%%)"
        % (total["objects"], total["decompiled"], total["decompiled_pct"], total["compiles"],
           total["compiles_pct"], total["equal"], total["equal_pct"])
    )
    lines.append(
        "proven equivalent (bytecode-equal or checked): %d (%.2f%%); found to behave "
        "differently: %d" % (total["proven"], total["proven_pct"], total["different"]))
    lines.append("__temp names introduced: %d" % total["temp_names"])
    lines.append(
        "decompile time: %.2f s, throughput %s objects/s; slowest %.3f s (%s); over 1 s: %d; "
        "timeouts: %d"
        % (total["decompile_seconds"], total["objects_per_second"], total["slowest_seconds"],
           total["slowest_object"], total["over_1s"], total["timeouts"])
    )
    if total["not_run"]:
        lines.append("NOT RUN (time budget exceeded, counted as failures): %d" % total["not_run"])
    if unchecked_anonymous:
        lines.append(
            "not checked: %d annotation scopes (no def around them)"
            % unchecked_anonymous
        )
    if wall_seconds is not None:
        lines.append("wall time: %.1f s" % wall_seconds)
    return "\n".join(lines)


def _row(name, s):
    return (name, str(s["objects"]), "%.2f" % s["decompiled_pct"], "%.2f" % s["compiles_pct"],
            "%.2f" % s["equal_pct"], "%.2f" % s["proven_pct"], str(s["temp_names"]),
            "%.3f" % s["slowest_seconds"])


def format_failures(results):
    """The decompiler author's worklist: categories by count, each failure's first line."""
    groups = failure_groups(results)
    total = len(results)
    stages = Counter(r.stage for r in results if not r.equal)
    lines = [
        "# depyf.verify failures on Python %s: %d of %d code objects not bytecode-equal"
        % (platform.python_version(), sum(stages.values()), total),
        "# by stage: " + ", ".join("%s %d" % (s, c) for s, c in stages.most_common()),
        "",
        "## categories (count  stage  category)",
    ]
    for count, stage, category, _ in groups:
        lines.append("%6d  %-9s  %s" % (count, stage, category))
    unproven = [r for r in results if r.compiles and not r.proven]
    lines.append("")
    lines.append("## not proven equivalent: %d (the checker's first difference, or why it "
                 "could not decide)" % len(unproven))
    for r in unproven:
        lines.append("  %s:%s (line %d): %s" % (r.module, r.qualname, r.firstlineno, r.proof))
    for count, stage, category, rs in groups:
        lines.append("")
        lines.append("## %d x [%s] %s" % (count, stage, category))
        for r in rs:
            proof = "" if r.proven or not r.compiles else "  [NOT PROVEN]"
            lines.append("  %s:%s (line %d): %s%s" % (r.module, r.qualname, r.firstlineno,
                                                       r.reason, proof))
    return "\n".join(lines) + "\n"


def to_json(results, unchecked_anonymous=0, wall_seconds=None, args=None):
    return OrderedDict(
        python=platform.python_version(),
        implementation=platform.python_implementation(),
        executable=sys.executable,
        args=args or {},
        wall_seconds=round(wall_seconds, 3) if wall_seconds is not None else None,
        unchecked_anonymous=unchecked_anonymous,
        total=summarize(results),
        modules=by_module(results),
        failure_categories=[
            OrderedDict(count=count, stage=stage, category=category)
            for count, stage, category, _ in failure_groups(results)
        ],
        results=[r._asdict() for r in results],
    )


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
