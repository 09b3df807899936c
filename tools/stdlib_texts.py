"""Snapshot the decompiled text of every stdlib-corpus def, and compare two snapshots.

    python tools/stdlib_texts.py snap OUT.json        # with the running interpreter
    python tools/stdlib_texts.py diff A.json B.json   # what changed between two snapshots

A change to the decompiler should change the texts it means to change and no others:
take a snapshot with each interpreter before the change and after it, and read the diff
(items whose text changed, items that began or stopped failing, and the error of each).
Each item is ``module:qualname`` -> ``{"text": ...}`` or ``{"error": "Type: message"}``,
plus ``"proof"``: how the text was proven (``Decompiler.verdict.how``).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def snapshot():
    from depyf.decompiler.api import Decompiler
    from depyf.verify import stdlib_corpus as corpus

    items = {}
    for name in corpus.MODULES:
        path, source, code = corpus.compile_module(name)
        defs = corpus.def_positions(source)
        for target in corpus.iter_targets(name, code, defs=defs):
            key = "%s:%s" % (name, target.qualname)
            while key in items:
                key += "'"
            d = Decompiler(target.code)
            try:
                items[key] = {"text": d.decompile(), "proof": d.verdict.how}
            except Exception as exc:  # every failure is a result here
                items[key] = {"error": "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0])}
    return items


def diff(a, b):
    changed = 0
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x == y:
            continue
        changed += 1
        print("==== %s" % key)
        for label, item in (("before", x), ("after", y)):
            if item is None:
                print("  %s: (absent)" % label)
            elif "error" in item:
                print("  %s: %s" % (label, item["error"]))
            else:
                print("  %s (%s):" % (label, item.get("proof")))
                print("".join("    | " + line + "\n" for line in item["text"].splitlines()))
    print("%d of %d items differ" % (changed, len(set(a) | set(b))))
    return changed


def main(argv):
    if len(argv) == 2 and argv[0] == "snap":
        with open(argv[1], "w") as fh:
            json.dump(snapshot(), fh, indent=0, sort_keys=True)
        return 0
    if len(argv) == 3 and argv[0] == "diff":
        with open(argv[1]) as fa, open(argv[2]) as fb:
            return 1 if diff(json.load(fa), json.load(fb)) else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
