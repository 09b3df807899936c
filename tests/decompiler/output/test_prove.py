"""The decompiler's last stage: recompile the text in the original's scope and prove it
(``depyf/decompiler/output/prove.py``); what the old effect-set self-check missed is refused."""
import pytest

import depyf
from depyf.decompiler.mismatch import Mismatch
from depyf.bytecode import versions as V
from depyf.decompiler.output.prove import def_scopes, prove, recompile
from depyf.errors import UnprovenError
from depyf.equivalence import equivalent


def _code(source, name="f"):
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace[name].__code__


def test_one_await_more_is_a_difference():
    source = "async def f(g):\n    return [v async for v in g]\n"
    code = _code(source)
    assert prove(code, source, "f")
    assert not prove(code, "async def f(g):\n    return await [v async for v in g]\n", "f")


def test_return_inside_or_after_an_async_with():
    code = _code("async def f(m, x):\n    async with m:\n        x.append(1)\n    return x\n")
    same = "async def f(m, x):\n    async with m:\n        x.append(1)\n    return x\n"
    moved = "async def f(m, x):\n    async with m:\n        x.append(1)\n        return x\n"
    assert prove(code, same, "f")
    verdict = prove(code, moved, "f")  # __aexit__ suppressing append's exception: x or None
    assert not verdict and verdict.different


def test_a_lost_cell_is_a_difference():
    # without `nonlocal a` the outer `a` is a plain local: `f.__closure__` is None
    source = "def g(v):\n    a = v\n    def f():\n        nonlocal a\n    return f.__closure__\n"
    code = _code(source, "g")
    assert prove(code, source, "g")
    assert not prove(code, source.replace("        nonlocal a\n", "        pass\n"), "g")


def test_is_none_test_folded_into_a_jump_is_the_same_test():
    code = _code("def f(a, b, r):\n    return (a is None and b) or r\n")
    assert prove(code, "def f(a, b, r):\n    return (b or r) if a is None else r\n", "f")
    assert not prove(code, "def f(a, b, r):\n    return (b or r) if a else r\n", "f")


def test_a_statement_run_twice_is_a_difference():
    code = _code("def f(xs, h):\n    for x in xs:\n        h(x)\n")
    assert not prove(code, "def f(xs, h):\n    for x in xs:\n        h(x)\n        h(x)\n", "f")


def test_super_and_dunder_globals_compile_without_mangling():
    # a method's transformed code loads __compiled_fn_1: a class around it would mangle it
    source = "def m(self):\n    x = __compiled_fn_1(self)\n    return super().m(x)\n"
    outer = "class C:\n    def m(self):\n        x = __compiled_fn_1(self)\n        return super().m(x)\n"
    namespace = {}
    exec(compile(outer, "<test>", "exec"), namespace)
    code = namespace["C"].m.__code__
    assert "_C__compiled_fn_1" in code.co_names  # the original, compiled in its class
    recompiled = recompile(code, source, "m")
    assert "__compiled_fn_1" in recompiled.co_names


_NESTED = (
    "def outer(k):\n"
    "    class A:\n"
    "        class B:\n"
    "            def f(self):\n"
    "                return [x + k for x in self]\n"
    "            def g(self):\n"
    "                return self\n"
    "            def c(self):\n"
    "                class C:\n"
    "                    pass\n"
    "                return C\n"
    "    def h():\n"
    "        return lambda: k\n"
    "    return A.B, h\n"
)


def _nested(name):
    namespace = {}
    exec(compile(_NESTED, "<test>", "exec"), namespace)
    cls, h = namespace["outer"](1)
    return {"f": cls.f, "g": cls.g, "c": cls.c, "h": h}[name].__code__


_IN_B = (("function", "outer"), ("class", "A"), ("class", "B"))


@pytest.mark.parametrize("name, before_311, since_311, on_314", [
    ("f", _IN_B, (), _IN_B),
    ("g", (), (), _IN_B),  # makes no function: no qualified name in its bytecode
    ("c", _IN_B, _IN_B, _IN_B),  # the class stores its __qualname__
    ("h", (("function", "outer"),), (), ()),  # no method: 3.14 compiles it the same anywhere
])
def test_def_scopes_are_read_where_the_bytecode_depends_on_them(name, before_311, since_311,
                                                                 on_314):
    # before 3.11 from the qualified names it loads; then from co_qualname when it makes
    # a class, and on 3.14 also for a def right inside a class (flagged CO_METHOD)
    expected = before_311 if V.QUALNAME_ON_STACK else on_314 if V.METHOD_FLAG else since_311
    assert def_scopes(_nested(name)) == expected


@pytest.mark.parametrize("name", ["f", "g", "c", "h"])
def test_a_def_is_bytecode_equal_in_its_own_scopes(name):
    # before 3.11 the functions it makes load "outer.<locals>.A.B.f.<locals>.<listcomp>",
    # and 3.14 flags a method: compiled anywhere else, only the product machine could
    # prove it (slowly)
    code = _nested(name)
    text = depyf.decompile(code)
    verdict = prove(code, text, name)
    assert verdict and verdict.how == "bytecode-equal", verdict


def test_a_def_its_scopes_would_mangle_is_proven_where_it_compiles():
    # the comprehension of a method of C reads `__hook` unmangled (made so by hand, as
    # code that was not compiled from this source can be): in its own scopes the text
    # would read `_C__hook`; the proof falls back to the text at the top level
    source = "def m(self):\n    return [__hook(x) for x in self]\n"
    module = compile("class C:\n    " + source.replace("\n", "\n    "), "<test>", "exec")
    body = next(c for c in module.co_consts if hasattr(c, "co_code"))
    mangled = next(c for c in body.co_consts if hasattr(c, "co_code") and c.co_name == "m")

    def unmangled(c):
        return c.replace(co_names=tuple("__hook" if n == "_C__hook" else n for n in c.co_names),
                         co_consts=tuple(unmangled(k) if hasattr(k, "co_code") else k
                                         for k in c.co_consts))
    code = unmangled(mangled)
    if V.QUALNAME_ON_STACK:
        assert def_scopes(code) == (("class", "C"),)
        assert not equivalent(code, recompile(code, source, "m", def_scopes(code)))
    assert prove(code, source, "m")
    assert not prove(code, source.replace("__hook(x)", "__hook(x, x)"), "m")


def test_text_that_does_not_compile_is_an_error():
    with pytest.raises(Mismatch, match="does not compile"):
        prove(_code("def f():\n    pass\n"), "def f(:\n", "f")


def test_unproven_output_raises_or_is_returned_marked():
    class Wrong(depyf.Decompiler):
        def to_ast(self, name=None, temp_prefix="__temp_", reading=None):
            node = super().to_ast(name, temp_prefix, reading)
            node.body = node.body[:1]  # drop a statement: the text computes something else
            return node

    fn = _code("def f(a):\n    g(a)\n    h(a)\n")
    with pytest.raises(UnprovenError) as info:
        Wrong(fn).decompile()
    assert info.value.verdict.different and "h(a)" not in info.value.source
    text = Wrong(fn).decompile(allow_unproven=True)
    assert text.startswith("# depyf: NOT PROVEN to do what the bytecode does:")
    compile(text, "<test>", "exec")


def test_an_unused_free_variable_of_the_code_decompiled_is_kept_with_nonlocal():
    # Dynamo's resume functions keep the original frame's cells as free variables even
    # where the rest of the function no longer reads them
    source = "def g(scale):\n    def resume(x):\n        nonlocal scale\n        return x * 2\n    return resume\n"
    code = _code(source, "g")
    inner = [c for c in code.co_consts if hasattr(c, "co_code")][0]
    assert inner.co_freevars == ("scale",)
    text = depyf.decompile(inner)
    assert "nonlocal scale" in text, text
    assert prove(inner, text, "resume")


def test_cells_no_nested_function_captures_stay_cells():
    # Dynamo's code for a frame whose local a lambda (vmap) or a comprehension captured
    # keeps the cells (and the lambda constant) but makes no function: here a dead lambda
    # gives the same code objects. `w` is an argument; `s` is a cell nothing binds.
    source = ("def f(x, w):\n    if False:\n        s = None\n        lambda: (w, s)\n"
              "    return x + w\n")
    code = _code(source)
    assert set(code.co_cellvars) == {"w", "s"}
    text = depyf.decompile(code)
    assert "lambda" in text and "s = None" in text, text
    assert set(recompile(code, text, "f").co_cellvars) == {"w", "s"}
    # without the dead lambda the cells are lost: refused, not returned
    plain = "def f(x, w):\n    return x + w\n"
    assert "cell variables differ" in prove(code, plain, "f").reason


def test_a_method_whose_code_no_longer_calls_super_keeps_its_class_cell():
    # a method's transformed code keeps the free variable __class__ that super() needed
    source = "class C:\n    def m(self, x):\n        if False:\n            __class__\n        return x\n"
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    code = namespace["C"].m.__code__
    assert code.co_freevars == ("__class__",)
    text = depyf.decompile(code)
    assert "nonlocal __class__" in text, text
    # the text is valid inside its class too: the class binds __class__
    exec(compile("class C:\n" + "".join("    " + l + "\n" for l in text.splitlines()), "<t>", "exec"), {})


METHOD_WITH_DOCSTRING = '''
class C(Base):
    def m(self, x):
        """First line.

            indented inside the docstring
        """
        text = """a string
   over lines"""
        return super().m(x, f"""{x}
  and {text}""")
'''


def test_strings_over_lines_keep_their_text_when_the_def_is_compiled_in_a_wrapper():
    # a method that calls super() is recompiled inside a function binding __class__: its
    # lines are indented, but not the lines inside a string (a docstring would differ)
    namespace = {"Base": object}
    exec(compile(METHOD_WITH_DOCSTRING, "<test>", "exec"), namespace)
    code = namespace["C"].m.__code__
    text = depyf.decompile(code)  # proven, else UnprovenError
    again = recompile(code, text, "m")
    assert "indented inside" in code.co_consts[0]
    assert again.co_consts[0] == code.co_consts[0]
    assert set(again.co_consts) == set(code.co_consts)


class _Tracer:
    def getattr(self, attr, default):
        return getattr(self, attr, default)


class _SubTracer(_Tracer):
    def getattr(self, attr):
        value = super().getattr(attr, None)
        return getattr(value, attr)


def test_a_method_named_like_the_builtin_it_calls_is_proven_in_a_wrapper():
    # the method needs a wrapper function (its __class__ cell for super()); the def
    # statement must not make its own name a variable of that wrapper, or the call of
    # the builtin `getattr` inside would read it as a free variable
    source = depyf.decompile(_SubTracer.getattr)
    assert "return getattr(value, attr)" in source
    assert depyf.decompile(_Tracer.getattr)
