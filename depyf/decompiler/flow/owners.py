"""Whose handler code a block is part of: ``exits.merge_duplicate_exits`` joins copies
of a re-raise (up to 3.10) and of the end of an except clause (3.10+) only within the
code of one handler."""
from . import dominance


def filled_facts(cfg, facts, want="owner"):
    """``facts`` with the dominators and the handler owners ``want`` filled in once:
    ``owner``, the nearest handler entry that dominates a block; ``raiser``, the same but
    only while the block is still part of that handler's code (``_interior``)."""
    if "dom" not in facts:
        facts["dom"], facts["index"] = dominance.dominators(cfg)
    for kind, interior in (("owner", None), ("raiser", _interior)):
        if kind == want and kind not in facts:
            facts[kind] = _handler_owners(cfg, facts["dom"], facts["index"], interior)
    return facts


def _handler_owners(cfg, dom, index, interior):
    """For each block, the nearest handler entry that dominates it (None outside
    handlers; ``dom``, ``index``: the dominators, ``dominance.dominators``) and, given
    ``interior``, whose code the block is part of: not past the POP_EXCEPT that ends the
    clause (a re-raise there, of an enclosing finally body, is not the clause's)."""
    targets = [t for t in {e.target for e in cfg.entries} if t in index]
    inner = {t: interior(cfg, t) for t in targets} if interior is not None else None
    owners = {}
    for b in cfg.order:
        inside = [t for t in targets if dom[b] >> index[t] & 1 and (inner is None or b in inner[t])]
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
