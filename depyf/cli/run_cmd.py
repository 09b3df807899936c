"""``depyf run [--dump-dir D] [--report] (SCRIPT | -m MODULE) [ARGS...]``.

Runs a program under ``depyf.prepare_debug(D)`` without editing it, the way ``python
SCRIPT`` / ``python -m MODULE`` would (``runpy``): its own ``sys.argv``, ``sys.path[0]``
(the script's folder; the current directory for ``-m``), ``__name__ == "__main__"``, and
its exit status and uncaught exception passed through unchanged. Then prints a summary
of the dump on stderr.
"""
import argparse
import importlib.util
import os
import runpy
import sys
import traceback

from . import summary
from .output import CliError, note

DEFAULT_DUMP_DIR = "dump_src_dir"
_OPTIONS_WITH_VALUE = ("--dump-dir", "-d", "-m")

_DESCRIPTION = """\
Run a Python program under depyf.prepare_debug(DUMP_DIR), without editing it: everything
torch.compile compiles is dumped as readable source. The program gets its own sys.argv,
sys.path[0] and __name__ == "__main__"; its output, exit status and uncaught exceptions
are its own. Afterwards a summary (functions compiled, graph breaks, recompiles,
fallbacks, where the dump is) goes to stderr.

A program that opens its own `with depyf.prepare_debug(OTHER):` block keeps working: the
block joins the dump of `depyf run` (one dump session at a time; torch's hooks are
process-wide), and a note says so. Pass --dump-dir OTHER to write where the program says."""

_EPILOG = """\
examples:
  depyf run train.py --epochs 1             dump into ./%s
  depyf run --dump-dir dumps -m mypkg.train --fast
  depyf run --report examples/toy_example.py   and build dumps' HTML report

options of depyf run come before SCRIPT / -m MODULE; everything after belongs to the
program. Needs PyTorch: pip install depyf[torch]""" % DEFAULT_DUMP_DIR

_parser = None


def add_parser(commands):
    global _parser
    p = _parser = commands.add_parser(
        "run", help="run a program under prepare_debug and summarize what was compiled",
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-d", "--dump-dir", metavar="DIR",
                   help="where the dump goes (default: ./%s)" % DEFAULT_DUMP_DIR)
    p.add_argument("--report", action="store_true",
                   help="build the HTML report afterwards (as `depyf report DIR`)")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, as python -m does")
    p.add_argument("script", metavar="SCRIPT", nargs="?", help="the program to run")
    p.add_argument("args", metavar="ARGS", nargs="*", help="the program's own arguments")
    p.set_defaults(handler=handle)
    return p


def parse(parser, argv):
    """Our options up to SCRIPT or ``-m MODULE``; everything after is the program's."""
    ours, i = [], 0
    script = module = None
    while i < len(argv):
        token = argv[i]
        if token == "--":
            script = argv[i + 1] if i + 1 < len(argv) else None
            i += 2
            break
        if token == "-m" or token.startswith("-m") and len(token) > 2:
            module = token[2:] or (argv[i + 1] if i + 1 < len(argv) else None)
            i += 1 if token[2:] else 2
            break
        if not token.startswith("-") or token == "-":
            script = token
            i += 1
            break
        ours.append(token)
        if token in _OPTIONS_WITH_VALUE and i + 1 < len(argv):
            ours.append(argv[i + 1])
            i += 1
        i += 1
    args = parser.parse_args(["run"] + ours)
    args.script, args.module, args.args = script, module, argv[i:]
    if script is None and module is None:
        _parser.error("give the program to run: SCRIPT [ARGS...] or -m MODULE [ARGS...]")
    return args


def handle(args):
    if args.dump_dir is not None and not args.dump_dir.strip():
        raise CliError("--dump-dir is empty ('.' writes into the current directory)", status=2)
    _require_torch()
    import depyf
    from ..torch_debug.session import DumpDirError, registry

    # absolute: the program may change the current directory
    dump_dir = os.path.abspath(os.path.expanduser(args.dump_dir or DEFAULT_DUMP_DIR))
    target = _check_target(args)
    registry.on_nested = _Notice(dump_dir)
    try:
        with depyf.prepare_debug(dump_dir):  # the program's exceptions stay inside
            session = registry.active[0]
            outcome = _run(target, args)
    except DumpDirError as exc:
        raise CliError(exc.strerror or str(exc)) from None
    finally:
        registry.on_nested = None
    _print_summary(dump_dir, session.dir, args.report)
    report_failed = bool(args.report and _report(dump_dir))
    if outcome.exit is not None:
        if report_failed and outcome.exit.code in (None, 0):
            return 1
        raise outcome.exit  # the program's own SystemExit: its code, its message
    return outcome.status or int(report_failed)


def _require_torch():
    try:
        import torch  # noqa: F401
    except Exception as exc:  # ImportError, or a broken install
        raise CliError("depyf run needs PyTorch, which could not be imported (%s: %s). Install "
                       "it with `pip install depyf[torch]` (or `pip install torch`)."
                       % (type(exc).__name__, exc)) from None


def _check_target(args):
    if args.module is not None:
        try:
            spec = importlib.util.find_spec(args.module)
        except Exception as exc:
            raise CliError("cannot find module %r: %s: %s" % (args.module, type(exc).__name__, exc)) from None
        if spec is None:
            raise CliError("no module named %r" % args.module)
        return args.module
    if not os.path.exists(args.script):
        raise CliError("can't open file %r: no such file" % args.script, status=2)
    return args.script


class _Notice:
    """Told when the program opens a dump block of another directory (which joins ours)."""

    def __init__(self, dump_dir):
        self.dump_dir, self.told = dump_dir, set()

    def __call__(self, session, other, func):
        if other in self.told:
            return
        self.told.add(other)
        note("depyf run: the program's depyf.%s(%r) block is recorded into %s, the dump of "
             "`depyf run` (one dump session at a time); run `depyf run --dump-dir %s ...` to "
             "write there instead" % (func, other, session.dir, other))


class _Outcome:
    def __init__(self, status=0, exit=None):
        self.status, self.exit = status, exit


def _run(target, args):
    """Run the program as python would; its SystemExit is kept, its exception printed."""
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    try:
        if args.module is not None:
            sys.argv = [target] + list(args.args)  # run_module sets argv[0] to the file
            _set_path0(os.getcwd())
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [target] + list(args.args)
            _set_path0(os.path.dirname(os.path.abspath(target)))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as exc:
        return _Outcome(exit=exc)
    except BaseException as exc:
        sys.stdout.flush()
        _print_program_traceback(exc)
        return _Outcome(130 if isinstance(exc, KeyboardInterrupt) else 1)
    finally:
        sys.stdout.flush()
        sys.argv = saved_argv
        if saved_path0 is not None:
            _set_path0(saved_path0)
    return _Outcome()


def _set_path0(folder):
    if sys.path:
        sys.path[0] = folder
    else:
        sys.path.append(folder)


def _print_program_traceback(exc):
    """The traceback python would print: the frames of runpy and of this module cut."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_globals.get("__name__") in ("runpy", __name__):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb)


def _print_summary(root, folder, report_follows=False):
    """Summary of each dump folder written (this process's, and any rank_/process_ ones)."""
    folder = os.path.abspath(folder)
    folders = [folder] + [f for f in summary.dump_folders(os.path.abspath(root)) if f != folder]
    sys.stderr.flush()
    for f in folders:
        data = summary.read_overview(f)
        if data is None:
            note("depyf run: no overview in %s (nothing written?)" % f)
            continue
        note("depyf run: dump in %s" % _display(f))
        for line in summary.summary_lines(data, f):
            note(line)
    hint = "" if report_follows else "; `depyf report %s` builds the HTML report" % _display(root)
    from ..report.dump import overview_path

    note("  details             %s%s" % (_display(overview_path(folder)), hint))


def _display(path):
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def _report(dump_dir):
    """Build the report after the run; 1 (with a message) when it cannot be built."""
    from .report_cmd import build_report

    try:
        index = build_report(dump_dir)
    except CliError as exc:
        note("depyf run: error: --report: %s" % exc)
        return 1
    note("  report              %s" % _display(index))
    return 0
