"""Type parameters and ``type`` statements (PEP 695, 3.12+; defaults, PEP 696, 3.13+):
rebuilt definitions compile to the same bytecode as the original (behaviour is covered
by the corpus, tests/corpus/py312_type_params.py and py313_type_param_defaults.py)."""
import re
import sys
import textwrap

import pytest

import depyf
from depyf.equivalence.normalize import first_difference, normalize

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters need Python 3.12")

SOURCES = [
    """
    def f(v):
        def first[T](items: list[T]) -> T:
            return items[0]
        return first
    """,
    """
    def f(v):
        @decorate
        def pick[T: int, U: (str, bytes), *Ts, **P](a: T = v, *, b: U = 2) -> tuple[T, U]:
            return a, b, T
        return pick
    """,
    """
    def f(v):
        @decorate
        class Box[T: (int, float), *Ts, **P](Base, metaclass=Meta, flag=v):
            size: T
            X = int
            type Inner[K: X] = dict[K, T]

            def get[S: X](self, item: S) -> T:
                return super().get(item)
        return Box
    """,
    """
    def f(v):
        type Pair[K] = tuple[K, K]
        type Number = int | float
        type Fn[T: (int, str), *Ts, **P] = Callable[P, tuple[T, *Ts]]
        return Pair, Number, Fn
    """,
]

SOURCES_313 = [
    """
    def f(v):
        def g[T = int, *Ts = *tuple[int, str], **P = [int, str], B: int = bool, N = None]():
            pass
        class C[T = v]:
            pass
        type A[K = str, *Ts = *tuple[()]] = tuple[K, *Ts]
        return g, C, A
    """,
]


def _all_sources():
    return SOURCES + (SOURCES_313 if sys.version_info >= (3, 13) else [])


@pytest.mark.parametrize("source", _all_sources())
def test_type_params_round_trip_to_the_same_bytecode(source):
    namespace = {}
    exec(textwrap.dedent(source), namespace)
    fn = namespace["f"]
    text = depyf.decompile(fn)
    assert "generic parameters" not in text and ".type_params" not in text
    again = {}
    exec(text, again)
    diff = first_difference(normalize(fn.__code__), normalize(again["f"].__code__))
    assert diff is None, "%s\n%s" % (diff, text)


@pytest.mark.parametrize("source", _all_sources())
def test_type_params_at_module_level(source):
    # the same statements as module code: stores by name, class bodies see module names
    body = textwrap.dedent(source).split("\n", 2)[2]
    module = re.sub(r"^return ", "result = ", textwrap.dedent(body), flags=re.M)
    code = compile(module, "<module>", "exec")
    text = depyf.decompile_module(code)
    diff = first_difference(normalize(code), normalize(compile(text, "<module>", "exec")))
    assert diff is None, "%s\n%s" % (diff, text)


def _replace_const(code, old, new):
    return code.replace(co_consts=tuple(new if c is old else c for c in code.co_consts))


def test_a_scope_that_makes_another_function_is_refused():
    # the hidden scope of `g` returns a function named `h`: no `def g[T]` compiles to that
    namespace = {}
    exec("def f():\n    def g[T](x: T): pass\n    return g\n", namespace)
    outer = namespace["f"].__code__
    scope = next(c for c in outer.co_consts if hasattr(c, "co_code"))
    # (3.14: the scope also holds g's __annotate__; rename g itself)
    inner = next(c for c in scope.co_consts if hasattr(c, "co_code") and c.co_name == "g")
    scope2 = _replace_const(scope, inner, inner.replace(co_name="h", co_qualname="h"))
    with pytest.raises(depyf.DecompilationError, match="type parameter scope"):
        depyf.decompile(_replace_const(outer, scope, scope2))


RUNTIME_SOURCES = [
    "def first[T](items: list[T], default: T = None) -> T:\n    return items[0]\n",
    "def pick[T: int, U: (str, bytes), *Ts, **P](a: T, *b: U) -> U:\n    return a, b\n",
]
RUNTIME_SOURCES_313 = [
    "def g[T = int, B: int = bool, **P = [int, str]](x: T) -> B:\n    return x\n",
]


@pytest.mark.parametrize("source", RUNTIME_SOURCES + (RUNTIME_SOURCES_313 if sys.version_info >= (3, 13) else []))
def test_a_generic_function_object_keeps_its_type_params(source):
    # given the function (not its module), `[T]` comes from __type_params__ and the
    # annotations that are those parameters print as their names, not as bound constants
    namespace = {}
    exec(source, namespace)
    fn = next(v for k, v in namespace.items() if not k.startswith("__"))
    d = depyf.Decompiler(fn)
    text = d.decompile()
    again = dict(d.bindings)
    exec(text, again)
    new = again[fn.__name__]
    describe = lambda f: [(type(p).__name__, p.__name__, getattr(p, "__bound__", None),
                           getattr(p, "__constraints__", ()),
                           p.__default__ if getattr(p, "has_default", lambda: False)() else None)
                          for p in f.__type_params__]
    assert describe(new) == describe(fn), text
    params = {p.__name__: p for p in new.__type_params__}
    for name, value in fn.__annotations__.items():
        if value in fn.__type_params__:
            assert new.__annotations__[name] is params[value.__name__], text
