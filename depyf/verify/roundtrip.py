"""One round trip: decompile a code object, recompile the text, compare normalized bytecode.

The decompiled ``def`` is recompiled inside a rebuilt copy of its context (never run),
so that it compiles to the same kind of code object as the original:

- the chain of enclosing classes and functions is rebuilt with the original names:
  a class supplies the ``__class__`` cell that ``super()`` uses and the same private-name
  mangling (``__x`` -> ``_Name__x``); an enclosing function reproduces ``CO_NESTED``; and
  before 3.11 the qualified names of nested functions are constants in the bytecode;
- the innermost enclosing function (``def __depyf_outer__():`` if there is none) binds
  the target's free variables first (``x = y = None``), which makes them cells there and
  free variables of the def again (at top level they would turn into globals);
- the module's top-level imported names are imported again at the top (3.11+ compiles a
  call ``mod.f()`` without the method-call form when ``mod`` is a module-level import).

The text is indented with a tokenizer-aware helper that leaves the inside of multi-line
strings alone (plain ``textwrap.indent`` would change docstrings). The recompiled function
is found at its known position in the wrapper, or failing that anywhere, as a code object
with the original's ``co_name``.
"""
import __future__
import re
import signal
import threading
import time
from collections import namedtuple

from ..decompiler.output.prove import string_continuations
from ..equivalence.normalize import first_difference, normalize
from .stdlib_corpus import is_function_like

OUTER_NAME = "__depyf_outer__"
TEMP_NAME = re.compile(r"\b__temp\w*")
FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

# The outcome for one code object. ``stage`` is where it failed ("decompile", "compile",
# "locate", "compare", or "not run" when the run's time budget was spent) or None; ``category`` groups failures for the worklist; ``reason``
# is the first line of the failure.
# ``proven``: the recompiled code is bytecode-equal or the equivalence checker proved it
# equivalent (``depyf.equivalence``); ``proof`` says which, or why not.
Result = namedtuple(
    "Result",
    "module qualname firstlineno decompiled compiles equal seconds temps stage category reason "
    "proven proof",
    defaults=(False, None),
)


class DecompileTimeout(BaseException):
    """A single decompile call ran past the per-object limit.

    A ``BaseException`` so that a decompiler's own ``except Exception`` fallback cannot
    swallow it (the timer also fires again every second until the block is left).
    """


def default_decompile(code):
    """depyf's decompiler, returning unproven text too (marked by a first-line comment):
    the round trip measures how much is decompiled and, separately, how much is proven."""
    import depyf

    return depyf.Decompiler(code).decompile(allow_unproven=True)


class time_limit:
    """Raise ``DecompileTimeout`` in the block after ``seconds`` (POSIX, main thread).

    Elsewhere (Windows, or a worker thread) the block runs unbounded; ``bounded`` says
    which.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.bounded = (
            bool(seconds)
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )

    def _fire(self, signum, frame):
        raise DecompileTimeout("took over %g s" % self.seconds)

    def __enter__(self):
        if self.bounded:
            self._old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 1.0)
        return self

    def __exit__(self, *exc):
        if self.bounded:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
        return False


def original_texts(source):
    """A ``decompile(code)`` that returns the original text of the def ``code`` was
    compiled from (found by name and first line, decorators left out), dedented without
    touching multi-line strings: the round trip's harness, and the checker's mutation
    test without the decompiler (``mutation --original-source``), run on it."""
    import ast
    defs = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            defs[(node.name, first)] = node
    all_lines = source.splitlines(True)

    def decompile(code):
        node = defs[(code.co_name, code.co_firstlineno)]
        lines = all_lines[node.lineno - 1:node.end_lineno]
        inside = string_continuations("".join(lines))
        cut = node.col_offset
        return "".join(line if i in inside else (line[cut:] if line.strip() else "\n")
                       for i, line in enumerate(lines))
    return decompile


_ORIGINAL_TEXTS = {}


def original_source(code):
    """``--decompiler depyf.verify.roundtrip:original_source``: the original text of the
    def ``code`` came from, read from the file ``co_filename`` names (a stdlib zip
    archive too). The harness and the normalization measured without the decompiler:
    everything but a lambda or comprehension outside a def (no def text) must be
    bytecode-equal."""
    from .stdlib_corpus import read_source
    path = code.co_filename
    if path not in _ORIGINAL_TEXTS:
        _ORIGINAL_TEXTS[path] = original_texts(read_source(path))
    return _ORIGINAL_TEXTS[path](code)


def indent_code(text, prefix):
    """``textwrap.indent`` that does not touch lines inside multi-line strings."""
    inside = string_continuations(text)
    lines = text.splitlines(True)
    return "".join(
        line if (i in inside or not line.strip()) else prefix + line
        for i, line in enumerate(lines)
    )


def _wrappers(target):
    """The enclosing blocks to rebuild, outermost first, as ``(kind, name, free names)``.

    The original chain of classes and functions, with the original names (before 3.11
    the qualified names of nested functions are constants in the bytecode); the innermost
    function binds the target's free variables. An enclosing scope without a name a def
    can have (a 3.12+ ``<generic parameters of f>``) becomes ``__depyf_outer__``.
    """
    # ``__class__`` comes from an enclosing class (its implicit cell); with no class
    # around, it is a variable of an enclosing function like any other free name.
    in_class = any(kind == "class" for kind, _ in target.scopes)
    free = [name for name in target.code.co_freevars if name != "__class__" or not in_class]
    blocks = [
        (kind, name if name.isidentifier() else OUTER_NAME, [])
        for kind, name in target.scopes
    ]
    functions = [i for i, block in enumerate(blocks) if block[0] == "function"]
    if free and not functions:
        blocks.append(("function", OUTER_NAME, []))
        functions.append(len(blocks) - 1)
    if functions:
        blocks[functions[-1]] = blocks[functions[-1]][:2] + (free,)
    return blocks


def wrap_source(text, target):
    """Source that recompiles ``text`` (a def) in the shape of ``target``'s context."""
    body = text.strip("\n") + "\n"
    for kind, name, free in reversed(_wrappers(target)):
        if kind == "class":
            body = "class %s:\n%s" % (name, indent_code(body, "    "))
        else:
            bind = "    %s = None\n" % " = ".join(free) if free else ""
            body = "def %s():\n%s%s" % (name, bind, indent_code(body, "    "))
    imports = "".join("import %s\n" % name for name in sorted(target.imports))
    return imports + body


def find_function(module_code, target):
    """The recompiled counterpart of ``target.code`` in ``module_code``, or None."""
    code = module_code
    for kind, name, _ in _wrappers(target):
        code = _child(code, name, function=kind == "function")
        if code is None:
            break
    else:
        found = _child(code, target.code.co_name, function=True)
        if found is not None:
            return found
    # The text did not have the expected shape (e.g. extra helper defs): search anywhere.
    return _search(module_code, target.code.co_name)


def _child(code, name, function=None):
    for const in code.co_consts:
        if hasattr(const, "co_code") and const.co_name == name:
            if function is None or is_function_like(const) == function:
                return const
    return None


def _search(code, name):
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            if const.co_name == name and is_function_like(const):
                return const
            found = _search(const, name)
            if found is not None:
                return found
    return None


def first_line(exc):
    msg = str(exc).strip().splitlines()
    text = "%s: %s" % (type(exc).__name__, msg[0] if msg else "")
    return text if len(text) <= 300 else text[:297] + "..."


def code_names(code):
    """Every identifier a code object (and its nested code) carries."""
    names = {code.co_name}
    names.update(code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            names |= code_names(const)
    return names


def categorize(exc, code=None):
    """A failure category: exception type plus its message with specifics masked.

    Quoted strings that are names from the function being checked (its name, variables,
    globals and attributes) become ``'?'`` and numbers become ``N``, so that the same
    problem in many functions lands in one bucket, while the decompiler's own words (type
    names, attribute names of its classes, opcode names) stay. For
    ``DecompilationError`` the structured ``reason`` and ``opname`` are used.
    """
    reason = getattr(exc, "reason", None)
    if isinstance(reason, str):
        text = reason.strip().splitlines()[0] if reason.strip() else ""
        opname = getattr(exc, "opname", None)
        if opname and opname not in text:
            text += " [%s]" % opname
    else:
        lines = str(exc).strip().splitlines()
        text = lines[0] if lines else ""
        if isinstance(exc, SyntaxError):
            text = exc.msg or text
    names = code_names(code) if code is not None else None

    def mask(match):
        inner = match.group(0)[1:-1]
        return "'?'" if names is None or inner in names else match.group(0)

    text = re.sub(r"'[^']*'|\"[^\"]*\"", mask, text)
    text = re.sub(r"\b0x[0-9a-fA-F]+\b|\b\d+\b", "N", text)
    category = "%s: %s" % (type(exc).__name__, text)
    return category if len(category) <= 160 else category[:157] + "..."


def check(target, decompile=default_decompile, timeout=10.0):
    """Round-trip one ``Target``; never raises for a decompiler failure."""
    code = target.code
    base = dict(module=target.module, qualname=target.qualname, firstlineno=code.co_firstlineno)

    def result(decompiled, compiles, equal, seconds, temps, stage, category, reason):
        return Result(decompiled=decompiled, compiles=compiles, equal=equal, seconds=seconds,
                      temps=temps, stage=stage, category=category, reason=reason, **base)

    start = time.perf_counter()
    try:
        with time_limit(timeout):
            text = decompile(code)
    except (Exception, DecompileTimeout) as exc:  # a decompiler bug is data, not a crash
        seconds = time.perf_counter() - start
        return result(False, False, False, seconds, 0, "decompile", categorize(exc, code),
                      first_line(exc))
    seconds = time.perf_counter() - start
    if not isinstance(text, str):
        return result(False, False, False, seconds, 0, "decompile",
                      "TypeError: decompiler returned a non-string",
                      "TypeError: decompiler returned %s" % type(text).__name__)
    temps = len(set(TEMP_NAME.findall(text)))

    try:
        wrapped = wrap_source(text, target)
        recompiled = compile(wrapped, "<depyf.verify %s>" % target.qualname, "exec",
                             flags=code.co_flags & FUTURE_FLAGS, dont_inherit=True)
    except Exception as exc:  # SyntaxError, ValueError (NUL bytes), RecursionError...
        return result(True, False, False, seconds, temps, "compile", categorize(exc, code),
                      first_line(exc))

    found = find_function(recompiled, target)
    if found is None:
        reason = "no function named %r in the decompiled text" % code.co_name
        return result(True, True, False, seconds, temps, "locate",
                      "function not found in decompiled text", reason)

    diff = first_difference(normalize(code), normalize(found))
    if diff is None:
        return result(True, True, True, seconds, temps, None, None, None)._replace(
            proven=True, proof="bytecode-equal")
    verdict = prove(code, found)
    r = result(True, True, False, seconds, temps, "compare", diff.category, diff.detail)
    if verdict:
        return r._replace(proven=True, proof="checked")
    return r._replace(proof="%s: %s" % ("different" if verdict.different else "unknown",
                                         verdict.reason))


def prove(original, recompiled):
    """The equivalence checker's verdict on a round trip (never raises)."""
    from ..equivalence import Verdict, equivalent
    try:
        return equivalent(original, recompiled)
    except Exception as exc:  # a checker bug is data too
        return Verdict(False, "checker error %s: %s" % (type(exc).__name__, exc))


def not_run(target, reason):
    """The record for an object skipped because the run's time budget ran out."""
    return Result(module=target.module, qualname=target.qualname,
                  firstlineno=target.code.co_firstlineno, decompiled=False, compiles=False,
                  equal=False, seconds=0.0, temps=0, stage="not run",
                  category="time budget exceeded", reason=reason)
