"""``python -m depyf.verify.cpython_tests``: CPython's tests as a referee (see the package).

    python -m depyf.verify.cpython_tests [--mode library|language] [--modules a,b] [--ci]
        [--json PATH] [--timeout S] [--per-test S] [--decompile-timeout S]
        [--proven-only] [--always-control] [--keep DIR] [--list] [--report PATH]
        [--decompile-only]

Prints a table (one line per module, then the totals, every changed outcome, every
source-text dependent and flaky test, the refusals grouped by cause and the modules left
out). Exit status 1 when an outcome changed or a module was not proven; 2 on bad usage.
"""
import argparse
import json
import sys

from . import report, run, targets, texts
from .referee import Options


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m depyf.verify.cpython_tests",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=("library", "language"), default=None,
                   help="library: stdlib modules under their tests; language: the test "
                        "modules themselves (default: library, both with --ci)")
    p.add_argument("--modules", help="comma-separated names (library: stdlib module or "
                                     "package; language: test module)")
    p.add_argument("--ci", action="store_true", help="the fast subset (%s; %s)" % (
        ", ".join(targets.CI["library"]), ", ".join(targets.CI["language"])))
    p.add_argument("--json", metavar="PATH", help="write the results here (after each module)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds one run of a module's tests may take (default 600)")
    p.add_argument("--per-test", type=float, default=120.0,
                   help="seconds one test may take (default 120; 0: no limit)")
    p.add_argument("--decompile-timeout", type=float, default=600.0,
                   help="seconds decompiling one file may take (default 600)")
    p.add_argument("--proven-only", action="store_true",
                   help="do not run the text of a module that is not proven")
    p.add_argument("--always-control", action="store_true",
                   help="run the control text on every module, not only where an outcome changed")
    p.add_argument("--keep", metavar="DIR", help="write the folders and logs here and keep them")
    p.add_argument("--list", action="store_true", help="print the modules and exit")
    p.add_argument("--report", metavar="PATH", help="print the table of a saved --json file "
                                                    "(and exit with its status)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--decompile-only", action="store_true",
                   help="run no test: decompile every file and print those not proven")
    args = p.parse_args(argv)

    if args.report:
        with open(args.report, encoding="utf-8") as f:
            saved = json.load(f)
        results = saved.get("runs", [saved])
        for result in results:
            print(report.format_table(result))
        return 1 if any(report.failed(r["modules"]) for r in results) else 0
    names = [m.strip() for m in args.modules.split(",") if m.strip()] if args.modules else None
    modes = [args.mode] if args.mode else (["library", "language"] if args.ci else ["library"])
    if args.list:
        for mode in modes:
            chosen, excluded = targets.select(mode, names, args.ci)
            for t in chosen:
                print(mode, t.name, " ".join(t.tests), len(t.files), "files")
            for name, why in excluded:
                print(mode, name, "EXCLUDED:", why)
        return 0
    if args.decompile_only:
        return decompile_only(modes, names, args.ci, args.decompile_timeout, args.json)
    progress = None if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    options = Options(decompile_timeout=args.decompile_timeout, timeout=args.timeout,
                      per_test=args.per_test, proven_only=args.proven_only,
                      always_control=args.always_control, progress=progress)
    results = []
    for mode in modes:
        def save(result, _done=tuple(results)):
            if args.json:
                report.write_json(args.json, _combined(list(_done) + [result]))
        result = run(mode, names, args.ci, options, workroot=args.keep, keep=bool(args.keep),
                     on_entry=save)
        results.append(result)
        print(report.format_table(result))
    if args.json:
        report.write_json(args.json, _combined(results))
    return 1 if any(report.failed(r["modules"]) for r in results) else 0


def decompile_only(modes, names, ci, timeout, json_path=None):
    """Decompile the files of the chosen targets; print each file not proven (status,
    reasons) and a summary line per mode. 1 if any file is not proven."""
    found = []
    for mode in modes:
        chosen, _ = targets.select(mode, names, ci)
        done = []
        for target in chosen:
            for rel, path, decompile in target.files:
                if not decompile:
                    continue
                text = texts.decompile_file(rel, path, timeout=timeout)
                done.append(dict(text.to_json(), mode=mode, target=target.name))
                if text.status != "proven":
                    print("%s %s %s: %s" % (mode, text.status, rel, "; ".join(text.reasons)),
                          flush=True)
        bad = sum(1 for d in done if d["status"] != "proven")
        print("%s: %d files of %d modules decompiled, %d proven, %d not proven (Python %d.%d)" % (
            mode, len(done), len(chosen), len(done) - bad, bad, *sys.version_info[:2]))
        found.extend(done)
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump({"python": "%d.%d.%d" % sys.version_info[:3], "files": found}, f, indent=1)
    return 1 if any(d["status"] != "proven" for d in found) else 0


def _combined(results):
    return results[0] if len(results) == 1 else {"runs": results}


if __name__ == "__main__":
    sys.exit(main())
