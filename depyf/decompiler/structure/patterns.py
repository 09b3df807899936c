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
import dis

from ...bytecode import raw
from ...bytecode import versions as V
from .match_nodes import Case, LOADS, Match, Node, NotAMatch, Opaque, STORES, is_name_load, land
from .match_runner import Run


_STARTS = {"MATCH_SEQUENCE", "MATCH_MAPPING", "COPY", "POP_TOP", "POP_JUMP_IF_NOT_NONE",
           "LOAD_CONST"} | set(LOADS) | set(STORES)


# -- finding match statements ---------------------------------------------------------------
def find_matches(instrs, present=None, code=None):
    """{start index: Match} for every match statement in ``instrs`` (3.10+). ``present``:
    the set of opnames in ``instrs``, when the caller has it; ``code``: the code object
    they come from (without it a first ``case _ if guard:`` whose copy of the subject
    the compiler left out is not found: ``_bare_guard``)."""
    if not V.HAS_MATCH:
        return {}
    if present is None:
        present = {i.opname for i in instrs}
    # a case that works on a copy of the subject starts with `COPY 1`; any other starts
    # a few instructions before a MATCH_* test (``_match_op_near``) or is a bare guard
    # (``_bare_case``: `case _ if g:` then `case 1:` has neither): without one in the
    # code only the copies and the bare guards need a look
    has_match_op = any(op.startswith("MATCH_") for op in present)
    if not has_match_op and not any(i.opname == "COPY" and i.arg == 1 or code is not None
                                    and _bare_jump(instrs, i.index) for i in instrs):
        return {}
    found = {}
    covered = set()
    code = _Raw(code, instrs) if code is not None else None
    scan = _GuardScan(instrs)
    for ins in instrs:
        i = ins.index
        if i in covered:
            continue
        if code is not None and ins.opname in _GUARD_JUMPS:
            m = _bare_guard_match(instrs, i, code)
            if m is not None:
                found[m.start] = m
                for c in m.cases:
                    covered.update(range(c.start, c.body))
            continue
        if ins.opname == "COPY":
            if ins.arg != 1:
                continue
        elif not (has_match_op and (ins.opname in _STARTS or is_name_load(ins.opname))
                  and _match_op_near(instrs, i)):
            continue
        try:
            m = _parse_match(instrs, i, code, scan)
        except (NotAMatch, IndexError, KeyError, TypeError):
            continue
        found[i] = m
        for c in m.cases:
            covered.update(range(c.start, c.next if c.body is None else c.body))  # pattern code; bodies may hold matches
    return found


_GUARD_JUMPS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")


def _bare_guard_match(instrs, j, code):
    """The match statement whose first case is ``case _ if guard:`` with the guard's last
    jump at ``j`` (``_bare_case``), or None."""
    if not _bare_jump(instrs, j):
        return None
    start = _guard_start(instrs, j, code, (instrs[j].target, j + 1))
    if start is None:
        return None
    try:
        m = _parse_match(instrs, start, code)
    except (NotAMatch, IndexError, KeyError, TypeError):
        return None
    return m if m.cases[0].guard == start else None


def _bare_jump(instrs, j):
    """Whether the jump at ``j`` can end the guard of a ``_bare_case``: a true guard pops
    the subject (``POP_TOP``), a false one goes to the next case, after the body."""
    fail = instrs[j].target
    return (instrs[j].opname in _GUARD_JUMPS and j + 2 < len(instrs)
            and instrs[j + 1].opname == "POP_TOP" and fail is not None and fail > j + 2)


def _bare_case(instrs, pos, code):
    """``case _ if guard:`` from ``pos`` (not the last case but for a ``case _:``), as
    3.12+ compiles it: the compiler's ``COPY 1`` of the subject and the wildcard's
    ``POP_TOP`` of the copy cancel out, so the guard is tested right after the subject is
    pushed, with the subject below it; a failed guard lands on the next case with the
    subject on the stack, a true one pops it and runs the body. The guard's last jump is
    the first one after ``pos`` that fits (``_bare_jump``) and whose expression starts at
    ``pos`` (``_guard_start``). The Case, or None."""
    j = pos
    while j < len(instrs) and not instrs[j].opname.startswith(_GUARD_STOPS):
        if _bare_jump(instrs, j):
            exits = (instrs[j].target, j + 1)
            if _guard_start(instrs, j, code, exits) == pos:
                return Case(pos, Node(), pos, j + 2, instrs[j].target)
        j += 1
    return None


_GUARD_STOPS = ("RETURN", "RAISE", "RERAISE", "JUMP", "FOR_ITER", "STORE", "DELETE", "SETUP",
                "YIELD", "SEND", "END_")
# what a guard's expression can start with: a load that reads nothing on the stack (a
# COPY of the subject would be an `and`/`or` on a value, a LOAD_ATTR reads an owner)
_GUARD_FIRST = ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CONST",
                "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR", "LOAD_SMALL_INT", "PUSH_NULL",
                "LOAD_CLOSURE")


class _Raw:
    """The raw instructions of the code ``instrs`` come from, read once when asked."""

    def __init__(self, code, instrs):
        self.code, self.instrs, self._ops = code, instrs, None

    def ops(self):
        """(raw ``(offset, opcode, arg)`` list, its position by offset, first normalized
        instruction by offset)."""
        if self._ops is None:
            ops = list(raw.ops(self.code))
            by_offset = {}
            for ins in self.instrs:
                by_offset.setdefault(ins.offset, ins)
            self._ops = ops, {off: k for k, (off, _, _) in enumerate(ops)}, by_offset
        return self._ops


def _guard_start(instrs, j, code, exits):
    """Index of the first instruction of the expression whose test the jump at ``j``
    takes, counting back the stack effects of the raw instructions (``code``: a ``_Raw``);
    the jumps of an ``and``/``or`` chain (to one of ``exits``) are part of it. None where
    the way back holds another kind of jump (a conditional expression) or leaves the code,
    or the expression starts with more than a load."""
    ops, at, by_offset = code.ops()
    k = at.get(instrs[j].offset)
    if k is None:
        return None
    need = 1  # the test the jump pops
    while k > 0:
        k -= 1
        off, op, arg = ops[k]
        name = dis.opname[op]
        if "JUMP" in name or name.startswith(("RETURN", "RAISE", "RERAISE", "YIELD", "SEND",
                                              "MATCH_", "GET_LEN")):
            return None  # (a pattern's tests read the subject: no guard's)
        need -= dis.stack_effect(op, arg if op >= dis.HAVE_ARGUMENT else None, jump=False)
        if need < 0:
            return None
        if need == 0:
            b = k - 1  # the instruction before, past those the reading drops (NOT_TAKEN)
            while b > 0 and dis.opname[ops[b][1]] in V.DROPPED:
                b -= 1
            before = by_offset.get(ops[b][0]) if k > 0 else None
            if before is not None and before.opname in _GUARD_JUMPS and before.target in exits:
                need, k = 1, b  # an and/or before it: the guard goes on further back
                continue
            ins = by_offset.get(off)
            if ins is None or not dis.opname[op].startswith(_GUARD_FIRST):
                return None
            return ins.index
    return None


def _match_op_near(instrs, i):
    """A last (uncopied) case starts with a MATCH_* test, maybe after loading a class."""
    for ins in instrs[i:i + 8]:
        if ins.opname.startswith("MATCH_"):
            return True
        if not (is_name_load(ins.opname) or ins.opname in ("LOAD_ATTR", "LOAD_CONST")):
            return False
    return False


def _parse_match(instrs, start, code=None, scan=None):
    cases = []
    pos = start
    refutable = False
    tested = False  # a case that tests the subject (not only bare guards)
    while True:
        bare = _bare_case(instrs, pos, code) if code is not None else None
        if bare is not None:
            cases.append(bare)
            refutable = True
            pos = bare.next
            continue
        case = None
        if instrs[pos].opname == "COPY" and instrs[pos].arg == 1:
            try:
                case = _parse_case(instrs, pos, copies=True, scan=scan)
            except NotAMatch:
                case = None
        if case is not None:
            case_obj, nxt = case
            cases.append(case_obj)
            refutable = tested = True
            pos = nxt
            continue
        case_obj, fail, has_match_op = _parse_case(instrs, pos, copies=False, scan=scan)
        cases.append(case_obj)
        node = case_obj.node
        plain = node.kind in ("value", "singleton") and node.name is None
        if not (refutable or has_match_op or (_refutable(node) and not plain)):
            # one value test (an if statement says the same) or assignments
            raise NotAMatch("not a match statement")
        if not (tested or has_match_op or _refutable(node) or node.name is not None):
            raise NotAMatch("guards only: an if statement says the same")
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
        if fail is not None and (fail == end or instrs[end].opname == "JUMP" and
                                 instrs[end].target == fail):
            # the pattern matched goes where it failed: a guard the compiler found false
            # (`case P if False:`) took the body with it
            return Case(start, subject, None, None, fail), fail
        if instrs[end].opname.startswith(("STORE_", "DELETE_")):
            # a guard is an expression: this stores the value left on the stack (`y = z =
            # v` copies v as a case copies its subject)
            raise NotAMatch("a store where a guard would start")
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
