"""HTML building blocks: the page frame (inline CSS and JS: the report works from
``file://`` with no network), highlighted code (pygments when installed, plain text
otherwise), code with linked names, diffs, and small tables."""
import difflib
import html
import re

try:
    from pygments import highlight as _pyg_highlight
    from pygments.formatters import HtmlFormatter as _HtmlFormatter
    from pygments.lexers import PythonLexer as _PythonLexer
except ImportError:  # the report stays usable without pygments: plain <pre>
    _pyg_highlight = None

esc = html.escape
_TAG = re.compile(r"(<[^>]*>)")

CSS = """
:root { --fg:#1d2330; --muted:#5b6474; --bg:#fff; --panel:#f6f8fa; --line:#d8dee4;
  --accent:#0b5cad; --gb:#fff1c2; --gbmark:#c77700; --add:#e6ffec; --del:#ffebe9; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  color:var(--fg); background:var(--bg); }
header.top { position:sticky; top:0; z-index:2; background:#17324d; color:#fff;
  padding:.45rem 1rem; display:flex; flex-wrap:wrap; gap:.4rem 1.2rem; align-items:center; }
header.top a { color:#fff; }
header.top .title { font-weight:600; }
main { padding:1rem clamp(.6rem, 2vw, 2rem); max-width:1800px; margin:0 auto; }
h1 { font-size:1.45rem; margin:.3rem 0 .6rem; } h2 { font-size:1.2rem; margin-top:1.6rem; }
h3 { font-size:1.05rem; margin:.4rem 0; } h4 { margin:.9rem 0 .2rem; }
a { color:var(--accent); } h1 code, h2 code { font-size:inherit; }
code, pre, .mono { font-family: ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:13px; }
pre { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:.6rem .8rem;
  overflow-x:auto; margin:.4rem 0; line-height:1.4; }
.muted { color:var(--muted); }
table { border-collapse:collapse; margin:.4rem 0; }
th, td { border:1px solid var(--line); padding:.25rem .5rem; text-align:left; vertical-align:top; }
th { background:var(--panel); }
table.sortable th { cursor:pointer; user-select:none; }
table.sortable th::after { content:" \\2195"; color:var(--muted); font-size:.8em; }
td.num { text-align:right; font-variant-numeric:tabular-nums; }
.scroll { overflow-x:auto; }
.card { border:1px solid var(--line); border-radius:8px; padding:.6rem 1rem; margin:1rem 0; }
.grid { display:grid; grid-template-columns:minmax(0,1fr); gap:0 1.5rem; }
@media (min-width: 1200px) { .grid.two { grid-template-columns:minmax(0,1fr) minmax(0,1fr); } }
.src .ln { display:inline-block; width:3.2em; color:var(--muted); user-select:none; }
.src .line { display:block; min-height:1.4em; } .src .line.gb { background:var(--gb); }
.src .line.gb .ln { color:var(--gbmark); font-weight:700; }
.badge { display:inline-block; padding:0 .45em; border-radius:1em; font-size:.8em;
  background:#e8eef6; color:#17324d; margin-left:.3em; }
.badge.warn { background:#ffe4b5; color:#7a4300; } .badge.bad { background:#ffd6d6; color:#8a1010; }
table.guard { width:100%; background:var(--panel); }
table.guard td { border:none; border-bottom:1px solid #e6eaef; padding:.1rem .5rem; white-space:pre; }
table.guard td.user { color:#2d5a1b; width:1%; } table.guard td.user .muted { font-size:11px; }
.diff .add { background:var(--add); display:block; } .diff .del { background:var(--del); display:block; }
.diff .hunk { color:#6f42c1; display:block; }
nav.stages { display:flex; flex-wrap:wrap; gap:.3rem; margin:.5rem 0; }
nav.stages a { border:1px solid var(--line); border-radius:5px; padding:.15rem .55rem; text-decoration:none; }
details > summary { cursor:pointer; color:var(--accent); margin:.3rem 0; }
:target { scroll-margin-top:3.2rem; }
section.rank[hidden] { display:none; }
"""

JS = """
function sortTable(th) {
  var table = th.closest('table'), idx = Array.prototype.indexOf.call(th.parentNode.children, th);
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var asc = th.getAttribute('data-dir') !== 'asc';
  function key(r) { var c = r.cells[idx]; var v = c.getAttribute('data-sort') || c.textContent.trim();
    var n = parseFloat(v); return isNaN(n) ? v.toLowerCase() : n; }
  rows.sort(function (a, b) { var x = key(a), y = key(b);
    if (typeof x !== typeof y) { x = String(x); y = String(y); }
    return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1); });
  rows.forEach(function (r) { body.appendChild(r); });
  th.setAttribute('data-dir', asc ? 'asc' : 'desc');
}
function showRank(slug) {
  var found = false;
  document.querySelectorAll('section.rank').forEach(function (s) {
    var on = s.id === 'rank-' + slug; s.hidden = !on; found = found || on; });
  if (!found) document.querySelectorAll('section.rank').forEach(function (s, i) { s.hidden = i > 0; });
  var sel = document.getElementById('rank-select'); if (sel && found) sel.value = slug;
}
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('table.sortable th').forEach(function (th) {
    th.addEventListener('click', function () { sortTable(th); }); });
  var sel = document.getElementById('rank-select');
  if (sel && document.querySelector('section.rank')) {
    var h = location.hash.replace(/^#rank-/, '');
    showRank(h && h !== location.hash ? h : sel.value);
    sel.addEventListener('change', function () { showRank(sel.value); history.replaceState(null, '', '#rank-' + sel.value); });
  }
});
"""


def page(title, body, crumbs="", selector=""):
    """A complete HTML document; ``crumbs`` and ``selector`` go into the top bar."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>%s</title><style>%s%s</style><script>%s</script></head><body>"
        "<header class=\"top\"><span class=\"title\">depyf report</span>%s%s</header>"
        "<main>%s</main></body></html>\n"
        % (esc(title), CSS, pygments_css(), JS, crumbs, selector, body)
    )


def pygments_css():
    if _pyg_highlight is None:
        return ""
    return _HtmlFormatter(style="default").get_style_defs(".hl")


def highlight_lines(text):
    """The HTML of each line of Python ``text`` (spans closed per line)."""
    text = text if text.endswith("\n") else text + "\n"
    if _pyg_highlight is None:
        return [esc(line) for line in text.splitlines()]
    out = _pyg_highlight(text, _PythonLexer(), _HtmlFormatter(nowrap=True))
    lines = out.splitlines()
    n = len(text.splitlines())
    return (lines + [""] * n)[:n]


def code_block(text, link=None, numbers=None, marks=(), ids=None):
    """A ``<pre>`` of highlighted code. ``link(name)`` -> href for names to link;
    ``numbers``: the number of the first line (shown) or None; ``marks``: {line: title}
    of lines to mark; ``ids``: prefix of per-line anchors."""
    rows = []
    for i, line in enumerate(highlight_lines(text)):
        if link is not None:
            line = link_names(line, link)
        n = None if numbers is None else numbers + i
        cls = "line gb" if n in marks else "line"
        attrs = ' class="%s"' % cls
        if ids and n is not None:
            attrs += ' id="%s%d"' % (ids, n)
        if n in marks:
            attrs += ' title="%s"' % esc(marks[n])
        ln = '<span class="ln">%d</span>' % n if n is not None else ""
        rows.append("<span%s>%s%s</span>" % (attrs, ln, line))
    return '<pre class="hl src">%s</pre>' % "".join(rows)


# (torch 2.5 to 2.12 give resume functions a uuid suffix: __resume_at_102_2_5609316d_...)
_LINKABLE = re.compile(r"(?<![\w.])(__compiled_fn_\d+|__resume_at_\d+_\d+"
                       r"(?:_[0-9a-f]{8}(?:_[0-9a-f]{4}){3}_[0-9a-f]{12})?)(?!\w)")


def link_names(html_line, link):
    """Wrap each ``__compiled_fn_<K>`` / ``__resume_at_*`` name in text (not in tags) in a
    link, where ``link(name)`` gives an href."""
    parts = _TAG.split(html_line)
    for i in range(0, len(parts), 2):
        parts[i] = _LINKABLE.sub(lambda m: _anchor(m.group(1), link(m.group(1))), parts[i])
    return "".join(parts)


def _anchor(name, href):
    return '<a class="sym" href="%s">%s</a>' % (esc(href), name) if href else name


def diff_block(a, b, a_name, b_name):
    """A unified diff of two texts as highlighted lines ('no differences' if equal)."""
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), a_name, b_name, lineterm="", n=3))
    if not lines:
        return '<p class="muted">No differences.</p>'
    out = []
    for line in lines:
        cls = ("hunk" if line.startswith("@@") else "add" if line.startswith("+")
               else "del" if line.startswith("-") else "")
        out.append('<span class="%s">%s</span>' % (cls, esc(line)) if cls else esc(line) + "\n")
    return '<pre class="diff">%s</pre>' % "".join(out)


def table(headers, rows, cls="", nums=()):
    """A table; ``rows`` hold HTML cells (a cell may be (html, sort key)); columns whose
    index is in ``nums`` are right-aligned numbers."""
    head = "".join("<th>%s</th>" % esc(h) for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            html_cell, key = cell if isinstance(cell, tuple) else (cell, None)
            attrs = ' class="num"' if i in nums else ""
            if key is not None:
                attrs += ' data-sort="%s"' % esc(str(key))
            cells.append("<td%s>%s</td>" % (attrs, html_cell))
        body.append("<tr>%s</tr>" % "".join(cells))
    return '<div class="scroll"><table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (
        cls, head, "".join(body))


def seconds(times, key):
    """'0.238' for a phase's seconds, '' when torch did not report it."""
    total = 0.0
    found = False
    for phase in ("forward", "backward"):
        value = times.get(phase, {}).get(key)
        if value is not None:
            total += value
            found = True
    return "%.3f" % total if found else ""
