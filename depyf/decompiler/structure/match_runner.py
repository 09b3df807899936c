"""Running one case's pattern code symbolically (``Run``): stack items are ``Node``s,
and each test a conditional jump keeps on its fall-through path becomes a fact about
a node; how values are rotated on the stack or in which order names are stored then
does not matter.
"""
import ast

from ...bytecode import versions as V
from ..symbolic.exprs import const, name
from .match_nodes import (Check, Join, Keys, Len, NegIndex, Node, NotAMatch, Opaque, READS, Rest,
                          STORES, Tup, Value, is_name_load, land, members)


class Run:
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

    def alternative(self, pos, stack, depth, join=None):
        """Run one alternative (of an or-pattern, or the pattern of an ``as``) until it jumps
        away or touches the value it is a copy of: ("jump", target, index of the jump) or
        ("touch", index, index); or until it reaches ``join``, where the alternatives
        before it jumped (the last one falls in: ("jump", join, index))."""
        for _ in range(10000):
            if pos == join:
                return ("jump", join, pos)
            ins = self.instrs[pos]
            if ins.opname == "JUMP":
                return ("jump", ins.target, pos)
            reads = READS.get(ins.opname, 0)
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
            if is_name_load(op):
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
            inner = Run(self.instrs)
            joins = {w for k, w, _ in ends if k == "jump"}
            end = inner.alternative(at + 1, st, depth, joins.pop() if len(joins) == 1 else None)
            self.saw_match_op |= inner.saw_match_op
            alts.append((alt, st))
            ends.append(end)
            lands = {land(self.instrs, t, d, depth) for t, d in inner.fails}
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
        for node in members(item):
            if node.name is not None:
                raise NotAMatch("a value stored twice")
            node.name = ins.argval

    @staticmethod
    def _node(item):
        if not isinstance(item, Node):
            raise NotAMatch("expected a value, got %r" % (item,))
        return item
