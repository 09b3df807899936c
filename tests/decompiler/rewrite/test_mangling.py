"""depyf.decompiler.rewrite.mangling: private names in class bodies, both ways.

``mangle`` is checked against the compiler itself (the name a class body's code
object holds), and ``unmangle_class_body`` on hand-written bodies: it must spell back
exactly the names the compiler mangled, and nothing else."""
import ast
from inspect import CO_OPTIMIZED

import pytest

from depyf.decompiler.output.printer import unparse
from depyf.decompiler.rewrite.mangling import mangle, unmangle_class_body

MANGLE = [
    # class name, name, what the compiler stores
    ("C", "__x", "_C__x"),
    ("C", "__x__", "__x__"),  # dunder: never mangled
    ("C", "_x", "_x"),  # one underscore: not private
    ("C", "x", "x"),
    ("_C", "__x", "_C__x"),  # the class's leading underscores are dropped
    ("__C", "__x", "_C__x"),
    ("___", "__x", "__x"),  # a class of underscores only mangles nothing
    ("C", "__x.y", "__x.y"),  # a dotted import name is left alone
    ("C", "__", "__"),
    ("Outer", "___x", "_Outer___x"),
]


@pytest.mark.parametrize("class_name, name, mangled", MANGLE, ids=["%s.%s" % c[:2] for c in MANGLE])
def test_mangle(class_name, name, mangled):
    assert mangle(class_name, name) == mangled


@pytest.mark.parametrize("class_name, name, mangled", [c for c in MANGLE if "." not in c[1]],
                         ids=["%s.%s" % c[:2] for c in MANGLE if "." not in c[1]])
def test_mangle_agrees_with_the_compiler(class_name, name, mangled):
    code = compile("class %s:\n    %s = 1\n" % (class_name, name), "<case>", "exec")
    body = next(c for c in code.co_consts if hasattr(c, "co_names"))
    assert mangle(class_name, name) in body.co_names


UNMANGLE = [
    # class name, body as the bytecode spells it, body as written
    ("C", "_C__x = 1", "__x = 1"),
    ("C", "self._C__x = _C__y", "self.__x = __y"),
    ("C", "def _C__f(self, _C__a):\n    return _C__a", "def __f(self, __a):\n    return __a"),
    ("C", "f(_C__k=1)", "f(__k=1)"),
    ("C", "def f():\n    global _C__g\n    _C__g = 1", "def f():\n    global __g\n    __g = 1"),
    ("C", "_D__x = 1", "_D__x = 1"),  # another class's private name
    ("C", "_C__ = 1", "_C__ = 1"),  # nothing after the prefix
    ("C", "_C__x__ = 1", "_C__x__ = 1"),  # __x__ is never mangled: this was written so
    ("_C", "_C__x = 1", "__x = 1"),
    ("C", "class D:\n    _C__x = 1", "class D:\n    _C__x = 1"),  # a nested class body is its own
    ("C", "class _C__D:\n    pass", "class __D:\n    pass"),  # ... but its name is ours
    ("C", "import _C__m", "import _C__m"),  # import names are not mangled
]


@pytest.mark.parametrize("class_name, mangled, written", UNMANGLE, ids=[c[1].split("\n")[0] for c in UNMANGLE])
def test_unmangle_class_body(class_name, mangled, written):
    body = unmangle_class_body(class_name, ast.parse(mangled).body)
    assert unparse(ast.Module(body=body, type_ignores=[])) == unparse(ast.parse(written))


def _names_in_class(class_name, src):
    """Names the class body and the functions in it hold once compiled (nested class
    bodies left out: they mangle with their own name)."""
    code = compile("class %s:\n%s\n" % (class_name, "\n".join("    " + l for l in src.split("\n"))),
                   "<case>", "exec")
    found = set()
    todo = [next(c for c in code.co_consts if hasattr(c, "co_names"))]
    while todo:
        c = todo.pop()
        found.update(c.co_names + c.co_varnames)
        todo.extend(k for k in c.co_consts if hasattr(k, "co_names") and k.co_flags & CO_OPTIMIZED)
    return found


@pytest.mark.parametrize("class_name, mangled, written", UNMANGLE, ids=[c[1].split("\n")[0] for c in UNMANGLE])
def test_written_form_compiles_to_the_names_the_bytecode_had(class_name, mangled, written):
    assert _names_in_class(class_name, written) == _names_in_class(class_name, mangled)
