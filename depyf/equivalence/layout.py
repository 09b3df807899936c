"""Layout-equal: the same instructions, wired the same way, laid out in another order.

Most decompiled functions that are not bytecode-equal differ only in layout: an ``else``
block placed before the ``if`` body with the test's jump inverted, a jump to a jump, a
copied ``return`` placed elsewhere. Running the equivalence checker's product machine on
them is the expensive way to prove what a graph comparison shows directly.

Two normalized code objects (``normalize.NormalizedCode``) are layout-equal when their
reachable instructions can be paired, starting with the two entries, so that paired
instructions are the same (opname and argument; nested code objects layout-equal in
turn) and their successors are paired (a bisimulation: one instruction may pair with
several, as a return block the compiler copied into each branch pairs with the one
shared copy):

- the next instruction, unless the instruction never falls through (return, raise,
  unconditional jump);
- the jump target (a jump's argument is compared through the map, not by index);
- the handler of the exception-table entry that covers it (3.11+), with equal depth and
  ``lasti``; up to 3.10 handlers are jump targets of SETUP_* instructions.

Two liberties are taken, both exact: an unconditional jump does nothing but move (an edge
is followed through chains of them), and ``POP_JUMP_IF_TRUE t`` is
``POP_JUMP_IF_FALSE`` with the two ways out exchanged (likewise ``..._IF_NONE`` and
``..._IF_NOT_NONE``): the test calls the same ``__bool__`` (or ``is None``), only which way
is taken on which answer is written differently. Paired instructions then run the same
operations on equal states, step for step, so the two code objects behave the same.
The header fields (name, arguments, flags, cell and free variables, docstring) must be
equal as in the bytecode-equal test.
"""
from ..bytecode import versions as V
from .normalize import CONST_OPS, JUMP_OPS

# the two ways out of a conditional jump: (kind, which answer takes the jump)
_COND = {
    "POP_JUMP_IF_TRUE": ("bool", True), "POP_JUMP_IF_FALSE": ("bool", False),
    "POP_JUMP_IF_NOT_NONE": ("none", False), "POP_JUMP_IF_NONE": ("none", True),
}
_NEVER_FALLS_THROUGH = frozenset(["RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"])
# compared as in the bytecode-equal test, but for ``varnames``: which locals exist and in
# what order is layout (instructions name the locals they use; the parameters, the
# leading varnames, are compared by the checker before any of this)
_HEADER = ("name", "argcount", "posonlyargcount", "kwonlyargcount", "flags", "freevars",
           "cellvars", "docstring")


def _base(opname):
    """The conditional jump's name without 3.11's direction."""
    return V.COND_JUMP_ALIASES.get(opname, opname)


class _Code:
    """One side: instructions, exception coverage and the jump-threading of edges."""

    def __init__(self, norm):
        self.norm = norm
        self.ins = norm.instructions
        self.handler = [None] * len(self.ins)
        for e in norm.exception_table:
            for i in range(e.start, min(e.end, len(self.ins))):
                if self.handler[i] is None:
                    self.handler[i] = e

    def thread(self, k):
        """Where control arriving at ``k`` next does something: through jumps."""
        seen = set()
        while k < len(self.ins) and self.ins[k].opname in V.JUMP_ALIASES and k not in seen:
            seen.add(k)
            k = self.ins[k].arg[1]
        return k

    def exits(self, i):
        """``(kind, [successors in a fixed order])`` of instruction ``i``: successors are
        already threaded; ``kind`` names how the choice between them is made."""
        ins = self.ins[i]
        op = _base(ins.opname)
        if op in _COND:
            family, jumps_on = _COND[op]
            target, fall = self.thread(ins.arg[1]), self.thread(i + 1)
            on_yes, on_no = (target, fall) if jumps_on else (fall, target)
            return ("cond", family), [on_yes, on_no]
        succs = []
        if ins.opname in JUMP_OPS and ins.opname not in V.JUMP_ALIASES:
            succs.append(self.thread(ins.arg[1]))
        if ins.opname not in _NEVER_FALLS_THROUGH and ins.opname not in V.JUMP_ALIASES:
            succs.append(self.thread(i + 1))
        return ("op", ins.opname), succs


def layout_equal(a, b):
    """Whether normalized code objects ``a`` and ``b`` are layout-equal (see above)."""
    if a == b:
        return True
    if any(getattr(a, f) != getattr(b, f) for f in _HEADER):
        return False
    return _graphs_match(_Code(a), _Code(b))


def _same_instruction(x, y):
    if x.opname in JUMP_OPS:
        return _base(x.opname) in _COND and _COND[_base(x.opname)][0] == \
            _COND.get(_base(y.opname), (None,))[0] or x.opname == y.opname
    if x.opname != y.opname:
        return False
    if x.opname in CONST_OPS and _is_code(x.arg) and _is_code(y.arg):
        return layout_equal(x.arg[1], y.arg[1])
    return x.arg == y.arg


def _is_code(arg):
    return isinstance(arg, tuple) and len(arg) == 2 and arg[0] == "code"


def _graphs_match(ca, cb):
    seen = set()
    work = [(ca.thread(0), cb.thread(0))]
    while work:
        pair = work.pop()
        if pair in seen:
            continue
        seen.add(pair)
        i, j = pair
        end_a, end_b = i >= len(ca.ins), j >= len(cb.ins)
        if end_a or end_b:
            if end_a != end_b:
                return False
            continue  # past the last instruction: nothing runs there
        if not _same_instruction(ca.ins[i], cb.ins[j]):
            return False
        kind_a, succ_a = ca.exits(i)
        kind_b, succ_b = cb.exits(j)
        if kind_a != kind_b and not (kind_a[0] == kind_b[0] == "cond" and kind_a == kind_b):
            return False
        if len(succ_a) != len(succ_b):
            return False
        work.extend(zip(succ_a, succ_b))
        ha, hb = ca.handler[i], cb.handler[j]
        if (ha is None) != (hb is None):
            return False
        if ha is not None:
            if (ha.depth, ha.lasti) != (hb.depth, hb.lasti):
                return False
            work.append((ca.thread(ha.target), cb.thread(hb.target)))
    return True
