"""Where to put breakpoints in dump files: the last statement (the ``return``) of the
running code, where its tensors are local variables."""
import ast
import glob
import os

from support import decompiler_gap


def last_statement_line(path, func_prefix):
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith(func_prefix):
            return node.body[-1].lineno
    raise AssertionError("no def %s* in %s" % (func_prefix, path))


def targets(dump, kind):
    """[(path, line)] breakpoints for one kind of dump file."""
    if kind == "transformed":
        paths = [os.path.join(dump, "__transformed_code_0_for_toy_example.py")]
        prefix = "__transformed_code_"
    elif kind == "resume":
        paths = sorted(glob.glob(os.path.join(dump, "__transformed_code_*_for_torch_dynamo_resume_in_toy_example_at_*.py")))
        prefix = "__transformed_code_"
    elif kind == "captured_graph":
        paths = sorted(glob.glob(os.path.join(dump, "__compiled_fn_*.Captured_Graph.0.py")))
        prefix = "forward"
    elif kind == "forward_graph":
        paths = sorted(glob.glob(os.path.join(dump, "__compiled_fn_*.Forward_graph.0.py")))
        prefix = "forward"
    else:
        raise ValueError(kind)
    assert paths, "no %s files in %s" % (kind, dump)
    for p in paths:
        header = "".join(open(p).readlines()[:8])
        if "NOT the running code" in header:
            if decompiler_gap():
                import pytest

                pytest.xfail("%s is not the running code (a known gap on this torch release: %s)"
                             % (os.path.basename(p), decompiler_gap()))
            raise AssertionError(
                "%s is not the running code (waits on the decompiler), so no breakpoint in it "
                "can be hit; its header says:\n%s" % (os.path.basename(p), header))
    return [(p, last_statement_line(p, prefix)) for p in paths]
