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
import ast

from ...bytecode import versions as V
from ..symbolic.exprs import const, name

LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF",
         "LOAD_FROM_DICT_OR_GLOBALS")
STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")
# how deep into the stack an instruction reads (for "this alternative is over" tests)
_READS = {"POP_TOP": 1, "MATCH_SEQUENCE": 1, "MATCH_MAPPING": 1, "GET_LEN": 1, "MATCH_CLASS": 3,
          "MATCH_KEYS": 2, "COMPARE_OP": 2, "IS_OP": 2, "BINARY_SUBSCR": 2, "BINARY_OP": 2,
          "UNPACK_SEQUENCE": 1, "UNPACK_EX": 1, "COPY_DICT_WITHOUT_KEYS": 2, "DELETE_SUBSCR": 2,
          "POP_JUMP_IF_FALSE": 1, "POP_JUMP_IF_TRUE": 1, "POP_JUMP_IF_NONE": 1,
          "POP_JUMP_IF_NOT_NONE": 1, "ROT_THREE": 3, "ROT_FOUR": 4, "LOAD_ATTR": 1}
def _is_name_load(opname):
    """A load of a (dotted) name's first part: a value pattern's or a class's."""
    return opname in LOADS or opname.startswith("LOAD_FAST")


_STARTS = {"MATCH_SEQUENCE", "MATCH_MAPPING", "COPY", "POP_TOP", "POP_JUMP_IF_NOT_NONE",
           "LOAD_CONST"} | set(LOADS) | set(STORES)


class NotAMatch(Exception):
    pass


class Node:
    """A value a pattern looks at, and what the pattern code found out about it."""

    def __init__(self):
        self.kind = None       # None (anything), "value", "singleton", "seq", "map", "class"
        self.value = None      # ast expression (value) or constant (singleton)
        self.length = None     # ("==" | ">=", n) for sequences
        self.items = None      # sequences: list of Node, or dict index -> Node (subscripts)
        self.star = None       # index of the starred item in ``items`` (UNPACK_EX)
        self.cls = None
        self.npos = 0
        self.kwnames = ()
        self.keys = None       # mapping: list of ast expressions
        self.values = None     # mapping/class: the Tup of extracted values
        self.rest = None       # mapping: name bound by ``**rest``
        self.name = None       # capture / ``as`` name
        self.alts = None       # copies of this value tested one after another (or / as)

    def refine(self, kind):
        if self.kind not in (None, kind) or self.alts:
            raise NotAMatch("two tests of different kinds on one value")
        self.kind = kind


class Join:
    """A name slot after an or-pattern: one captured value per alternative."""

    def __init__(self, members):
        self.members = members


class Check:
    """A test result a conditional jump consumes; ``apply`` records it on success."""

    def __init__(self, apply=None):
        self.apply = apply


class Len:
    def __init__(self, node):
        self.node = node


class NegIndex:
    def __init__(self, node, k):
        self.node, self.k = node, k


class Value:
    """A constant or a dotted name loaded for a value pattern, class or key."""

    def __init__(self, expr, constant=None, is_const=False):
        self.expr, self.constant, self.is_const = expr, constant, is_const


class Keys:
    def __init__(self, exprs, constant=None):
        self.exprs, self.constant = exprs, constant


class Tup:
    """What MATCH_CLASS / MATCH_KEYS extracted from ``owner`` (a tuple, or None)."""

    def __init__(self, owner):
        self.owner = owner
        self.items = {}

    def item(self, i):
        if i not in self.items:
            self.items[i] = Node()
        return self.items[i]


class Rest:
    def __init__(self, owner):
        self.owner = owner


class Opaque:
    """A stack item with no meaning for the pattern (an empty dict being filled, a key)."""


class Case:
    __slots__ = ("start", "node", "guard", "body", "next")

    def __init__(self, start, node, guard, body, next_case):
        self.start = start      # index of the case's first instruction
        self.node = node        # the pattern, as a Node tree
        self.guard = guard      # index where the guard starts, or None
        self.body = body        # index of the first body instruction (for the last
        #                         case: of the guard, if it has one -- told apart later)
        self.next = next_case   # where a failed test goes (None for the last case)

    def pattern(self):
        return to_pattern(self.node)


class Match:
    __slots__ = ("start", "cases", "fail")

    def __init__(self, start, cases, fail):
        self.start = start      # index of the first case (the subject is on the stack)
        self.cases = cases
        self.fail = fail        # where control goes when no case matched (None: unknown)

    def leaders(self):
        out = {self.start}
        for c in self.cases:
            out.add(c.body)
            if c.guard is not None:
                out.update((c.guard, c.body - 1))  # the guard; the POP_TOP of the subject
        if self.fail is not None:
            out.add(self.fail)
        return out


# -- finding match statements ---------------------------------------------------------------
def find_matches(instrs):
    """{start index: Match} for every match statement in ``instrs`` (3.10+)."""
    if not V.HAS_MATCH or not any(i.opname.startswith("MATCH_") or i.opname == "COPY"
                                  for i in instrs):
        return {}
    found = {}
    covered = set()
    for ins in instrs:
        i = ins.index
        if i in covered or not (ins.opname in _STARTS or _is_name_load(ins.opname)):
            continue
        if ins.opname == "COPY" and ins.arg != 1:
            continue
        if ins.opname != "COPY" and not _match_op_near(instrs, i):
            continue
        try:
            m = _parse_match(instrs, i)
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
        if not (_is_name_load(ins.opname) or ins.opname in ("LOAD_ATTR", "LOAD_CONST")):
            return False
    return False


def _parse_match(instrs, start):
    cases = []
    pos = start
    refutable = False
    while True:
        case = None
        if instrs[pos].opname == "COPY" and instrs[pos].arg == 1:
            try:
                case = _parse_case(instrs, pos, copies=True)
            except NotAMatch:
                case = None
        if case is not None:
            case_obj, nxt = case
            cases.append(case_obj)
            refutable = True
            pos = nxt
            continue
        case_obj, fail, has_match_op = _parse_case(instrs, pos, copies=False)
        cases.append(case_obj)
        node = case_obj.node
        plain = node.kind in ("value", "singleton") and node.name is None
        if not (refutable or has_match_op or (_refutable(node) and not plain)):
            # one value test (an if statement says the same) or assignments
            raise NotAMatch("not a match statement")
        return Match(start, cases, fail)


def _parse_case(instrs, pos, copies):
    """One case from ``pos``. With ``copies`` the case tests a copy of the subject and
    leaves the subject for the next case: returns (Case, next case index). Without, it
    consumes the subject: returns (Case, where a failure goes or None, saw MATCH_*)."""
    run = _Run(instrs)
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
    lands = {_land(instrs, t, d, base) for t, d in run.fails}
    if len(lands) > 1:
        raise NotAMatch("failures of one case go to different places")
    fail = lands.pop() if lands else None
    if copies:
        guard = None
        if instrs[end].opname != "POP_TOP":
            guard = end
            j = _guard_end(instrs, end, fail)
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


def _guard_end(instrs, start, fail):
    """Index of the POP_TOP (of the subject) right after a guard's last jump to ``fail``."""
    j = start + 1
    while j < len(instrs):
        ins = instrs[j]
        prev = instrs[j - 1]
        if (ins.opname == "POP_TOP" and prev.opname in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
                and (fail is None or prev.target == fail)):
            return j
        if ins.opname in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP", "FOR_ITER") or (
                ins.opname.startswith(("STORE_", "DELETE_", "SETUP_")) and ins.opname not in STORES):
            break
        j += 1
    raise NotAMatch("no guard")


def _land(instrs, target, depth, want):
    """Where a failed test at ``target`` (with ``depth`` items) arrives once its POP_TOPs
    have left ``want`` items."""
    i = target
    for _ in range(len(instrs) + 1):
        ins = instrs[i]
        if ins.opname == "JUMP":
            i = ins.target
            continue
        if depth == want:
            return i
        if ins.opname != "POP_TOP" or depth < want:
            raise NotAMatch("failure path does %s" % ins.opname)
        depth -= 1
        i += 1
    raise NotAMatch("failure path loops")


class _Run:
    """Symbolic execution of pattern code."""

    def __init__(self, instrs):
        self.instrs = instrs
        self.fails = []          # (target, depth after the jump) of every failed test
        self.saw_match_op = False

    def until_depth(self, pos, stack, depth):
        """Run from ``pos`` until only ``depth`` items are left; the index reached."""
        steps = 0
        while len(stack) > depth:
            pos = self.step(pos, stack)
            steps += 1
            if steps > 10000:
                raise NotAMatch("too long")
        return pos

    def alternative(self, pos, stack, depth):
        """Run one alternative (of an or-pattern, or the pattern of an ``as``) until it jumps
        away or touches the value it is a copy of: ("jump", target, index of the jump) or
        ("touch", index, index)."""
        for _ in range(10000):
            ins = self.instrs[pos]
            if ins.opname == "JUMP":
                return ("jump", ins.target, pos)
            reads = _READS.get(ins.opname, 0)
            if ins.opname in ("SWAP", "COPY", "ROT_N") or ins.opname in STORES:
                reads = ins.arg if ins.opname in ("SWAP", "COPY", "ROT_N") else 1
            if ins.opname in ("BUILD_TUPLE", "DICT_UPDATE"):
                reads = ins.arg + (1 if ins.opname == "DICT_UPDATE" else 0)
            if len(stack) - reads < depth:
                return ("touch", pos, pos)
            pos = self.step(pos, stack)
        raise NotAMatch("too long")

    def fail(self, ins, stack):
        self.fails.append((ins.target, len(stack)))

    def step(self, pos, stack):
        ins = self.instrs[pos]
        op = ins.opname
        handler = getattr(self, "op_" + op, None)
        if handler is None:
            if _is_name_load(op):
                handler = self.op_LOAD_NAME
            elif op in STORES:
                handler = self.op_STORE
            else:
                raise NotAMatch(op)
        nxt = handler(ins, stack, pos)
        return pos + 1 if nxt is None else nxt

    # stack shuffles
    def op_POP_TOP(self, ins, stack, pos):
        stack.pop()

    def op_SWAP(self, ins, stack, pos):
        stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]

    def op_ROT_THREE(self, ins, stack, pos):
        stack[-3:] = [stack[-1]] + stack[-3:-1]

    def op_ROT_FOUR(self, ins, stack, pos):
        stack[-4:] = [stack[-1]] + stack[-4:-1]

    def op_ROT_N(self, ins, stack, pos):
        n = ins.arg
        stack[-n:] = [stack[-1]] + stack[-n:-1]

    def op_COPY(self, ins, stack, pos):
        top = stack[-ins.arg]
        if ins.arg != 1 or not isinstance(top, Node) or self._subscript_follows(pos + 1):
            stack.append(top)
            return None
        return self.group(pos, stack)

    def _subscript_follows(self, pos):
        ops = [i.opname for i in self.instrs[pos:pos + 4]]
        if ops[:2] == ["LOAD_CONST", "BINARY_SUBSCR"]:
            return True
        return ops == ["GET_LEN", "LOAD_CONST", "BINARY_OP", "BINARY_SUBSCR"]

    def group(self, pos, stack):
        """``COPY 1`` of a value being matched: one or more patterns tried on copies."""
        owner = stack[-1]
        depth = len(stack)
        alts, ends = [], []
        at = pos
        while True:
            alt = Node()
            st = stack + [alt]
            inner = _Run(self.instrs)
            end = inner.alternative(at + 1, st, depth)
            self.saw_match_op |= inner.saw_match_op
            alts.append((alt, st))
            ends.append(end)
            lands = {_land(self.instrs, t, d, depth) for t, d in inner.fails}
            if len(lands) > 1:
                raise NotAMatch("alternative fails in two ways")
            if not lands:
                break
            q = lands.pop()
            nxt = self.instrs[q]
            if nxt.opname == "COPY" and nxt.arg == 1 and len(alts) < 1000:
                at = q
                continue
            self.fails.append((q, depth))
            break
        if owner.kind is not None or owner.alts:
            raise NotAMatch("a copied value that is also tested")
        owner.alts = [a for a, _ in alts]
        if len(alts) == 1:
            # `P as name`: done where the copy's pattern ends; a jump there ends an
            # alternative of an enclosing or-pattern
            stack[:] = alts[0][1]
            return ends[0][2]
        sizes = {len(st) for _, st in alts}
        if len(sizes) != 1:
            raise NotAMatch("alternatives bind different numbers of names")
        slots = []
        for k in range(depth, sizes.pop()):
            members = [st[k] for _, st in alts]
            if not all(isinstance(m, (Node, Join)) for m in members):
                raise NotAMatch("alternatives leave other things than names")
            slots.append(Join(members))
        stack[:] = stack[:depth] + slots
        jumps = {w for k, w, _ in ends if k == "jump"}
        if len(jumps) > 1:
            raise NotAMatch("alternatives end in different places")
        return ends[0][1]

    # tests
    def op_MATCH_SEQUENCE(self, ins, stack, pos):
        node = self._node(stack[-1])
        self.saw_match_op = True
        stack.append(Check(lambda: node.refine("seq")))

    def op_MATCH_MAPPING(self, ins, stack, pos):
        node = self._node(stack[-1])
        self.saw_match_op = True
        stack.append(Check(lambda: node.refine("map")))

    def op_GET_LEN(self, ins, stack, pos):
        stack.append(Len(self._node(stack[-1])))

    def op_LOAD_CONST(self, ins, stack, pos):
        value = ins.argval
        if isinstance(value, tuple):
            stack.append(Keys([const(v) for v in value], value))
            return
        stack.append(Value(const(value), value, True))

    def op_LOAD_NAME(self, ins, stack, pos):
        stack.append(Value(name(ins.argval)))

    def op_LOAD_ATTR(self, ins, stack, pos):
        base = stack.pop()
        if not isinstance(base, Value) or base.is_const:
            raise NotAMatch("attribute of %r" % (base,))
        stack.append(Value(ast.Attribute(value=base.expr, attr=ins.argval, ctx=ast.Load())))

    def op_BUILD_TUPLE(self, ins, stack, pos):
        items = stack[len(stack) - ins.arg:] if ins.arg else []
        del stack[len(stack) - ins.arg:]
        if not all(isinstance(v, Value) for v in items):
            raise NotAMatch("tuple of non-values")
        stack.append(Keys([v.expr for v in items]))

    def op_COMPARE_OP(self, ins, stack, pos):
        right, left = stack.pop(), stack.pop()
        op = ins.argval
        if isinstance(left, Len) and isinstance(right, Value) and right.is_const and op in ("==", ">="):
            node, n = left.node, right.constant
            stack.append(Check(lambda: self._length(node, op, n)))
            return
        if op == "==" and isinstance(left, Node) and isinstance(right, Value):
            stack.append(Check(lambda: self._value(left, "value", right.expr)))
            return
        raise NotAMatch("comparison %s" % op)

    def op_IS_OP(self, ins, stack, pos):
        right, left = stack.pop(), stack.pop()
        if (ins.arg == 0 and isinstance(left, Node) and isinstance(right, Value) and right.is_const
                and right.constant in (None, True, False)):
            stack.append(Check(lambda: self._value(left, "singleton", right.constant)))
            return
        raise NotAMatch("identity test")

    def _length(self, node, op, n):
        if node.length is not None:
            raise NotAMatch("two length tests")
        node.length = (op, n)

    def _value(self, node, kind, value):
        node.refine(kind)
        if node.value is not None:
            raise NotAMatch("two values")
        node.value = value

    def op_POP_JUMP_IF_FALSE(self, ins, stack, pos):
        test = stack.pop()
        if not isinstance(test, Check):
            raise NotAMatch("jump on %r" % (test,))
        self.fail(ins, stack)
        if test.apply is not None:
            test.apply()

    def op_POP_JUMP_IF_NONE(self, ins, stack, pos):
        tup = stack.pop()
        if not isinstance(tup, Tup):
            raise NotAMatch("None test of %r" % (tup,))
        self.fail(ins, stack)

    def op_POP_JUMP_IF_NOT_NONE(self, ins, stack, pos):
        node = self._node(stack.pop())
        self.fail(ins, stack)
        self._value(node, "singleton", None)

    def op_MATCH_CLASS(self, ins, stack, pos):
        names, cls, node = stack.pop(), stack.pop(), self._node(stack.pop())
        if not isinstance(cls, Value) or cls.is_const or not isinstance(names, Keys):
            raise NotAMatch("class pattern shape")
        self.saw_match_op = True
        node.refine("class")
        node.cls, node.npos, node.kwnames = cls.expr, ins.arg, names.constant
        node.values = Tup(node)
        stack.append(node.values)
        if V.MATCH_PUSHES_BOOL:
            stack.append(Check())

    def op_MATCH_KEYS(self, ins, stack, pos):
        keys = stack.pop()
        node = self._node(stack[-1])
        if not isinstance(keys, Keys):
            raise NotAMatch("mapping keys")
        self.saw_match_op = True
        node.refine("map")
        node.keys = keys.exprs
        node.values = Tup(node)
        stack.extend([keys, node.values])
        if V.MATCH_PUSHES_BOOL:
            stack.append(Check())

    def op_COPY_DICT_WITHOUT_KEYS(self, ins, stack, pos):
        keys = stack.pop()
        node = self._node(stack[-1])
        if not isinstance(keys, Keys) or node.kind != "map":
            raise NotAMatch("rest of a mapping")
        stack.append(Rest(node))

    def op_BUILD_MAP(self, ins, stack, pos):
        if ins.arg != 0:
            raise NotAMatch("dict display")
        stack.append(Opaque())

    def op_DICT_UPDATE(self, ins, stack, pos):
        node = self._node(stack.pop())
        if node.kind != "map" or not isinstance(stack[-ins.arg], Opaque):
            raise NotAMatch("rest of a mapping")
        stack[-ins.arg] = Rest(node)

    def op_DELETE_SUBSCR(self, ins, stack, pos):
        stack.pop()
        if not isinstance(stack.pop(), Rest):
            raise NotAMatch("del")

    def op_BINARY_OP(self, ins, stack, pos):
        right, left = stack.pop(), stack.pop()
        if ins.argval != "-" or not isinstance(left, Len) or not isinstance(right, Value):
            raise NotAMatch("arithmetic")
        stack.append(NegIndex(left.node, right.constant))

    def op_BINARY_SUBSCR(self, ins, stack, pos):
        index, obj = stack.pop(), stack.pop()
        if isinstance(index, NegIndex):
            if index.node is not obj:
                raise NotAMatch("index of another value")
            i = -index.k
        elif isinstance(index, Value) and index.is_const and isinstance(index.constant, int):
            i = index.constant
        else:
            raise NotAMatch("subscript")
        if isinstance(obj, Tup):
            stack.append(obj.item(i))
            return
        node = self._node(obj)
        if node.kind != "seq" or isinstance(node.items, list):
            raise NotAMatch("subscript of a non-sequence")
        if node.items is None:
            node.items = {}
        if i in node.items:
            raise NotAMatch("item taken twice")
        node.items[i] = child = Node()
        stack.append(child)

    def op_UNPACK_SEQUENCE(self, ins, stack, pos):
        obj = stack.pop()
        n = ins.arg
        if isinstance(obj, Tup):
            stack.extend(reversed([obj.item(i) for i in range(n)]))
            return
        if isinstance(obj, Keys):
            stack.extend(Opaque() for _ in range(n))
            return
        node = self._node(obj)
        if node.kind != "seq" or node.items is not None:
            raise NotAMatch("unpacking")
        node.items = [Node() for _ in range(n)]
        stack.extend(reversed(node.items))

    def op_UNPACK_EX(self, ins, stack, pos):
        node = self._node(stack.pop())
        before, after = ins.arg & 0xFF, ins.arg >> 8
        if node.kind != "seq" or node.items is not None:
            raise NotAMatch("unpacking")
        node.items = [Node() for _ in range(before + 1 + after)]
        node.star = before
        stack.extend(reversed(node.items))

    def op_STORE(self, ins, stack, pos):
        item = stack.pop()
        if isinstance(item, Rest):
            if item.owner.rest is not None:
                raise NotAMatch("two rests")
            item.owner.rest = ins.argval
            return
        for node in _members(item):
            if node.name is not None:
                raise NotAMatch("a value stored twice")
            node.name = ins.argval

    @staticmethod
    def _node(item):
        if not isinstance(item, Node):
            raise NotAMatch("expected a value, got %r" % (item,))
        return item


def _members(item):
    if isinstance(item, Join):
        out = []
        for m in item.members:
            out.extend(_members(m))
        return out
    if isinstance(item, Node):
        return [item]
    raise NotAMatch("stored %r" % (item,))


# -- Node tree -> ast patterns ----------------------------------------------------------------
def to_pattern(node):
    core = _core(node)
    if node.name is not None:
        if isinstance(core, ast.MatchAs) and core.pattern is None and core.name is None:
            core = None
        return ast.MatchAs(pattern=core, name=node.name)
    return core


def _core(node):
    if node.alts:
        if node.kind is not None:
            raise NotAMatch("tested value with copies")
        pats = [to_pattern(a) for a in node.alts]
        if len(pats) == 1:
            return pats[0]
        flat = []
        for p in pats:
            flat.extend(p.patterns if isinstance(p, ast.MatchOr) else [p])
        return ast.MatchOr(patterns=flat)
    kind = node.kind
    if kind is None:
        return ast.MatchAs(pattern=None, name=None)
    if kind == "value":
        return ast.MatchValue(value=node.value)
    if kind == "singleton":
        return ast.MatchSingleton(value=node.value)
    if kind == "seq":
        return ast.MatchSequence(patterns=_sequence_items(node))
    if kind == "class":
        values = [to_pattern(node.values.items[i]) if i in node.values.items
                  else ast.MatchAs(pattern=None, name=None)
                  for i in range(node.npos + len(node.kwnames))]
        return ast.MatchClass(cls=node.cls, patterns=values[:node.npos],
                              kwd_attrs=list(node.kwnames), kwd_patterns=values[node.npos:])
    if kind == "map":
        keys = node.keys or []
        values = node.values.items if node.values is not None else {}
        pats = [to_pattern(values[i]) if i in values else ast.MatchAs(pattern=None, name=None)
                for i in range(len(keys))]
        return ast.MatchMapping(keys=keys, patterns=pats, rest=node.rest)
    raise NotAMatch(kind)


def _sequence_items(node):
    op, n = node.length if node.length is not None else (">=", 0)
    items = node.items
    if isinstance(items, list):
        pats = [to_pattern(x) for x in items]
        if node.star is not None:
            star = items[node.star]
            if star.kind is not None or star.alts:
                raise NotAMatch("starred pattern with a test")
            pats[node.star] = ast.MatchStar(name=star.name)
        expect = len(items) - (1 if node.star is not None else 0)
        if (op, n) != ("==" if node.star is None else ">=", expect):
            raise NotAMatch("length test does not fit the unpacking")
        return pats
    items = items or {}
    wild = ast.MatchAs(pattern=None, name=None)
    if op == "==":
        if any(i < 0 or i >= n for i in items):
            raise NotAMatch("index out of the tested length")
        return [to_pattern(items[i]) if i in items else wild for i in range(n)]
    head = [i for i in items if i >= 0]
    tail = [i for i in items if i < 0]
    k = max(head) + 1 if head else 0
    m = -min(tail) if tail else 0
    if k + m != n:
        # wildcards at the ends are not looked at: the length test says how many there are
        if k + m > n:
            raise NotAMatch("indexes overlap")
        k = n - m
    pats = [to_pattern(items[i]) if i in items else wild for i in range(k)]
    pats.append(ast.MatchStar(name=None))
    pats += [to_pattern(items[-j]) if -j in items else wild for j in range(m, 0, -1)]
    return pats
