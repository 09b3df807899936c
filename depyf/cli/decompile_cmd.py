"""``depyf decompile TARGET [--check]``: print the source of a file, module or function;
``depyf decompile DIR --out SRC``: write the source files of a folder of .pyc files."""
import argparse
import os

from ..errors import DecompilationError, UnprovenError
from ..decompiler.api import Decompiler, _unwrap
from ..decompiler.modules import module_statement
from . import pythons, targets, tree
from .output import CliError, note, print_source

_DESCRIPTION = """\
Print Python source for bytecode: a .pyc file, a .py file (compiled, then decompiled:
what the decompiler makes of your code), or a module, function, class or method by
name; or rebuild the source files of a whole folder of .pyc files (DIR --out SRC).
A .py file and a module are read, never run; MODULE:QUALNAME imports the module to
find the object.

Everything printed is proven to do what its bytecode does: a module's text is compiled
on its own and every function and class in it checked against its original (see
--check). What is not proven is refused (exit status 1, each unproven function and
why on stderr); --allow-unproven prints it anyway, each unproven function under a
"# depyf: NOT PROVEN" comment, and still exits 1.

Bytecode is specific to one Python version, and only that version can read it and
prove what it is decompiled to: a .pyc of another version is decompiled by an
interpreter of that version, found on PATH (pythonX.Y, python3, python) or among
pyenv's versions, running this same depyf (it need not be installed there; on Python
3.8 it needs the astunparse package). Its output and exit status are this command's."""

_EPILOG = """\
targets:
  FILE.pyc[:QUALNAME]      a .pyc of Python 3.8 to 3.14, or a function or class of it
  FILE.py[:QUALNAME]       a source file (compiled, not run), or a function or class of
                           it; a def or class of a file is shown as its module makes it:
                           with its decorators, default values, annotations and bases
  MODULE[:QUALNAME]        an importable module (json.decoder, read, not run), or an
                           object in it (json.decoder:JSONDecoder.decode: imports it)
  DIR --out SRC            every .pyc under DIR written back as source under SRC:
                           pkg/__pycache__/mod.cpython-311.pyc and pkg/mod.pyc -> SRC/pkg/mod.py

rebuilding a folder (DIR --out SRC):
  Of several .pyc files of one module (several Python versions, -O variants) the
  running Python's is decompiled, else the newest version's (the summary says which).
  A file is written only when its text is proven (with --allow-unproven also when it
  is not, marked), and never over an existing file: the run refuses to start when
  SRC already holds a file it would write, unless --force. At the end a summary on
  stderr says what became of each module.

examples:
  depyf decompile __pycache__/util.cpython-311.pyc > util.py
  depyf decompile script.py:Model.forward
  depyf decompile json.decoder:JSONDecoder.decode --check
  depyf decompile build/app --out recovered

exit status: 0 printed and proven (DIR: every module proven and written); 1 not proven
(printed only with --allow-unproven), or the target cannot be decompiled (missing or
corrupt file, a .pyc of a Python version with no interpreter found, no such module or
attribute, a builtin...); 2 a malformed command line."""


def add_parser(commands):
    p = commands.add_parser(
        "decompile", help="print the source of a .pyc, a .py, or MODULE:FUNCTION",
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="TARGET",
                   help="FILE.pyc[:QUALNAME], FILE.py[:QUALNAME], MODULE[:QUALNAME], or a "
                        "folder of .pyc files with --out")
    p.add_argument("--check", action="store_true",
                   help="also print the verification verdict (on stderr): proven equivalent "
                        "to the bytecode, and how, or why not")
    p.add_argument("--allow-unproven", action="store_true",
                   help="print source that is not proven too, each unproven function or "
                        "class under a '# depyf: NOT PROVEN' comment (the exit status is "
                        "still 1)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="highlight the source (needs rich; auto: only on a terminal)")
    p.add_argument("--out", metavar="SRC",
                   help="with a folder of .pyc files as TARGET: the folder to write the "
                        "source files into (created if needed)")
    p.add_argument("--force", action="store_true",
                   help="with --out: replace the files of SRC that the run writes (without "
                        "it, the run refuses to start when one exists)")
    p.set_defaults(handler=handle)
    return p


def handle(args):
    if os.path.isdir(args.target):
        if args.out is None:
            raise CliError("%s is a directory; to write the source of the .pyc files in it "
                           "into a folder, give --out SRC" % args.target)
        return tree.rebuild(args.target, args.out, args.allow_unproven, args.force, args.check)
    if args.out is not None and not os.path.exists(args.target):
        raise CliError("no such folder: %s" % args.target)
    if args.out is not None or args.force:
        raise CliError("--out and --force are for a folder of .pyc files; the source of %s "
                       "goes to stdout (depyf decompile %s > FILE.py)" % (args.target, args.target),
                       status=2)
    found = targets.find(args.target)
    if found.version is not None:
        return pythons.delegate(found, args)
    try:
        text, verdict = _decompile(found, args.allow_unproven)
    except UnprovenError as exc:
        if args.check:
            note("depyf decompile --check: %s: %s" % (found.label, describe(exc.verdict)))
        raise CliError("%s: not proven to do what the bytecode does, so not printed (%s); "
                       "--allow-unproven prints it under a NOT PROVEN comment"
                       % (found.label, _first_line(exc.verdict.reason))) from None
    except DecompilationError as exc:
        raise CliError("%s: %s" % (found.label, exc)) from None
    print_source(text, args.color)
    if args.check:
        note("depyf decompile --check: %s: %s" % (found.label, describe(verdict)))
    elif not verdict:
        note("depyf decompile: warning: %s: the source above is NOT proven to do what the "
             "bytecode does (%s); --check says more" % (found.label, _first_line(verdict.reason)))
    return 0 if verdict else 1


def _decompile(found, allow_unproven):
    """``(source text, verdict)``: the proven text, or with ``allow_unproven`` the text
    under NOT PROVEN comments; ``UnprovenError`` otherwise. A module's code object is
    decompiled as a whole module."""
    if found.module_code is not None:
        shown = _as_its_module_makes_it(found)
        if shown is not None:
            return shown
    target = found.code
    if found.obj is not None:
        try:
            code, fn = _unwrap(found.obj)
        except TypeError:
            raise CliError("%s: no Python bytecode behind this %s (a builtin or C callable)"
                           % (found.label, type(found.obj).__name__)) from None
        target = fn if fn is not None else code
    decompiler = Decompiler(target)
    text = decompiler.decompile(allow_unproven=allow_unproven)
    return text, decompiler.verdict


def _as_its_module_makes_it(found):
    """``(text, verdict)`` of the def or class statement of ``found`` as its module
    makes it, proven with the whole module; None (and a note saying why) when the
    module is not proven: the def is then shown as its code object alone."""
    try:
        text, verdict = module_statement(found.module_code, found.code)
    except DecompilationError as exc:
        why = "cannot be decompiled: %s" % _first_line(exc)
    else:
        if text is not None:
            return text, verdict
        why = "is not proven: %s" % _first_line(verdict.reason) if not verdict else \
            "makes no def or class statement of it"
    note("depyf decompile: note: %s: shown as its code object alone, without the decorators "
         "and default values its module gives it: the module %s" % (found.label, why))
    return None


def describe(verdict):
    """One line a user reads: proven (and how), or different/unknown and why."""
    if verdict:
        return "proven equivalent to the bytecode (%s)" % verdict.how
    kind = "a difference was found" if verdict.different else "could not be proven"
    return "NOT proven: %s: %s" % (kind, " ".join(str(verdict.reason).split()))


def _first_line(text):
    return str(text).strip().splitlines()[0] if str(text).strip() else "no reason given"
