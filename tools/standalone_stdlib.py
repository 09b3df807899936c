"""Decompile every comprehension, generator expression, lambda and class body of the
stdlib corpus on its own (as a tool walking ``co_consts`` would) and count the results.

    python tools/standalone_stdlib.py [--modules a,b] [--kinds comprehension,lambda,class]
                                      [--timeout S] [--show-failures N]

The objects are those ``depyf.verify.stdlib_corpus.iter_code_objects`` yields for the
round trip's modules, at any depth. Each is passed to ``depyf.Decompiler(code).decompile()``
and counted as *proven* (text returned: the checker proved it), *unproven*
(``UnprovenError``) or *error* (any other exception, a timeout included). Runs on the
interpreter that runs it, with whatever ``depyf`` it imports (``PYTHONPATH`` picks the
checkout).
"""
import argparse
import collections
import os
import sys

import depyf
from depyf.errors import UnprovenError
from depyf.verify.roundtrip import DecompileTimeout, first_line, time_limit
from depyf.verify.stdlib_corpus import MODULES, compile_module, is_function_like, iter_code_objects

COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def kind_of(code):
    """comprehension, lambda, class, or None (defs and 3.12+ annotation scopes)."""
    if code.co_name in COMPREHENSIONS:
        return "comprehension"
    if code.co_name == "<lambda>":
        return "lambda"
    if not is_function_like(code):
        return "class"
    return None


def outcome(code, timeout):
    try:
        with time_limit(timeout):
            depyf.Decompiler(code).decompile()
        return "proven", None
    except UnprovenError as exc:
        return "unproven", first_line(exc)
    except (Exception, DecompileTimeout) as exc:
        return "error", first_line(exc)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus")
    p.add_argument("--kinds", default="comprehension,lambda,class")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--show-failures", type=int, default=0, metavar="N",
                   help="print the first N failures of each kind")
    args = p.parse_args(argv)
    kinds = args.kinds.split(",")
    modules = args.modules.split(",") if args.modules else MODULES
    counts = collections.defaultdict(collections.Counter)
    failures = collections.defaultdict(list)
    for module in modules:
        _, _, module_code = compile_module(module)
        for code, _, parts in iter_code_objects(module_code):
            kind = kind_of(code)
            if kind not in kinds:
                continue
            result, why = outcome(code, args.timeout)
            counts[kind][result] += 1
            if why is not None:
                failures[kind].append("%s %s: %s" % (module, ".".join(parts), why))
    print("Python %d.%d, depyf from %s" % (sys.version_info[:2] + (os.path.dirname(depyf.__file__),)))
    print("| kind | objects | proven | unproven | error | proven % |")
    print("|---|---|---|---|---|---|")
    for kind in kinds:
        c = counts[kind]
        total = sum(c.values())
        print("| %s | %d | %d | %d | %d | %.1f |" % (kind, total, c["proven"], c["unproven"], c["error"],
                                                    100.0 * c["proven"] / total if total else 0.0))
    for kind in kinds:
        for line in failures[kind][:args.show_failures]:
            print("%s: %s" % (kind, line))


if __name__ == "__main__":
    main()
