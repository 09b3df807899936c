"""Run by test_standalone.py in a fresh process: import every dump file of a folder, and run
every graph file as a script (``__main__``), which must print the shapes it produced."""
import glob, os, runpy, sys, io, contextlib, traceback
bad = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.py"))):
    name = os.path.basename(path)
    is_graph = any(s in name for s in (".Captured_Graph.", ".Forward_graph.", ".Backward_graph.", ".AFTER_POST_GRAD."))
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__" if is_graph else "depyf_import_check")
    except BaseException as exc:
        bad.append("%s: %s: %s" % (name, type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""))
        continue
    if is_graph and "output" not in out.getvalue() and "not run alone:" not in out.getvalue():
        bad.append("%s: printed no output shapes: %r" % (name, out.getvalue()[-300:]))
    print("OK", name, out.getvalue().strip().splitlines()[-1:] if is_graph else "")
print("BAD", len(bad))
print("\n".join(bad))
