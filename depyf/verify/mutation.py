"""The equivalence checker tested by mutation: does it refuse code that does something else?

    python -m depyf.verify.mutation [--modules a,b] [--sample N] [--per-kind K]
                                    [--time-budget S] [--json F] [--markdown F]
                                    [--original-source]

For each named function of the stdlib corpus (``stdlib_corpus``) whose decompiled text
is proven equivalent (``depyf.Decompiler(code).decompile()`` succeeds and the text,
recompiled in the round trip's rebuilt scope, ``roundtrip.wrap_source``, is proven again
here), up to K mutation sites per kind are drawn (a fixed seed per function and kind)
among those ``mutants.sites`` counts as surely behaviour-changing. Each mutant is compiled
from the mutated AST in the same scope, and:

- *not compiled*: the mutant is not valid Python (not counted);
- *same bytecode*: its normalized bytecode equals that of the unmutated text, so it is a
  no-op by construction (not counted);
- otherwise ``equivalent(original code, mutant code)`` is asked: *rejected* when it does
  not prove them equivalent (a difference found, no proof, the per-check time limit, or a
  checker error, each counted apart), *accepted* when it does. An accepted mutant is a
  checker miss unless the mutation rule was wrong; each is listed with its text.

``--original-source`` mutates each def's original source text instead of its decompiled
text (``roundtrip.original_texts``): the checker is tested the same way without the
decompiler (e.g. on a Python version the decompiler does not read yet).

Prints a table per kind (sites, counted sites, mutants, rejected %) and the accepted
mutants; ``--json``/``--markdown`` write the same. Runs on the interpreter that runs it;
``benchmarks/checker_mutation.py`` runs it on every version.
"""
import argparse
import ast
import copy
import json
import random
import sys
import time
import warnings
import zlib
from collections import Counter, namedtuple

from .mutants import KINDS, Scope, apply, describe, sites
from ..equivalence.normalize import normalize
from .roundtrip import (FUTURE_FLAGS, DecompileTimeout, _wrappers, find_function,
                        first_line, original_texts, time_limit, wrap_source)

# One mutant. ``status``: "different", "unknown", "timeout", "error" (rejected),
# "accepted", "not compiled", "same bytecode".
Outcome = namedtuple("Outcome", "kind module qualname description status reason text")
REJECTED = ("different", "unknown", "timeout", "error")


class Subject:
    """A function to mutate: its original code, the proven text parsed inside the round
    trip's wrapper, and the unmutated text's recompiled code."""

    def __init__(self, target, text):
        self.target = target
        self.source = wrap_source(text, target)
        self.tree = ast.parse(self.source)
        self.baseline = self.compile(self.tree)
        if self.baseline is None:
            raise ValueError("the wrapped text has no function %r" % target.code.co_name)
        classes = [name for kind, name in target.scopes if kind == "class"]
        # the names of the text (temporaries included), as compiled: the baseline's
        self.scope = Scope.of(self.baseline, classes[-1] if classes else None)

    def function(self, tree):
        """The ``def`` node of the target inside ``tree``."""
        return locate(tree, self.target)

    def compile(self, tree):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = compile(tree, "<depyf.verify.mutation>", "exec", dont_inherit=True,
                             flags=self.target.code.co_flags & FUTURE_FLAGS)
        return find_function(module, self.target)


def locate(tree, target):
    """The def of ``target`` in a parsed ``wrap_source`` text, following its wrappers."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    node = tree
    for kind, name, _ in _wrappers(target):
        want = ast.ClassDef if kind == "class" else defs
        node = next((s for s in node.body if isinstance(s, want) and s.name == name), None)
        if node is None:
            break
    else:
        for s in node.body:
            if isinstance(s, defs) and s.name == target.code.co_name:
                return s
    for s in ast.walk(tree):
        if isinstance(s, defs) and s.name == target.code.co_name:
            return s
    raise ValueError("no def %r in the text" % target.code.co_name)


def site_seed(target, kind, seed):
    return zlib.crc32(("%s:%s:%s:%s" % (seed, target.module, target.qualname, kind)).encode())


def mutate(subject, kinds=KINDS, per_kind=1, seed=0, timeout=10.0, check=None,
           counts=None):
    """The outcomes of up to ``per_kind`` counted mutants per kind of one subject.
    ``counts`` (a Counter) receives ``(kind, "sites"/"counted")`` tallies."""
    if check is None:
        from ..equivalence import equivalent as check
    target = subject.target
    found = sites(subject.function(subject.tree), subject.scope)
    base_form = normalize(subject.baseline)
    out = []
    for kind in kinds:
        mine = [s for s in found if s.kind == kind]
        counted = [s for s in mine if s.counted]
        if counts is not None:
            counts[kind, "sites"] += len(mine)
            counts[kind, "counted"] += len(counted)
        rng = random.Random(site_seed(target, kind, seed))
        for site in rng.sample(counted, min(per_kind, len(counted))):
            out.append(_one(subject, site, base_form, timeout, check))
    return out


def _one(subject, site, base_form, timeout, check):
    target = subject.target
    tree = copy.deepcopy(subject.tree)
    fn = subject.function(tree)
    what = describe(site, subject.source)
    apply(fn, site)  # paths are relative to the def node

    def outcome(status, reason=None):
        text = mutant_text(fn) if status == "accepted" else None
        return Outcome(site.kind, target.module, target.qualname, what, status, reason, text)

    try:
        code = subject.compile(tree)
    except (SyntaxError, ValueError, TypeError, RecursionError) as exc:
        return outcome("not compiled", first_line(exc))
    if code is None:
        return outcome("not compiled", "function not found")
    if normalize(code) == base_form:
        return outcome("same bytecode")
    try:
        with time_limit(timeout):
            verdict = check(target.code, code)
    except DecompileTimeout as exc:
        return outcome("timeout", str(exc))
    except Exception as exc:  # a checker bug: not a proof, reported apart
        return outcome("error", first_line(exc))
    if verdict:
        return outcome("accepted")
    return outcome("different" if verdict.different else "unknown", (verdict.reason or "").split("\n")[0])


def mutant_text(fn):
    try:
        from ..decompiler.output.printer import unparse
        return unparse(fn)
    except Exception as exc:  # display only
        return "<text not available: %s>" % first_line(exc)


# -- the corpus run ----------------------------------------------------------------------------
def proven_subject(target, timeout, check=None, text_of=None):
    """``(Subject, None)`` when the decompiled text of ``target`` (``text_of(code)``
    instead, if given) is proven equivalent in the round trip's scope, else
    ``(None, why)``."""
    import depyf
    if check is None:
        from ..equivalence import equivalent as check
    if text_of is None:
        text_of = lambda code: depyf.Decompiler(code).decompile()  # noqa: E731
    try:
        with time_limit(timeout):
            text = text_of(target.code)
            subject = Subject(target, text)
            verdict = check(target.code, subject.baseline)
    except (Exception, DecompileTimeout) as exc:
        return None, first_line(exc)
    if not verdict:
        return None, "not proven in the round trip's scope: %s" % verdict.reason
    return subject, None


def run(modules=None, sample=None, kinds=KINDS, per_kind=1, seed=0, timeout=10.0,
        time_budget=None, progress=None, original_source=False):
    """Mutate the corpus; returns a dict of totals, per-kind counts and the outcomes.
    ``original_source``: mutate the original text of each def, not the decompiled one."""
    from . import collect_targets, stdlib_corpus
    from ..decompiler.standalone import kind as standalone_kind
    start = time.perf_counter()
    targets, _ = collect_targets(modules, sample)
    counts = Counter()
    outcomes = []
    functions = Counter()
    texts = {}  # module -> its original_texts
    for target in targets:
        if time_budget is not None and time.perf_counter() - start > time_budget:
            functions["not reached (time budget)"] += 1
            continue
        if standalone_kind(target.code) is not None:
            # a lambda, comprehension or class body decompiles to a standalone form,
            # not to a def the mutants are made in
            functions["standalone form (not mutated)"] += 1
            continue
        text_of = None
        if original_source:
            if target.module not in texts:
                source = stdlib_corpus.compile_module(target.module)[1]
                texts[target.module] = original_texts(source)
            text_of = texts[target.module]
        subject, why = proven_subject(target, timeout, text_of=text_of)
        if subject is None:
            functions["not proven (skipped)"] += 1
            continue
        functions["mutated"] += 1
        mine = mutate(subject, kinds, per_kind, seed, timeout, counts=counts)
        outcomes.extend(mine)
        if progress is not None:
            progress(mine)
    return {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "functions": dict(functions, total=len(targets)),
        "per_kind": per_kind_table(outcomes, counts, kinds),
        "outcomes": [o._asdict() for o in outcomes],
        "wall_s": round(time.perf_counter() - start, 1),
        "settings": {"modules": modules, "sample": sample, "per_kind": per_kind, "seed": seed,
                     "timeout": timeout, "time_budget": time_budget,
                     "text": "original source" if original_source else "decompiled"},
    }


def per_kind_table(outcomes, counts, kinds=KINDS):
    rows = {}
    for kind in list(kinds) + ["all"]:
        mine = [o for o in outcomes if kind == "all" or o.kind == kind]
        status = Counter(o.status for o in mine)
        checked = sum(status[s] for s in REJECTED) + status["accepted"]
        rejected = sum(status[s] for s in REJECTED)
        row = {
            "sites": sum(counts[k, "sites"] for k in kinds) if kind == "all" else counts[kind, "sites"],
            "counted": sum(counts[k, "counted"] for k in kinds) if kind == "all" else counts[kind, "counted"],
            "not compiled": status["not compiled"],
            "same bytecode": status["same bytecode"],
            "mutants": checked,
            "rejected": rejected,
            "accepted": status["accepted"],
            "rejected %": round(100.0 * rejected / checked, 2) if checked else None,
        }
        for s in REJECTED:
            row[s] = status[s]
        rows[kind] = row
    return rows


COLUMNS = ("sites", "counted", "not compiled", "same bytecode", "mutants", "different",
           "unknown", "timeout", "error", "accepted", "rejected %")


def format_table(result):
    lines = ["| kind | " + " | ".join(COLUMNS) + " |",
             "|---|" + "---:|" * len(COLUMNS)]
    for kind, row in result["per_kind"].items():
        cells = ["-" if row[c] is None else ("%.2f" % row[c] if c == "rejected %" else str(row[c]))
                 for c in COLUMNS]
        lines.append("| %s | %s |" % (kind, " | ".join(cells)))
    return "\n".join(lines)


def format_report(result, accepted_limit=20):
    f = result["functions"]
    head = ("Python %s: %d functions, %d mutated, %d not proven (skipped), %d not reached; "
            "%.0f s" % (result["python"], f["total"], f.get("mutated", 0),
                        f.get("not proven (skipped)", 0), f.get("not reached (time budget)", 0),
                        result["wall_s"]))
    if result["settings"].get("text") == "original source":
        head += " (mutants of the original source text)"
    parts = [head, "", format_table(result), ""]
    accepted = [o for o in result["outcomes"] if o["status"] == "accepted"]
    parts.append("accepted mutants (%d%s):" % (
        len(accepted), ", first %d" % accepted_limit if len(accepted) > accepted_limit else ""))
    for o in accepted[:accepted_limit]:
        parts.append("- %s %s.%s: %s" % (o["kind"], o["module"], o["qualname"], o["description"]))
        parts.append("```python\n%s\n```" % (o["text"] or "").rstrip())
    return "\n".join(parts)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m depyf.verify.mutation",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", help="comma-separated subset of the corpus")
    p.add_argument("--sample", type=int, help="use only N functions, spread evenly")
    p.add_argument("--kinds", help="comma-separated subset of: %s" % ", ".join(KINDS))
    p.add_argument("--per-kind", type=int, default=1, help="mutants per kind and function (1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per check (10)")
    p.add_argument("--time-budget", type=float, metavar="SECONDS",
                   help="stop taking new functions after this long")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--markdown", metavar="PATH")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--original-source", action="store_true",
                   help="mutate each def's original text, not its decompiled text")
    p.add_argument("--require", type=float, metavar="PCT",
                   help="exit 1 if any kind's rejected %% is below PCT")
    args = p.parse_args(argv)
    modules = [m.strip() for m in args.modules.split(",")] if args.modules else None
    kinds = tuple(k.strip() for k in args.kinds.split(",")) if args.kinds else KINDS
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise SystemExit("unknown kinds: %s" % ", ".join(sorted(unknown)))

    def progress(mine):
        marks = {"accepted": "A", "not compiled": "c", "same bytecode": "s"}
        sys.stderr.write("".join(marks.get(o.status, ".") for o in mine) or "_")
        sys.stderr.flush()

    result = run(modules, args.sample, kinds, args.per_kind, args.seed, args.timeout,
                 args.time_budget, None if args.quiet else progress, args.original_source)
    if not args.quiet:
        sys.stderr.write("\n")
    report = format_report(result)
    print(report)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(report + "\n")
    if args.require is not None:
        low = [k for k, row in result["per_kind"].items()
               if row["rejected %"] is not None and row["rejected %"] < args.require]
        if low:
            print("FAIL: rejected %% below %.2f for: %s" % (args.require, ", ".join(low)))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
