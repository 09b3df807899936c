"""``python -m depyf.verify``: the stdlib round trip from the command line.

    python -m depyf.verify [--modules a,b] [--sample N] [--json PATH] [--failures PATH]

Prints a per-module and total table (code objects, % decompiled, % compiles,
% bytecode-equal, ``__temp`` names, slowest object). Exit status 0 unless a
``--require-*`` threshold is given and missed (then 1), or the harness itself breaks.
"""
import argparse
import importlib
import sys

from . import report, run, stdlib_corpus
from .roundtrip import time_limit


def _load_decompiler(spec):
    module, _, attr = spec.partition(":")
    if not attr:
        raise SystemExit("--decompiler wants MODULE:FUNCTION, got %r" % spec)
    return getattr(importlib.import_module(module), attr)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m depyf.verify", description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus (default: all %d)"
                   % len(stdlib_corpus.MODULES))
    p.add_argument("--sample", type=int, help="check only N code objects, spread evenly")
    p.add_argument("--json", metavar="PATH", help="write machine-readable results here")
    p.add_argument("--failures", metavar="PATH", help="write the failure worklist here")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="seconds allowed per decompile call (default 10)")
    p.add_argument("--time-budget", type=float, metavar="SECONDS",
                   help="stop decompiling after this long; the rest count as failed")
    p.add_argument("--decompiler", metavar="MODULE:FUNCTION",
                   help="use another decompile(code) -> str (to test this harness)")
    p.add_argument("--list-modules", action="store_true", help="print the corpus and exit")
    p.add_argument("--quiet", action="store_true", help="no progress dots")
    for what in ("decompiled", "compiles", "equal", "proven"):
        p.add_argument("--require-" + what, type=float, metavar="PCT",
                       help="exit 1 if the %s rate is below PCT" % what)
    args = p.parse_args(argv)

    if args.list_modules:
        for name in stdlib_corpus.MODULES:
            print(name, stdlib_corpus.module_file(name))
        return 0
    modules = [m.strip() for m in args.modules.split(",") if m.strip()] if args.modules else None
    kwargs = {"timeout": args.timeout, "time_budget": args.time_budget}
    if args.decompiler:
        kwargs["decompile"] = _load_decompiler(args.decompiler)

    def progress(r):
        sys.stderr.write("." if r.equal else ("x" if r.decompiled else "E"))
        sys.stderr.flush()

    results, unchecked, wall = run(modules, args.sample,
                                   progress=None if args.quiet else progress, **kwargs)
    if not args.quiet:
        sys.stderr.write("\n")
    print(report.format_table(results, unchecked, wall))
    if not time_limit(args.timeout).bounded:  # no SIGALRM/setitimer (Windows, WebAssembly)
        print("per-call limit: not available here (no SIGALRM timer); only --time-budget, "
              "checked between calls, bounds the run")
    if args.json:
        report.write_json(args.json, report.to_json(results, unchecked, wall, vars(args)))
    if args.failures:
        with open(args.failures, "w", encoding="utf-8") as f:
            f.write(report.format_failures(results))

    total = report.summarize(results)
    status = 0
    for what, key in (("decompiled", "decompiled_pct"), ("compiles", "compiles_pct"),
                      ("equal", "equal_pct"), ("proven", "proven_pct")):
        need = getattr(args, "require_" + what)
        if need is not None and total[key] < need:
            print("FAIL: %s rate %.2f%% is below the required %.2f%%" % (what, total[key], need))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
