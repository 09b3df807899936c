"""Open the built documentation site in headless Chromium and check what a reader sees.

    python tools/docs_check.py SITE_DIR [--screenshot PNG]

For the home page and the API reference (as the DOM stands after the pages' scripts ran,
from file://, no server): the theme's navigation is there and links to every section, the
API page holds an entry for every public name of ``depyf.__all__``, and a screenshot of the
home page is a real picture (a PNG of the window's size, not one flat colour). Without
Debian's ``chromium`` (``.ci/run`` installs it) it says so and exits 0: the strict build
has already checked links and anchors.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
WIDTH, HEIGHT = 1280, 800


def chromium(profile, *args):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    cmd = [browser] + FLAGS + ["--user-data-dir=%s" % profile] + list(args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise SystemExit("chromium failed: %s\n%s" % (" ".join(cmd), proc.stderr[-2000:]))
    return proc.stdout


def png_pixels(path):
    """(width, height, distinct colours in a sample of rows) of an 8-bit RGB(A) PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour = header[:4]
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None:
        return width, height, None
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    colours = set()
    for y in range(0, height, max(1, height // 40)):  # unfiltering is not needed to tell
        row = raw[y * stride + 1:(y + 1) * stride]    # a flat picture from a drawn one
        colours.update(row[i:i + 3] for i in range(0, len(row), channels * 7))
    return width, height, len(colours)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("site")
    p.add_argument("--screenshot", help="keep the home page's screenshot here")
    args = p.parse_args(argv)
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("docs_check: no chromium (apt-get install chromium; .ci/run installs it): "
              "the site was built strictly, the browser check is skipped")
        return 0
    site = os.path.abspath(args.site)
    profile = tempfile.mkdtemp(prefix="depyf-docs-chromium-")
    problems = []

    home = chromium(profile, "--dump-dom", "file://" + os.path.join(site, "index.html"))
    for page in ("guides/torch-compile.html", "guides/step-through.html", "guides/cli.html",
                 "guides/decompile.html", "guides/refusals.html", "explanation/proof.html",
                 "reference/api.html", "reference/cli.html", "measurements.html",
                 "compatibility.html", "contributing.html"):
        if 'href="%s"' % page not in home:
            problems.append("the home page's navigation has no link to %s" % page)

    api = chromium(profile, "--dump-dom", "file://" + os.path.join(site, "reference", "api.html"))
    sys.path.insert(0, REPO)
    import depyf

    for name in depyf.__all__:
        if not re.search(r'id="depyf(\.torch_debug(\.\w+)?)?\.%s"' % re.escape(name), api):
            problems.append("the API page has no entry for depyf.%s" % name)

    png = args.screenshot or os.path.join(profile, "home.png")
    chromium(profile, "--screenshot=%s" % png, "--window-size=%d,%d" % (WIDTH, HEIGHT),
             "file://" + os.path.join(site, "index.html"))
    width, height, colours = png_pixels(png)
    if (width, height) != (WIDTH, HEIGHT):
        problems.append("screenshot is %dx%d, not %dx%d" % (width, height, WIDTH, HEIGHT))
    if colours is not None and colours < 8:
        problems.append("the screenshot of the home page is nearly one colour (%d colours)" % colours)

    for problem in problems:
        print("docs_check: " + problem, file=sys.stderr)
    if not problems:
        print("docs_check: the site opens in chromium; navigation, API entries and a %dx%d "
              "screenshot (%s colours sampled) are as expected" % (width, height, colours))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
