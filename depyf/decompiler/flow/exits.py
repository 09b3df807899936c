"""Joining the copies the compiler makes of small exit blocks (a `return`, a re-raise, the
clean-up at the end of an except clause) and, on request, of the code that runs into
them, so that structuring sees one block where the source had one statement.

Up to 3.10 the compiler copies a `return` (and what a finally body adds before it) to
each way out; 3.11+ copies exception clean-ups. Which copies are the same is decided on
instructions and lines (``exit_key``); the CFG then routes every edge to the one kept.
"""
from ...bytecode import versions as V
from .owners import filled_facts as _filled_facts
from .instructions import COND_JUMPS, TERMINATORS


def exit_key(instrs, prev=None, into=()):
    """What makes two exit blocks interchangeable: same instructions and, except for a
    bare re-raise or an implicit `return None`, the same line. An implicit `return None`
    has no line of its own: it carries the line of the code it was appended to (``prev``,
    the instruction before it in layout) or, where nothing falls into it, of the jumps
    to it (``into``: their lines), which tells the tests of nested ifs apart; an explicit
    one starts its own line, or follows the test of its one-line `if`."""
    ops = tuple([(i.opname, i.arg) for i in instrs])
    first = instrs[0]
    if len(instrs) == 1 and first.opname == "RERAISE":
        return ops
    if len(instrs) == 2 and first.opname == "LOAD_CONST" and first.argval is None and \
            instrs[1].opname == "RETURN_VALUE":
        implicit = prev is None or prev.line == first.line or first.line is None
        if _after_test(first, prev, into):
            # 3.10+ copied the implicit return to each test that goes on to it, on the
            # test's line: copies on one line are one (`if a and b:` at the end of a
            # function), not those on two (`if a:` `if b:`)
            return ops + ("after a test on", first.line)
        if prev is not None and prev.opname in COND_JUMPS and prev.target is not None and \
                prev.target > prev.index:
            # right after a test that jumps forward: the body of `if c: return`, on one line
            implicit = False
        if prev is not None and prev.opname == "CALL_FINALLY":
            # (3.8) after the finally body it runs on its way out, on its line: a `return`
            # in a try body or an except clause (`as` name clean-up)
            implicit = False
        if implicit:
            return ops
    return ops + tuple([i.line for i in instrs])


def _after_test(first, prev, into):
    """Whether the `return None` starting at ``first`` is reached only from tests (or
    jumps) on its line: jumped to from there with nothing falling into it (``prev``
    ends a block), or right after a test that jumps back (a loop's, at its end)."""
    if not V.EXIT_BLOCKS_COPIED or prev is None or first.line is None:
        return False
    if prev.opname in TERMINATORS:
        return bool(into) and all(line == first.line for line in into)
    return prev.opname in COND_JUMPS and prev.target is not None and prev.target < prev.index and \
        prev.line == first.line and all(line == first.line for line in into)


_EXITS = frozenset(("RETURN_VALUE", "RERAISE", "RAISE_VARARGS"))


def _is_exit(ins):
    """A `return`, a re-raise, or a `raise` without an operand (which re-raises whichever
    exception is being handled there): the statements whose copies are joined. 3.10+
    also pastes a small block that raises a new exception in place of a jump to it
    (`break` out of a loop from an except clause, to a `raise E` after the loop)."""
    return ins.opname in _EXITS and (ins.opname != "RAISE_VARARGS" or ins.arg == 0 or
                                     V.EXIT_BLOCKS_COPIED)


def _in_statement(prev, ins):
    """Whether ``prev`` may be part of the statement of the exit ``ins``: on its line, or
    for a `raise` of a new exception, on a line of the operand below it (`raise E(` then
    the message on the next lines: a copy split there would leave values on the stack)."""
    return prev.line == ins.line or ins.opname == "RAISE_VARARGS" and ins.arg >= 1 and \
        None not in (prev.line, ins.line) and prev.line > ins.line


def copied_return_starts(instrs, leaders):
    """Where 3.11+ pasted a copy of a `return` (or bare `raise`) statement at the end of a
    block (a bare `raise` after a nested handler's POP_EXCEPT re-raises the *outer*
    exception: left in the handler's block it would read as part of the clause).

    The copies keep the return statement's line number; splitting them into blocks
    of their own lets ``_merge_duplicate_exits`` join them again.
    """
    groups = {}
    into = None
    for ins in instrs:
        if ins.opname not in _EXITS or not _is_exit(ins):  # (the first test alone is cheap)
            continue
        r = ins.index
        s = r
        # (3.12+: a `RETURN_CONST` reads as two, one instruction of the copy)
        most = 4 if r > 0 and instrs[r - 1].offset == ins.offset else 3
        while ins.opname != "RERAISE" and s > 0 and r - s < most and _in_statement(instrs[s - 1], ins) and \
                instrs[s - 1].target is None and instrs[s - 1].opname not in TERMINATORS \
                and s not in leaders:
            s -= 1
        if s > 0 and s < r and instrs[s - 1].opname == "PUSH_NULL" and instrs[s - 1].line == ins.line \
                and s not in leaders:
            s -= 1  # (the NULL pushed for the call copied with it: never split from it)
        if into is None:
            into = jump_lines(instrs)
        key = exit_key(instrs[s:r + 1], instrs[s - 1] if s > 0 else None, into.get(s, ()))
        groups.setdefault(key, []).append(s)
    starts = []
    for members in groups.values():
        if len(members) > 1:
            starts.extend(members)
    return starts + _reraise_tail_starts(instrs, leaders)


def _reraise_tail_starts(instrs, leaders):
    """3.11+: where the end of a finally body (the statements on the line of its
    re-raise) was pasted, with the re-raise, after the POP_EXCEPT of an except clause
    that ends the finally body: the copies of one block on the exception path (split
    so that the CFG joins them and the clause ends where it did)."""
    if not V.EXIT_BLOCKS_COPIED:
        return []
    groups = {}
    for ins in instrs:
        if ins.opname != "RERAISE" or ins.arg != 0:
            continue
        r = s = ins.index
        while s > 0 and r - s < 3 and instrs[s - 1].line == ins.line and instrs[s - 1].target is None \
                and instrs[s - 1].opname not in TERMINATORS and instrs[s - 1].opname != "POP_EXCEPT" \
                and s not in leaders:
            s -= 1
        if s < r:
            key = tuple((i.opname, i.arg, i.line) for i in instrs[s:r + 1])
            groups.setdefault(key, []).append(s)
    return [s for members in groups.values() if len(members) > 1 and
            any(instrs[s - 1].opname == "POP_EXCEPT" for s in members) for s in members]


def jump_lines(instrs):
    """The lines of the jumps to each instruction (by its index)."""
    into = {}
    for ins in instrs:
        if ins.target is not None and ins.opname not in _NOT_JUMPS:
            into.setdefault(ins.target, []).append(ins.line)
    return into


_NOT_JUMPS = frozenset(("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "CALL_FINALLY"))


def clause_tail_starts(instrs, leaders):
    """3.10+: where the code after a try statement starts that the compiler pasted, as a
    small exit block (up to a return or a raise), right after the end of an except clause (its
    POP_EXCEPT and the clean-up of its `as` name) in place of the jump to it (the only
    way there: the try body returns). A `return` of the clause itself, whose value waits
    on the stack, goes straight to its RETURN_VALUE: not such a start; nor a `return`
    of a constant, which the clause's own loads after its end too (read as the clause's,
    as before), nor the way out of a loop (the iterator dropped first: from under the
    clause's return value, waiting on the stack, by a SWAP), nor the way out of the
    enclosing clause of a `return` in a nested one (its value moved under that clause's
    exception by a ROT_FOUR, then its POP_EXCEPT: no statement starts with those), nor
    one of several copies (the CFG joins those)."""
    starts = []
    if not V.EXIT_BLOCKS_COPIED:
        return starts
    for ins in instrs:
        if ins.opname != "POP_EXCEPT":
            continue
        k = ins.index + 1
        if [i.opname for i in instrs[k:k + 3]][:1] == ["LOAD_CONST"] and name_cleanup(instrs[k:k + 3]):
            k += 3
        if k >= len(instrs) or k in leaders or instrs[k].opname in ("RETURN_VALUE", "POP_EXCEPT"):
            # (nor the way out of an enclosing clause: a `return` in a nested clause
            # leaves both handlers before it returns)
            continue
        r = k
        while r < len(instrs) and instrs[r].target is None and instrs[r].opname not in TERMINATORS and \
                (r == k or r not in leaders):
            r += 1
        if r < len(instrs) and _tail_end(instrs[r]) and r not in leaders and \
                not (r == k + 1 and instrs[k].opname == "LOAD_CONST") and \
                instrs[k].opname not in ("POP_TOP", "SWAP", "ROT_TWO", "ROT_FOUR") and _copies(instrs, k, r) == 1:
            starts.append(k)
        elif r < len(instrs) and instrs[r].opname == "RAISE_VARARGS" and r not in leaders and \
                instrs[k].opname != "POP_TOP":
            # a raise: a clause raises before its POP_EXCEPT, so this is the code after
            # the try (3.12+ copy a small raising block there: `except E: pass` then
            # `raise` of an enclosing clause)
            starts.append(k)
    return starts


def _tail_end(ins):
    """The end of a small exit block: a return, or a `raise` of a new exception."""
    return ins.opname == "RETURN_VALUE" or ins.opname == "RAISE_VARARGS" and ins.arg >= 1


def _copies(instrs, k, r):
    """How many times the exit ``instrs[k:r + 1]`` (up to its return) occurs, lines
    and all (more than once: copies the CFG joins, ``copied_tail_starts``)."""
    sig = lambda a, b: [(i.opname, i.arg, i.line) for i in instrs[a:b + 1]]
    want = sig(k, r)
    n = r - k
    return sum(1 for ins in instrs if _tail_end(ins) and ins.index >= n and
               sig(ins.index - n, ins.index) == want)


def name_cleanup(instrs):
    """`name = None; del name`: the end of an `except ... as name` clause."""
    if len(instrs) != 3 or instrs[0].argval is not None:
        return False
    store, delete = instrs[1], instrs[2]
    return store.opname.startswith("STORE_") and delete.opname == "DELETE_" + store.opname[6:] and \
        store.argval == delete.argval


def copied_tail_starts(instrs, leaders):
    """Where 3.10+ may have pasted a whole small exit block (up to 4 instructions
    ending in a return) in place of a jump to it: the copies keep their lines, so two
    exits that end in the same instructions on the same lines may be copies from there
    on. (`r.append(a < b < c)` + `return r`: the call is copied into each arm of the
    chained comparison, which only meet again after it.) Only a guess: different
    paths that end alike look the same, so this is a second try (``merge_tails``)."""
    tails = {}
    for ins in instrs:
        if ins.opname != "RETURN_VALUE":
            continue
        r = ins.index
        s = r
        # (3.12+: a `RETURN_CONST` reads as two, one of the block's 4 instructions)
        most = 4 if r > 0 and instrs[r - 1].offset == ins.offset else 3
        while s > 0 and r - s < most and instrs[s - 1].target is None and \
                instrs[s - 1].opname not in TERMINATORS and s not in leaders:
            s -= 1
        tails[r] = s
    found = {}
    for r, s in tails.items():
        for k in range(s, r - 1):  # suffixes longer than `LOAD x; RETURN_VALUE`
            found.setdefault(exit_key(instrs[k:r + 1], instrs[k - 1] if k > 0 else None), []).append(k)
    starts = []
    for r, s in tails.items():
        for k in range(s, r - 1):  # the longest suffix that occurs twice
            if len(found[exit_key(instrs[k:r + 1], instrs[k - 1] if k > 0 else None)]) > 1:
                starts.append(k)
                break
    return starts

def merge_duplicate_exits(cfg):
    """3.11+ copies small exit blocks (``return x``) into each predecessor; undo it so
    that the branches meet again. Identical exit blocks become one, and so do the
    identical blocks that run straight into them (the rest of a copied exit block)."""
    alias = {}
    facts = {}  # computed once, when needed: handler owners, dominators
    into = jump_lines(cfg.instrs)
    changed = True
    while changed:
        changed = False
        seen = {}
        for bid in cfg.order:
            blk = cfg.blocks[bid]
            pasted = _after_pop_block(cfg, blk)
            if bid in alias or _size(blk) > 4 and not pasted:
                continue
            if not V.KEEPS_DEAD_JUMPS and [i.opname for i in blk.instrs] == ["POP_EXCEPT", "JUMP"]:
                key = _clause_end_key(cfg, blk, alias, facts)
                if key is None:
                    continue
            elif _star_clause_end(cfg, blk):
                # 3.13 copies the end of an except* clause (its list append) to the
                # `break` out of a loop that ends the clause: the copies are one
                key = ("LIST_APPEND", blk.instrs[0].arg, blk.handler.target if blk.handler else None,
                       blk.last.target)
            else:
                if _is_exit(blk.last) or pasted and blk.last.opname == "RAISE_VARARGS":
                    after = None
                elif (cfg.merge_tails or pasted) and blk.last.opname not in TERMINATORS and \
                        blk.last.target is None and blk.end in cfg.blocks:
                    after = alias.get(blk.end, blk.end)
                else:
                    continue
                if after is not None and after == bid:
                    continue
                prev = cfg.instrs[bid - 1] if bid > 0 else None
                key = (exit_key(blk.instrs, prev, into.get(bid, ())), blk.handler.target if blk.handler else None,
                       after)
                if blk.last.opname == "RERAISE" and not V.HANDLER_CODE_COVERED:
                    # a re-raise is only ever copied within the handler it ends: re-raises
                    # of different handlers (or of a finally body's two copies) stay apart
                    key += (_filled_facts(cfg, facts, "raiser")["raiser"].get(bid),)
            if key in seen:
                alias[bid] = seen[key]
                changed = True
            else:
                seen[key] = bid
    return alias

def _size(blk):
    """The size of a block as the compiler counts it for a copy (3.12+: the NULL a
    LOAD_GLOBAL pushes for a call is one instruction with it, and so is a RETURN_CONST
    read as two)."""
    ins = blk.instrs
    return len(ins) - (ins[0].opname == "PUSH_NULL") - (len(ins) > 1 and ins[-2].offset == ins[-1].offset)


def _after_pop_block(cfg, blk):
    """3.10: whether ``blk`` may be part of a block the compiler pasted, whole, after each
    POP_BLOCK that led to it (``V.POP_BLOCK_EXITS_COPIED``): it follows a POP_BLOCK and
    runs straight on to a return of a value it computes (or a raise). (A `return` leaving nested
    statements holds its value from before its POP_BLOCKs: its clean-ups, the same for
    every such `return`, are not copies of one block. Copies keep every line: only copies
    of one block have the same key.)"""
    if not (V.POP_BLOCK_EXITS_COPIED and blk.id > 0 and cfg.instrs[blk.id - 1].opname == "POP_BLOCK"):
        return False
    seen = set()
    first = blk.instrs[0]
    while not _pasted_end(blk.last):
        if blk.last.opname in TERMINATORS or blk.last.target is not None or \
                blk.end not in cfg.blocks or blk.end in seen:
            return False
        seen.add(blk.end)
        blk = cfg.blocks[blk.end]
    if blk.last.opname == "RERAISE":
        return True  # (the copy of a finally body, then the re-raise of the one around it)
    load = cfg.instrs[blk.last.index - 1]
    if load.opname == "LOAD_CONST" and load.argval is not None and load is not first and \
            load.line == first.line:
        # `return <constant>` leaving a with statement: the constant is loaded after the
        # exit call, on its line (the with's); a block pasted after the with starts the
        # line of the statement after it (but the implicit `return None`, pasted with the
        # exit call after each POP_BLOCK of a with ending the function)
        return False
    before = load.opname
    return before not in _STATEMENT_ENDS and not before.startswith(("STORE_", "DELETE_"))


def _pasted_end(ins):
    """A return, or the raise of an exception the block makes (`raise E()` after a with
    statement is pasted after each POP_BLOCK too), or a re-raise (a try/finally at the end
    of a finally body: its finally copy goes on to that body's re-raise)."""
    return ins.opname in ("RETURN_VALUE", "RERAISE") or ins.opname == "RAISE_VARARGS" and ins.arg >= 1


# what leaves the stack as a statement found it (a value below was there before)
_STATEMENT_ENDS = frozenset(["POP_TOP", "POP_BLOCK", "POP_EXCEPT", "END_FINALLY"])


def _clause_end_key(cfg, blk, alias, facts):
    """What makes two `POP_EXCEPT; JUMP` blocks one (3.10+): the end of an except
    clause and its copy after a `break` out of a loop that ends the clause go on to
    the same place, whatever their lines. Only within one try statement (the
    clauses of two go on alike by chance), and not a `continue` in the clause (a
    jump back to a head that dominates it: kept apart from the clause's end). Up to
    3.9 the dead pair after a `continue` in a clause tells it apart: those stay. The
    try statement is the handler whose code the block ends (``raiser``): a clause that
    ends with a try statement ends past that try's own POP_EXCEPT (3.12+ copy the end
    of the enclosing clause there)."""
    facts = _filled_facts(cfg, facts, "raiser")
    dom, index = facts["dom"], facts["index"]
    to = alias.get(blk.last.target, blk.last.target)
    if to in index and dom[blk.id] >> index[to] & 1:
        return None
    return ("POP_EXCEPT", blk.handler.target if blk.handler else None, to,
            facts["raiser"].get(blk.id))

def _star_clause_end(cfg, blk):
    """`LIST_APPEND; JUMP` to the PREP_RERAISE_STAR that ends an except* handler."""
    if [i.opname for i in blk.instrs] != ["LIST_APPEND", "JUMP"]:
        return False
    to = blk.last.target
    return to is not None and cfg.instrs[to].opname == "PREP_RERAISE_STAR"
