"""Decompiling the stdlib corpus against the floor any verifying decompiler pays.

    python benchmarks/decompile_floor.py [--modules a,b] [--repeat N] [--target X]

The floor is what a decompiler that checks its output cannot avoid: compiling the module
sources (the check recompiles text of that size) and disassembling every function
(``dis.get_instructions``, listed). Against it, one process times ``depyf.decompile``
(``Decompiler(code).decompile()``: read, print and prove, the default) on every def of the
same modules (``depyf.verify.stdlib_corpus``, the round trip's fixed list), and the same
without the proof (``allow_unproven`` path cut: reading and printing only). Each figure
is the best of ``--repeat`` rounds, each round timing the floor, the reading and the
default pass one after the other (so that a machine whose speed drifts slows all three
alike); the ratios are printed side by side, with the median of the rounds' own ratios.
``--target`` (default 3.0) makes the exit status 1 when decompiling costs more than that
many floors.

``--instructions`` counts instructions instead of timing (under ``valgrind --tool=callgrind``,
one process each for the set-up alone, the floor and the default pass; the set-up's count
is taken off the other two): slower (use ``--modules``) but the same on every run, for
comparing two versions of the code on a machine whose speed varies.
``--against REV`` also times the default pass of the git revision REV of this checkout
(its ``depyf`` package extracted with ``git archive`` and imported under another name)
in the same rounds, in alternating order: on a machine whose speed drifts, the median
of the rounds' own ratios (this / REV) is the fair comparison of two versions in time.
``--stages`` also times one more default pass stage by stage (each stage's functions
wrapped with a timer: normalize, structuring + executor, rewrite, print, recompile,
equivalence check) and prints each stage's share of that pass.
"""
import argparse
import dis
import os
import re
import statistics
import subprocess
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


def decompile_all(items, prove=True, decompiler=Decompiler):
    failures = 0
    for _, _, codes in items:
        for code in codes:
            d = decompiler(code)
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
    import depyf.equivalence as equivalence

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


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def rounds(repeat, items):
    """Best seconds of (floor, reading, default pass), their failures, and the median of
    each round's default/floor ratio."""
    best, ratios = [None, None, None], []
    fails = [0, 0]
    for _ in range(repeat):
        t_floor, _ = timed(floor, items)
        t_read, fails[0] = timed(decompile_all, items, False)
        t_full, fails[1] = timed(decompile_all, items, True)
        best = [t if b is None else min(b, t) for b, t in zip(best, (t_floor, t_read, t_full))]
        ratios.append(t_full / t_floor)
    return best, fails, statistics.median(ratios)


def revision_decompiler(rev):
    """The ``Decompiler`` class of revision ``rev``: its ``depyf`` package extracted into
    a temporary folder as ``depyf_at_rev`` (the decompiler imports itself relatively)."""
    import importlib
    import tarfile
    import tempfile
    folder = tempfile.mkdtemp(prefix="depyf-rev-")
    archive = subprocess.run(["git", "-C", REPO, "archive", rev, "depyf"], capture_output=True)
    if archive.returncode != 0:
        raise SystemExit("git archive %s failed: %s" % (rev, archive.stderr.decode()[-500:]))
    with tarfile.open(fileobj=__import__("io").BytesIO(archive.stdout)) as tar:
        tar.extractall(folder)
    os.rename(os.path.join(folder, "depyf"), os.path.join(folder, "depyf_at_rev"))
    sys.path.insert(0, folder)
    return importlib.import_module("depyf_at_rev.decompiler.api").Decompiler


def against(repeat, items, other):
    """Best seconds of (floor, this default pass, ``other``'s), and the median of each
    round's this/other ratio; the two passes alternate which goes first."""
    best, ratios = [None, None, None], []
    for k in range(repeat):
        t_floor, _ = timed(floor, items)
        if k % 2 == 0:
            t_this, _ = timed(decompile_all, items, True)
            t_other, _ = timed(decompile_all, items, True, other)
        else:
            t_other, _ = timed(decompile_all, items, True, other)
            t_this, _ = timed(decompile_all, items, True)
        best = [t if b is None else min(b, t) for b, t in zip(best, (t_floor, t_this, t_other))]
        ratios.append(t_this / t_other)
    return best, statistics.median(ratios)


def count_instructions(modules):
    """(floor, default pass) in instructions, each less the set-up's count."""
    counts = {}
    for mode in ("setup", "floor", "full"):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
               os.path.abspath(__file__), "--worker", mode, "--modules", ",".join(modules)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", out.stderr)
        if out.returncode != 0 or found is None:
            raise SystemExit("valgrind failed (%s):\n%s" % (mode, out.stderr[-2000:]))
        counts[mode] = int(found.group(1))
    return counts["floor"] - counts["setup"], counts["full"] - counts["setup"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--target", type=float, default=3.0)
    p.add_argument("--stages", action="store_true", help="print each stage's share of a default pass")
    p.add_argument("--instructions", action="store_true",
                   help="count instructions under valgrind instead of timing")
    p.add_argument("--against", metavar="REV",
                   help="also time git revision REV's default pass in the same rounds")
    p.add_argument("--worker", choices=("setup", "floor", "full"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    modules = args.modules.split(",") if args.modules else list(stdlib_corpus.MODULES)
    items = corpus(modules)
    n = sum(len(c) for _, _, c in items)
    decompile_all(items[:1])  # warm up: lazy imports are not counted
    if args.worker is not None:  # one process counted by ``--instructions``
        {"setup": lambda _: None, "floor": floor, "full": decompile_all}[args.worker](items)
        return 0
    if args.instructions:
        i_floor, i_full = count_instructions(modules)
        print("Decompiling %d defs of %d stdlib modules, Python %s, instructions (callgrind)"
              % (n, len(items), sys.version.split()[0]))
        print()
        print("| what | instructions | x floor |")
        print("|---|---:|---:|")
        print("| floor: compile the sources + disassemble every def | %d | 1.00 |" % i_floor)
        print("| decompile (default: read, print, prove) | %d | %.2f |" % (i_full, i_full / i_floor))
        return 0
    if args.against:
        other = revision_decompiler(args.against)
        decompile_all(items[:1], True, other)
        (t_floor, t_this, t_other), median = against(args.repeat, items, other)
        print("Decompiling %d defs of %d stdlib modules, Python %s, best of %d rounds"
              % (n, len(items), sys.version.split()[0], args.repeat))
        print()
        print("| what | seconds | x floor |")
        print("|---|---:|---:|")
        print("| floor: compile the sources + disassemble every def | %.2f | 1.00 |" % t_floor)
        print("| decompile at %s | %.2f | %.2f |" % (args.against, t_other, t_other / t_floor))
        print("| decompile, this checkout | %.2f | %.2f |" % (t_this, t_this / t_floor))
        print("\nmedian of the rounds' own ratios (this checkout / %s): %.3f" % (args.against, median))
        return 0
    (t_floor, t_read, t_full), (fail_read, fail_full), median = rounds(args.repeat, items)
    print("Decompiling %d defs of %d stdlib modules, Python %s, best of %d rounds"
          % (n, len(items), sys.version.split()[0], args.repeat))
    print()
    print("| what | seconds | x floor | failures |")
    print("|---|---:|---:|---:|")
    print("| floor: compile the sources + disassemble every def | %.2f | 1.00 | |" % t_floor)
    print("| decompile, read and print only (no proof) | %.2f | %.2f | %d |"
          % (t_read, t_read / t_floor, fail_read))
    print("| decompile (default: read, print, prove) | %.2f | %.2f | %d |"
          % (t_full, t_full / t_floor, fail_full))
    print("\nmedian of the rounds' own ratios (default / floor): %.2f" % median)
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
