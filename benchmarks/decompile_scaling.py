"""Time per statement as a generated function grows: linear decompiling or not.

    python benchmarks/decompile_scaling.py [--kinds straight,ifelse] [--sizes 100,...]
                                           [--repeat 3] [--target 2.0]

Generates ``def f(x, y)`` with N statements of one kind and times ``depyf.decompile`` on
it (the default path: read, print and prove), best of ``--repeat``, after one untimed
warm-up call. Kinds: ``straight`` (``y = y + x * i``) and ``ifelse`` (``if x > i: y = y + i``
``else: y = y - i``). Prints milliseconds per statement for each N and, per kind, the
ratio of the largest N to the smallest; the exit status is 1 when a ratio is over
``--target`` (time per statement should not grow with the function).
"""
import argparse
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

import depyf  # noqa: E402

STATEMENTS = {
    "straight": "    y = y + x * {i}",
    "ifelse": "    if x > {i}:\n        y = y + {i}\n    else:\n        y = y - {i}",
}


def generated(kind, n):
    body = "\n".join(STATEMENTS[kind].format(i=i) for i in range(n))
    namespace = {}
    exec(compile("def f(x, y):\n%s\n    return y\n" % body, "<generated>", "exec"), namespace)
    return namespace["f"]


def per_statement(kind, n, repeat):
    fn = generated(kind, n)
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        depyf.decompile(fn)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best / n * 1000.0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kinds", default="straight,ifelse")
    p.add_argument("--sizes", default="100,200,400,800,1600")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--target", type=float, default=2.0)
    args = p.parse_args(argv)
    kinds = args.kinds.split(",")
    unknown = [k for k in kinds if k not in STATEMENTS]
    if unknown:
        p.error("unknown kind %s (kinds: %s)" % (", ".join(unknown), ", ".join(STATEMENTS)))
    sizes = [int(s) for s in args.sizes.split(",")]
    depyf.decompile(generated("ifelse", 5))  # warm-up: lazy imports are not timed
    print("Decompile time per statement (ms), Python %s, best of %d"
          % (sys.version.split()[0], args.repeat))
    print()
    print("| kind | " + " | ".join("N=%d" % n for n in sizes) + " | N=%d / N=%d |" % (sizes[-1], sizes[0]))
    print("|---|" + "---:|" * (len(sizes) + 1))
    worst = 0.0
    for kind in kinds:
        times = [per_statement(kind, n, args.repeat) for n in sizes]
        ratio = times[-1] / times[0]
        worst = max(worst, ratio)
        print("| %s | %s | %.2f |" % (kind, " | ".join("%.3f" % t for t in times), ratio))
    if worst > args.target:
        print("\nover target: a ratio of %.2f > %.2f" % (worst, args.target))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
