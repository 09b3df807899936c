"""The equivalence checker against itself: every code object of the stdlib round-trip
corpus compared with itself, the bytecode-equality shortcut turned off, so the checker
runs on every instruction of every function. Anything short of "proven" is a gap in its
model (an opcode or a shape it cannot follow), listed by reason.

    python benchmarks/checker_self.py [--modules a,b]

Prints one line per version run: code objects, proven, not proven, seconds, the slowest.
"""
import argparse
import collections
import sys
import time

from depyf.verify import collect_targets, equivalent


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset (default: the whole corpus)")
    args = p.parse_args(argv)
    targets, _ = collect_targets(args.modules.split(",") if args.modules else None)
    gaps = collections.Counter()
    examples = {}
    times = []
    start = time.perf_counter()
    for t in targets:
        t0 = time.perf_counter()
        try:
            verdict = equivalent(t.code, t.code, shortcut=False)
            reason = None if verdict else verdict.reason.split(": ", 1)[-1][:150]
        except Exception as exc:  # a crash is a gap too; report it, go on
            reason = "crash: %s: %s" % (type(exc).__name__, str(exc)[:100])
        times.append((time.perf_counter() - t0, "%s:%s" % (t.module, t.qualname)))
        if reason is not None:
            gaps[reason] += 1
            examples.setdefault(reason, "%s:%s" % (t.module, t.qualname))
    total = time.perf_counter() - start
    slowest = max(times) if times else (0.0, "-")
    print("Python %d.%d: %d code objects, %d proven equivalent to themselves, %d not; "
          "%.1f s (slowest %s, %.2f s)" % (sys.version_info[:2] + (
              len(targets), len(targets) - sum(gaps.values()), sum(gaps.values()), total,
              slowest[1], slowest[0])))
    for reason, count in gaps.most_common():
        print("  %d x %s (e.g. %s)" % (count, reason, examples[reason]))
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
