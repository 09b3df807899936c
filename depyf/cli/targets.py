"""What ``depyf decompile TARGET`` names, found without surprises.

TARGET is a ``.py`` file (compiled, never run), a ``.pyc`` file (the running Python's;
another version's is found as such, for that version's interpreter: ``pythons``), an
importable module (its code read from the loader, never run), each optionally followed
by ``:QUALNAME`` (``Class.method``, ``outer.<locals>.inner``); for a module with a
qualname the module IS imported and the object found by attribute, so the function's
defaults and annotations come with it. Every way this can fail is a ``CliError``
saying which.
"""
import contextlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import types

from ..errors import UnsupportedPycError
from ..decompiler.modules import read_pyc
from . import pycs, pythons
from .output import CliError

_QUALNAME = re.compile(r"^(?:[^\W\d]\w*|<locals>)(?:\.(?:[^\W\d]\w*|<locals>))*$")
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE
_MODULE = re.compile(r"^[^\W\d]\w*(?:\.[^\W\d]\w*)*$")


class Found:
    """What to decompile: ``code`` (a code object), or ``obj`` (a function-like object,
    for ``depyf.decompile``); ``module``: the code is a whole module; ``label``: how
    messages name it; ``filename``: the file it comes from; ``module_code``: for a def
    or class of a file, the file's module code; ``version``: for a .pyc of another
    Python version, that version (nothing else is set: that Python decompiles it)."""

    def __init__(self, label, code=None, obj=None, module=False, filename="<decompiled>",
                 module_code=None, version=None):
        self.label, self.code, self.obj = label, code, obj
        self.module, self.filename = module, filename
        self.module_code, self.version = module_code, version


def split(target):
    """``(where, qualname or None)``; a path that exists is never split (``C:\\x.py``)."""
    if os.path.exists(target) or ":" not in target:
        return target, None
    where, _, qualname = target.rpartition(":")
    if not where or not _QUALNAME.match(qualname):
        raise CliError("%r: expected FILE.py, FILE.pyc or MODULE, optionally followed by "
                       ":QUALNAME (such as Class.method)" % target, status=2)
    return where, qualname


def find(target):
    """The ``Found`` for a TARGET string."""
    where, qualname = split(target)
    if os.path.isdir(where):
        raise CliError("%s is a directory; give a .py or .pyc file, or a module name" % where)
    if os.path.exists(where):
        label = where if qualname is None else "%s:%s" % (where, qualname)
        version = _other_version(where)
        if version is not None:
            return Found(label, filename=where, version=version)
        module_code, filename = _file_code(where)
        if qualname is None:
            return Found(label, code=module_code, module=True, filename=filename)
        return Found(label, code=code_at(module_code, qualname, where), filename=filename,
                     module_code=module_code)
    if where.endswith((".py", ".pyc", ".pyw")) or os.sep in where or "/" in where:
        raise CliError("no such file: %s" % where)
    if not _MODULE.match(where):
        raise CliError("%r is neither an existing file nor a module name" % where, status=2)
    if qualname is None:
        code, filename = module_code_of(where)
        return Found(where, code=code, module=True, filename=filename)
    return _attribute(where, qualname)


def _other_version(path):
    """The version of another Python that wrote the .pyc at ``path``, or None (this
    Python's, or what ``_file_code`` says is wrong with it); ``CliError`` for a
    version depyf does not read."""
    if path.endswith((".py", ".pyw")):
        return None
    header = pycs.header(path)
    if header.kind == pycs.UNSUPPORTED:
        raise CliError(header.problem)
    if header.kind == pycs.OTHER and not pythons.DELEGATED:
        return header.version
    return None


def _file_code(path):
    """``(module code, filename)`` of a .py (compiled) or .pyc (read) file."""
    if path.endswith((".py", ".pyw")):
        try:
            with open(path, "rb") as fh:
                source = fh.read()
            return compile(source, path, "exec", dont_inherit=True), path
        except SyntaxError as exc:
            raise CliError("%s:%s:%s: %s: %s (depyf decompiles only files Python compiles)" % (
                path, exc.lineno, exc.offset, type(exc).__name__, exc.msg)) from None
        except (OSError, ValueError) as exc:
            raise CliError("cannot read %s: %s" % (path, exc)) from None
    try:
        return read_pyc(path), path
    except UnsupportedPycError as exc:
        if not path.endswith(".pyc") and "bad magic number" in exc.reason:
            raise CliError("%s is neither a .py nor a .pyc file (a .pyc starts with a magic "
                           "number; this one starts with %r)" % (path, _head(path))) from None
        raise CliError(exc.reason) from None
    except OSError as exc:
        raise CliError("cannot read %s: %s" % (path, exc.strerror or exc)) from None


def _head(path):
    with open(path, "rb") as fh:
        return fh.read(4)


def module_code_of(name):
    """``(code, filename)`` of an importable module, read through its loader (the
    module itself is not run; its parent packages are imported to find it)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as exc:
        raise CliError("no module named %r (%s)" % (name, exc)) from None
    except Exception as exc:  # a parent package that fails to import
        raise CliError("importing the packages of %r failed: %s: %s" % (
            name, type(exc).__name__, exc)) from None
    if spec is None:
        raise CliError("no module named %r" % name)
    get_code = getattr(spec.loader, "get_code", None)
    code = get_code(name) if get_code is not None else None
    if code is None:
        raise CliError("module %r has no Python bytecode (%s): it is built in or a C "
                       "extension" % (name, spec.origin or "no file"))
    return code, spec.origin or "<%s>" % name


def code_at(module_code, qualname, where):
    """The code object of the function or class ``qualname`` defined in ``module_code``
    (by name, level by level; the last definition of a name wins, as at run time)."""
    code = module_code
    done = []
    for part in qualname.split("."):
        if part == "<locals>":
            continue
        inside = [c for c in code.co_consts if isinstance(c, types.CodeType)]
        matches = [c for c in inside if c.co_name == part]
        if not matches:
            names = [c.co_name for c in inside if not c.co_name.startswith("<")]
            names = sorted(set(names), key=names.index)  # in the order of the source
            raise CliError("%s: no function or class named %r in %s (defined there: %s)" % (
                where, part, ".".join(done) if done else "the module", ", ".join(names) or "none"))
        code = matches[-1]
        done.append(part)
    return code


def _attribute(module_name, qualname):
    """Import ``module_name`` and find ``qualname`` in it by attribute."""
    if "<locals>" in qualname.split("."):
        raise CliError("%s:%s: a nested function exists only while its function runs; give "
                       "the module's file instead (FILE.py:%s)" % (module_name, qualname, qualname),
                       status=2)
    obj = _import(module_name)
    label = "%s:%s" % (module_name, qualname)
    path = [module_name]
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise CliError("%s has no attribute %r" % (".".join(path), part))
        obj = getattr(obj, part)
        path.append(part)
    if isinstance(obj, types.ModuleType):
        code, filename = module_code_of(obj.__name__)
        return Found(label, code=code, module=True, filename=filename)
    if inspect.isclass(obj):
        return _class_body(obj, label)
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType,
                        types.MethodWrapperType, types.WrapperDescriptorType,
                        types.MethodDescriptorType, types.ClassMethodDescriptorType)):
        raise CliError("%s is a built-in (%s, written in C): there is no Python bytecode to "
                       "decompile" % (label, type(obj).__name__))
    if not callable(obj) and not isinstance(obj, (types.CodeType, staticmethod, classmethod,
                                                  property)):
        raise CliError("%s is a %s, not a function, class or module" % (label, type(obj).__name__))
    if isinstance(obj, property):
        obj = obj.fget
    return Found(label, obj=obj, filename=getattr(getattr(obj, "__code__", None), "co_filename",
                                                  "<decompiled>"))


def _import(module_name):
    """Import the module; what it prints goes to stderr (stdout is for the source)."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise CliError("no module named %r%s" % (module_name, "" if exc.name == module_name
                                                  else " (%s)" % exc)) from None
    except BaseException as exc:  # the module's own code failed (SystemExit included)
        raise CliError("importing %s failed: %s: %s" % (module_name, type(exc).__name__, exc)) from None


def _class_body(cls, label):
    """A class's body code, from its module's code (a class object keeps no bytecode
    of its body)."""
    module = getattr(cls, "__module__", None)
    python_class = cls.__flags__ & _HEAPTYPE  # every class a class statement makes is one
    if not module or module == "builtins" or not python_class:
        raise CliError("%s is a built-in class: there is no Python bytecode to decompile" % label)
    try:
        code, filename = module_code_of(module)
    except CliError as exc:
        raise CliError("%s: the class's module has no bytecode to read (%s)" % (label, exc)) from None
    if "<locals>" in cls.__qualname__.split("."):
        raise CliError("%s was defined inside a function; give its module's file instead" % label)
    return Found(label, code=code_at(code, cls.__qualname__, module), filename=filename)
