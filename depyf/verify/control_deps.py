"""Which effects run under which branch outcomes: a layout-independent fingerprint.

The decompiler's self-check compares *sets* of effects, so it cannot see a statement moved
under another condition, out of a ``try`` or past a ``with`` exit. Bytecode equality sees
everything but also flags harmless layout differences. In between sits this fingerprint:
for every effect instruction (a store, delete, call, return, raise, yield, import) the set
of branch outcomes it is *control dependent* on, computed on the control-flow graph with
exception edges. It does not change when blocks are reordered, a test is inverted with its
jump (``if not c: A else: B`` / ``if c: B else: A``, ``is not`` / ``not ... is``), or a
guard clause replaces an ``else``; it does change when code moves into or out of a branch,
a loop, a ``try`` body or a handler.

Known harmless differences it still reports (so a mismatch is a candidate, not a verdict):
a tail the compiler copied into several arms that the output keeps copied (tolerated when
the copies' conditions join to the original's, see ``compare``), code after a
``try`` whose handlers all raise printed in its ``else:``, ``return`` moved after a
``with``'s exit when the value cannot raise, ``assert`` spelled as ``if``/``raise``.
"""
from collections import Counter

from ..decompiler.cfg import CFG
from ..decompiler.instructions import COND_JUMPS, normalize

_EFFECTS = ("STORE_", "DELETE_", "CALL", "RETURN", "RAISE", "YIELD", "IMPORT_", "RERAISE")
_STATEMENT_ENDS = ("STORE_", "DELETE_", "POP_TOP", "RETURN", "RAISE", "JUMP", "POP_BLOCK",
                   "POP_EXCEPT")
_EXIT = -1


def _key(ins):
    """An instruction without what depends on layout (jump targets, code identity)."""
    value = ins.argval
    if ins.target is not None or ins.opname.startswith(("FOR_ITER", "SETUP")):
        value = None
    if hasattr(value, "co_code"):
        value = value.co_name
    return ins.opname, repr(value)


def _branch_label(blk, taken):
    """``(test, outcome)`` for leaving ``blk`` by its jump (``taken``) or fallthrough. The
    test is the code computing the tested value; negations (``not``, ``is not``,
    ``not in``, the jump's sense) are folded into the outcome."""
    ops = list(blk.instrs[:-1])
    k = len(ops)
    while k > 0 and not ops[k - 1].opname.startswith(_STATEMENT_ENDS):
        k -= 1
    jump = blk.last.opname
    outcome = taken if jump in ("POP_JUMP_IF_TRUE", "JUMP_IF_TRUE_OR_POP") else not taken
    test = []
    for ins in ops[k:]:
        if ins.opname in ("TO_BOOL", "NOP"):
            continue
        if ins.opname == "COMPARE_OP" and ins.argval in ("is not", "not in"):
            test.append((ins.opname, repr({"is not": "is", "not in": "in"}[ins.argval])))
            outcome = not outcome
        elif ins.opname in ("IS_OP", "CONTAINS_OP") and ins.arg:
            test.append((ins.opname, "0"))
            outcome = not outcome
        else:
            test.append(_key(ins))
    while test and test[-1][0] == "UNARY_NOT":
        test.pop()
        outcome = not outcome
    if jump in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"):
        # `x is None` by its own jump: the same as testing `x is None` for truth
        test += [("LOAD_CONST", "None"), ("IS_OP", "0")]
        outcome = taken if jump == "POP_JUMP_IF_NONE" else not taken
    return tuple(test), outcome


def _edges(cfg):
    """Successors of every reachable block as ``(block, label or None)``; a block inside
    a protected range also goes to its handler (label ``("EXC", True)``), and its normal
    way on is labelled ``("EXC", False)``."""
    succ = {}
    for b in cfg.blocks.values():
        out = []
        last = b.last
        two_ways = len(set(b.succs)) == 2
        for t in b.succs:
            if t not in cfg.blocks:
                continue
            label = None
            if two_ways and last.opname in COND_JUMPS:
                label = _branch_label(b, t == last.target and t != b.end)
            elif two_ways and last.opname == "FOR_ITER":
                label = (("FOR_ITER",), t == last.target)
            out.append((t, label))
        if b.handler is not None:
            out = [(t, label if label is not None else ("EXC", False)) for t, label in out]
            # which code may raise into the handler matters: `try: return f()` is not
            # `try: pass` + `return f()`
            raising = tuple(_effect(i) for i in b.instrs if i.opname.startswith(_EFFECTS))
            out.append((b.handler.target, ("EXC", True, raising)))
        succ[b.id] = out or [(_EXIT, None)]
    reach, todo = set(), [cfg.order[0]]
    while todo:
        n = todo.pop()
        if n in reach or n not in succ:
            continue
        reach.add(n)
        todo.extend(t for t, _ in succ[n])
    return {n: [(t, lab) for t, lab in v if t in reach or t == _EXIT]
            for n, v in succ.items() if n in reach}


def _postdominators(succ):
    nodes = set(succ) | {_EXIT}
    pdom = {n: frozenset(nodes) for n in nodes}
    pdom[_EXIT] = frozenset([_EXIT])
    changed = True
    while changed:
        changed = False
        for n, out in succ.items():
            sets = [pdom[t] for t, _ in out if t in pdom]
            new = frozenset([n]).union(frozenset.intersection(*sets) if sets else ())
            if new != pdom[n]:
                pdom[n], changed = new, True
    return pdom


def fingerprint(code):
    """Counter of ``(effect, frozenset of branch outcomes it depends on)``."""
    cfg = CFG(*normalize(code), merge_exits=False)
    succ = _edges(cfg)
    pdom = _postdominators(succ)
    deps = {n: set() for n in succ}
    for a, out in succ.items():
        for b, label in out:
            if label is None or b == _EXIT:
                continue
            for y in succ:  # y depends on a->b: it follows b surely, a not surely
                if (y == b or y in pdom[b]) and not (y != a and y in pdom[a]):
                    deps[y].add(label)
    found = Counter()
    for n in succ:
        d = _merge_raising(deps[n])
        for ins in cfg.blocks[n].instrs:
            if ins.opname.startswith(_EFFECTS):
                found[(_effect(ins), d)] += 1
    return found


def _effect(ins):
    return ("CALL",) if ins.opname.startswith("CALL") else _key(ins)


def _merge_raising(conditions):
    """One ``("EXC", True, effects)`` label for all the blocks that may raise into a
    handler: how the protected code is cut into blocks is layout."""
    raising = [c for c in conditions if c[:2] == ("EXC", True)]
    if not raising:
        return frozenset(conditions)
    effects = tuple(sorted(e for c in raising for e in c[2]))
    return frozenset([c for c in conditions if c[:2] != ("EXC", True)] + [("EXC", True, effects)])


def _joined(conditions):
    """The conditions several copies of one effect run under, joined: an outcome and its
    opposite cancel (a tail copied into both arms of a test runs whatever the test says)."""
    u = set().union(*conditions)
    for c in list(u):
        opposite = (c[0], not c[1]) + tuple(c[2:])
        if opposite in u:
            u.discard(c)
            u.discard(opposite)
    return frozenset(u)


def compare(original, recompiled):
    """``(same, missing, extra)``: ``same`` unless an effect runs under other conditions
    in ``recompiled``. Copies of one effect whose conditions join to the other side's
    single occurrence count as the same (a copied tail)."""
    a, b = fingerprint(original), fingerprint(recompiled)
    missing, extra = a - b, b - a
    by_effect = {}
    for side, diff in ((0, missing), (1, extra)):
        for (effect, conditions), n in diff.items():
            by_effect.setdefault(effect, ([], []))[side].extend([conditions] * n)
    for mine, theirs in by_effect.values():
        if len(mine) == 1 and len(theirs) >= 2 and _joined(theirs) == mine[0]:
            continue
        if len(theirs) == 1 and len(mine) >= 2 and _joined(mine) == theirs[0]:
            continue
        return False, missing, extra
    return True, missing, extra
