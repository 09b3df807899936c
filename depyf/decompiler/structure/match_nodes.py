"""The values a match statement's pattern code works on (``Node`` and its kinds: the
subject, a length check, an item, the keys of a mapping ...) and how the facts learned
about them become ``ast`` patterns (``to_pattern``). Anything that does not fit is
``NotAMatch``.
"""
import ast



LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF",
         "LOAD_FROM_DICT_OR_GLOBALS")


STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


# how deep into the stack an instruction reads (for "this alternative is over" tests)
READS = {"POP_TOP": 1, "MATCH_SEQUENCE": 1, "MATCH_MAPPING": 1, "GET_LEN": 1, "MATCH_CLASS": 3,
          "MATCH_KEYS": 2, "COMPARE_OP": 2, "IS_OP": 2, "BINARY_SUBSCR": 2, "BINARY_OP": 2,
          "UNPACK_SEQUENCE": 1, "UNPACK_EX": 1, "COPY_DICT_WITHOUT_KEYS": 2, "DELETE_SUBSCR": 2,
          "POP_JUMP_IF_FALSE": 1, "POP_JUMP_IF_TRUE": 1, "POP_JUMP_IF_NONE": 1,
          "POP_JUMP_IF_NOT_NONE": 1, "ROT_THREE": 3, "ROT_FOUR": 4, "LOAD_ATTR": 1}


def is_name_load(opname):
    """A load of a (dotted) name's first part: a value pattern's or a class's."""
    return opname in LOADS or opname.startswith("LOAD_FAST")


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
        #                         case: of the guard, if it has one -- told apart later;
        #                         None: no body, the guard is always false)
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
            if c.body is None:
                out.add(c.next)  # (the next case starts where its pattern ends)
                continue
            out.add(c.body)
            if c.guard is not None:
                out.update((c.guard, c.body - 1))  # the guard; the POP_TOP of the subject
        if self.fail is not None:
            out.add(self.fail)
        return out


def land(instrs, target, depth, want):
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


def members(item):
    if isinstance(item, Join):
        out = []
        for m in item.members:
            out.extend(members(m))
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
