"""What prepare_debug's compile-time cuts keep: the code handed to Dynamo is still proven,
by the equivalence checker and the proxy runs, once each; the folding takes the
decompiler's tree without parsing its text and folds it as it folds the text; the
full-code file still shows the original source, read without scanning ``sys.modules``;
the fast tree walks of the folding are exactly ``ast``'s. (The timings themselves are
``benchmarks/compile_overhead.py``'s; see docs/performance.md.)"""
import ast
import copy
import glob
import inspect
import os

import torch

import depyf
import workloads
from depyf.decompiler import api as decompiler_api
from depyf.decompiler.output.printer import unparse
from depyf.torch_debug import equivalence, transformed_code
from depyf.torch_debug.readable import facts
from depyf.torch_debug.session import registry
from support import REPO


def _spy(monkeypatch, owner, name, calls):
    real = getattr(owner, name)

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append((args, kwargs, result))
        return result

    monkeypatch.setattr(owner, name, spy)


def test_running_code_is_proven_once_by_the_checker(tmp_path, monkeypatch):
    """Every code object that runs from a dump file went through ``differences`` (the
    checker and the proxy runs) with no reason against it; the decompiler's own proof of
    the same text (done a second time before) is not run."""
    differences, proofs = [], []
    _spy(monkeypatch, equivalence, "differences", differences)
    _spy(monkeypatch, decompiler_api, "prove", proofs)
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        outputs = workloads.w_toy("eager")
    torch._dynamo.reset()
    assert outputs
    session = registry.last
    running = [r for r in session.records if r.used]
    assert len(running) == 3, [(r.file_name, r.reason) for r in session.records]
    for record in running:
        checked = [result for args, _, result in differences if args[0] is record.running_code]
        assert checked == [[]], (record.file_name, checked)
        assert record.source_folded, record.file_name
        assert "This is the code that runs" in open(record.path).read()
    assert proofs == [], "the decompiler proved its text again: %d calls" % len(proofs)


def test_the_decompilers_tree_is_folded_as_its_text(tmp_path, monkeypatch):
    """The hook folds the tree the decompiler printed (where the decompiler put one node
    in two places, a value Dynamo's code reads twice, ``unshare`` copies it first): the
    text in the dump file and the reading copy in the full-code file are the ones a parse
    of the decompiled text gives."""
    import nested_workloads
    from depyf.torch_debug import readable

    shared, texts, parsed = [], [], []
    real_unshare = readable.unshare

    def unshare(tree, renames=None):
        ids = [id(n) for n in facts.walk(tree)]
        shared.append(len(ids) - len(set(ids)))
        result = real_unshare(tree, renames)
        texts.append(unparse(tree))  # the decompiled text, as the tree is before the fold
        return result

    monkeypatch.setattr(readable, "unshare", unshare)
    _spy(monkeypatch, readable, "fold", parsed)
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        nested_workloads.w_nested_stack("eager")
    torch._dynamo.reset()
    monkeypatch.undo()
    records = [r for r in registry.last.records if r.used]
    assert len(records) == 4 and len(texts) == 4 and not parsed
    assert any(shared), "the case no longer has a node the decompiler put in two places"
    for record in records:
        assert record.source_folded and not record.fold_problem, (record.file_name, record.fold_problem)
        text, = [t for t in texts if t.startswith("def %s(" % record.func_name)]
        keep = transformed_code._kept_names(record.original, record.dynamo_code, record.aliases)
        assert record.source == readable.fold(text, record.func_name, keep=keep)
        assert record.reading_source == readable.drop_profiling_calls(record.source)


def test_full_code_reads_the_original_without_scanning_modules(tmp_path, monkeypatch):
    scans = []
    _spy(monkeypatch, inspect, "getmodule", scans)
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        workloads.w_toy("eager")
        scans.clear()  # (torch may use inspect itself while compiling)
    torch._dynamo.reset()
    assert scans == []
    full = (tmp_path / "full_code_for_toy_example_0.py").read_text()
    assert inspect.getsource(workloads.toy_example) in full


# `:=` where the statement it is in is found in other ways: a compound statement's header,
# a ternary, a default, an except clause, a nested scope, a statement after a compound one
_WALRUS = """
def f(a, b=(z := 3)):
    x = (y := a) + 1
    if (w := b):
        q = [(k1 := 1)]
        r = c if (v := 2) else (lambda: (o := 1))
    elif x and (k2 := 3):
        del q
    try:
        s = [u for u in (k3 := a)]
    except (E := Exception) as e:
        s = (u := 1)
    else:
        t0 = (k4 := 1) or (k5 := 2)
    for i in (t := range(3)):
        j = (k6 := i)
    while (k7 := 0):
        pass
    k = f(m := 1, n := 2)
    del k, m
    return (k8 := n)
"""


def _corpus():
    files = glob.glob(os.path.join(REPO, "depyf", "**", "*.py"), recursive=True)
    files += glob.glob(os.path.join(REPO, "tests", "torch_debug", "*.py"))
    return [ast.parse(open(f).read()) for f in sorted(files)] + [ast.parse(_WALRUS)]


def test_fast_tree_walks_are_asts():
    """``children``/``walk``/``own_statements``/``same_tree`` of the folding give what
    ``ast`` gives (less the expression contexts and operators, leaves no rule looks for),
    on every node of depyf's and these tests' sources."""
    nodes = 0
    leaves = (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)
    for tree in _corpus():
        assert facts.walk(tree) == [n for n in ast.walk(tree) if not isinstance(n, leaves)]
        statements = []
        for node in ast.walk(tree):
            nodes += 1
            assert facts.children(node) == [n for n in ast.iter_child_nodes(node) if not isinstance(n, leaves)]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                expected = [n for n in facts.own_nodes(node) if isinstance(n, (ast.stmt, ast.ExceptHandler))]
                assert list(facts.own_statements(node)) == expected
            if isinstance(node, ast.stmt):
                statements.append(node)
        for a, b in zip(statements, statements[1:]):
            assert facts.same_tree(a, b) == (ast.dump(a) == ast.dump(b))
            assert facts.same_tree(a, copy.deepcopy(a))
    assert nodes > 50000


def _bound_with_sets(func, walrus):
    """``bound_before`` written with a plain set per statement (the definition)."""
    from depyf.torch_debug.readable import names as F

    out = {}

    def block(body, bound):
        for st in body:
            out[id(st)] = bound
            bound = after(st, bound)
        return bound

    def after(st, bound):
        if isinstance(st, ast.Delete):
            return bound - F._deleted_in(st)
        if not (isinstance(st, F.COMPOUND) or type(st).__name__ in ("TryStar", "Match")):
            return bound | F._stores_of(st, walrus)
        inner = bound - F._deleted_in(st)
        if isinstance(st, ast.If):
            ends = [(block(b, inner), F.terminates(b)) for b in (st.body, st.orelse)]
            going_on = [end for end, stops in ends if not stops]
            return frozenset.intersection(*going_on) if going_on else inner
        body_end = None
        if isinstance(st, (ast.For, ast.AsyncFor)):
            block(st.body, inner | F.target_names(st.target))
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            block(st.body, inner.union(*(F.target_names(i.optional_vars) for i in st.items
                                         if i.optional_vars is not None)))
        elif type(st).__name__ == "Match":
            for case in st.cases:
                block(case.body, inner)
        else:
            body_end = block(st.body, inner)
        for handler in getattr(st, "handlers", ()):
            block(handler.body, inner | ({handler.name} if handler.name else set()))
        if getattr(st, "orelse", None):
            block(st.orelse, inner)
        if getattr(st, "finalbody", None):
            final_end = block(st.finalbody, inner)
            if isinstance(st, ast.Try) and not st.handlers and not st.orelse:
                deleted = set().union(*(F._deleted_in(s) for s in st.finalbody))
                return (body_end | final_end) - deleted
        return inner

    block(func.body, frozenset(facts._arg_names(func.args)))
    return out


def test_bound_timeline_is_the_set_definition():
    """``bound_before``'s timeline answers ``name in bound`` as a set per statement would,
    for every name at every statement of every function of depyf's and these tests'
    sources; also when it is told which statements hold a ``:=`` (``Facts.walrus_statements``)
    instead of looking in every statement."""
    from depyf.torch_debug.readable.bound import bound_before

    checked = 0
    for tree in _corpus():
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | {"__absent__"}
            for walrus in (True, False, facts.Facts(func).walrus_statements):
                got, want = bound_before(func, walrus), _bound_with_sets(func, walrus is not False)
                assert got.keys() == want.keys()
                for key, bound in want.items():
                    assert {n for n in names if n in got[key]} == bound & names
                    checked += 1
    assert checked > 10000


def test_first_reading_refused_falls_back_to_every_reading(tmp_path, monkeypatch):
    """When the unproven first reading does not pass the checker, the hook decompiles again
    the way it did before (every reading, each proven by the decompiler): nothing is lost."""
    real_check = transformed_code.TransformedCodeHook._check
    tries = []

    def check(self, record, code, new_code, source, *args):
        tries.append(record.file_name)
        if len(tries) <= 2:  # the folded and the plain text of the fast path
            return None, None, ["refused on purpose by the test"]
        return real_check(self, record, code, new_code, source, *args)

    monkeypatch.setattr(transformed_code.TransformedCodeHook, "_check", check)
    proofs = []
    _spy(monkeypatch, decompiler_api, "prove", proofs)

    def single(x):
        return torch.sin(x) + 1

    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        torch.compile(single, backend="eager")(torch.randn(3))
    torch._dynamo.reset()
    record = [r for r in registry.last.records if r.original is single.__code__][0]
    assert record.used, record.reason
    assert len(tries) >= 3 and len(proofs) >= 1


def test_a_refused_fold_of_the_tree_runs_the_text_as_decompiled(tmp_path, monkeypatch):
    """The fold of the decompiler's tree changes that tree in place; where the checker
    refuses the folded text, the text checked and run instead is the decompiled one (printed
    from a new reading), not the half-folded tree's."""
    from depyf.torch_debug import readable

    real_fold, refused, checked = readable.fold_module, [], []
    real_check = transformed_code.TransformedCodeHook._check

    def fold_module(tree, *args, **kwargs):
        folded = real_fold(tree, *args, **kwargs)
        refused.append(folded.text)
        head, _, body = folded.text.partition("\n")
        folded.text = head + "\n    print('not equivalent')\n" + body  # (a call Dynamo's code lacks)
        return folded

    def check(self, record, code, new_code, source, *args):
        checked.append(source)
        return real_check(self, record, code, new_code, source, *args)

    monkeypatch.setattr(readable, "fold_module", fold_module)
    monkeypatch.setattr(transformed_code.TransformedCodeHook, "_check", check)
    texts = []
    real_unshare = readable.unshare

    def unshare(tree, renames=None):
        result = real_unshare(tree, renames)
        texts.append(unparse(tree))
        return result

    monkeypatch.setattr(readable, "unshare", unshare)
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        workloads.w_toy("eager")
    torch._dynamo.reset()
    monkeypatch.undo()
    records = [r for r in registry.last.records if r.func_name.endswith("toy_example")]
    assert records and all(r.used and not r.source_folded for r in records), [r.reason for r in records]
    for record in records:
        assert "not proven equivalent" in record.fold_problem, record.fold_problem
        decompiled, = {t for t in texts if t.startswith("def %s(" % record.func_name)}
        assert record.source == decompiled and decompiled in checked
        assert record.source not in refused
