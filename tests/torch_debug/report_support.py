"""Helpers for the HTML report tests: dumps to report on, and an HTML link checker."""
import glob
import os
import shutil
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

from support import REPO, run_python


def toy_example_dump(tmp_path):
    """examples/toy_example.py run as a user runs it (its own prepare_debug writes
    ./dump_src_dir); returns that folder."""
    proc = run_python([os.path.join(REPO, "examples", "toy_example.py")], cwd=str(tmp_path), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return str(tmp_path / "dump_src_dir")


class Page(HTMLParser):
    """The ids, links (href/src) and tags of one HTML page."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.tags = set(), [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key) is not None:
                self.links.append((tag, key, attrs[key]))
        if tag == "option" and ".html" in attrs.get("value", ""):  # a rank selector's pages
            self.links.append((tag, "value", attrs["value"]))

    def with_class(self, tag, cls):
        return [a for t, a in self.tags if t == tag and cls in (a.get("class") or "").split()]


def report_pages(out_dir):
    return sorted([os.path.join(out_dir, "index.html")]
                  + glob.glob(os.path.join(out_dir, "depyf_report", "**", "*.html"), recursive=True))


def broken_links(pages, read=None):
    """'page: link (why)' for each internal link of ``pages`` that does not resolve to an
    existing file (and, with a fragment, to an element with that id). ``read(path)`` gives a
    page's HTML (default: the file; the browser test passes Chromium's DOM)."""
    read = read or (lambda p: open(p, encoding="utf-8").read())
    parsed, bad = {}, []

    def page_of(path):
        if path not in parsed:
            parsed[path] = Page(read(path))
        return parsed[path]

    for path in pages:
        for tag, key, link in page_of(path).links:
            parts = urlsplit(link)
            if parts.scheme in ("http", "https"):
                if key == "src" or tag in ("link", "script"):
                    bad.append("%s: %s (an external resource)" % (path, link))
                continue
            if parts.scheme and parts.scheme != "file":
                bad.append("%s: %s (unexpected scheme)" % (path, link))
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(path), unquote(parts.path))) \
                if parts.path else path
            if not os.path.exists(target):
                bad.append("%s: %s (no such file)" % (path, link))
            elif parts.fragment and target.endswith(".html"):
                if parts.fragment not in page_of(target).ids:
                    bad.append("%s: %s (no element with id %r)" % (path, link, parts.fragment))
    return bad


def as_two_ranks(dump, tmp_path):
    """A copy of a single-process dump laid out as rank_0/ and rank_1/ (cheap multi-rank
    input for the pure-Python test; the browser test uses a real torchrun dump)."""
    root = tmp_path / "two_ranks"
    for r in (0, 1):
        shutil.copytree(dump, str(root / ("rank_%d" % r)), ignore=shutil.ignore_patterns("index.html", "depyf_report"))
    return str(root)
