"""``depyf report``'s wiring (arguments, --out, --open, errors), with a stand-in for
``depyf.report.build`` put in ``sys.modules`` of the subprocess: these tests are about
the command, not the report (tests/torch_debug has those)."""
import os
import sys

FAKE = '''
import os, sys, types
fake = types.ModuleType("depyf.report")
class ReportError(Exception):
    pass
def build(dump_dir, out_dir=None):
    if os.path.exists(os.path.join(dump_dir, "not_a_dump")):
        raise ReportError("%s holds no depyf dump (no depyf_overview.py)" % dump_dir)
    out = out_dir or dump_dir
    os.makedirs(out, exist_ok=True)
    index = os.path.join(out, "index.html")
    with open(index, "w") as fh:
        fh.write("<html>built from %s</html>" % os.path.abspath(dump_dir))
    return index
fake.ReportError, fake.build = ReportError, build
sys.modules["depyf.report"] = None if os.environ.get("NO_BUILDER") else fake
from depyf.cli import main
sys.exit(main(sys.argv[1:]))
'''


def test_builds_and_prints_the_index(python, tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    r = python(["-c", FAKE, "report", str(dump)])
    assert r.rc == 0, r
    assert r.out.strip() == str(dump / "index.html")
    assert (dump / "index.html").read_text() == "<html>built from %s</html>" % dump


def test_out_dir(python, tmp_path):
    dump, out = tmp_path / "dump", tmp_path / "elsewhere"
    dump.mkdir()
    r = python(["-c", FAKE, "report", str(dump), "--out", str(out)])
    assert r.rc == 0, r
    assert r.out.strip() == str(out / "index.html") and (out / "index.html").is_file()
    assert not (dump / "index.html").exists()


def test_open_starts_the_browser(python, tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.py"
    browser.write_text("import sys\nopen(%r, 'w').write(sys.argv[1])\n" % str(opened))
    # webbrowser runs $BROWSER (%s: the URL) before any browser it finds itself
    env = {"BROWSER": "%s %s %%s" % (sys.executable, browser), "DISPLAY": ""}
    r = python(["-c", FAKE, "report", str(dump), "--open"], env=env)
    assert r.rc == 0, r
    for _ in range(100):  # the browser command may run in the background
        if opened.exists() and opened.read_text():
            break
        import time
        time.sleep(0.05)
    assert opened.read_text() == (dump / "index.html").as_uri()


def test_not_a_dump(python, tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "not_a_dump").write_text("")
    r = python(["-c", FAKE, "report", str(dump)])
    assert r.rc == 1 and r.out == "", r
    assert r.err == "depyf report: error: %s holds no depyf dump (no depyf_overview.py)\n" % dump


def test_missing_folder_and_a_file(python, tmp_path):
    r = python(["-c", FAKE, "report", str(tmp_path / "nope")])
    assert r.rc == 1 and "no such directory: %s" % (tmp_path / "nope") in r.err, r
    f = tmp_path / "file.txt"
    f.write_text("x")
    r = python(["-c", FAKE, "report", str(f)])
    assert r.rc == 1 and "is not a directory" in r.err, r


def test_without_a_report_builder(python, tmp_path):
    r = python(["-c", FAKE, "report", str(tmp_path)], env={"NO_BUILDER": "1"})
    assert r.rc == 1 and "no report builder" in r.err and "Traceback" not in r.err, r


def test_usage(depyf):
    r = depyf("report")
    assert r.rc == 2 and "DUMP_DIR" in r.err, r


def test_help_of_every_command(depyf):
    r = depyf("--help")
    assert r.rc == 0, r
    for word in ("decompile", "run", "report", "examples:", "depyf run train.py"):
        assert word in r.out
    for command, example in (("decompile", "depyf decompile script.py:Model.forward"),
                             ("run", "depyf run --dump-dir dumps -m mypkg.train"),
                             ("report", "depyf report dump_src_dir --out")):
        r = depyf(command, "--help")
        assert r.rc == 0 and "examples:" in r.out and example in r.out, (command, r)
    r = depyf("--version")
    assert r.rc == 0 and r.out.startswith("depyf "), r
