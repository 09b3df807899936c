"""depyf.decompiler.rewrite.signature: a code object's flags and varnames -> the
parameter list, read back the way it was written."""
import ast

import pytest

from depyf.decompiler.rewrite.signature import build_arguments


def _code(params):
    ns = {}
    exec("def f(%s):\n    local = 1\n    return local\n" % params, ns)
    return ns["f"].__code__


def _names(arguments):
    one = lambda a: a.arg if a is not None else None  # noqa: E731
    return ([one(a) for a in arguments.posonlyargs], [one(a) for a in arguments.args],
            one(arguments.vararg), [one(a) for a in arguments.kwonlyargs], one(arguments.kwarg))


CASES = [
    # parameters as written, (positional-only, positional, *args, keyword-only, **kwargs)
    ("", ([], [], None, [], None)),
    ("a, b", ([], ["a", "b"], None, [], None)),
    ("a, /, b", (["a"], ["b"], None, [], None)),
    ("*args", ([], [], "args", [], None)),
    ("**kw", ([], [], None, [], "kw")),
    ("a, *, k", ([], ["a"], None, ["k"], None)),
    ("a, *rest, k, **kw", ([], ["a"], "rest", ["k"], "kw")),
    ("p, /, a, *r, k1, k2, **kw", (["p"], ["a"], "r", ["k1", "k2"], "kw")),
]


@pytest.mark.parametrize("params, expected", CASES, ids=[c[0] or "(none)" for c in CASES])
def test_parameter_names(params, expected):
    assert _names(build_arguments(_code(params))) == expected


def test_defaults_and_annotations_are_placed():
    one, two = ast.Constant(1), ast.Constant(2)
    hint = ast.Name(id="int", ctx=ast.Load())
    args = build_arguments(_code("a, b=1, *, k=2, j"), defaults=[one], kwdefaults={"k": two},
                           annotations={"a": hint})
    assert args.defaults == [one]
    assert args.kw_defaults == [two, None]  # one slot per keyword-only parameter, in order
    assert args.args[0].annotation is hint and args.args[1].annotation is None


@pytest.mark.parametrize("params", [c[0] for c in CASES] + ["a, b=1, *, k=2, j"])
def test_printed_signature_compiles_to_the_same_parameters(params):
    code = _code(params)
    fn = ast.FunctionDef(name="f", args=build_arguments(code), body=[ast.Pass()],
                         decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast, "TypeVar"):
        fn.type_params = []
    ns = {}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])), "<case>", "exec"), ns)
    back = ns["f"].__code__
    for attr in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount"):
        assert getattr(back, attr) == getattr(code, attr)
    assert back.co_flags & 0xC == code.co_flags & 0xC  # CO_VARARGS, CO_VARKEYWORDS
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
    assert back.co_varnames[:n] == code.co_varnames[:n]
