"""Stage 4: symbolic stack execution of straight-line instructions into ``ast`` nodes.

The stack holds ``ast.expr`` nodes (the source of each value) or markers for values that
have no source form of their own (NULL, a ``with`` exit, a caught exception, ...). Markers
are plain classes, not ast nodes, so one leaking into the output fails loudly.
Control flow (jumps, loops, handlers) belongs to ``structure``; this module only turns
one block's non-jump instructions into statements and a resulting stack.

A handler that does not fit raises ``Mismatch``; taking a value the stack does not hold
is one (``stackops``). ``run`` adds where it happened and converts no other exception:
a KeyError or IndexError out of a handler is a bug in it, not a reading that failed.
"""
import ast
from itertools import compress, repeat
from operator import is_

from ..mismatch import Mismatch
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from .markers import Marker
from .exprs import (INF, const, is_literal, name)
from .numbers import number_expr
from .loads_stores import LoadsStores
from .operators import Operators
from .calls import Calls
from .flow_ops import FlowOps
from .templates import Templates
from . import unpack_temps


class Executor(LoadsStores, Operators, Calls, FlowOps, Templates):
    """Executes straight-line instructions of one code object symbolically.

    ``consts`` that have no source form are bound to names (``bindings``) so the caller can
    provide them to the recompiled code; nested code objects are handed to ``nested`` (a
    callable that decompiles them into ast nodes).
    """

    def __init__(self, code, nested, bindings, temp_prefix="__temp_", temps=False):
        self.code = code
        self.nested = nested
        self.bindings = bindings
        self.temp_prefix = temp_prefix
        # temporaries mode, for code no compiler would write (Dynamo's): values that stay
        # on the stack while statements run, are duplicated or are mutated in place are
        # bound to __temp_<n> variables, so that evaluation order and aliasing are exact
        self.temps = temps
        self._ntemps = 0
        self.pending_unpacks = []  # unpackings whose items may not all be stored yet
        self.cellnames = tuple(code.co_cellvars) + tuple(code.co_freevars)
        self._group = []   # pending (position, target, value) of a multi-target assignment
        self._group_floor = 0  # the stack depth its values waiting for targets reach
        self._group_computes = False  # whether a target part was computed (a call...)
        # keyed by id() but holding the value too: a freed node's id can be reused
        self._order = {}   # id(value) -> (value, position before the first stack permutation)
        self._dups = {}    # id(value) -> value, for values duplicated (COPY / DUP_TOP_TWO)
        # id(value) -> value kept beneath the exception an except clause restores: the
        # value of a `return` in the clause, on its way out
        self.returning = {}
        # id(value) -> value of a `return` in a try body, on the stack past the protected
        # range while the finally body's copy runs (a break/continue there drops it)
        self.pending_returns = {}
        # id(value) -> value of stack values ``flush`` found settled (or starred): they stay
        # so (a node's kind does not change and a TEMP fact is never taken back), and a
        # deep stack is flushed again at every statement
        self._settled = {}
        self._clean, self._clean_names = [], set()  # what the last flush left (_clean_prefix)
        # id(value) -> (value, the stack below it): a value two arms of one expression
        # merged (and/or, conditional expression) and what was below the statement it
        # belongs to; the block where the arms meet goes on with that statement
        self._carried = {}

    # -- constants ------------------------------------------------------------------------
    def const_expr(self, value):
        if isinstance(value, complex) or isinstance(value, float) and value != value:
            # no repr gives back a NaN's sign or a complex's signed zeros: expressions
            # the compiler folds back
            node = number_expr(value)
            if node is not None:
                return node
        elif isinstance(value, float) and value in (INF, -INF):
            # no literal: 1e309 overflows to inf
            return const(INF) if value > 0 else ast.UnaryOp(op=ast.USub(), operand=const(INF))
        if is_literal(value):
            if isinstance(value, tuple):
                node = ast.Tuple(elts=[self.const_expr(v) for v in value], ctx=ast.Load())
                facts.note(node, Fact.CONST, value)  # set after: 3.13 deprecates unknown constructor keywords
                return node
            if isinstance(value, frozenset):
                if not value:
                    return ast.Call(func=name("frozenset"), args=[], keywords=[])
                # `x in {1, 2}` and `{1, 2}` as a whole (3.9+: BUILD_SET + SET_UPDATE of
                # the constant) fold a set display into a frozenset constant
                node = ast.Set(elts=[self.const_expr(v) for v in sorted(value, key=repr)])
                facts.note(node, Fact.CONST, value)
                return node
            if isinstance(value, float) and value < 0 or isinstance(value, int) and not isinstance(value, bool) and value < 0:
                return ast.UnaryOp(op=ast.USub(), operand=const(-value))
            return const(value)
        if V.SLICE_CONSTANTS and _index_literal(value):
            return self._index_expr(value)
        for k, v in self.bindings.items():
            if v is value:
                return name(k)
        key = "__depyf_const_%d" % len(self.bindings)
        self.bindings[key] = value
        return name(key)

    def _index_expr(self, value):
        """A subscript's constant index with slices (3.14 folds `a[1:2]`, `a[1:2, 3]`) as
        the slice syntax it was: no other source makes a slice constant."""
        if isinstance(value, tuple):
            node = ast.Tuple(elts=[self._index_expr(v) for v in value], ctx=ast.Load())
            facts.note(node, Fact.CONST, value)
            return node
        if not isinstance(value, slice):
            return self.const_expr(value)
        parts = [None if v is None else self.const_expr(v)
                 for v in (value.start, value.stop, value.step)]
        return ast.Slice(lower=parts[0], upper=parts[1], step=parts[2])

    # -- the main loop --------------------------------------------------------------------
    # -- temporaries mode ---------------------------------------------------------------------
    _FLUSH_BEFORE = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_ATTR",
                     "STORE_SUBSCR", "STORE_SLICE", "DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL",
                     "DELETE_DEREF", "DELETE_ATTR", "DELETE_SUBSCR", "POP_TOP", "COPY",
                     "LIST_EXTEND", "LIST_APPEND", "SET_UPDATE", "SET_ADD", "DICT_UPDATE",
                     "DICT_MERGE", "MAP_ADD", "UNPACK_SEQUENCE", "UNPACK_EX",
                     # (a permutation: the values are used in another order than made)
                     "SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"}

    @staticmethod
    def _continues_group(ins):
        """Between the stores of `a, b.c, d[i] = ...` only target parts are loaded."""
        op = ins.opname
        return (op.startswith(("STORE_", "LOAD_")) and op not in ("LOAD_METHOD", "LOAD_BUILD_CLASS")
                or op in ("SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N", "COPY",
                          "BUILD_SLICE", "BINARY_SUBSCR", "PUSH_NULL", "UNPACK_SEQUENCE", "UNPACK_EX"))

    @staticmethod
    def settled(value):
        """A stack value that may be used later, or twice, without changing the program."""
        if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
            return True  # a negative literal
        return (isinstance(value, (Marker, ast.Constant, ast.Slice)) or
                facts.get(value, Fact.TEMP, False) or not isinstance(value, ast.expr))

    # how many values on top of the stack an instruction consumes as its own operands
    _OPERANDS = {"POP_TOP": 1, "STORE_FAST": 1, "STORE_NAME": 1, "STORE_GLOBAL": 1,
                 "STORE_DEREF": 1, "STORE_ATTR": 2, "STORE_SUBSCR": 3, "STORE_SLICE": 4,
                 "DELETE_ATTR": 1, "DELETE_SUBSCR": 2, "UNPACK_SEQUENCE": 1, "UNPACK_EX": 1}

    def flush(self, stack, out, ins=None, rebound=()):
        """Temporaries mode: bind every pending stack value to a temporary, bottom first.

        A plain local-variable read stays as it is unless ``ins`` (the instruction about
        to run) rebinds or deletes that variable, or it is one of the names ``rebound``
        (by statements about to run): reading it later gives the same value."""
        if not self.temps:
            return
        rebinds = ins.argval if ins is not None and ins.opname.startswith(("STORE_", "DELETE_")) \
            and ins.opname not in ("STORE_ATTR", "STORE_SUBSCR", "STORE_SLICE", "DELETE_ATTR",
                                   "DELETE_SUBSCR") else None
        rebound = set(rebound) | {rebinds}
        keep = self._OPERANDS.get(ins.opname, 0) if ins is not None else 0
        items = stack[:len(stack) - keep] if keep else stack
        known = self._settled
        start = self._clean_prefix(items, rebound)
        skipped = set(self._clean_names) if start else set()
        for i in range(start, len(items)):  # (replacing stack items keeps their number)
            value = items[i]
            if known.get(id(value)) is value:
                continue
            if self.settled(value) or isinstance(value, (ast.Starred,)):
                known[id(value)] = value
                continue
            if isinstance(value, ast.Name) and value.id not in rebound and \
                    value.id in self.code.co_varnames and value.id not in self.cellnames:
                skipped.add(value.id)
                continue  # a local only this frame can change (globals and cells can change in calls)
            tmp = self.new_temp()
            out.append(ast.Assign(targets=[name(tmp, ast.Store())], value=value))
            for j in list(compress(range(i, len(stack)), map(is_, stack[i:], repeat(value)))):
                stack[j] = self.temp_ref(tmp)
        self._clean, self._clean_names = stack[:len(items)], skipped
        self._base = len(stack)

    def new_temp(self):
        """The name of a new temporary."""
        self._ntemps += 1
        return "%s%d" % (self.temp_prefix, self._ntemps)

    @staticmethod
    def temp_ref(tmp):
        """A read of the temporary ``tmp``."""
        ref = name(tmp)
        facts.note(ref, Fact.TEMP, True)
        return ref

    def _clean_prefix(self, items, rebound):
        """How many values at the bottom of ``items`` are the ones the last flush left
        (by identity): each of them was settled, starred or a local variable's read, so
        the loop above would pass it again, unless a name in ``rebound`` is one of those
        variables (then 0). A deep stack is thus not walked again at every statement.
        Most often all of ``clean`` is still there: list equality tells so at memory speed
        (an expression node equals only itself; a value equal to another without being
        it is no expression, settled, and passed by the loop all the same)."""
        clean = self._clean
        if not clean or not rebound.isdisjoint(self._clean_names):
            return 0
        n = min(len(items), len(clean))
        if items[:n] == clean[:n]:
            return n
        return _same_prefix(items, clean)

    _PERMUTED = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}

    def _moves_only_settled(self, ins, stack):
        """COPY of a value that may be used twice as it is (a constant, a temporary):
        nothing is evaluated twice or out of order, so nothing needs binding (Dynamo
        passes `None, None, None` to a context manager's __exit__ as one constant copied).
        Likewise a permutation (SWAP, ROT_*) of values among which at most one is not
        settled: no two evaluations change order (3.12+'s `PUSH_NULL; SWAP 2` after a
        method's load moves the NULL marker only)."""
        op = ins.opname
        if op == "COPY":
            return 0 < ins.arg <= len(stack) and self.settled(stack[-ins.arg])
        n = ins.arg if op in ("SWAP", "ROT_N") else self._PERMUTED.get(op)
        if n is None or not 0 < n <= len(stack):
            return False
        return sum(not self.settled(v) for v in stack[-n:]) <= 1

    _DISPLAY_OF = {"LIST_EXTEND": ast.List, "SET_UPDATE": ast.Set, "DICT_UPDATE": ast.Dict,
                   "DICT_MERGE": ast.Dict}

    def _folds_into_display(self, ins, stack):
        """`[*a]`, `{**a}`: merging into a display still being built is part of the
        expression, no statement runs (and DICT_MERGE, unlike dict.update, refuses
        repeated keys: it must stay `**` in a call or display)."""
        kind = self._DISPLAY_OF.get(ins.opname)
        if kind is None or len(stack) <= ins.arg:
            return False
        target = stack[-(ins.arg + 1)]
        return isinstance(target, kind) and not facts.get(target, Fact.TEMP, False)

    def run(self, instrs, stack, out):
        """Execute ``instrs`` (no control flow among them) on ``stack``, appending stmts."""
        # values below ``_base`` were on the stack when the current statement began
        self._base = self._statement_base(stack)
        self._out = out
        handlers = _HANDLERS.get(type(self))
        if handlers is None:
            handlers = _HANDLERS[type(self)] = {}
        for ins in instrs:
            if self.pending_unpacks:
                unpack_temps.step(self, ins, stack, out, handlers)
            else:
                self.step(ins, stack, out, handlers)
        if self.temps and self.pending_unpacks:
            # items left for the block's end to take (Dynamo before torch 2.5 tests one
            # by the jump, or returns it): temporaries too
            unpack_temps.bind_pending(self, self.pending_unpacks, stack, out)

    def carry_statement(self, stack, base):
        """The arms of a value branch met with ``stack``, whose top is their merged value,
        in a statement that began with ``base`` values on the stack (``run``: the block
        there goes on with it: `a, b = x or 1, y or 2` stores each value at its end)."""
        if stack and base < len(stack):
            self._carried[id(stack[-1])] = (stack[-1], stack[:base])

    def _statement_base(self, stack):
        """How many values of ``stack`` were there before the statement that a block
        entered with it goes on with (``carry_statement``), else all of them."""
        carried = self._carried.get(id(stack[-1])) if stack else None
        if carried is None or carried[0] is not stack[-1]:
            return len(stack)
        below = carried[1]
        if len(below) < len(stack) and all(map(is_, below, stack)):
            return len(below)
        return len(stack)

    def step(self, ins, stack, out, handlers):
        """Execute one instruction (``run``)."""
        if self.temps and ins.opname in self._FLUSH_BEFORE and not self._folds_into_display(ins, stack) \
                and not self._moves_only_settled(ins, stack):
            self.flush(stack, out, ins)
        in_target = None
        if self._group and not self._continues_group(ins):
            # a store left other values on the stack and something else runs before
            # they are stored: part of the next target (`d[k] = d[f(k)] = v`) only if
            # it leaves those values alone and runs no statement (checked below)
            in_target = list(stack[:self._group_floor])
        emitted = len(out)
        before = stack[:self._base] if self._base else ()
        handler = handlers.get(ins.opname)
        if handler is None:
            handler = _handler(type(self), handlers, ins.opname)
            if handler is None:
                raise Mismatch("unsupported instruction", function=self.code.co_name,
                               opname=ins.opname, offset=ins.offset, unsupported=True)
        try:
            handler(self, ins, stack, out)
        except Mismatch as err:  # only a Mismatch: anything else a handler raises is a bug
            # (taking more values than the stack holds is one: ``stackops``)
            if err.opname is None:
                err2 = Mismatch(err.reason, function=self.code.co_name, opname=ins.opname,
                                offset=ins.offset, unsupported=err.unsupported)
                raise err2 from None
            raise
        if in_target is not None:
            if len(out) != emitted or len(stack) < len(in_target) or \
                    any(a is not b for a, b in zip(in_target, stack)):
                # not a multi-target assignment a compiler would write
                raise Mismatch("values left on the stack across statements",
                               function=self.code.co_name, opname=ins.opname,
                               offset=ins.offset)
            self._group_computes = True
        if len(out) != emitted:
            self._base = len(stack)
        elif len(stack) < self._base:
            # values from before this block taken: those left in place still are
            # (a handler's exception popped), what was pushed instead belongs to the
            # statement (a call of a callable loaded before a conditional expression
            # or an inlined comprehension, whose arms or loop began this block)
            self._base = _same_prefix(stack, before)


def _same_prefix(a, b):
    """How many values at the bottom of ``a`` and ``b`` are the same objects (compared at
    C speed: a call can take hundreds of values from the stack, Dynamo's graph call ~600)."""
    same = list(map(is_, a, b))  # (as long as the shorter)
    try:
        return same.index(False)
    except ValueError:
        return len(same)


_HANDLERS = {}  # executor class -> {opname: its ``op_<opname>`` function}


def _handler(executor, handlers, opname):
    """The executor class's handler of ``opname`` (None: unsupported), found by name once
    per class instead of a string concatenation and a bound method per instruction."""
    handler = getattr(executor, "op_" + opname, None)
    if handler is not None:
        handlers[opname] = handler
    return handler


def _index_literal(value):
    """Whether ``value`` is a slice of literals, or a tuple of literals and such slices
    with at least one slice (a folded subscript index)."""
    if isinstance(value, slice):
        return all(v is None or is_literal(v) for v in (value.start, value.stop, value.step))
    return isinstance(value, tuple) and any(isinstance(v, slice) for v in value) and \
        all(_index_literal(v) if isinstance(v, slice) else is_literal(v) for v in value)
