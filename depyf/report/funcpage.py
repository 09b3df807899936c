"""One page per compiled user function: its source with the graph breaks marked, then per
code object (the function, then each resume function) each cache entry: why it exists,
its guard, the code that runs (graph and resume names linked), its graphs' stages, and
what changed since the previous entry."""
import os

from . import render
from .dump import STAGE_LABELS
from .pages import guard_table
from .render import esc


def _where(b):
    file_part, _, line = b.get("where", "").rpartition(":")
    return file_part, int(line) if line.isdigit() else None


def source_section(fn):
    parts = ['<div class="grid two"><div><h2 id="source">Source</h2>']
    marks = {}
    for b in fn.graph_breaks:
        file_part, line = _where(b)
        n_lines = len(fn.source.splitlines()) if fn.source else 0
        if line is not None and file_part == fn.source_file and fn.first_line <= line < fn.first_line + n_lines:
            marks[line] = "graph break %s: %s" % (b.get("id", ""), b.get("reason", ""))
    if fn.source:
        where = "%s:%d" % (fn.source_file, fn.first_line) if fn.source_file else ""
        parts.append('<p class="muted mono">%s</p>' % esc(where))
        start = fn.first_line if fn.source_file else 1
        parts.append(render.code_block(fn.source, numbers=start, marks=marks, ids="L"))
    else:
        parts.append('<p class="muted">The source of %s was not available.</p>' % esc(fn.name))
    parts.append('</div><div><h2 id="graph-breaks">Graph breaks <span class="badge%s">%d</span></h2>' % (
        " warn" if fn.graph_breaks else "", len(fn.graph_breaks)))
    if not fn.graph_breaks:
        parts.append("<p>None: each compile of this function captured its code in whole graphs.</p>")
    for b in fn.graph_breaks:
        file_part, line = _where(b)
        anchor = '<a href="#L%d">line %d</a>' % (line, line) if line in marks else esc(b.get("where", ""))
        items = ["<div class=\"card gb\"><b>%s %s</b> &middot; %s &middot; %d&times; (compiles %s)" % (
            esc(b.get("id", "")), esc(b.get("reason", "")), anchor, b.get("count", 0),
            esc(", ".join(b.get("compile_ids", []))))]
        if b.get("source_line"):
            items.append("<pre>%s</pre>" % esc(b["source_line"]))
        if b.get("explanation"):
            items.append("<p>%s</p>" % esc(b["explanation"]))
        if b.get("hints"):
            items.append("<ul>%s</ul>" % "".join("<li>Hint: %s</li>" % esc(h) for h in dict.fromkeys(b["hints"])))
        if b.get("documentation"):
            items.append('<p><a href="%s">%s</a></p>' % (esc(b["documentation"]), esc(b["documentation"])))
        parts.append("".join(items) + "</div>")
    return "".join(parts) + "</div></div>"


def _why(site, rank, code, i, entry, page):
    """Why this cache entry exists: the first compile, or the guard that failed before."""
    out = []
    if entry.recompile_reasons:
        out.append("<p><b>Why this entry exists:</b> the guard of an earlier entry failed:</p>")
        out.extend('<pre class="why">%s</pre>' % esc(r) for r in entry.recompile_reasons)
    elif i == 0:
        out.append("<p><b>Why this entry exists:</b> the first call of <code>%s</code>.</p>" % esc(code.name))
    else:
        out.append("<p><b>Why this entry exists:</b> a guard of entry %d failed "
                   "(torch reported no reason).</p>" % (i - 1))
    for caller, name in entry.callers:
        href = site.entry_href(rank, caller, page)
        out.append("<p>Called as <code>%s</code> by <a href=\"%s\">%s</a>.</p>" % (
            esc(name), esc(href or "#"), esc(caller.file)))
    if entry.trigger:
        out.append("<details><summary>compiled when called from</summary><pre>%s</pre></details>"
                   % esc("\n".join(entry.trigger)))
    return "".join(out)


def graphs_list(site, rank, entry, page):
    """Links to each stage of each graph this entry calls: one click to any of them."""
    rows = []
    for name in entry.info.get("graphs", []):
        stages = rank.graphs.get(name, [])
        target = site.rel(site.graph_path(rank, name), page)
        links = " ".join('<a class="stage" href="%s#stage-%s-%d">%s%s</a>' % (
            esc(target), esc(stage), n, esc(STAGE_LABELS.get(stage, stage)),
            " %d" % n if n else "") for stage, n, _ in stages)
        rows.append('<li id="graph-%s"><a class="graph" href="%s"><code>%s</code></a>: %s</li>' % (
            esc(name), esc(target), esc(name), links or '<span class="muted">no graph files</span>'))
    if not rows:
        return "<p class=\"muted\">This code calls no compiled graph.</p>"
    return "<p><b>Graphs:</b></p><ul class=\"graphs\">%s</ul>" % "".join(rows)


def _times(entry):
    cells = []
    for phase in ("forward", "backward"):
        t = entry.times.get(phase)
        if t:
            parts = ["%s %.3f s" % (label, t[key]) for key, label in
                     (("total", "total"), ("dynamo", "Dynamo"), ("aot", "AOT"), ("inductor", "Inductor"))
                     if key in t]
            cells.append("%s: %s" % (phase, ", ".join(parts)))
    return "<p class=\"muted\">Compile time: %s</p>" % esc("; ".join(cells)) if cells else ""


def entry_card(site, rank, code, i, entry, page):
    link = _linker(site, rank, entry, page)
    info = entry.info
    badge = ('<span class="badge">decompiled code runs</span>' if info.get("running_code") == "decompiled"
             else '<span class="badge bad">falls back to Dynamo\'s bytecode</span>')
    parts = ['<div class="card entry" id="entry-%s"><h3>Cache entry %d &middot; compile %s %s</h3>' % (
        esc(entry.stem), i, esc(entry.compile_id), badge)]
    parts.append(_why(site, rank, code, i, entry, page))
    if info.get("why_not_decompiled"):
        parts.append("<p><b>Why the decompiled code does not run:</b></p><pre>%s</pre>" % esc(info["why_not_decompiled"]))
    parts.append(_times(entry))
    parts.append("<h4>Guard</h4>")
    parts.append(guard_table(entry.guard_source) if entry.guard_source
                 else '<p class="muted">No guard recorded.</p>')
    parts.append('<h4>Transformed code: <a href="%s">%s</a></h4>' % (
        esc(site.dump_file(rank, entry.file, page)), esc(entry.file)))
    parts.append(render.code_block(entry.transformed_text or "# (file missing)\n", link=link))
    parts.append(graphs_list(site, rank, entry, page))
    if i > 0:
        prev = code.entries[i - 1]
        parts.append("<details><summary>diff with cache entry %d (guard and code)</summary>" % (i - 1))
        parts.append(render.diff_block(prev.guard_source or "", entry.guard_source or "",
                                       "guard of entry %d" % (i - 1), "guard of entry %d" % i))
        parts.append(render.diff_block(prev.readable_source or prev.transformed_text or "",
                                       entry.readable_source or entry.transformed_text or "",
                                       prev.file, entry.file))
        parts.append("</details>")
    return "".join(parts) + "</div>"


def _linker(site, rank, entry, page):
    resumes = entry.info.get("resumes", {})

    def link(name):
        if name.startswith("__compiled_fn_"):
            return site.rel(site.graph_path(rank, name), page) if name in rank.graphs else None
        target = rank.entries_by_file.get(resumes.get(name, ""))
        return site.entry_href(rank, target, page) if target else None

    return link


def _called_as(code):
    names = sorted({name for e in code.entries for _, name in e.callers})
    return " called as %s" % ", ".join("<code>%s</code>" % esc(n) for n in names) if names else ""


def function_page(site, rank, fn):
    page = site.fn_path(rank, fn)
    parts = ["<h1>%s</h1>" % esc(fn.name)]
    if fn.full_code_file:
        parts.append('<p class="muted">Everything in one Python file: <a href="%s">%s</a></p>' % (
            esc(site.dump_file(rank, fn.full_code_file, page)), esc(fn.full_code_file)))
    toc = "".join('<li><a href="#code-%d">%s</a> (%d cache entr%s)%s</li>' % (
        j, esc(c.name), len(c.entries), "y" if len(c.entries) == 1 else "ies", _called_as(c))
        for j, c in enumerate(fn.codes))
    parts.append("<ul class=\"toc\">%s</ul>" % toc)
    parts.append(source_section(fn))
    for j, code in enumerate(fn.codes):
        kind = "function" if code.name == fn.name else "resume function"
        parts.append('<h2 id="code-%d">%s <code>%s</code> <span class="badge">%d cache entr%s</span></h2>' % (
            j, kind, esc(code.name), len(code.entries), "y" if len(code.entries) == 1 else "ies"))
        for i, entry in enumerate(code.entries):
            parts.append(entry_card(site, rank, code, i, entry, page))

    def same(other):
        match = next((f for f in other.functions if f.slug == fn.slug), None)
        return site.fn_path(other, match) if match else None

    return render.page("%s - depyf report" % fn.name, "".join(parts),
                       crumbs=site.crumbs(rank, page, esc(fn.name)), selector=site.selector(rank, page, same))


def graph_page(site, rank, name):
    """Every stage of one graph, in order, each with its diff to the stage before."""
    page = site.graph_path(rank, name)
    stages = rank.graphs.get(name, [])
    nav = " ".join('<a href="#stage-%s-%d">%s%s</a>' % (
        esc(stage), n, esc(STAGE_LABELS.get(stage, stage)), " %d" % n if n else "") for stage, n, _ in stages)
    callers = [e for e in rank.entries_by_file.values() if name in e.info.get("graphs", [])]
    parts = ["<h1><code>%s</code></h1>" % esc(name)]
    for e in callers:
        href = site.entry_href(rank, e, page)
        parts.append('<p>Called by <a href="%s">%s</a> (compile %s).</p>' % (esc(href or "#"), esc(e.file), esc(e.compile_id)))
    parts.append('<nav class="stages">%s</nav>' % nav)
    prev = None
    for stage, n, file_name in stages:
        text = _read(os.path.join(rank.path, file_name))
        parts.append('<section class="stage" id="stage-%s-%d"><h2>%s%s: <a href="%s">%s</a></h2>' % (
            esc(stage), n, esc(STAGE_LABELS.get(stage, stage)), " %d" % n if n else "",
            esc(site.dump_file(rank, file_name, page)), esc(file_name)))
        if prev is not None:
            parts.append("<details><summary>diff with %s</summary>%s</details>" % (
                esc(prev[0]), render.diff_block(prev[1], text, prev[0], file_name)))
        parts.append(render.code_block(text))
        parts.append("</section>")
        prev = (file_name, text)

    def same(other):
        return site.graph_path(other, name) if name in other.graphs else None

    return render.page("%s - depyf report" % name, "".join(parts),
                       crumbs=site.crumbs(rank, page, esc(name)), selector=site.selector(rank, page, same))


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return "# (file missing: %s)\n" % path
