"""Show one stdlib round trip: the decompiled text and the equivalence checker's verdict.

    python tools/show_roundtrip.py MODULE QUALNAME [--dis]

MODULE is a module of the stdlib corpus (``python -m depyf.verify --list-modules``),
QUALNAME the function's qualified name as the failure list prints it (e.g.
``shlex.get_token`` or ``singledispatch.<locals>.dispatch``). ``--dis`` also prints both
disassemblies. Runs on the interpreter that runs it.
"""
import argparse
import dis

import depyf
from depyf.verify import collect_targets
from depyf.equivalence import equivalent
from depyf.verify.roundtrip import FUTURE_FLAGS, find_function, wrap_source


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("module")
    p.add_argument("qualname")
    p.add_argument("--dis", action="store_true", help="print both disassemblies")
    args = p.parse_args(argv)
    targets, _ = collect_targets([args.module])
    matches = [t for t in targets if t.qualname == args.qualname]
    if not matches:
        raise SystemExit("no function %s in %s (try: %s)" % (
            args.qualname, args.module, ", ".join(t.qualname for t in targets[:20])))
    for t in matches:
        text = depyf.Decompiler(t.code).decompile(allow_unproven=True)
        print(text)
        module = compile(wrap_source(text, t), "<roundtrip>", "exec",
                         flags=t.code.co_flags & FUTURE_FLAGS, dont_inherit=True)
        found = find_function(module, t)
        if args.dis:
            dis.dis(t.code)
            print("-" * 72)
            dis.dis(found)
        print(equivalent(t.code, found))


if __name__ == "__main__":
    main()
