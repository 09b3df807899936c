"""depyf.decompiler.rewrite.rules: each of ``fix``'s rules on hand-built statements (source
and the facts structuring would record in, source out, compared with ``ast.dump``).
"""
import pytest

from depyf.decompiler.facts import Fact
from depyf.decompiler.rewrite import rules

from ._astcases import all_of, assertion, dumps, ifexp_arms, none, note, stmts_of, with_exit_marker


GUARDED_WHILE_ELSE = ("if c:\n    while c:\n        f()\n    else:\n        e()\n    break\n"
                      "e()\nbreak\n")

# name, source in, set-up (facts), source out
FIX_CASES = [
    ("trailing continue of a loop body",
     "for x in y:\n    f(x)\n    continue\n", none,
     "for x in y:\n    f(x)\n"),
    ("a written continue stays",
     "for x in y:\n    f(x)\n    continue\n", note(Fact.EXPLICIT, 0, "body", 1),
     "for x in y:\n    f(x)\n    continue\n"),
    ("a continue that ends the else arm goes",
     "while w:\n    if c:\n        g()\n    else:\n        continue\n", none,
     "while w:\n    if c:\n        g()\n"),
    ("a continue after an if: its else arm follows the if (the rule before)",
     "while w:\n    if c:\n        continue\n    else:\n        g()\n", none,
     "while w:\n    if c:\n        continue\n    g()\n"),
    ("a loop body of only a continue is pass",
     "for x in y:\n    continue\n", none,
     "for x in y:\n    pass\n"),
    ("else after a return follows the if",
     "if c:\n    return 1\nelse:\n    g()\n", none,
     "if c:\n    return 1\ng()\n"),
    ("an else the layout needs is kept",
     "if c:\n    return 1\nelse:\n    g()\n", note(Fact.ELSE_KEPT, 0),
     "if c:\n    return 1\nelse:\n    g()\n"),
    ("an if with an empty body is its else, negated",
     "if c:\n    pass\nelse:\n    g()\n", none,
     "if not c:\n    g()\n"),
    ("... unless the body was a jump over the else: `pass` was written",
     "if c:\n    pass\nelse:\n    g()\n", note(Fact.PASS_ARM, 0),
     "if c:\n    pass\nelse:\n    g()\n"),
    ("... but an else that is a jump of its own is negated all the same",
     "for x in y:\n    if c:\n        pass\n    else:\n        continue\n    g()\n",
     note(Fact.PASS_ARM, 0, "body", 0),
     "for x in y:\n    if not c:\n        continue\n    g()\n"),
    ("nested withs are one",
     "with a:\n    with b:\n        f()\n", none,
     "with a, b:\n    f()\n"),
    ("a with-exit marker left in a body goes",
     "with cm:\n    f()\n", with_exit_marker,
     "with cm:\n    f()\n"),
    ("raise of the assertion error is assert False",
     "raise AssertionError('m')\n", assertion,
     "assert False, 'm'\n"),
    ("a try/except inside a try/finally is one statement",
     "try:\n    try:\n        a()\n    except E:\n        b()\nfinally:\n    c()\n", none,
     "try:\n    a()\nexcept E:\n    b()\nfinally:\n    c()\n"),
    ("the finally copy on the normal path goes",
     "try:\n    a()\nfinally:\n    c()\nc()\nd()\n", note(Fact.FINALLY_COPY, 0),
     "try:\n    a()\nfinally:\n    c()\nd()\n"),
    ("a finally copy ending a loop body in continues goes before the body's clean-ups",
     "for x in y:\n    try:\n        a()\n    finally:\n        if d:\n            e()\n"
     "    if d:\n        e()\n        continue\n    else:\n        continue\n",
     all_of(note(Fact.FINALLY_COPY, 0, "body", 0), note(Fact.ELSE_KEPT, 0, "body", 1)),
     "for x in y:\n    try:\n        a()\n    finally:\n        if d:\n            e()\n"),
    ("no copy without the fact",
     "try:\n    a()\nfinally:\n    c()\nc()\nd()\n", none,
     "try:\n    a()\nfinally:\n    c()\nc()\nd()\n"),
    ("returned constants of a conditional expression's arms join",
     "if c:\n    return a\nreturn b\n", ifexp_arms,
     "return a if c else b\n"),
    ("a while/else guarded by its own test, its else run again after the if, is one loop",
     GUARDED_WHILE_ELSE, note(Fact.INVERTED, 0, "body", 0),
     "while c:\n    f()\nelse:\n    e()\nbreak\n"),
    ("... not without the layout's fact",
     GUARDED_WHILE_ELSE, none, GUARDED_WHILE_ELSE),
    ("... nor when what follows the loop does not leave (the else would run twice)",
     GUARDED_WHILE_ELSE.replace("break", "g()"), note(Fact.INVERTED, 0, "body", 0),
     GUARDED_WHILE_ELSE.replace("break", "g()")),
    ("... nor when the code after the if is not the loop's else",
     GUARDED_WHILE_ELSE.replace("e()\nbreak", "h()\nbreak"), note(Fact.INVERTED, 0, "body", 0),
     GUARDED_WHILE_ELSE.replace("e()\nbreak", "h()\nbreak")),
    ("... also without an else arm (a copied return after the loop)",
     "if c:\n    while c:\n        f()\n    return x\nreturn x\n", note(Fact.INVERTED, 0, "body", 0),
     "while c:\n    f()\nreturn x\n"),
    ("... nor when the if tests something else",
     GUARDED_WHILE_ELSE.replace("if c", "if d"), note(Fact.INVERTED, 0, "body", 0),
     GUARDED_WHILE_ELSE.replace("if c", "if d")),
]


@pytest.mark.parametrize("name, source, setup, expected", FIX_CASES, ids=[c[0] for c in FIX_CASES])
def test_fix(name, source, setup, expected):
    stmts = stmts_of(source)
    setup(stmts)
    assert dumps(rules.fix(stmts)) == dumps(stmts_of(expected))
