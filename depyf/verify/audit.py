"""``python -m depyf.verify.audit``: hunt for silent wrong code in the stdlib round trip.

    python -m depyf.verify.audit [--modules a,b] [--verbose]

For every function whose round trip compiles but is not bytecode-equal, compares the
control-dependence fingerprints (``control_deps``) of the original and the recompiled
code and lists those that differ: the functions where a statement may have moved under
another condition, out of a ``try`` or past a ``with`` exit. A listed function is a
candidate to read, not a proven bug (the module docstring of ``control_deps`` names the
harmless differences it still reports). Exit status 0; the count is printed last.
"""
import argparse
import sys

from . import collect_targets
from .control_deps import compare
from .normalize import first_difference, normalize
from .roundtrip import FUTURE_FLAGS, default_decompile, find_function, wrap_source


def audit(targets, decompile=default_decompile):
    """Yield ``(target, missing, extra)`` for each candidate; skip what does not round-trip."""
    for t in targets:
        try:
            text = decompile(t.code)
            module = compile(wrap_source(text, t), "<depyf.audit>", "exec",
                             flags=t.code.co_flags & FUTURE_FLAGS, dont_inherit=True)
        except Exception:  # decompile/compile failures are the round trip's to report
            continue
        found = find_function(module, t)
        if found is None or first_difference(normalize(t.code), normalize(found)) is None:
            continue
        same, missing, extra = compare(t.code, found)
        if not same:
            yield t, missing, extra


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m depyf.verify.audit",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus")
    p.add_argument("--verbose", action="store_true", help="print the differing effects")
    args = p.parse_args(argv)
    modules = [m.strip() for m in args.modules.split(",") if m.strip()] if args.modules else None
    targets, _ = collect_targets(modules)
    n = 0
    for t, missing, extra in audit(targets):
        n += 1
        print("%s:%s (line %d): %d effects only in the original, %d only in the output"
              % (t.module, t.qualname, t.code.co_firstlineno, sum(missing.values()),
                 sum(extra.values())))
        if args.verbose:
            for label, diff in (("original", missing), ("output", extra)):
                for (effect, conditions), count in sorted(diff.items(), key=repr):
                    print("    only in %s: %dx %s under %s" % (label, count, effect,
                                                               sorted(conditions, key=repr)))
    print("%d candidates among %d functions" % (n, len(targets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
