"""``depyf run``: a program run under prepare_debug without editing it, as a user runs
it (``python -m depyf run ...`` in a subprocess): the toy example with and without its
own ``prepare_debug`` block, the program's argv / sys.path / exit status / exception
passed through, ``-m``, the summary, ``--report``."""
import importlib.util
import os
import re
import shutil
import sys
import textwrap

from support import REPO, run_python

TOY = os.path.join(REPO, "examples", "toy_example.py")

PROGRAM = textwrap.dedent('''\
    import sys
    print("argv=%r" % (sys.argv,))
    print("path0=%s" % sys.path[0])
    print("name=%s" % __name__)
    import torch

    @torch.compile(backend="eager")
    def f(x):
        return x * 2 + 1

    f(torch.ones(3))
    what = sys.argv[1] if len(sys.argv) > 1 else "0"
    if what == "raise":
        def fail():
            raise ValueError("boom from the program")
        fail()
    if what == "message":
        sys.exit("stopped with a message")
    sys.exit(int(what))
''')


def depyf(args, cwd):
    return run_python(["-m", "depyf"] + list(args), cwd=str(cwd))


def _toy_without_its_block(tmp_path):
    """The toy example with its `with depyf.prepare_debug(...)` block taken out."""
    text = open(TOY).read()
    edited = text.replace("    import depyf\n", "").replace(
        '    with depyf.prepare_debug("./dump_src_dir"):\n        main()', "    main()")
    assert "prepare_debug" not in edited.split("# surround")[0] + edited.split("depyf.prepare_debug`")[-1]
    path = tmp_path / "toy_plain.py"
    path.write_text(edited)
    return path


def _summary_ok(err, dump):
    assert "depyf run: dump in %s" % dump in err, err
    assert re.search(r"functions compiled +1 \(toy_example\)", err), err
    assert re.search(r"compiles +3 \(2 of resume functions", err), err
    assert re.search(r"graph breaks +1\n +1x GB\d+ .*toy_(example|plain).py:8", err), err
    assert re.search(r"recompiles +0", err) and re.search(r"fallbacks +0", err), err
    assert "depyf report %s" % dump in err, err


def test_toy_example_without_its_own_block(tmp_path):
    script = _toy_without_its_block(tmp_path)
    r = depyf(["run", str(script)], tmp_path)
    assert r.returncode == 0, r.stderr
    dump = tmp_path / "dump_src_dir"
    assert (dump / "__transformed_code_0_for_toy_example.py").is_file()
    assert (dump / "full_code_for_toy_example_0.py").is_file()
    _summary_ok(r.stderr, "dump_src_dir")


def test_toy_example_with_its_own_block(tmp_path):
    # same directory as the default: the program's block continues our session
    r = depyf(["run", TOY], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "recorded into" not in r.stderr
    _summary_ok(r.stderr, "dump_src_dir")
    # another directory: the program's block joins the dump of `depyf run`, with a note
    r = depyf(["run", "--dump-dir", "mine", TOY], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "depyf.prepare_debug('./dump_src_dir') block is recorded into %s" % (tmp_path / "mine") \
        in r.stderr, r.stderr
    assert (tmp_path / "mine" / "__transformed_code_0_for_toy_example.py").is_file()
    assert not (tmp_path / "dump_src_dir" / "previous_runs").exists()  # nothing went there
    _summary_ok(r.stderr, "mine")


def test_argv_path_name_and_exit_status(tmp_path):
    sub = tmp_path / "prog_dir"
    sub.mkdir()
    (sub / "prog.py").write_text(PROGRAM)
    r = depyf(["run", "--dump-dir", "d", "prog_dir/prog.py", "3", "--dump-dir", "-m"], tmp_path)
    assert r.returncode == 3, r.stderr
    assert "argv=['prog_dir/prog.py', '3', '--dump-dir', '-m']" in r.stdout
    assert "path0=%s" % sub in r.stdout and "name=__main__" in r.stdout
    assert re.search(r"functions compiled +1 \(f\)", r.stderr), r.stderr
    assert (tmp_path / "d" / "__transformed_code_0_for_f.py").is_file()
    r = depyf(["run", "--dump-dir", "d", "prog_dir/prog.py"], tmp_path)
    assert r.returncode == 0, r.stderr
    r = depyf(["run", "--dump-dir", "d", "prog_dir/prog.py", "message"], tmp_path)
    assert r.returncode == 1 and r.stderr.rstrip().endswith("stopped with a message"), r.stderr


def test_uncaught_exception(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    r = depyf(["run", "prog.py", "raise"], tmp_path)
    assert r.returncode == 1, r.stderr
    tb = r.stderr[r.stderr.index("Traceback"):]
    assert tb.splitlines()[1].startswith('  File "prog.py", line'), tb  # runpy/depyf frames cut
    assert "ValueError: boom from the program" in tb and "runpy" not in tb
    assert tb.index("ValueError") < tb.index("depyf run: dump in")  # the summary comes after


def test_module(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "prog.py").write_text(PROGRAM)
    r = depyf(["run", "-m", "mypkg.prog", "5", "x"], tmp_path)
    assert r.returncode == 5, r.stderr
    assert "argv=[%r, '5', 'x']" % str(pkg / "prog.py") in r.stdout
    assert "path0=%s" % tmp_path in r.stdout and "name=__main__" in r.stdout
    assert (tmp_path / "dump_src_dir" / "__transformed_code_0_for_f.py").is_file()
    r = depyf(["run", "-m", "no_such_module_xyz"], tmp_path)
    assert r.returncode == 1 and "no module named 'no_such_module_xyz'" in r.stderr, r.stderr


def test_missing_script_and_unusable_dump_dir(tmp_path):
    r = depyf(["run", "nope.py"], tmp_path)
    assert r.returncode == 2 and "can't open file 'nope.py'" in r.stderr, r.stderr
    assert not (tmp_path / "dump_src_dir").exists()
    (tmp_path / "prog.py").write_text("print('ran')\n")
    (tmp_path / "a_file").write_text("")
    r = depyf(["run", "--dump-dir", "a_file/sub", "prog.py"], tmp_path)
    assert r.returncode == 1 and "ran" not in r.stdout, r.stderr
    assert r.stderr.startswith("depyf run: error: depyf.prepare_debug: cannot write dump files to"), r.stderr


def test_report_after_the_run(tmp_path):
    script = _toy_without_its_block(tmp_path)
    r = depyf(["run", "--report", "--dump-dir", "d", str(script)], tmp_path)
    if importlib.util.find_spec("depyf.report") is None:
        assert r.returncode == 1 and "--report: this depyf has no report builder" in r.stderr
        return
    assert r.returncode == 0, r.stderr
    assert re.search(r"report +d/index.html", r.stderr), r.stderr
    assert (tmp_path / "d" / "index.html").is_file()
