"""The report's pages: the index, one page per compiled user function, one per graph.

Layout under the output folder: ``index.html``, and ``depyf_report/<rank>/`` with
``fn_<function>_<n>.html`` and ``graph___compiled_fn_<K>.html`` per rank (``main`` for a
single-process dump). Links are relative, so the folder works from ``file://`` and can be
moved together with the dump.
"""
import os
import tokenize
import io

from . import render
from .render import esc

REPORT_DIR = "depyf_report"


class Site:
    """Where each page of a report goes, and the links between them."""

    def __init__(self, out_dir, ranks):
        self.out_dir, self.ranks = out_dir, ranks
        self.multi = len(ranks) > 1

    def rank_dir(self, rank):
        return os.path.join(self.out_dir, REPORT_DIR, rank.slug)

    def fn_path(self, rank, fn):
        return os.path.join(self.rank_dir(rank), fn.slug + ".html")

    def graph_path(self, rank, name):
        return os.path.join(self.rank_dir(rank), "graph_%s.html" % name)

    def index_path(self):
        return os.path.join(self.out_dir, "index.html")

    def rel(self, target, page):
        return os.path.relpath(target, os.path.dirname(page)).replace(os.sep, "/")

    def dump_file(self, rank, name, page):
        return self.rel(os.path.join(rank.path, name), page)

    def entry_href(self, rank, entry, page):
        fn = next((f for f in rank.functions if entry in f.entries()), None)
        if fn is None:
            return None
        target = self.fn_path(rank, fn)
        return "%s#entry-%s" % ("" if target == page else self.rel(target, page), entry.stem)

    def index_href(self, rank, page):
        href = self.rel(self.index_path(), page)
        return href + "#rank-%s" % rank.slug if self.multi else href

    def crumbs(self, rank, page, *parts):
        items = ['<a href="%s">index</a>' % esc(self.index_href(rank, page))]
        if self.multi:
            items.append(esc(rank.label))
        items.extend(parts)
        return "<span>%s</span>" % " / ".join(items)

    def selector(self, rank, page, same=None):
        """A rank selector on a function or graph page: ``same(other_rank)`` gives the
        same page in another rank, or None (then that rank's index)."""
        if not self.multi:
            return ""
        opts = []
        for other in self.ranks:
            target = same(other) if same else None
            href = self.rel(target, page) if target else self.index_href(other, page)
            opts.append('<option value="%s"%s>%s</option>' % (
                esc(href), " selected" if other is rank else "", esc(other.label)))
        return ('<label>rank <select class="rank-select" onchange="location.href=this.value">%s'
                "</select></label>" % "".join(opts))


# ---- index -------------------------------------------------------------------------


def function_row(site, rank, fn, page):
    entries = fn.entries()
    ids = {e.compile_id for e in entries}
    recompiles = len({r.get("compile_id") for r in rank.overview.get("recompiles", [])} & ids)
    fallbacks = sum(1 for e in entries if e.info.get("running_code") == "dynamo")
    gb_unique = len(fn.graph_breaks)
    gb_total = sum(b.get("count", 0) for b in fn.graph_breaks)
    times = {}
    for e in entries:
        for phase, t in e.times.items():
            for k, v in t.items():
                times.setdefault(phase, {}).setdefault(k, 0.0)
                times[phase][k] += v
    link = '<a class="fn" href="%s">%s</a>' % (esc(site.rel(site.fn_path(rank, fn), page)), esc(fn.name))
    where = "%s:%s" % (os.path.basename(fn.source_file or ""), fn.first_line) if fn.source_file else ""
    gb_cell = ("%d (%d&times;)" % (gb_unique, gb_total), gb_unique) if gb_unique else ("0", 0)
    return [
        (link, fn.name), esc(where), (str(len(fn.codes)), len(fn.codes)), (str(len(entries)), len(entries)),
        gb_cell, str(recompiles), str(fallbacks),
        render.seconds(times, "dynamo"), render.seconds(times, "aot"),
        render.seconds(times, "inductor"), render.seconds(times, "total"),
    ]


def rank_section(site, rank, page):
    ov = rank.overview
    rows = [function_row(site, rank, fn, page) for fn in rank.functions]
    parts = ['<p class="muted">Dump folder: <a href="%s">%s</a></p>' % (
        esc(site.rel(rank.path, page) + "/"), esc(rank.path))]
    entries = list(rank.entries_by_file.values())
    recompiled = {r.get("compile_id") for r in ov.get("recompiles", [])}
    facts = [("functions", len(rank.functions)), ("cache entries", len(entries)),
             ("graph breaks", len(ov.get("graph_breaks", []))), ("recompiles", len(recompiled)),
             ("fallbacks", sum(1 for e in entries if e.info.get("running_code") == "dynamo"))]
    parts.append('<p class="summary">%s</p>' % " &middot; ".join(
        '<span class="badge%s">%d</span> %s' % (" warn" if n and label != "functions" and label != "cache entries"
                                                else "", n, label) for label, n in facts))
    parts.append("<h2>Compiled functions</h2>")
    parts.append(render.table(
        ["function", "defined at", "code objects", "cache entries", "graph breaks", "recompiles",
         "fallbacks", "Dynamo s", "AOT s", "Inductor s", "total s"],
        rows, cls="sortable functions", nums=(2, 3, 4, 5, 6, 7, 8, 9, 10)))
    breaks = sorted(ov.get("graph_breaks", []), key=lambda b: -b.get("count", 0))
    parts.append("<h2>Graph breaks <span class=\"badge\">%d unique</span></h2>" % len(breaks))
    rows = []
    for b in breaks:
        fns = [fn for fn in rank.functions if b in fn.graph_breaks]
        links = ", ".join('<a href="%s#graph-breaks">%s</a>' % (
            esc(site.rel(site.fn_path(rank, fn), page)), esc(fn.name)) for fn in fns)
        rows.append([(str(b.get("count", 0)), b.get("count", 0)), esc(b.get("id", "")), esc(b.get("reason", "")),
                     '<span class="mono">%s</span>' % esc(b.get("where", "")),
                     '<code>%s</code>' % esc(b.get("source_line", "")), links])
    parts.append(render.table(["count", "id", "reason", "where", "line", "in"], rows,
                              cls="sortable breaks", nums=(0,)) if rows else "<p>None.</p>")
    parts.append("<h2>Recompiles <span class=\"badge\">%d</span></h2>" % len(recompiled))
    rows = []
    for entry in entries:
        if entry.compile_id not in recompiled:
            continue
        href = site.entry_href(rank, entry, page)
        rows.append(['<a href="%s">%s</a>' % (esc(href), esc(entry.compile_id)), "<code>%s</code>" % esc(entry.info["function"]),
                     "".join("<pre>%s</pre>" % esc(r) for r in entry.recompile_reasons)])
    parts.append(render.table(["compile", "function", "the guard that failed (per earlier entry)"], rows,
                              cls="recompiles") if rows else "<p>None.</p>")
    return "".join(parts)


def index_page(site):
    page = site.index_path()
    selector = ""
    if site.multi:
        opts = "".join('<option value="%s">%s</option>' % (esc(r.slug), esc(r.label)) for r in site.ranks)
        selector = '<label>rank <select id="rank-select">%s</select></label>' % opts
        body = "".join('<section class="rank" id="rank-%s"><h1>%s</h1>%s</section>' % (
            esc(r.slug), esc(r.label), rank_section(site, r, page)) for r in site.ranks)
    else:
        body = "<h1>What torch.compile did</h1>" + rank_section(site, site.ranks[0], page)
    return render.page("depyf report", body, selector=selector)


# ---- function page -----------------------------------------------------------------


def guard_table(source):
    """A guard function as a table: the user's line each check came from, then the check
    (the function's own lines, ``try:`` and ``return``, keep their place)."""
    rows = []
    for code, comment in _split_comments(source):
        hl = render.highlight_lines(code)[0] if code.strip() else ""
        user, _, where = comment.rpartition("  # ")
        if not user:  # a comment with no location: torch's own guards
            user, where = "", comment
        where = where.split("/")[-1]
        rows.append('<tr><td class="user">%s <span class="muted">%s</span></td><td class="code hl">%s</td></tr>'
                    % (esc(user), esc(where), hl))
    return ('<div class="scroll"><table class="guard mono"><thead><tr><th>user\'s line</th>'
            "<th>check</th></tr></thead><tbody>%s</tbody></table></div>" % "".join(rows))


def _split_comments(source):
    """[(code, trailing comment)] per line; a comment-only line stays code."""
    lines = source.splitlines()
    comments = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and tok.line[:tok.start[1]].strip():
                comments[tok.start[0]] = tok.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    out = []
    for i, line in enumerate(lines, 1):
        col = comments.get(i)
        out.append((line[:col].rstrip(), line[col + 1:].strip()) if col is not None else (line, ""))
    return out
