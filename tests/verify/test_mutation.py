"""Mutation testing of the checker (``depyf.verify.mutants``, ``depyf.verify.mutation``):
each operator makes the change it names, the counting rules leave out mutants that may be
no-ops, and on hand-written functions the checker refuses every counted mutant."""
import ast
import copy
import textwrap

import pytest

from depyf.verify.mutants import KINDS, Scope, apply, sites
from depyf.verify.mutation import REJECTED, Subject, mutate
from depyf.verify.stdlib_corpus import Target


def _parse(source):
    source = textwrap.dedent(source)
    module = compile(source, "<test>", "exec")
    code = next(c for c in module.co_consts if hasattr(c, "co_code"))
    fn = ast.parse(source).body[0]
    return fn, Scope.of(code), source, code


def _sites(source, kind):
    fn, scope, _, _ = _parse(source)
    return fn, [s for s in sites(fn, scope) if s.kind == kind]


def _mutated(source, kind, pick=0):
    """The text of the ``pick``-th counted mutant of ``kind`` (3.8 has no ast.unparse:
    compare dumps there)."""
    fn, found = _sites(source, kind)
    counted = [s for s in found if s.counted]
    assert counted, "no counted %s site" % kind
    new = apply(copy.deepcopy(fn), counted[pick])
    assert ast.dump(new) != ast.dump(fn)
    return new


def _body(fn):
    return [ast.dump(s) for s in fn.body]


def _stmt(text):
    return ast.dump(ast.parse(textwrap.dedent(text)).body[0])


# -- each operator makes its change -------------------------------------------------------------
def test_swap_exchanges_two_statements():
    new = _mutated("def f(a):\n    g(a)\n    h(a)\n", "swap")
    assert _body(new) == [_stmt("h(a)"), _stmt("g(a)")]


def test_duplicate_writes_a_statement_twice():
    new = _mutated("def f(a):\n    g(a)\n    return a\n", "duplicate")
    assert _body(new) == [_stmt("g(a)"), _stmt("g(a)"), _stmt("return a")]


@pytest.mark.parametrize("source, body", [
    # out of an if body, before it
    ("def f(c):\n    if c:\n        g()\n        h()\n",
     ["g()", "if c:\n    h()"]),
    # into a try body, at its start
    ("def f(c):\n    g()\n    try:\n        h()\n    except E:\n        k()\n",
     ["try:\n    g()\n    h()\nexcept E:\n    k()"]),
    # out of a with body, after it
    ("def f(m):\n    with m:\n        g()\n        h()\n",
     ["with m:\n    g()", "h()"]),
    # into a loop body, at its end
    ("def f(xs):\n    for x in xs:\n        g(x)\n    h()\n",
     ["for x in xs:\n    g(x)\n    h()"]),
])
def test_move_crosses_the_edge_of_a_body(source, body):
    fn, found = _sites(source, "move")
    wanted = [_stmt(b) for b in body]
    results = [_body(apply(copy.deepcopy(fn), s)) for s in found if s.counted]
    assert wanted in results


def test_a_moved_statement_leaves_pass_behind():
    new = _mutated("def f(c):\n    if c:\n        g()\n    h()\n", "move")
    assert any(isinstance(s, ast.If) and isinstance(s.body[0], ast.Pass) for s in new.body) or \
        any(isinstance(s, ast.If) and len(s.body) == 2 for s in new.body)


def test_invert_negates_if_while_and_conditional_expression():
    for source in ("def f(c):\n    if c:\n        g()\n",
                   "def f(c):\n    while c.x:\n        g()\n",
                   "def f(c, a, b):\n    return a if c else b\n"):
        new = _mutated(source, "invert")
        tests = [n.test for n in ast.walk(new) if isinstance(n, (ast.If, ast.While, ast.IfExp))]
        assert isinstance(tests[0], ast.UnaryOp) and isinstance(tests[0].op, ast.Not)


def test_drop_else_writes_the_else_body_after_the_statement():
    new = _mutated("def f(c):\n    if c:\n        g()\n    else:\n        h()\n", "drop-else")
    assert _body(new) == [_stmt("if c:\n    g()"), _stmt("h()")]


def test_constant_changes_value_and_truth():
    for value, expect in (("0", 1), ("5", 0), ("''", "?"), ("'x'", ""), ("True", False),
                          ("None", 1), ("1.5", 0.0)):
        new = _mutated("def f(a):\n    return g(a, %s)\n" % value, "constant")
        consts = [n.value for n in ast.walk(new) if isinstance(n, ast.Constant)]
        assert consts == [expect] and type(consts[0]) is type(expect)


def test_swap_args_exchanges_positional_and_keyword_arguments():
    new = _mutated("def f(a, b):\n    return g(a, b)\n", "swap-args")
    call = new.body[0].value
    assert [n.id for n in call.args] == ["b", "a"]
    new = _mutated("def f(a, b):\n    return g(x=a, y=b)\n", "swap-args")
    call = new.body[0].value
    assert [(k.arg, k.value.id) for k in call.keywords] == [("x", "b"), ("y", "a")]


# -- the counting rules leave possible no-ops out -------------------------------------------------
@pytest.mark.parametrize("kind, source", [
    ("swap", "def f():\n    a = 1\n    b = 2\n    return g(a, b)\n"),  # pure local stores
    ("swap", "def f(h):\n    q = []\n    n = q.append\n    x = y = G\n    return n, x, y\n"),
    ("swap", "def f(d):\n    a, b = (d, d)\n    c = 1\n    return g(a, b, c)\n"),
    ("duplicate", "def f():\n    import os\n    return os\n"),
    ("duplicate", "def f(a):\n    x = a\n    return x\n"),
    ("drop-else", "def f(c):\n    if c:\n        return 1\n    else:\n        g()\n"),
    ("drop-else", "def f(xs):\n    for x in xs:\n        g(x)\n    else:\n        h()\n"),
    ("invert", "def f(c, a):\n    if c:\n        return g(a)\n    return g(a)\n"),
    ("invert", "def f(c):\n    if 1:\n        g()\n"),
    ("constant", "def f():\n    'doc'\n    x = 1\n    return g()\n"),
    ("swap-args", "def f(a):\n    return g(a, a)\n"),
    ("move", "def f():\n    try:\n        g()\n        h()\n    except E:\n        raise\n"),
    ("duplicate", "def f():\n    assert False, g()\n"),  # the copy is not reached
    ("swap", "def f(a, b):\n    if a and b:\n        raise E()\n    if not a and not b:\n"
     "        raise F()\n"),  # guard clauses: code runs only when they leave
    ("constant", "def f(r):\n    e = None\n    def h(x):\n        e = x\n        return e\n"
     "    return h\n"),  # h's e is its own local
    ("swap", "def f(c):\n    if 0 and c:\n        g()\n        h()\n"),  # never runs
    ("duplicate", "def f():\n    s = None\n    if s is None:\n        return\n    else:\n"
     "        g()\n"),  # may never run
])
def test_possible_no_ops_are_not_counted(kind, source):
    _, found = _sites(source, kind)
    assert found and not any(s.counted for s in found), found


@pytest.mark.parametrize("source, counted", [
    ("def f():\n    x = 1\n    x = g()\n    return x\n", []),
    ("def f():\n    try:\n        x = g()\n    finally:\n        x = None\n", []),
    ("def f(c):\n    x = 1\n    if c:\n        x = g()\n    return x\n", [1]),
    ("def f(xs):\n    x = 0\n    for i in xs:\n        g(x)\n        x = 1\n", [0, 1]),
    ("def f(xs):\n    x = 0\n    for x in xs:\n        g(x)\n", []),
])
def test_constants_of_dead_stores_are_not_counted(source, counted):
    _, found = _sites(source, "constant")
    assert [s.nodes[0].value for s in found if s.counted] == counted


def test_an_operand_after_a_deciding_literal_is_not_counted():
    _, found = _sites("def f(c):\n    return g(('a' or 'b') if c else 'c')\n", "constant")
    assert sorted((s.nodes[0].value, s.counted) for s in found) == [
        ("a", True), ("b", False), ("c", True)]


def test_a_list_assigned_just_before_is_the_functions_own_there():
    """``r`` is reassigned later, but where ``r.append`` is read it holds the list made
    just before: reading the method runs no code, so the swap with ``len(p)`` is not
    counted (that of ``len(p)`` with the call ``g(r)`` is)."""
    _, found = _sites("def f(p):\n    r = []\n    add = r.append\n    n = len(p)\n"
                      "    r = g(r)\n    return r, n, add\n", "swap")
    assert [s.counted for s in found] == [False, False, True, True]


def test_moving_after_an_if_whose_other_branch_leaves_is_not_counted():
    _, found = _sites("def f(c):\n    if c:\n        g()\n    else:\n        return\n", "move")
    assert {(s.detail[0], s.counted) for s in found} == {("out-before", True), ("out-after", False)}


def test_every_kind_has_a_counted_site_in_a_rich_function():
    fn, scope, _, _ = _parse(RICH)
    kinds = {s.kind for s in sites(fn, scope) if s.counted}
    assert kinds == set(KINDS)


# -- end to end: the checker refuses every counted mutant ---------------------------------------
RICH = """
def f(self, xs, key=None, *, limit=3):
    total = 0
    seen = []
    for x in xs:
        if x is None:
            continue
        value = key(x) if key else x
        if value in seen:
            self.log('dup', value)
        else:
            seen.append(value)
            total += value
        if len(seen) > limit:
            break
    else:
        self.log('all', total)
    try:
        result = self.finish(total, limit)
    except ValueError as e:
        self.log('bad', e)
        result = None
    finally:
        self.close()
    with self.lock:
        self.count = total
        self.items = seen
    while self.pending():
        self.step(1, 2)
    return result, sorted(seen, reverse=True)
"""

SMALL = [
    "def f(a, b):\n    g(a)\n    h(b)\n    return k(a, b)\n",
    "def f(m, c):\n    with m as p:\n        p.start()\n        if c:\n            p.stop(c, 0)\n    return p\n",
    "def f(xs):\n    out = []\n    for x in xs:\n        if x > 0:\n            out.append(g(x))\n"
    "        else:\n            h(x)\n    return out\n",
]


@pytest.mark.parametrize("source", [RICH] + SMALL)
def test_the_checker_refuses_every_counted_mutant(source):
    _, _, text, code = _parse(source)
    target = Target("test", code.co_name, code, (), frozenset())
    outcomes = mutate(Subject(target, text), per_kind=100)
    checked = [o for o in outcomes if o.status in REJECTED + ("accepted",)]
    assert checked, outcomes
    accepted = [o for o in checked if o.status == "accepted"]
    assert not accepted, accepted


def test_the_names_of_the_text_are_its_own_temporaries_included():
    """A temporary of the decompiled text is a local (mangled in a class), not a global:
    swapping its pure store with a call is not counted."""
    module = compile("class C:\n    def f(self, items):\n        w = self.a\n"
                     "        it = iter(items)\n        return w, it\n", "<test>", "exec")
    cls = next(c for c in module.co_consts if hasattr(c, "co_code"))
    code = next(c for c in cls.co_consts if hasattr(c, "co_code"))
    text = ("def f(self, items):\n    __temp_1 = self.a\n    w = __temp_1\n"
            "    it = iter(items)\n    return w, it\n")
    subject = Subject(Target("test", "C.f", code, (("class", "C"),), frozenset()), text)
    assert not subject.scope.is_global("__temp_1")
    fn = subject.function(subject.tree)
    swaps = [s for s in sites(fn, subject.scope) if s.kind == "swap"]
    assert [s.counted for s in swaps] == [False, False, True]
