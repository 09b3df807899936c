"""The fixed stdlib corpus: which modules, where their source is, which code objects count.

The list holds 64 pure-Python modules that are a single ``.py`` file (or, for
``logging``, a package ``__init__.py``) on every Python 3.8 to 3.13, checked against the six
pyenv interpreters. ``pathlib`` (a package on 3.13), ``re`` (a package on 3.11+) and
``zipfile`` (a package on 3.12+) are left out on purpose. The list is fixed so that numbers
from different runs and versions are comparable; only the source text differs per version,
because each interpreter's own stdlib is read.

Sources are read from the running interpreter's stdlib directory and compiled; the modules
are never imported. An interpreter whose stdlib is a zip archive on ``sys.path`` (embedded
and WebAssembly builds: the 3.14 of the test matrix is one) is read from the archive; its
paths look like ``.../python314.zip/abc.py``.
"""
import ast
import os
import symtable
import sys
import sysconfig
import zipfile
from collections import namedtuple

MODULES = (
    "abc", "argparse", "ast", "base64", "bisect", "calendar", "configparser", "contextlib",
    "copy", "csv", "dataclasses", "difflib", "enum", "fnmatch", "fractions", "functools",
    "getopt", "gettext", "glob", "heapq", "hmac", "inspect", "ipaddress", "json.decoder",
    "json.encoder", "keyword", "linecache", "locale", "logging", "mimetypes", "ntpath",
    "numbers", "opcode", "operator", "optparse", "pickle", "pkgutil", "platform",
    "posixpath", "pprint", "queue", "quopri", "random", "reprlib", "sched", "secrets",
    "selectors", "shlex", "shutil", "socket", "statistics", "string", "stringprep",
    "subprocess", "tarfile", "tempfile", "textwrap", "threading", "tokenize", "traceback",
    "types", "typing", "uuid", "warnings", "weakref",
)

CO_OPTIMIZED = 0x0001

# One function-like code object to check. ``scopes`` are the enclosing class and function
# scopes from the outermost in, as ("class" | "function", name) pairs (the module is not
# listed); ``imports`` are the names the module binds by a top-level import. The round
# trip rebuilds both around the decompiled def.
Target = namedtuple("Target", "module qualname code scopes imports")


def stdlib_dir():
    """The stdlib folder, or the zip archive on ``sys.path`` that holds it."""
    folder = sysconfig.get_paths()["stdlib"]
    if os.path.isfile(os.path.join(folder, "os.py")):
        return folder
    for entry in sys.path:
        if entry.endswith(".zip") and os.path.isfile(entry) and "os.py" in _zip_names(entry):
            return entry
    return folder


_ZIP_NAMES = {}


def _zip_names(archive):
    if archive not in _ZIP_NAMES:
        with zipfile.ZipFile(archive) as z:
            _ZIP_NAMES[archive] = frozenset(z.namelist())
    return _ZIP_NAMES[archive]


def _split_zip(path):
    """``(archive, member)`` when ``path`` names a file inside a zip archive, else None."""
    head, sep, member = path.partition(".zip" + os.sep)
    if sep and os.path.isfile(head + ".zip"):
        return head + ".zip", member.replace(os.sep, "/")
    return None


def module_file(name, root=None):
    """Path of ``name``'s source in the stdlib: ``a/b.py`` or ``a/b/__init__.py``."""
    base = os.path.join(root or stdlib_dir(), *name.split("."))
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        inside = _split_zip(path)
        if os.path.isfile(path) if inside is None else inside[1] in _zip_names(inside[0]):
            return path
    raise FileNotFoundError("stdlib module %r has no source file under %s" % (name, base))


def read_source(path):
    inside = _split_zip(path)
    if inside is not None:
        with zipfile.ZipFile(inside[0]) as z:
            data = z.read(inside[1])
    else:
        with open(path, "rb") as f:
            data = f.read()
    # tokenize-style decoding honours a PEP 263 coding line; stdlib files are UTF-8.
    return data.decode("utf-8")


def compile_module(name, root=None):
    """``(path, source, module code object)`` for one corpus module."""
    path = module_file(name, root)
    source = read_source(path)
    return path, source, compile(source, path, "exec", dont_inherit=True)


def is_function_like(code):
    """Function, lambda and comprehension bodies have CO_OPTIMIZED; class bodies don't."""
    return bool(code.co_flags & CO_OPTIMIZED)


def is_anonymous(code):
    """``<lambda>``, ``<listcomp>``, ``<genexpr>``... (checked inside their parent def)."""
    return code.co_name.startswith("<")


EXPRESSIONS = ("<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def is_outside_defs(code, scopes):
    """A lambda, comprehension or generator expression of a module or class body (no
    function around it, so no def to compare it in): checked on its own, decompiled in
    its standalone form (``depyf.decompiler.standalone``)."""
    return code.co_name in EXPRESSIONS and not any(kind == "function" for kind, _ in scopes)


def iter_code_objects(code, scopes=(), qualname=()):
    """Every nested code object as ``(code, scopes, qualname parts)``, depth first."""
    for const in code.co_consts:
        if not hasattr(const, "co_code"):
            continue
        kind = "function" if is_function_like(const) else "class"
        parts = qualname + (const.co_name,)
        yield const, scopes, parts
        inner = parts + ("<locals>",) if kind == "function" else parts
        for item in iter_code_objects(const, scopes + ((kind, const.co_name),), inner):
            yield item


def module_imports(source, path):
    """Names bound by an import at module level (3.11+ compiles ``mod.f()`` differently
    when ``mod`` is such a name, so the round trip must bind them the same way)."""
    table = symtable.symtable(source, path, "exec")
    return frozenset(sym.get_name() for sym in table.get_symbols() if sym.is_imported())


def def_positions(source):
    """``(name, first line)`` of every ``def``/``async def``; the first line is that of
    the first decorator, as in ``co_firstlineno``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add((node.name, min([node.lineno] + [d.lineno for d in node.decorator_list])))
    return frozenset(found)


def is_def(code, defs):
    """A code object compiled from a ``def`` statement (not a lambda, comprehension, class
    body, or a 3.12+ annotation scope such as a ``type X = ...`` value or a lazy TypeVar
    bound, which are function-like code objects that no ``def`` can reproduce)."""
    return is_function_like(code) and (code.co_name, code.co_firstlineno) in defs


def iter_targets(module_name, module_code, imports=frozenset(), defs=None, standalone=True):
    """The function-like code objects the round trip checks, in source order.

    Named functions and methods at any depth (``defs`` from ``def_positions`` tells a def
    from other named function-like code; without it every named one counts). Class bodies
    and the module are not functions; lambdas, comprehensions and generator expressions
    are compared as nested constants of the def that holds them, and those outside any
    def are checked on their own (``standalone``; False leaves them out, as before they
    could be decompiled alone).
    """
    for code, scopes, parts in iter_code_objects(module_code):
        if defs is None:
            wanted = is_function_like(code) and not is_anonymous(code)
        else:
            wanted = is_def(code, defs)
        if wanted or standalone and is_outside_defs(code, scopes):
            yield Target(module_name, ".".join(parts), code, scopes, imports)


def count_unchecked(module_code, defs, standalone=True):
    """Function-like code objects checked neither on their own nor inside a def:
    3.12+ annotation scopes (and without ``standalone``, lambdas/comprehensions in module
    or class bodies)."""
    return sum(
        1
        for code, scopes, _ in iter_code_objects(module_code)
        if is_function_like(code)
        and not is_def(code, defs)
        and not any(kind == "function" for kind, _ in scopes)
        and not (standalone and is_outside_defs(code, scopes))
    )


def sample_evenly(items, n):
    """``n`` items spread evenly over ``items`` (deterministic; all of them if n >= len)."""
    items = list(items)
    if n is None or n >= len(items):
        return items
    if n <= 0:
        return []
    return [items[i * len(items) // n] for i in range(n)]
