"""``depyf report DUMP_DIR [--out DIR] [--open]``: wiring to ``depyf.report.build``."""
import argparse
import os
import pathlib
import webbrowser

from .output import CliError

_DESCRIPTION = """\
Build the static HTML report of a dump directory written by `depyf run` or
`depyf.prepare_debug(DIR)`: an index of every compiled function (cache entries, graph
breaks, recompiles, fallbacks, compile times) and a page per function and graph. A
directory with rank_*/ or process_*/ folders (torchrun, multiprocessing) gets a rank
selector. The pages work from file://, without a server or network."""

_EPILOG = """\
examples:
  depyf report dump_src_dir                  writes dump_src_dir/index.html
  depyf report dump_src_dir --out /tmp/rep --open"""


def add_parser(commands):
    p = commands.add_parser(
        "report", help="build the HTML report of a dump directory",
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dump_dir", metavar="DUMP_DIR", help="the directory given to prepare_debug / --dump-dir")
    p.add_argument("--out", metavar="DIR", help="write the report here (default: DUMP_DIR itself)")
    p.add_argument("--open", action="store_true", help="open index.html in the web browser")
    p.set_defaults(handler=handle)
    return p


def handle(args):
    index = build_report(args.dump_dir, args.out)
    print(index)
    if args.open:
        open_in_browser(index)
    return 0


def build_report(dump_dir, out_dir=None):
    """Path of the written index.html; ``CliError`` for a missing folder, a folder that is
    no dump (``ReportError``), or a depyf without the report builder."""
    if not os.path.exists(dump_dir):
        raise CliError("no such directory: %s" % dump_dir)
    if not os.path.isdir(dump_dir):
        raise CliError("%s is not a directory (give the dump directory itself)" % dump_dir)
    try:
        from .. import report
    except ImportError as exc:
        raise CliError("this depyf has no report builder (depyf.report: %s)" % exc) from None
    try:
        return report.build(dump_dir, out_dir=out_dir)
    except report.ReportError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError("cannot write the report: %s" % exc) from None


def open_in_browser(index):
    url = pathlib.Path(os.path.abspath(index)).as_uri()
    if not webbrowser.open(url):
        raise CliError("no web browser could be started; open %s yourself" % url)
