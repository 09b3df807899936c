"""Stage 3b: recognizing `match` statements (3.10+) in the instruction stream.

The compiler turns ``match s: case P if g: body ...`` into a chain of tests on the
subject: every case but the last non-default one works on a copy (``COPY 1``), the
pattern code pushes and pops the pieces it looks at (``MATCH_SEQUENCE``, ``GET_LEN``,
``UNPACK_SEQUENCE``, ``MATCH_CLASS``, ``MATCH_KEYS``, comparisons ...), a failed test
jumps to a chain of ``POP_TOP`` that leaves just the subject for the next case, and the
names a pattern binds are kept on the stack and stored once the whole pattern matched.

Instead of mirroring each Python version's code templates, the pattern code is run
symbolically: stack items are the values being matched (``Node``), and each test a
conditional jump keeps on its fall-through path becomes a fact about a node. How the
values are rotated on the stack, or in which order names are stored, then does not
matter. Or-patterns are found through their failure paths: an alternative that fails
lands on the next alternative's ``COPY 1`` of the same value.

``find_matches`` runs before the control-flow graph is built (the case bodies must start
blocks of their own) and knows nothing of the surrounding code; anything that does not
fit exactly is not a match statement (``NotAMatch``) and is left to the ordinary stages.
"""
from ...bytecode import versions as V
from .match_nodes import Case, LOADS, Match, Node, NotAMatch, Opaque, STORES, is_name_load, land
from .match_runner import Run


_STARTS = {"MATCH_SEQUENCE", "MATCH_MAPPING", "COPY", "POP_TOP", "POP_JUMP_IF_NOT_NONE",
           "LOAD_CONST"} | set(LOADS) | set(STORES)


# -- finding match statements ---------------------------------------------------------------
def find_matches(instrs, present=None):
    """{start index: Match} for every match statement in ``instrs`` (3.10+). ``present``:
    the set of opnames in ``instrs``, when the caller has it."""
    if not V.HAS_MATCH:
        return {}
    if present is None:
        present = {i.opname for i in instrs}
    # a case that works on a copy of the subject starts with `COPY 1`; any other starts
    # a few instructions before a MATCH_* test (``_match_op_near``): without one in the
    # code only the copies need a look
    has_match_op = any(op.startswith("MATCH_") for op in present)
    if not has_match_op and ("COPY" not in present or
                             not any(i.opname == "COPY" and i.arg == 1 for i in instrs)):
        return {}
    found = {}
    covered = set()
    scan = _GuardScan(instrs)
    for ins in instrs:
        i = ins.index
        if i in covered:
            continue
        if ins.opname == "COPY":
            if ins.arg != 1:
                continue
        elif not (has_match_op and (ins.opname in _STARTS or is_name_load(ins.opname))
                  and _match_op_near(instrs, i)):
            continue
        try:
            m = _parse_match(instrs, i, scan)
        except (NotAMatch, IndexError, KeyError, TypeError):
            continue
        found[i] = m
        for c in m.cases:
            covered.update(range(c.start, c.body))  # pattern code; bodies may hold matches
    return found


def _match_op_near(instrs, i):
    """A last (uncopied) case starts with a MATCH_* test, maybe after loading a class."""
    for ins in instrs[i:i + 8]:
        if ins.opname.startswith("MATCH_"):
            return True
        if not (is_name_load(ins.opname) or ins.opname in ("LOAD_ATTR", "LOAD_CONST")):
            return False
    return False


def _parse_match(instrs, start, scan=None):
    cases = []
    pos = start
    refutable = False
    while True:
        case = None
        if instrs[pos].opname == "COPY" and instrs[pos].arg == 1:
            try:
                case = _parse_case(instrs, pos, copies=True, scan=scan)
            except NotAMatch:
                case = None
        if case is not None:
            case_obj, nxt = case
            cases.append(case_obj)
            refutable = True
            pos = nxt
            continue
        case_obj, fail, has_match_op = _parse_case(instrs, pos, copies=False, scan=scan)
        cases.append(case_obj)
        node = case_obj.node
        plain = node.kind in ("value", "singleton") and node.name is None
        if not (refutable or has_match_op or (_refutable(node) and not plain)):
            # one value test (an if statement says the same) or assignments
            raise NotAMatch("not a match statement")
        return Match(start, cases, fail)


def _parse_case(instrs, pos, copies, scan=None):
    """One case from ``pos``. With ``copies`` the case tests a copy of the subject and
    leaves the subject for the next case: returns (Case, next case index). Without, it
    consumes the subject: returns (Case, where a failure goes or None, saw MATCH_*)."""
    run = Run(instrs)
    start = pos
    subject = Node()
    base = 1 if copies else 0
    if copies:
        stack = [Opaque(), subject]
        pos += 1
    else:
        stack = [subject]
    pos = run.until_depth(pos, stack, base)
    end = pos
    lands = {land(instrs, t, d, base) for t, d in run.fails}
    if len(lands) > 1:
        raise NotAMatch("failures of one case go to different places")
    fail = lands.pop() if lands else None
    if copies:
        guard = None
        if instrs[end].opname != "POP_TOP":
            guard = end
            j = _guard_end(instrs, end, fail, scan)
            if fail is None:
                fail = instrs[j - 1].target
            end = j
        body = end + 1
        if fail is None or fail <= body:
            raise NotAMatch("a case that tests a copy must be able to fail")
        return Case(start, subject, guard, body, fail), fail
    return Case(start, subject, None, end, None), fail, run.saw_match_op


def _refutable(node):
    if node.kind is not None:
        return True
    return any(_refutable(a) for a in node.alts or ())


_GUARD_JUMPS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")


def _guard_candidate(instrs, j):
    return instrs[j].opname == "POP_TOP" and instrs[j - 1].opname in _GUARD_JUMPS


def _guard_stop(ins):
    return ins.opname in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP", "FOR_ITER") or (
        ins.opname.startswith(("STORE_", "DELETE_", "SETUP_")) and ins.opname not in STORES)


class _GuardScan:
    """For ``_guard_end``: from each index, the next one where its scan can end (a
    candidate POP_TOP or an instruction that stops it), computed once per instruction list
    on first use (a scan over long straight code, as in Dynamo's, is then not repeated
    from every ``COPY 1``)."""

    def __init__(self, instrs):
        self.instrs = instrs
        self._next = None

    def next_event(self, j):
        if self._next is None:
            instrs = self.instrs
            nxt = [len(instrs)] * (len(instrs) + 1)
            for k in range(len(instrs) - 1, 0, -1):
                event = _guard_candidate(instrs, k) or _guard_stop(instrs[k])
                nxt[k] = k if event else nxt[k + 1]
            self._next = nxt
        return self._next[j]


def _guard_end(instrs, start, fail, scan=None):
    """Index of the POP_TOP (of the subject) right after a guard's last jump to ``fail``."""
    j = start + 1
    while j < len(instrs):
        if scan is not None:
            j = scan.next_event(j)  # (the instructions skipped neither end nor stop the scan)
            if j >= len(instrs):
                break
        if _guard_candidate(instrs, j) and (fail is None or instrs[j - 1].target == fail):
            return j
        if _guard_stop(instrs[j]):
            break
        j += 1
    raise NotAMatch("no guard")
