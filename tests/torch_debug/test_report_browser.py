"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``, installed by
.ci/run) opens the report of the toy example and of a 2-rank torchrun dump; every internal
link of every page (as the DOM stands after the pages' scripts ran) resolves, and the pages
show what they should. Set DEPYF_REPORT_SCREENSHOTS to a folder to also write the
documentation's screenshots (docs/images/) there."""
import os
import shutil
import subprocess

import pytest

from report_support import Page, broken_links, report_pages, toy_example_dump
from support import make_two_rank_dump

from depyf import report

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="headless browser tests need Debian's `chromium` (apt-get install chromium; .ci/run installs it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


class Chromium:
    def __init__(self, profile):
        self.profile = profile

    def run(self, *args):
        cmd = [BROWSER] + FLAGS + ["--user-data-dir=%s" % self.profile] + list(args)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (cmd, proc.stderr[-2000:])
        return proc.stdout

    def dom(self, path, fragment=""):
        """The DOM of a page after its scripts ran, as HTML."""
        dom = self.run("--dump-dom", "file://" + path + fragment)
        assert "<html" in dom, dom[:500]
        return dom

    def screenshot(self, path, png, width, height):
        self.run("--screenshot=%s" % png, "--window-size=%d,%d" % (width, height), "file://" + path)
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    return Chromium(str(tmp_path_factory.mktemp("chromium-profile")))


def test_toy_example_report_in_chromium(browser, tmp_path):
    dump = toy_example_dump(tmp_path)
    index = report.build(dump)
    pages = report_pages(dump)
    doms = {p: browser.dom(p) for p in pages}
    assert broken_links(pages, read=doms.get) == []

    idx = Page(doms[index])
    assert [a.get("href") for a in idx.with_class("a", "fn")] == ["depyf_report/main/fn_toy_example_0.html"]
    fn_path = os.path.join(dump, "depyf_report", "main", "fn_toy_example_0.html")
    fn = Page(doms[fn_path])
    assert len(fn.with_class("table", "guard")) == 3
    assert [a["id"] for a in fn.with_class("span", "gb")] == ["L8"]
    stages = {a["href"].split("#")[1] for a in fn.with_class("a", "stage")}
    assert {"stage-Captured_Graph-0", "stage-Forward_graph-0", "stage-AFTER_POST_GRAD-0",
            "stage-kernel-0"} <= stages
    assert "___check_tensor" in doms[fn_path]

    shots = os.environ.get("DEPYF_REPORT_SCREENSHOTS") or str(tmp_path)
    browser.screenshot(index, os.path.join(shots, "report_index.png"), 1280, 560)
    browser.screenshot(fn_path, os.path.join(shots, "report_function.png"), 1360, 1250)


def test_two_rank_report_has_a_working_rank_selector(browser, tmp_path):
    dump = str(make_two_rank_dump(tmp_path))
    index = report.build(dump)
    pages = report_pages(dump)
    assert any("/rank_1/" in p for p in pages) and any("/rank_0/" in p for p in pages)
    doms = {p: browser.dom(p) for p in pages}
    assert broken_links(pages, read=doms.get) == []

    page = Page(doms[index])
    options = [a.get("value") for t, a in page.tags if t == "option"]
    assert options == ["rank_0", "rank_1"]
    sections = {a["id"]: "hidden" in a for t, a in page.tags if t == "section"}
    assert sections == {"rank-rank_0": False, "rank-rank_1": True}  # the script shows one rank
    page = Page(browser.dom(index, "#rank-rank_1"))
    sections = {a["id"]: "hidden" in a for t, a in page.tags if t == "section"}
    assert sections == {"rank-rank_0": True, "rank-rank_1": False}
    fn = Page(doms[os.path.join(dump, "depyf_report", "rank_1", "fn_toy_0.html")])
    assert [a.get("value") for a in fn.with_class("select", "rank-select")] == [None]
    assert [a.get("value") for t, a in fn.tags if t == "option"] == ["../rank_0/fn_toy_0.html", "fn_toy_0.html"]
    assert fn.with_class("table", "guard")
