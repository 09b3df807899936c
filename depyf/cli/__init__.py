"""``depyf`` on the command line: ``depyf decompile``, ``depyf run``, ``depyf report``.

Installed as the ``depyf`` console script and reachable as ``python -m depyf``. Parsing
is argparse (stdlib); ``rich`` colours the output when it is installed and stdout is a
terminal. Nothing here is imported by ``import depyf``, and torch is imported only by
``depyf run``.
"""
import argparse
import sys

from . import decompile_cmd, report_cmd, run_cmd
from .output import CliError, error

__all__ = ["main", "build_parser", "CliError"]

_EPILOG = """\
examples:
  depyf decompile util.cpython-311.pyc              a .pyc back to source
  depyf decompile script.py                         what the decompiler makes of a file
  depyf decompile script.py:Model.forward           one function of it
  depyf decompile json.decoder:JSONDecoder.decode --check
  depyf decompile build/app --out recovered         a folder of .pyc files back to source
  depyf run train.py --epochs 1                     run a program under prepare_debug
  depyf run --dump-dir dumps -m mypkg.train         the same for a module
  depyf report dumps --open                         the HTML report of a dump directory

`depyf COMMAND --help` tells more about each command.
"""


def build_parser():
    parser = argparse.ArgumentParser(
        prog="depyf",
        description="Decompile Python bytecode, and open up what torch.compile generates.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    from .. import __version__
    parser.add_argument("--version", action="version", version="depyf %s" % __version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (decompile_cmd, run_cmd, report_cmd):
        module.add_parser(commands)
    return parser


def main(argv=None):
    """Run one command; returns the exit status (a program run by ``depyf run`` that
    exits with ``SystemExit`` passes it through unchanged)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:  # the program's own arguments are not ours to parse
        args = run_cmd.parse(parser, argv[1:])
    else:
        args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.handler(args)
    except CliError as exc:
        error(args.command, str(exc))
        return exc.status
    except KeyboardInterrupt:
        error(args.command, "interrupted")
        return 130
