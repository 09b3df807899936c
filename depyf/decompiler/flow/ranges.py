"""Exception ranges as instruction indexes (``ExcEntry``): read from the 3.11+ exception
table, or derived from the SETUP_*/POP_BLOCK block stack up to 3.10, so that every
version has one table (``instructions.normalize``)."""
from collections import namedtuple

from ...bytecode import exctable
from .opsets import COND_JUMPS, JUMPS, TERMINATORS

ExcEntry = namedtuple("ExcEntry", "start end target depth lasti")  # indexes, end exclusive


def from_table_311(code, offset_to_index):
    """co_exceptiontable (3.11+) as ExcEntry with instruction indexes."""
    return [ExcEntry(offset_to_index(e.start), offset_to_index(e.end), offset_to_index(e.target),
                     e.depth, e.lasti) for e in exctable.parse(code)]


def cover_cond_jumps(instrs, entries):
    """Join two ranges of one handler that only a conditional jump separates, and give
    a conditional jump between a range and one nested in it (a try statement starting
    an `if` body in a with body) to the outer range.

    A conditional jump raises nothing, so whether the table covers it is the compiler's
    choice: 3.13 leaves some out (after the dropped TO_BOOL, or one split over a jump
    back to a loop head), which would cut a try body (or an inlined comprehension) in
    two at every test."""
    entries = sorted(entries, key=lambda e: e.start)
    out = []
    for e in entries:
        prev = out[-1] if out else None
        gap = prev is not None and prev.end < e.start and \
            all(ins.opname in COND_JUMPS for ins in instrs[prev.end:e.start])
        if gap and (prev.target, prev.depth, prev.lasti) == (e.target, e.depth, e.lasti):
            out[-1] = prev._replace(end=e.end)
            continue
        if gap and _nested_in(e, prev.target, entries):
            out[-1] = prev._replace(end=e.start)
        out.append(e)
    return out


def _nested_in(entry, target, entries):
    """Whether the handler of ``entry`` runs under the handler at ``target`` (its code is
    covered by a range that goes there, directly or through further handlers)."""
    seen = set()
    while entry is not None and entry.target not in seen:
        seen.add(entry.target)
        entry = next((e for e in entries if e.start <= entry.target < e.end), None)
        if entry is not None and entry.target == target:
            return True
    return False


def from_block_stack(instrs):
    """Up to 3.10: derive handler ranges by simulating the SETUP_*/POP_BLOCK block stack."""
    n = len(instrs)
    state = [None] * n  # tuple of handler indexes (innermost last) at each instruction
    work = [(0, ())]
    while work:
        i, stack = work.pop()
        while i < n:
            if state[i] is not None:
                break
            state[i] = stack
            ins = instrs[i]
            op = ins.opname
            if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
                work.append((ins.target, stack))
                stack = stack + (ins.target,)
            elif op == "POP_BLOCK":
                stack = stack[:-1]
            elif op == "CALL_FINALLY":  # 3.8: runs the finally body as a subroutine
                work.append((ins.target, stack))
            if ins.target is not None and op in JUMPS and op not in (
                    "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "CALL_FINALLY"):
                work.append((ins.target, stack))
            if op in TERMINATORS:
                break
            i += 1
    for i in range(1, n):
        # `return x` inside try: POP_BLOCK comes before RETURN_VALUE, yet the return
        # belongs to the try body (3.11+ covers it with the handler too)
        if instrs[i].opname == "RETURN_VALUE" and instrs[i - 1].opname == "POP_BLOCK" and \
                state[i - 1] is not None:
            state[i] = state[i - 1]
    entries = []
    cur, start = None, 0
    for i in range(n + 1):
        h = state[i][-1] if i < n and state[i] else None
        if h != cur:
            if cur is not None:
                entries.append(ExcEntry(start, i, cur, 0, False))
            cur, start = h, i
    return entries



def live_indexes(instrs, entries):
    """The indexes of the instructions that can run: reached from the first by falling
    through, by a jump or through an exception entry covering one that runs (Dynamo
    before torch 2.4 keeps the frame's original code after a jump over it)."""
    live, work = set(), [0] if instrs else []
    while work:
        while work:
            i = work.pop()
            if i in live or not 0 <= i < len(instrs):
                continue
            live.add(i)
            ins = instrs[i]
            if ins.target is not None:
                work.append(ins.target)
            if ins.opname not in TERMINATORS:
                work.append(i + 1)
        # the handlers of ranges that hold an instruction that runs
        work = [e.target for e in entries if e.target not in live and
                any(j in live for j in range(e.start, e.end))]
    return live
