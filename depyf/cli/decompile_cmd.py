"""``depyf decompile TARGET [--check]``: print the source of a file, module or function."""
import argparse

from ..equivalence import Verdict, equivalent
from ..errors import DecompilationError, UnprovenError
from ..decompiler.api import Decompiler, _unwrap
from ..decompiler.modules import decompile_module
from . import targets
from .output import CliError, note, print_source

_DESCRIPTION = """\
Print Python source for bytecode: a .pyc file, a .py file (compiled, then decompiled:
what the decompiler makes of your code), or a module, function, class or method by
name. A .py file and a module are read, never run; MODULE:QUALNAME imports the module
to find the object (so its defaults and annotations come with it).

Every function's source is proven to do what its bytecode does (see --check). Source
that could not be proven is still printed, under a comment saying so, with a warning."""

_EPILOG = """\
targets:
  FILE.pyc                 a .pyc of this Python version
  FILE.py[:QUALNAME]       a source file, or one function/class of it (compiled, not
                           run: a def comes without its default values, which the
                           enclosing code computes; MODULE:QUALNAME has them)
  MODULE[:QUALNAME]        an importable module (json.decoder), or an object in it
                           (json.decoder:JSONDecoder.decode)

examples:
  depyf decompile __pycache__/util.cpython-311.pyc > util.py
  depyf decompile script.py:Model.forward
  depyf decompile json.decoder:JSONDecoder.decode --check

exit status: 0 printed (and, with --check, proven); 1 the target cannot be decompiled
(missing file, another Python's .pyc, no such module or attribute, a builtin...) or,
with --check, not proven; 2 a malformed command line."""


def add_parser(commands):
    p = commands.add_parser(
        "decompile", help="print the source of a .pyc, a .py, or MODULE:FUNCTION",
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="TARGET", help="FILE.pyc, FILE.py[:QUALNAME] or MODULE[:QUALNAME]")
    p.add_argument("--check", action="store_true",
                   help="also print the verification verdict (on stderr): proven equivalent "
                        "to the bytecode, and how, or why not; exit 1 when not proven")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="highlight the source (needs rich; auto: only on a terminal)")
    p.set_defaults(handler=handle)
    return p


def handle(args):
    found = targets.find(args.target)
    try:
        text, verdict = _decompile(found)
    except DecompilationError as exc:
        raise CliError("%s: %s" % (found.label, exc)) from None
    print_source(text, args.color)
    if args.check:
        note("depyf decompile --check: %s: %s" % (found.label, describe(verdict)))
        return 0 if verdict else 1
    if not verdict:
        note("depyf decompile: warning: %s: the source above is NOT proven to do what the "
             "bytecode does (%s); --check says more" % (found.label, _first_line(verdict.reason)))
    return 0


def _decompile(found):
    """``(source text, Verdict)``; unproven text comes back with its verdict."""
    if found.module:
        text = decompile_module(found.code)
        return text, _module_verdict(found, text)
    target = found.obj if found.obj is not None else found.code
    if found.obj is not None:
        try:
            code, fn = _unwrap(found.obj)
        except TypeError:
            raise CliError("%s: no Python bytecode behind this %s (a builtin or C callable)"
                           % (found.label, type(found.obj).__name__)) from None
        target = fn if fn is not None else code
    decompiler = Decompiler(target)
    try:
        text = decompiler.decompile()
    except UnprovenError:
        text = decompiler.decompile(allow_unproven=True)
    return text, decompiler.verdict


def _module_verdict(found, text):
    """A module is not proven while decompiling (``decompile_module``): compile the text
    and compare the two module code objects with the equivalence checker."""
    try:
        recompiled = compile(text, found.filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return Verdict(False, "the decompiled module does not compile: %s (line %s)"
                       % (exc.msg, exc.lineno), different=True)
    return equivalent(found.code, recompiled, compare_name=False)


def describe(verdict):
    """One line a user reads: proven (and how), or different/unknown and why."""
    if verdict:
        return "proven equivalent to the bytecode (%s)" % verdict.how
    kind = "a difference was found" if verdict.different else "could not be proven"
    return "NOT proven: %s: %s" % (kind, " ".join(str(verdict.reason).split()))


def _first_line(text):
    return str(text).strip().splitlines()[0] if str(text).strip() else "no reason given"
