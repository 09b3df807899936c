"""Which modules are decompiled and which of CPython's own test modules judge them.

A ``Target`` is one unit of the referee: ``files`` ((relative path, source path, decompile)
triples) are written into a variant folder, ``tests`` (test module names) run with it,
``targets`` (module names) must be imported from that folder, and ``links`` ((relative
path, path) pairs) are linked into it: the data files and folders of ``Lib/test`` that
the test modules read next to their own file (``ieee754.txt``, ``mathdata/``, ...).

- library mode: a pure-Python module or package of the running interpreter's standard
  library with a ``test_<name>`` module in its ``Lib/test`` (or another test module
  named in ``TESTS``); the folder goes first on ``sys.path``. A package's test
  subfolders (``unittest/test`` before 3.12, ...) and data files are copied unchanged.
- language mode: CPython's tests of the language (``LANGUAGE``), themselves decompiled;
  the folder goes first on the ``test`` package's ``__path__``, so ``from test import
  support`` still finds the real helpers.

Everything is read from the running interpreter's ``Lib``, so each version has its own
list; a name missing on a version is left out, one excluded is listed with the reason.
"""
import os
import subprocess
import sys
import sysconfig
from collections import namedtuple

from .launch import FLAGS, child_env

Target = namedtuple("Target", "name mode files tests targets links", defaults=((),))

# Pure twins and modules whose tests have other names (only those present are used).
TESTS = {
    "_pydecimal": ["test_decimal"],
    "_pydatetime": ["test_datetime"],
    "_pyio": ["test_io", "test_memoryio", "test_fileio"],
    "_pylong": ["test_int", "test_pylong"],
    "_py_abc": ["test_abc"],
    "_strptime": ["test_strptime"],
    "_markupbase": ["test_htmlparser"],
    "_compat_pickle": ["test_pickle"],
    "_threading_local": ["test_threading_local"],
    "_weakrefset": ["test_weakset"],
    "_collections_abc": ["test_collections"],
    "_osx_support": ["test__osx_support"],
    "_pyrepl": ["test_pyrepl"],
    "sre_compile": ["test_re"],
    "sre_parse": ["test_re"],
    "collections": ["test_collections", "test_ordered_dict"],
    "html": ["test_html", "test_htmlparser"],
    "http": ["test_httplib", "test_http_cookiejar", "test_http_cookies", "test_httpservers"],
    "urllib": ["test_urllib", "test_urllib2", "test_urlparse", "test_urllib_response",
               "test_robotparser"],
    "xml": ["test_xml_etree", "test_minidom", "test_pulldom", "test_sax",
            "test_xml_dom_minicompat"],
    "sqlite3": ["test_sqlite3", "test_sqlite"],
    "email": ["test_email"],
}
# A shim that picks a C module or its pure twin: tested as the twin, when there is one.
SHIMS = {"decimal": "_pydecimal", "datetime": "_pydatetime", "io": "_pyio"}
SKIP = {
    "tkinter": "needs a display", "turtle": "needs a display", "turtledemo": "needs a display",
    "idlelib": "needs a display", "curses": "needs a terminal",
    "asyncio": "slow (minutes a run): run it by name", "multiprocessing": "slow: run it by name",
    "concurrent": "slow (process pools): run it by name",
    "ensurepip": "installs pip", "venv": "installs pip",
    "site": "runs at the start of every interpreter (the children run without it)",
    "importlib": "the import system itself (its core is frozen into the interpreter)",
    "test": "the test package itself", "antigravity": "opens a web browser",
}
TEST_FOLDERS = ("test", "tests", "idle_test")

# The language mode: test modules of the language and its core types (helpers after '+').
LANGUAGE = (
    "test_grammar", "test_patma", "test_with", "test_exceptions", "test_generators",
    "test_coroutines", "test_scope", "test_named_expressions", "test_descr", "test_enum",
    "test_dataclasses", "test_set", "test_syntax", "test_class", "test_contextlib",
    "test_contextlib_async", "test_unpack", "test_unpack_ex", "test_listcomps",
    "test_setcomps", "test_dictcomps", "test_genexps", "test_keywordonlyarg",
    "test_positional_only_arg", "test_raise", "test_opcodes", "test_augassign", "test_bool",
    "test_compare", "test_dict", "test_list+list_tests+seq_tests", "test_tuple+seq_tests",
    "test_string", "test_fstring", "test_functools", "test_itertools", "test_types",
    "test_typing", "test_abc", "test_property", "test_super", "test_decorators", "test_iter",
    "test_int", "test_float", "test_complex", "test_math", "test_slice", "test_sort",
    "test_bisect", "test_heapq", "test_collections", "test_copy",
    "test_pickle+pickletester", "test_exception_group", "test_except_star", "test_asyncgen",
    "test_baseexception", "test_binop", "test_builtin", "test_call", "test_defaultdict",
    "test_deque", "test_dictviews", "test_extcall", "test_funcattrs", "test_generator_stop",
    "test_global", "test_index", "test_isinstance", "test_long", "test_richcmp",
    "test_userdict", "test_userlist+list_tests+seq_tests", "test_userstring+string_tests",
    "test_string_literals", "test_unary", "test_print", "test_pow", "test_operator",
    "test_ordered_dict", "test_weakref", "test_type_params", "test_type_aliases",
    "test_genericalias", "test_genericclass", "test_dynamicclassattribute",
    "test_yield_from", "test_statistics", "test_textwrap", "test_utf8source",
)

# The fast subset for CI (a few minutes per version, every module proven on 3.8-3.13).
CI = {
    "library": ("textwrap", "json", "colorsys", "shlex", "heapq", "bisect"),
    "language": ("test_augassign", "test_bool", "test_setcomps", "test_genexps", "test_list",
                 "test_slice"),
}


def lib_dir():
    return sysconfig.get_paths()["stdlib"]


def _test_module(lib, name):
    """``test.<name>`` if the running interpreter has that test module, else None."""
    base = os.path.join(lib, "test", name)
    if os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py")):
        return "test." + name
    return None


def tree_files(root, prefix):
    """``(relative path, path, decompile)`` for every file under the folder ``root``,
    relative paths under ``prefix``; ``.py`` files outside test folders are decompiled."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        inside = os.path.relpath(folder, root)
        parts = [] if inside == "." else inside.split(os.sep)
        in_tests = any(p in TEST_FOLDERS for p in parts)
        for f in sorted(files):
            rel = os.path.join(prefix, *(parts + [f]))
            found.append((rel, os.path.join(folder, f), f.endswith(".py") and not in_tests))
    return found


def library_names(lib=None):
    """The top-level modules and packages of the standard library, sorted."""
    lib = lib or lib_dir()
    names = set()
    for entry in os.listdir(lib):
        path = os.path.join(lib, entry)
        if entry.endswith(".py"):
            names.add(entry[:-3])
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            names.add(entry)
    return sorted(names)


def library_target(name, lib=None):
    """``(Target, None)`` for the module or package ``name``, or ``(None, why not)``."""
    lib = lib or lib_dir()
    if name in SKIP:
        return None, SKIP[name]
    twin = SHIMS.get(name)
    if twin and os.path.isfile(os.path.join(lib, twin + ".py")):
        return None, "a shim over a C module and %s: tested as %s" % (twin, twin)
    folder = os.path.join(lib, name)
    if os.path.isfile(os.path.join(folder, "__init__.py")):
        files = tree_files(folder, name)
    elif os.path.isfile(folder + ".py"):
        files = [(name + ".py", folder + ".py", True)]
    else:
        return None, "not a pure-Python module of this version"
    tests = [t for t in map(lambda n: _test_module(lib, n), TESTS.get(name, ["test_" + name]))
             if t]
    if not tests:
        inner = [d for d in TEST_FOLDERS if os.path.isfile(os.path.join(folder, d, "__init__.py"))]
        tests = ["%s.%s" % (name, d) for d in inner]
    if not tests:
        return None, "no test module"
    return Target(name, "library", files, tests, [name]), None


def language_target(spec, lib=None):
    """``(Target, None)`` for a ``LANGUAGE`` entry (``test_x+helper+...``), or
    ``(None, why not)``."""
    lib = lib or lib_dir()
    names = spec.split("+")
    files = []
    for name in names:
        base = os.path.join(lib, "test", name)
        if os.path.isfile(base + ".py"):
            files.append((name + ".py", base + ".py", True))
        elif os.path.isfile(os.path.join(base, "__init__.py")):
            files.extend(tree_files(base, name))
        else:
            return None, "no test module %s in this version" % name
    return Target(names[0], "language", files, ["test." + names[0]],
                  ["test." + n for n in names], test_data(lib)), None


def test_data(lib=None):
    """``(name, path)`` of every entry of ``Lib/test`` that is neither a module nor a
    package: the data that test modules find next to their own file."""
    folder = os.path.join(lib or lib_dir(), "test")
    found = []
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry == "__pycache__" or entry.endswith(".py"):
            continue
        if os.path.isdir(path) and os.path.isfile(os.path.join(path, "__init__.py")):
            continue
        found.append((entry, path))
    return found


def preloaded_modules(python=None):
    """The modules an interpreter run as the children are run has imported before any
    code of theirs: those cannot be stood in for from a folder."""
    out = subprocess.run([python or sys.executable] + FLAGS + ["-c", "import sys; print(*sys.modules)"],
                         env=child_env(), capture_output=True, text=True, check=True).stdout
    return set(out.split())


def select(mode, names=None, ci=False, lib=None, python=None):
    """``(targets, excluded)`` for ``mode``: ``names`` (default: all, or the CI subset),
    and ``excluded`` [(name, reason)] for those left out."""
    if ci:
        names = CI[mode]
    if mode == "language":
        specs = {s.split("+")[0]: s for s in LANGUAGE}
        chosen = [specs.get(n, n) for n in names] if names else list(LANGUAGE)
        pairs = [(s.split("+")[0], language_target(s, lib)) for s in chosen]
    else:
        preloaded = preloaded_modules(python)
        pairs = []
        for name in names or library_names(lib):
            if name in preloaded:
                pairs.append((name, (None, "imported when the interpreter starts, before "
                                           "a folder can stand in for it")))
            else:
                pairs.append((name, library_target(name, lib)))
    targets = [t for _, (t, why) in pairs if t is not None]
    excluded = [(name, why) for name, (t, why) in pairs if t is None]
    return targets, excluded
