"""Whose handler code a block is part of: ``exits.merge_duplicate_exits`` joins copies
of a re-raise (up to 3.10) and of the end of an except clause (3.10+) only within the
code of one handler."""
from . import dominance


def filled_facts(cfg, facts):
    """``facts`` with the dominators and the handler owners filled in once."""
    if "dom" not in facts:
        facts["dom"], facts["index"] = dominance.dominators(cfg)
    if "owner" not in facts:
        facts["owner"] = _handler_owners(cfg, facts["dom"], facts["index"])
    return facts


def _handler_owners(cfg, dom, index):
    """For each block, the nearest handler entry that dominates it and whose code it is
    part of (None outside handlers; ``dom``, ``index``: the dominators,
    ``dominance.dominators``): not past the POP_EXCEPT that ends the clause (the
    re-raise there, of an enclosing finally body, is not the clause's)."""
    targets = [t for t in {e.target for e in cfg.entries} if t in index]
    interior = {t: _interior(cfg, t) for t in targets}
    owners = {}
    for b in cfg.order:
        inside = [t for t in targets if dom[b] >> index[t] & 1 and b in interior[t]]
        if inside:
            owners[b] = max(inside, key=lambda t: bin(dom[t]).count("1"))
    return owners


def _interior(cfg, target):
    """The blocks of the handler code at ``target`` that run while its exception is
    handled: up to the POP_EXCEPT that ends a clause (with it), through the handlers of
    the try statements in a clause (their POP_EXCEPT ends their own clause; laid out
    after ``target``: not the handlers around this one). (Never deeper than the number
    of handlers: the walk ends.)"""
    seen, work, most = set(), [(target, 0)], len(cfg.entries)
    while work:
        b, depth = work.pop()
        if (b, depth) in seen or b not in cfg.blocks:
            continue
        seen.add((b, depth))
        blk = cfg.blocks[b]
        pops = any(i.opname == "POP_EXCEPT" for i in blk.instrs)
        if pops and not depth:
            continue
        work.extend((s, depth - pops) for s in blk.succs)
        inner = blk.handler
        if inner is not None and inner.target != target and inner.start >= target and depth < most:
            work.append((inner.target, depth + 1))
    return {b for b, _ in seen}
