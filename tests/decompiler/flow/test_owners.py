"""depyf.decompiler.flow.owners: whose handler code a block is part of."""
import pytest

from depyf.bytecode import versions as V
from depyf.decompiler.flow.cfg import CFG
from depyf.decompiler.flow.instructions import normalize
from depyf.decompiler.flow.owners import filled_facts


def _finally_holding_try(a, log):
    try:
        log.append(1)
    finally:
        if a:
            try:
                log.append(2)
            except OSError:
                log.append(3)
            finally:
                log.append(4)


def _owners(want):
    cfg = CFG(*normalize(_finally_holding_try.__code__), merge_exits=False)
    return cfg, filled_facts(cfg, {}, want)[want]


def _pops(blk):
    return any(i.opname == "POP_EXCEPT" for i in blk.instrs)


def test_each_handler_owns_its_start():
    for want in ("owner", "raiser"):
        cfg, owners = _owners(want)
        assert all(owners.get(e.target) == e.target for e in cfg.entries)


@pytest.mark.skipif(not V.POP_BLOCK_EXITS_COPIED, reason="3.10 pastes the code after the clause there")
def test_the_code_after_a_clause_s_pop_except_is_not_the_clause_s():
    cfg, raiser = _owners("raiser")
    after = [b for b in cfg.order if not _pops(cfg[b]) and len(cfg[b].preds) == 1 and
             _pops(cfg[cfg[b].preds[0]]) and raiser.get(cfg[b].preds[0]) is not None]
    assert after
    for b in after:
        assert raiser.get(b) != raiser.get(cfg[b].preds[0])


@pytest.mark.skipif(not V.POP_BLOCK_EXITS_COPIED, reason="3.10 pastes the code after the clause there")
def test_by_dominance_alone_it_is():
    cfg, owner = _owners("owner")
    after = [b for b in cfg.order if not _pops(cfg[b]) and len(cfg[b].preds) == 1 and
             _pops(cfg[cfg[b].preds[0]]) and owner.get(cfg[b].preds[0]) is not None]
    assert any(owner.get(b) == owner.get(cfg[b].preds[0]) for b in after)
