"""The public API contract of ``depyf``: what ``decompile`` accepts, what its output
looks like, ``Decompiler`` options, determinism, ``DecompilationError`` and importing
without torch."""
import ast
import dis
import functools
import inspect
import os
import subprocess
import sys
import textwrap
import types

import pytest

import depyf
from depyf import DecompilationError

PY = "%d.%d" % sys.version_info[:2]
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- subjects ---------------------------------------------------------------------------


def add(a, b=1):
    return a + b


class Greeter:
    def __init__(self, greeting="hello"):
        self.greeting = greeting

    def greet(self, name):
        return "%s, %s" % (self.greeting, name)


class Doubler:
    def __call__(self, x):
        return x * 2


def times_hundred(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 100

    return wrapper


@times_hundred
def scaled(x):
    return x + 1


@functools.lru_cache(maxsize=None)
def square(n):
    return n * n


async def fetch(x):
    return x


def annotated(a, b: int = 2, *args: str, c, d: "text" = "d", **kw: float) -> list:
    return [a, b, args, c, d, kw]


def positional_only(a, b=1, /, c=2, *, d=3):
    return a, b, c, d


def busy(xs, limit=3):
    out = []
    for x in xs:
        if x > limit:
            break
        out.append([y * x for y in range(x) if y % 2])
    else:
        out.append(None)
    return out


def other(x):
    while x > 0:
        x -= 3
    return {k: v for k, v in enumerate("ab")}, x


# --- helpers ----------------------------------------------------------------------------


def define(src, name):
    """Exec ``src`` in a copy of this module's globals and return the function ``name``."""
    tree = ast.parse(src)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert name in [d.name for d in defs], "no top-level def %r in:\n%s" % (name, src)
    namespace = dict(globals())
    namespace.pop(name, None)
    exec(compile(src, "<decompiled>", "exec"), namespace)
    fn = namespace[name]
    assert isinstance(fn, types.FunctionType)
    return fn


# --- what decompile accepts -------------------------------------------------------------

ACCEPTED = [
    # id, object, name of the def in the output, (args, expected result of calling it)
    ("function", add, "add", ((2, 3), 5)),
    ("code object", add.__code__, "add", ((2, 3), 5)),
    ("method via the class", Greeter.greet, "greet", ((Greeter("hi"), "bob"), "hi, bob")),
    ("bound method", Greeter("hey").greet, "greet", ((Greeter("yo"), "al"), "yo, al")),
    ("functools.partial", functools.partial(add, 10), "add", ((1, 2), 3)),
    ("functools.wraps wrapper", scaled, "scaled", ((1,), 2)),
    ("lru_cache wrapper", square, "square", ((7,), 49)),
    ("callable object", Doubler(), "__call__", ((Doubler(), 4), 8)),
]


@pytest.mark.parametrize("obj, name, check", [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED])
def test_decompile_accepts(obj, name, check):
    src = depyf.decompile(obj)
    assert isinstance(src, str)
    fn = define(src, name)
    args, expected = check
    assert fn(*args) == expected


def test_wraps_decompiles_the_wrapped_function_not_the_wrapper():
    src = depyf.decompile(scaled)
    assert "*args" not in src and "100" not in src, src


def test_async_def_stays_async():
    src = depyf.decompile(fetch)
    fn = define(src, "fetch")
    assert inspect.iscoroutinefunction(fn)


# --- the signature ----------------------------------------------------------------------


@pytest.mark.parametrize("fn", [add, annotated, positional_only, Greeter.__init__, busy])
def test_signature_with_defaults_and_annotations(fn):
    new = define(depyf.decompile(fn), fn.__name__)
    assert inspect.signature(new) == inspect.signature(fn)


@pytest.mark.parametrize("fn", [annotated, positional_only])
def test_code_object_gives_parameter_names_and_kinds(fn):
    new = define(depyf.decompile(fn.__code__), fn.__name__)
    shape = lambda f: [(p.name, p.kind) for p in inspect.signature(f).parameters.values()]  # noqa: E731
    assert shape(new) == shape(fn)


# --- Decompiler options -----------------------------------------------------------------


def test_overwrite_fn_name():
    src = depyf.Decompiler(add.__code__).decompile(overwrite_fn_name="g")
    assert define(src, "g")(1, 2) == 3
    assert "def add" not in src


def test_misspelt_overwite_fn_name_is_accepted():
    src = depyf.Decompiler(add.__code__).decompile(overwite_fn_name="g")
    assert define(src, "g")(1, 2) == 3


def test_indentation():
    src = depyf.Decompiler(busy.__code__).decompile(indentation=2)
    lines = src.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("def busy("))
    body = lines[header + 1]
    assert body.startswith("  ") and not body.startswith("   "), src
    define(src, "busy")


# --- determinism ------------------------------------------------------------------------


def test_output_is_deterministic():
    first = depyf.decompile(busy)
    depyf.decompile(other)
    depyf.Decompiler(other.__code__).decompile()
    assert depyf.decompile(busy) == first
    assert depyf.Decompiler(busy.__code__).decompile() == depyf.Decompiler(busy.__code__).decompile()


# --- errors -----------------------------------------------------------------------------


def test_decompilation_error_is_exported():
    assert depyf.DecompilationError is DecompilationError
    assert issubclass(DecompilationError, Exception)


def negate(x):
    return -x


def keep(x):
    y = x
    return y


def patched(fn, old_opname, new_op, arg=None):
    """A copy of ``fn.__code__`` whose first ``old_opname`` instruction is replaced by
    the opcode number ``new_op`` (and its argument by ``arg``); returns (code, offset).

    Every instruction is two bytes (opcode, argument) on 3.8-3.13; the replaced
    instructions have no inline caches, so the rest of the code stays well-formed.
    """
    code = fn.__code__
    ins = next(i for i in dis.get_instructions(code) if i.opname == old_opname)
    raw = bytearray(code.co_code)
    raw[ins.offset] = new_op
    if arg is not None:
        raw[ins.offset + 1] = arg
    return code.replace(co_code=bytes(raw)), ins.offset


def _setup_annotations():
    # SETUP_ANNOTATIONS exists on 3.8-3.13 but only ever appears in module and class
    # bodies; in a function it fails at run time ("no locals found when setting up
    # annotations"). It has the same stack effect (0) as the UNARY_NEGATIVE it replaces,
    # so only the opcode is odd. No source produces it in a function: a decompiler must
    # refuse it rather than drop it.
    code, offset = patched(negate, "UNARY_NEGATIVE", dis.opmap["SETUP_ANNOTATIONS"])
    return code, offset, "SETUP_ANNOTATIONS"


def _print_expr():
    # The interactive prompt's "print the value of an expression statement": PRINT_EXPR
    # up to 3.11 (replacing STORE_FAST: both pop one value), CALL_INTRINSIC_1 with
    # INTRINSIC_PRINT (1) from 3.12 (replacing UNARY_NEGATIVE: both pop one, push one).
    # It never occurs in compiled functions.
    if "PRINT_EXPR" in dis.opmap:
        code, offset = patched(keep, "STORE_FAST", dis.opmap["PRINT_EXPR"])
        return code, offset, "PRINT_EXPR"
    code, offset = patched(negate, "UNARY_NEGATIVE", dis.opmap["CALL_INTRINSIC_1"], arg=1)
    return code, offset, "CALL_INTRINSIC_1"


def _unknown_opcode():
    # An opcode number that no instruction has: dis names it "<N>" on 3.8-3.10. From 3.11
    # dis shows unknown numbers as CACHE entries, so there the case is skipped.
    if sys.version_info >= (3, 11):
        pytest.skip("dis shows unknown opcode numbers as CACHE from Python 3.11")
    number = next(n for n in range(dis.HAVE_ARGUMENT, 256) if dis.opname[n] == "<%d>" % n)
    code, offset = patched(keep, "STORE_FAST", number)
    return code, offset, "<%d>" % number


@pytest.mark.parametrize("make", [_setup_annotations, _print_expr, _unknown_opcode])
@pytest.mark.parametrize("entry", ["decompile", "Decompiler"])
def test_unhandled_opcode_raises_decompilation_error(make, entry):
    code, offset, opname = make()
    with pytest.raises(DecompilationError) as info:
        if entry == "decompile":
            depyf.decompile(code)
        else:
            depyf.Decompiler(code).decompile()
    err = info.value
    assert err.function == code.co_name
    assert err.opname == opname
    assert err.offset == offset
    assert err.python_version == PY
    message = str(err)
    assert opname in message and PY in message and code.co_name in message


# --- importing without torch ------------------------------------------------------------

_NO_TORCH = textwrap.dedent(
    """
    import sys

    attempts = []
    if MODE == "none-in-sys-modules":
        sys.modules["torch"] = None
    else:
        class BlockTorch:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    attempts.append(name)
                    raise ImportError("torch is blocked by the test")

        sys.meta_path.insert(0, BlockTorch())

    import depyf

    assert attempts == [], "import depyf tried to import torch: %r" % attempts
    assert callable(depyf.decompile)
    try:
        depyf.prepare_debug("x")
    except depyf.TorchNotAvailableError as e:
        assert isinstance(e, ImportError)
        print("raised TorchNotAvailableError")
    """
)


@pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses under WebAssembly (3.14 via pyodide)")
@pytest.mark.parametrize("mode", ["none-in-sys-modules", "import-blocked"])
def test_import_without_torch(mode):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([REPO_ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    result = subprocess.run(
        [sys.executable, "-c", "MODE = %r\n%s" % (mode, _NO_TORCH)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "raised TorchNotAvailableError"


def test_a_constant_set_display_prints_as_written():
    # 3.9+ builds `{"r", "w", "b"}` from a frozenset constant: no `{*{...}}` in the output
    def f(mode):
        return set(mode) <= {"r", "w", "b"}

    text = depyf.decompile(f)
    assert "{*" not in text and "{'" in text, text


class _WithMethod:
    def method(self, x):
        return x + 1


def test_decompiler_takes_what_decompile_takes():
    import functools
    bound = _WithMethod().method
    for obj in (bound, functools.partial(_WithMethod.method, None), _WithMethod.method):
        assert depyf.Decompiler(obj).decompile() == depyf.decompile(_WithMethod.method)


def test_the_decompiler_package_names_what_the_original_s_did():
    from depyf.decompiler import DecompilationError, Decompiler, decompile
    assert Decompiler is depyf.Decompiler and decompile is depyf.decompile
    assert DecompilationError is depyf.DecompilationError


class _Size(tuple):
    """As Dynamo's torch.Size constants: a tuple subclass, equal to the plain tuple."""


def test_a_constant_of_a_tuple_subclass_is_bound_not_printed_as_a_tuple():
    def f(x):
        return x + (2, 8)

    code = f.__code__
    code = code.replace(co_consts=tuple(_Size(c) if c == (2, 8) else c for c in code.co_consts))
    text = depyf.decompile(code)
    assert "(2, 8)" not in text and "__depyf_const_0" in text, text


def _passes_a_cell_down():
    fn = len

    def wrapper(x):
        def inner(y):
            return y + 1
            fn(y)  # (dropped by the compiler; its symbol table still makes fn free here)

        return inner(x)

    return wrapper


def test_a_free_variable_passed_down_and_used_by_no_statement_stays_free():
    """Dynamo's resume functions made in a decorator's wrapper keep such a variable."""
    wrapper = _passes_a_cell_down()
    inner = next(c for c in wrapper.__code__.co_consts if isinstance(c, types.CodeType))
    assert inner.co_freevars == ("fn",)
    text = depyf.decompile(wrapper)
    assert "nonlocal fn" in text, text


class _ReadsSuper:
    """`super` named, not called, in a lambda: the compiler makes `__class__` free there
    (and in each function between it and the class) though nothing loads it."""

    def reconstruct(self, codegen):  # as torch's SuperVariable.reconstruct
        codegen.append(lambda: codegen(repr(super)))
        return codegen

    def two_argument(self):
        return lambda: super(_ReadsSuper, self)

    named = lambda self: super  # noqa: E731


def test_a_lambda_that_names_super_gets_no_nonlocal_class_cell():
    for fn in (_ReadsSuper.reconstruct, _ReadsSuper.two_argument,
               _ReadsSuper().two_argument(), _ReadsSuper.named):
        assert "__class__" in fn.__code__.co_freevars or any(
            "__class__" in c.co_freevars for c in fn.__code__.co_consts
            if isinstance(c, types.CodeType))
        text = depyf.decompile(fn)
        assert "nonlocal" not in text, text


def test_a_method_that_names_super_gets_no_nonlocal_class_cell():
    class C:
        def m(self):
            return repr(super)

    assert C.m.__code__.co_freevars == ("__class__",)
    assert "nonlocal" not in depyf.decompile(C.m)
