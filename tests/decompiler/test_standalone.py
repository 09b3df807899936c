"""Comprehensions, generator expressions, lambdas and class bodies decompiled on their own
(``depyf/decompiler/standalone.py``): the text compiles, is proven (decompile returns it)
and, run, does what the original code object does."""
import ast
import asyncio
import sys
import textwrap
import types

import pytest

import depyf
from depyf.decompiler.output.prove import Place, prove, recompile
from depyf.decompiler.standalone import kind

INLINED = sys.version_info >= (3, 12)  # list/set/dict comprehensions have no code object


def nested(source, name, index=0):
    """The ``index``-th code object named ``name`` in ``source`` (depth first), or None."""
    found = []

    def walk(code):
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name == name:
                    found.append(const)
                walk(const)

    walk(compile(textwrap.dedent(source), "<test>", "exec"))
    return found[index] if index < len(found) else None


def has_line(text, line):
    """Whether one statement of ``text`` (at any depth) is ``line``, as parsed (3.8's
    printer adds parentheses)."""
    want = ast.dump(ast.parse(line.strip()).body[0])
    return any(ast.dump(node) == want for node in ast.walk(ast.parse(text)) if isinstance(node, ast.stmt))


def run(text, **names):
    namespace = dict(names)
    exec(compile(text, "<decompiled>", "exec"), namespace)
    return namespace


# id, source, name of the code object, expected line in the output, and a check of the
# exec'd text: (callable of the namespace -> result, expected result)
COMPREHENSIONS = [
    ("listcomp", "def f(data):\n    return [x * 2 for x in data if x]\n", "<listcomp>",
     "return [x * 2 for x in iterator if x]", lambda ns: ns["_listcomp"](iter([0, 1, 2])), [2, 4]),
    ("setcomp", "def f(data):\n    return {x % 3 for x in data}\n", "<setcomp>",
     "return {x % 3 for x in iterator}", lambda ns: ns["_setcomp"](iter(range(5))), {0, 1, 2}),
    ("dictcomp", "def f(data):\n    return {k: v for k, v in data}\n", "<dictcomp>",
     "return {k: v for k, v in iterator}", lambda ns: ns["_dictcomp"](iter([(1, 2)])), {1: 2}),
    ("two loops", "def f(data):\n    return [y for x in data for y in x]\n", "<listcomp>",
     "return [y for x in iterator for y in x]", lambda ns: ns["_listcomp"](iter([[1], [2, 3]])), [1, 2, 3]),
    ("global name", "def f(data):\n    return [len(x) for x in data]\n", "<listcomp>",
     "return [len(x) for x in iterator]", lambda ns: ns["_listcomp"](iter(["ab"])), [2]),
    ("parameter name taken", "def f(iterator):\n    return [iterator + x for x in iterator]\n",
     "<listcomp>", "return [iterator + x for x in iterator_]", None, None),
    ("genexpr", "def f(data):\n    return (x + 1 for x in data)\n", "<genexpr>",
     "return (x + 1 for x in iterator)", lambda ns: list(ns["_genexpr"](iter([1, 2]))), [2, 3]),
    ("genexpr in a call", "def f(data):\n    return sum(x for x in data if x > 1)\n", "<genexpr>",
     "return (x for x in iterator if x > 1)", lambda ns: sum(ns["_genexpr"](iter([1, 2, 3]))), 5),
    ("genexpr with a closure", "def f(data):\n    return list(lambda: x for x in data)\n", "<genexpr>",
     "return (lambda: x for x in iterator)", lambda ns: [g() for g in ns["_genexpr"](iter([7]))], [7]),
]


@pytest.mark.parametrize("source, name, line, call, expected", [c[1:] for c in COMPREHENSIONS],
                         ids=[c[0] for c in COMPREHENSIONS])
def test_comprehension_alone(source, name, line, call, expected):
    code = nested(source, name)
    if code is None:
        assert INLINED and name != "<genexpr>"
        pytest.skip("inlined on this version")
    assert kind(code) == "comprehension"
    text = depyf.decompile(code)
    assert has_line(text, line)
    assert "hidden argument .0" in text
    if call is not None:
        assert call(run(text)) == expected


def test_comprehension_reading_a_free_variable_is_proven_with_it_free():
    code = nested("def f(data, y):\n    return [x + y for x in data]\n", "<listcomp>") or \
        nested("def f(data, y):\n    return (x + y for x in data)\n", "<genexpr>")
    assert code.co_freevars == ("y",)
    text = depyf.decompile(code)
    assert has_line(text, "return [x + y for x in iterator]") or \
        has_line(text, "return (x + y for x in iterator)")


def test_assignment_expression_declares_the_enclosing_scope():
    # the name `:=` binds belongs to the function (nonlocal) or the module (global)
    in_function = nested("def f(data):\n    return list((last := x) for x in data), last\n", "<genexpr>")
    text = depyf.decompile(in_function)
    assert has_line(text, "nonlocal last") and has_line(text, "return ((last := x) for x in iterator)")
    at_module = nested("total = list((last := x) for x in data)\n", "<genexpr>")
    text = depyf.decompile(at_module)
    assert "global last" in text
    namespace = run(text)
    assert list(namespace["_genexpr"](iter([1, 2]))) == [1, 2] and namespace["last"] == 2


def test_async_comprehension_is_written_in_an_async_def():
    source = ("async def f(it):\n    return [x async for x in it]\n" if not INLINED else
              "async def f(it):\n    return list(x async for x in it)\n")
    code = nested(source, "<listcomp>" if not INLINED else "<genexpr>")
    if code is None:  # an async genexpr in a non-async function: 3.12 refuses it at compile time
        pytest.skip("no async comprehension code object")
    text = depyf.decompile(code)
    assert text.startswith("async def _")
    assert has_line(text, "return [x async for x in iterator]") or \
        has_line(text, "return (x async for x in iterator)")


def test_genexpr_with_await_is_written_in_an_async_def():
    code = nested("async def f(it):\n    return [y async for y in (await x for x in it)]\n", "<genexpr>")
    text = depyf.decompile(code)
    assert text.startswith("async def _genexpr(iterator):")
    assert has_line(text, "return (await x for x in iterator)")


def test_nested_comprehension_code_alone():
    code = nested("def f(data):\n    return [[y for y in x] for x in data]\n", "<listcomp>", 1)
    if code is None:
        pytest.skip("inlined on this version")
    text = depyf.decompile(code)
    assert has_line(text, "return [y for y in iterator]")


LAMBDAS = [
    ("simple", "g = lambda p, q: p + q\n", "_lambda = lambda p, q: p + q", (1, 2), 3),
    ("keyword-only and star args", "g = lambda a, *b, c, **d: (a, b, c, d)\n",
     "_lambda = lambda a, *b, c, **d: (a, b, c, d)", (1, 2), TypeError),
    ("conditional", "g = lambda x: x if x > 0 else -x\n", "_lambda = lambda x: x if x > 0 else -x", (-3,), 3),
    ("generator", "g = lambda: (yield 1)\n", "_lambda = lambda: (yield 1)", (), types.GeneratorType),
    ("a lambda inside", "g = lambda x: lambda y: x + y\n", "_lambda = lambda x: lambda y: x + y", (1,),
     types.FunctionType),
]


@pytest.mark.parametrize("source, line, args, expected", [c[1:] for c in LAMBDAS],
                         ids=[c[0] for c in LAMBDAS])
def test_lambda_alone(source, line, args, expected):
    code = nested(source, "<lambda>")
    assert kind(code) == "lambda"
    text = depyf.decompile(code)
    assert has_line(text, line) and len(text.strip().splitlines()) == 1
    fn = run(text)["_lambda"]
    original = types.FunctionType(code, {})
    if isinstance(expected, type):
        with pytest.raises(TypeError) if expected is TypeError else _no_error():
            assert isinstance(fn(*args), expected)
            assert isinstance(original(*args), expected)
    else:
        assert fn(*args) == original(*args) == expected


class _no_error:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_lambda_function_keeps_its_defaults_and_free_variables():
    y = 10
    g = lambda p, q=1, *, r=2: p + q + r + y  # noqa: E731
    text = depyf.decompile(g)
    assert has_line(text, "_lambda = lambda p, q=1, *, r=2: p + q + r + y")
    assert run(text, y=10)["_lambda"](1) == g(1)


def test_lambda_asked_for_a_name_is_a_def():
    code = nested("g = lambda p: p * 2\n", "<lambda>")
    text = depyf.Decompiler(code).decompile(overwrite_fn_name="double")
    assert text.startswith("def double(p):")
    assert run(text)["double"](4) == 8


def test_lambda_target_avoids_the_names_it_uses():
    code = nested("g = lambda: _lambda\n", "<lambda>")
    assert has_line(depyf.decompile(code), "_lambda_ = lambda: _lambda")


CLASSES = [
    ("plain", "class K:\n    z = 1\n\n    def m(self):\n        return self.z\n", "K", 0),
    ("super", "class K(Base):\n    def m(self):\n        return super().m()\n", "K", 0),
    ("docstring and annotations", 'class K:\n    """doc"""\n    a: int = 1\n    b: str\n', "K", 0),
    ("private names", "class K:\n    __x = 1\n\n    def m(self):\n        return self.__x\n", "K", 0),
    ("in a function", "def f(v):\n    class K:\n        w = v\n\n        def m(self):\n"
                      "            return v\n    return K\n", "K", 0),
    ("in a class", "class A:\n    class K:\n        def m(self):\n            return 1\n", "K", 0),
    ("in a method", "class A:\n    def f(self):\n        class K:\n            pass\n"
                    "        return K\n", "K", 0),
    # the body's closing bookkeeping is copied into each way out of a trailing if or try
    ("ends with if/else", "class K:\n    if c:\n        x = 1\n    else:\n        y = 2\n", "K", 0),
    ("ends with if", "class K:\n    a = 1\n    if c:\n        x = 1\n", "K", 0),
    ("ends with try", "class K:\n    try:\n        import foo\n    except ImportError:\n"
                      "        foo = None\n", "K", 0),
]


@pytest.mark.parametrize("source, name, index", [c[1:] for c in CLASSES], ids=[c[0] for c in CLASSES])
def test_class_body_alone(source, name, index):
    code = nested(source, name, index)
    assert kind(code) == "class"
    text = depyf.decompile(code)
    assert text.startswith(("class %s:" % name, "class %s():" % name))  # 3.8's printer
    assert "bases, keywords and decorators are not part of its code" in text
    compile(text, "<decompiled>", "exec")
    assert "__static_attributes__" not in text


def test_class_body_text_defines_the_same_class_body():
    code = nested("class K:\n    '''doc'''\n    z = 1\n\n    def m(self):\n        return self.z + 1\n", "K")
    K = run(depyf.decompile(code))["K"]
    assert K.__doc__ == "doc" and K().m() == 2


def test_module_and_def_code_are_no_standalone_kind():
    module = compile("x = 1\n", "<test>", "exec")
    assert kind(module) is None
    assert kind(nested("def f():\n    return 1\n", "f")) is None
    assert kind(compile("__module__ = __name__\n", "<test>", "exec")) is None


# -- the proof sees what a standalone text does ------------------------------------------


def test_a_comprehension_doing_something_else_is_not_proven():
    code = nested("def f(data):\n    return (x * 2 for x in data if x)\n", "<genexpr>")
    place = Place(("_genexpr", "<genexpr>"))
    same = "def _genexpr(iterator):\n    return (x * 2 for x in iterator if x)\n"
    assert prove(code, same, place)
    assert not prove(code, same.replace("x * 2", "x * 3"), place)
    assert not prove(code, same.replace(" if x", ""), place)


def test_a_class_body_doing_something_else_is_not_proven():
    code = nested("class K:\n    a = 1\n    b = 2\n", "K")
    place = Place(("K",))
    assert prove(code, "class K:\n    a = 1\n    b = 2\n", place)
    assert not prove(code, "class K:\n    b = 2\n    a = 1\n", place)


def test_a_class_body_is_compiled_where_its_qualname_says():
    # __qualname__ is a constant of the body: recompiled at top level it would differ
    code = nested("def f():\n    class A:\n        class K:\n            pass\n", "K")
    recompiled = recompile(code, "class K:\n    pass\n", Place(("K",), (("function", "f"), ("class", "A"))))
    assert "f.<locals>.A.K" in recompiled.co_consts
    assert not prove(code, "class K:\n    pass\n", Place(("K",)))


def test_the_last_lambda_of_the_text_is_the_counterpart():
    # a default that is a lambda compiles first: the lambda assigned is the last one
    code = nested("g = lambda x: x + 1\n", "<lambda>")
    source = "_lambda = lambda x=lambda: 0: x + 1\n"
    assert recompile(code, source, Place(("<lambda>",))).co_argcount == 1
    assert prove(code, source, Place(("<lambda>",)))


def test_run_decompiled_genexpr_in_async_code():
    code = nested("async def f(it):\n    return [y async for y in (await x for x in it)]\n", "<genexpr>")
    namespace = run(depyf.decompile(code))

    async def value(v):
        return v

    async def collect():  # the def around the generator expression is async: awaited
        return [y async for y in await namespace["_genexpr"](iter([value(1), value(2)]))]

    assert asyncio.run(collect()) == [1, 2]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters need Python 3.12")
def test_generic_class_body_keeps_its_type_parameters():
    code = nested("class Box[T, U](Base):\n    item: T\n\n    def get(self) -> U:\n"
                  "        return self.item\n", "Box")
    text = depyf.decompile(code)
    assert text.startswith("class Box[T, U]:")
