"""Decompiling the stdlib corpus against the floor any verifying decompiler pays.

    python benchmarks/decompile_floor.py [--modules a,b] [--repeat N] [--target X]

The floor is what a decompiler that checks its output cannot avoid: compiling the module
sources (the check recompiles text of that size) and disassembling every function
(``dis.get_instructions``, listed). Against it, one process times ``depyf.decompile``
(``Decompiler(code).decompile()``: read, print and prove, the default) on every def of the
same modules (``depyf.verify.stdlib_corpus``, the round trip's fixed list), and the same
without the proof (``allow_unproven`` path cut: reading and printing only). Each figure
is the best of ``--repeat`` passes; the ratios are printed side by side. ``--target``
(default 3.0) makes the exit status 1 when decompiling costs more than that many floors.
``--stages`` also times one more default pass stage by stage (each stage's functions
wrapped with a timer: normalize, structuring + executor, rewrite, print, recompile,
equivalence check) and prints each stage's share of that pass.
"""
import argparse
import dis
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from depyf.decompiler.api import Decompiler  # noqa: E402
from depyf.verify import stdlib_corpus  # noqa: E402


def corpus(modules):
    """``[(source, path, [code objects of every def])]`` for the modules."""
    out = []
    for name in modules:
        path, source, code = stdlib_corpus.compile_module(name)
        defs = stdlib_corpus.def_positions(source)
        codes = [t.code for t in stdlib_corpus.iter_targets(name, code, defs=defs, standalone=False)]
        out.append((source, path, codes))
    return out


def floor(items):
    for source, path, codes in items:
        compile(source, path, "exec", dont_inherit=True)
        for code in codes:
            list(dis.get_instructions(code))


def decompile_all(items, prove=True):
    failures = 0
    for _, _, codes in items:
        for code in codes:
            d = Decompiler(code)
            try:
                if prove:
                    d.decompile()
                else:
                    d._read(None, "__temp_", None, 4)
            except Exception:
                failures += 1
    return failures


def stages(items):
    """{stage: seconds} of one default pass, and the pass's total."""
    import depyf.decompiler.api as api
    import depyf.decompiler.output.prove as prove
    import depyf.decompiler.session as session
    import depyf.verify.equivalence as equivalence

    spent = {}
    wrapped = [(session, "normalize", "normalize the instructions"),
               (session.DecompileSession, "_statements", "structure + symbolic executor"),
               (session, "finish_body", "rewrite rules"),
               (api, "unparse", "print"),
               (prove, "recompile", "recompile the text"),
               (equivalence, "equivalent", "equivalence check")]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in wrapped]

    def timed(fn, label):
        def run(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
        return run

    for (owner, name, label), (_, _, fn) in zip(wrapped, originals):
        setattr(owner, name, timed(fn, label))
    try:
        start = time.perf_counter()
        decompile_all(items, True)
        return spent, time.perf_counter() - start
    finally:
        for owner, name, fn in originals:
            setattr(owner, name, fn)


def best_of(repeat, fn, *args):
    best, result = None, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--target", type=float, default=3.0)
    p.add_argument("--stages", action="store_true", help="print each stage's share of a default pass")
    args = p.parse_args(argv)
    modules = args.modules.split(",") if args.modules else stdlib_corpus.MODULES
    items = corpus(modules)
    n = sum(len(c) for _, _, c in items)
    decompile_all(items[:1])  # warm up: lazy imports are not counted
    t_floor, _ = best_of(args.repeat, floor, items)
    t_read, fail_read = best_of(args.repeat, decompile_all, items, False)
    t_full, fail_full = best_of(args.repeat, decompile_all, items, True)
    print("Decompiling %d defs of %d stdlib modules, Python %s, best of %d"
          % (n, len(items), sys.version.split()[0], args.repeat))
    print()
    print("| what | seconds | x floor | failures |")
    print("|---|---:|---:|---:|")
    print("| floor: compile the sources + disassemble every def | %.2f | 1.00 | |" % t_floor)
    print("| decompile, read and print only (no proof) | %.2f | %.2f | %d |"
          % (t_read, t_read / t_floor, fail_read))
    print("| decompile (default: read, print, prove) | %.2f | %.2f | %d |"
          % (t_full, t_full / t_floor, fail_full))
    if args.stages:
        spent, total = stages(items)
        print()
        print("| stage (one default pass of %.2f s) | seconds | share |" % total)
        print("|---|---:|---:|")
        for label, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
            print("| %s | %.2f | %.0f%% |" % (label, seconds, 100 * seconds / total))
    ratio = t_full / t_floor
    if ratio > args.target:
        print("\nover target: %.2f x floor > %.2f" % (ratio, args.target))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
