"""``depyf decompile TARGET [--check]``: print the source of a file, module or function."""
import argparse

from ..errors import DecompilationError, UnprovenError
from ..decompiler.api import Decompiler, _unwrap
from . import targets
from .output import CliError, note, print_source

_DESCRIPTION = """\
Print Python source for bytecode: a .pyc file, a .py file (compiled, then decompiled:
what the decompiler makes of your code), or a module, function, class or method by
name. A .py file and a module are read, never run; MODULE:QUALNAME imports the module
to find the object (so its defaults and annotations come with it).

Everything printed is proven to do what its bytecode does: a module's text is compiled
on its own and every function and class in it checked against its original (see
--check). What is not proven is refused (exit status 1, each unproven function and
why on stderr); --allow-unproven prints it anyway, each unproven function under a
"# depyf: NOT PROVEN" comment, and still exits 1."""

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

exit status: 0 printed and proven; 1 not proven (printed only with --allow-unproven),
or the target cannot be decompiled (missing file, another Python's .pyc, no such module
or attribute, a builtin...); 2 a malformed command line."""


def add_parser(commands):
    p = commands.add_parser(
        "decompile", help="print the source of a .pyc, a .py, or MODULE:FUNCTION",
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="TARGET", help="FILE.pyc, FILE.py[:QUALNAME] or MODULE[:QUALNAME]")
    p.add_argument("--check", action="store_true",
                   help="also print the verification verdict (on stderr): proven equivalent "
                        "to the bytecode, and how, or why not")
    p.add_argument("--allow-unproven", action="store_true",
                   help="print source that is not proven too, each unproven function or "
                        "class under a '# depyf: NOT PROVEN' comment (the exit status is "
                        "still 1)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="highlight the source (needs rich; auto: only on a terminal)")
    p.set_defaults(handler=handle)
    return p


def handle(args):
    found = targets.find(args.target)
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


def describe(verdict):
    """One line a user reads: proven (and how), or different/unknown and why."""
    if verdict:
        return "proven equivalent to the bytecode (%s)" % verdict.how
    kind = "a difference was found" if verdict.different else "could not be proven"
    return "NOT proven: %s: %s" % (kind, " ".join(str(verdict.reason).split()))


def _first_line(text):
    return str(text).strip().splitlines()[0] if str(text).strip() else "no reason given"
