"""The decompile session (``decompiler/session.py``) and the body clean-ups it shares
with module decompilation (``decompiler/rewrite/bookkeeping.py``): table-driven, on
bodies parsed from text (``ast.parse`` accepts a ``return`` anywhere; only the compiler
refuses it)."""
import __future__
import ast
import types

import pytest

import depyf

from depyf.bytecode import versions as V
from depyf.decompiler.rewrite import bookkeeping
from depyf.decompiler.api import READINGS
from depyf.decompiler.facts import Fact, get
from depyf.decompiler.output.printer import unparse
from depyf.decompiler.session import DecompileSession
from depyf.decompiler.symbolic import markers as M

CLASS_CODE = types.SimpleNamespace(co_name="C", co_cellvars=(), co_flags=0)


def _stmts(text):
    return ast.parse(text).body


def _text(stmts):
    return unparse(ast.Module(body=stmts, type_ignores=[])) if stmts else ""


PROLOGUE = "__module__ = __name__\n__qualname__ = 'C'\n" + \
    ("__firstlineno__ = 1\n" if "__firstlineno__" in V.CLASS_PROLOGUE else "")
TAIL = "".join("%s = ()\n" % name for name in sorted(V.CLASS_TAIL_BOOKKEEPING, reverse=True))

CLASS_BODIES = [
    # the compiler's own assignments and closing return go
    (PROLOGUE + "x = 1\nreturn None\n", "x = 1\n"),
    ("y = 2\n" + TAIL + "return (__classcell__ := __class__)\n", "y = 2\n"),
    # the docstring is stored as __doc__
    (PROLOGUE + "__doc__ = 'text'\ny = 2\n", "'text'\ny = 2\n"),
    ("__doc__ = 'text'\ny = 2\n", "'text'\ny = 2\n"),
    # the body's own stores of those names stay: only the compiler's, where it puts
    # them, go
    (PROLOGUE + "__module__ = 'm'\n__qualname__ = 'X'\n", "__module__ = 'm'\n__qualname__ = 'X'\n"),
    (PROLOGUE + "__doc__ = 'a'\n__doc__ = 'b'\n", "'a'\n__doc__ = 'b'\n"),
    (PROLOGUE + "__doc__ = d()\n", "__doc__ = d()\n"),  # docstrings are strings
    ("__classcell__ = 42\nreturn (__classcell__ := __class__)\n", "__classcell__ = 42\n"),
    # an annotation stored after its assignment is one annotated assignment, in a
    # block too, where the compiler set up __annotations__
    (PROLOGUE + "x = 1\n__annotations__['x'] = int\n", "x = 1\n__annotations__['x'] = int\n"),
    ("__annotations__ = {}\n__annotations__['x'] = int\n",
     "__annotations__ = {}\n__annotations__['x'] = int\n"),
    # a private name is spelled as written
    ("_C__secret = 1\n", "__secret = 1\n"),
    # the closing bookkeeping copied into the arms of a final if/else goes from each arm
    ("if a:\n    x = 1\n    return None\nelse:\n    x = 2\n    return None\n",
     "if a:\n    x = 1\nelse:\n    x = 2\n"),
    ("if a:\n    x = 1\nelse:\n    return None\n", "if a:\n    x = 1\n"),
]


@pytest.mark.parametrize("source,expected", CLASS_BODIES)
def test_class_body(source, expected):
    assert _text(bookkeeping.class_body(CLASS_CODE, _stmts(source))) == _text(_stmts(expected))


ANNOTATED_BODIES = [
    ("x = 1\n__annotations__['x'] = int\n", "x: int = 1\n"),
    ("__annotations__['x'] = int\n", "x: int\n"),
    ("if a:\n    x = 1\n    __annotations__['x'] = int\n", "if a:\n    x: int = 1\n"),
    ("with a:\n    __annotations__['x'] = int\n", "with a:\n    x: int\n"),
    ("def f():\n    __annotations__['x'] = int\n", "def f():\n    __annotations__['x'] = int\n"),
]


@pytest.mark.parametrize("source,expected", ANNOTATED_BODIES)
def test_annotated_class_body(source, expected):
    stmts = [M.SetupAnnotations()] + _stmts(source)
    assert _text(bookkeeping.class_body(CLASS_CODE, stmts)) == _text(_stmts(expected))


FUTURE_CODE = types.SimpleNamespace(co_name="C", co_cellvars=(),
                                    co_flags=__future__.annotations.compiler_flag)


@pytest.mark.parametrize("source,expected", [
    # `from __future__ import annotations` stores each annotation as its text
    ("__annotations__['x'] = 'int'\n", "x: int\n"),
    ("__annotations__['x'] = \"'T'\"\n", "x: 'T'\n"),
    ("__annotations__['x'] = 'list[C]'\n", "x: list[C]\n"),
    ("__annotations__['x'] = '1 +'\n", "__annotations__['x'] = '1 +'\n"),  # no expression's text
])
def test_future_annotated_class_body(source, expected):
    stmts = [M.SetupAnnotations()] + _stmts(source)
    assert _text(bookkeeping.class_body(FUTURE_CODE, stmts)) == _text(_stmts(expected))


def test_class_body_drops_the_type_params_bookkeeping():
    # 3.12+: `__type_params__ = .type_params` (a name no source can write)
    stmt = ast.Assign(targets=[ast.Name(id="__type_params__", ctx=ast.Store())],
                      value=ast.Name(id=".type_params", ctx=ast.Load()), type_comment=None)
    assert _text(bookkeeping.class_body(CLASS_CODE, [stmt] + _stmts("x = 1\n"))) == "x = 1\n"
    # `__classdict__ = locals()` only where the body has that cell
    classdict = _stmts("__classdict__ = locals()\n")
    assert _text(bookkeeping.class_body(CLASS_CODE, classdict)) == "__classdict__ = locals()\n"
    with_cell = types.SimpleNamespace(co_name="C", co_cellvars=("__classdict__",), co_flags=0)
    assert bookkeeping.class_body(with_cell, _stmts("__classdict__ = locals()\n")) == []


MODULE_BODIES = [
    ("__doc__ = 'text'\nx = 1\nreturn None\n", "'text'\nx = 1\n"),
    ("__doc__ = 1\n", "__doc__ = 1\n"),  # not a docstring: docstrings are strings
    # no SETUP_ANNOTATIONS: the body's own __annotations__
    ("x = f()\n__annotations__['x'] = int\n", "x = f()\n__annotations__['x'] = int\n"),
    ("x = 1\nreturn 2\n", "x = 1\nreturn 2\n"),  # only `return None` is the compiler's
    # `global` after the docstring and the future imports, where it may stand; not for
    # names a nested function declares global (the compiler declares them in the module)
    ("global X, Y\n__doc__ = 'd'\nfrom __future__ import annotations\nX = 1\n"
     "def f():\n    global Y\n    Y = 1\n",
     "'d'\nfrom __future__ import annotations\nglobal X\nX = 1\n"
     "def f():\n    global Y\n    Y = 1\n"),
    ("global Y\ndef f():\n    global Y\n    Y = 1\n", "def f():\n    global Y\n    Y = 1\n"),
]


@pytest.mark.parametrize("source,expected", MODULE_BODIES)
def test_module_body(source, expected):
    assert _text(bookkeeping.module_body(_stmts(source))) == _text(_stmts(expected))


def test_module_body_drops_setup_annotations():
    # from 3.9 it comes before the docstring
    stmts = [M.SetupAnnotations()] + _stmts("__doc__ = 'text'\n__annotations__['x'] = int\n")
    assert _text(bookkeeping.module_body(stmts)) == _text(_stmts("'text'\nx: int\n"))
    stmts = [M.SetupAnnotations()] + _stmts("if a:\n    __annotations__['x'] = int\n")
    assert _text(bookkeeping.module_body(stmts)) == _text(_stmts("if a:\n    x: int\n"))


def _code(source, name=None):
    module = compile(source, "<test>", "exec")
    if name is None:
        return module
    return next(c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


@pytest.mark.parametrize("source", [
    "'''doc'''\nimport os\nx: int = 1\n",
    "class C:\n    '''doc'''\n    __x: int = 1\n\n    def m(self):\n        return self.__x\n",
    "def f():\n    global g\n    g = 1\n",
])
def test_make_module_gives_the_source_back(source):
    tree = DecompileSession({}, "__temp_").make_module(_code(source))
    assert isinstance(tree, ast.Module)
    assert unparse(tree) == unparse(ast.parse(source))


def test_make_class_notes_the_class_def_on_the_build_class_call():
    code = _code("class C:\n    x = 1\n", "C")
    session = DecompileSession({}, "__temp_")
    call = session.make_class([M.FuncMarker(code), ast.Constant(value="C")], [])
    assert isinstance(call, ast.Call) and call.func.id == "__build_class__"
    node = get(call, Fact.CLASS_DEF)
    assert isinstance(node, ast.ClassDef) and node.name == "C"
    assert _text(node.body) == "x = 1\n"
    assert session.classes == []  # the class scope is left again


def test_body_of_puts_declarations_first():
    code = _code("def f():\n    global g\n    g = 1\n    return g\n", "f")
    body = DecompileSession({}, "__temp_").body_of(code)
    assert _text(body) == "global g\ng = 1\nreturn g\n"


def test_readings():
    assert READINGS == (None, "flipped", "temporaries")
    code = _code("def f(a):\n    return a.b\n", "f")
    plain = DecompileSession({}, "__temp_")
    assert _text(plain.body_of(code)) == "return a.b\n" and not plain.used_temps
    temps = DecompileSession({}, "__temp_", reading="temporaries")
    temps.body_of(code)
    assert temps.used_temps


def test_mangle_in_class_scope():
    session = DecompileSession({}, "__temp_")
    assert session.mangle("__x") == "__x"
    session.classes.append("C")
    assert session.mangle("__x") == "_C__x" and session.mangle("__x__") == "__x__"


def test_make_lambda_leaves_other_values_alone():
    session = DecompileSession({}, "__temp_")
    value = ast.Constant(value=1)
    assert session.make_lambda(value) is value


@pytest.mark.parametrize("source", [
    "def f(dec):\n    def g(k=lambda: 1):\n        return k()\n    return g\n",
    "def f(dec):\n    @dec(lambda: 2)\n    def g():\n        return [lambda: 3]\n    return g\n",
    "def f(dec):\n    def g():\n        return 1\n    return (g, lambda: g)\n",
])
def test_lambdas_beside_nested_defs_become_lambdas(source):
    # a body whose functions all became def statements needs no search for lambdas; one
    # with a lambda left as a value (a default, a decorator's argument, beside the def)
    # does, and nested bodies deal with their own
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    assert ast.dump(ast.parse(depyf.decompile(namespace["f"]))) == ast.dump(ast.parse(source))
