"""The driver: ``Emitter.seq`` walks the blocks from an entry to a stop, running each
block symbolically and handing the block's end (a branch, a loop head, a protected
region, a match) to the construct family that reads it (see the package docstring)."""
import ast
import dis

from ..mismatch import Mismatch
from . import patterns
from ..symbolic import markers as M
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.cfg import CFG
from ..flow.instructions import COND_JUMPS, TERMINATORS
from .. import facts
from ..facts import Fact
from .context import Ctx
from .helpers import reraise, same_entry
from .analysis import Analysis, after_except_star, after_with_exit, after_with_suppress
from .conditions import Conditions
from .branches import Branches
from .waiting import Waiting
from .matches import Matches
from .loops import Loops
from .whiles import Whiles
from .withs import Withs
from .trys import Trys
from .escapes import Escapes
from .try_star import TryStars
from .handlers import Handlers


class Emitter(Analysis, Conditions, Branches, Waiting, Matches, Loops, Whiles, Withs, Trys, Escapes, TryStars,
              Handlers):
    """Structures one code object: ``function_body()`` is its statements.

    State (all of it; the families read it, only the noted ones change it):
    ``code``, ``cfg``, ``ex`` (the symbolic executor), ``matches`` (match statements found
    before the CFG, by leader), ``latches`` and ``handler_kind`` (``Analysis``),
    ``_dom``/``_protected``/``_region_cache`` (analysis caches), ``_emitting_loops`` (loop
    heads being emitted: ``Loops``), ``_inner_loops`` (a loop head shared by two loops:
    the inner loop's latches, while the outer one is emitted: ``Loops``), ``_active`` (``seq`` calls in progress) and
    ``_clause_returns`` (``Trys``)."""

    def __init__(self, code, instrs, entries, executor, merge_tails=False, matches=None):
        self.code = code
        # joining copied exits helps rebuild compiler output; Dynamo's arms keep values on
        # the stack up to their own return, so temporaries mode keeps the blocks apart
        present = {i.opname for i in instrs}
        # (``matches``: the caller's, found by another Emitter of the same ``instrs``)
        self.matches = patterns.find_matches(instrs, present, code) if matches is None else matches
        starts = set()
        if "PREP_RERAISE_STAR" in present:
            starts |= after_except_star(instrs)
        if "WITH_EXCEPT_START" in present:
            starts |= after_with_suppress(instrs) | after_with_exit(instrs)
        for m in self.matches.values():
            starts |= m.leaders()
        self.cfg = CFG(instrs, entries, merge_exits=not executor.temps,
                       merge_tails=merge_tails and not executor.temps, extra_leaders=starts)
        self.ex = executor
        self._dom = None  # (dominator bit masks, block index): ``_dominators()``
        self._protected = self._protected_by_handler()
        self._region_cache = {}  # (start, target) of an entry -> ``region_of`` it
        self._handler_cache = {}  # block -> ``effective_handler``
        self._chain_cache = {}  # block -> ``handler_chain``
        self.latches = self._find_loops()  # loop head -> latches
        self.handler_kind = self._classify_handlers()  # handler target -> try/with/cleanup
        self._emitting_loops = set()
        self._inner_loops = {}
        self._active = set()  # seq calls in progress, to refuse endless recursion
        self._clause_returns = 0  # how many except clauses returned through their end
        self._try_depth = {}  # handler target of a try statement -> its stack depth
        self._region_end_at = None  # the block where a sequence last met its region's end
        self._escaping_value = None  # the value of the `return` an escaping path takes out
        self._line_starts = frozenset(o for o, line in dis.findlinestarts(code) if line is not None) \
            if V.RETURN_ARM_BY_LINE else frozenset()

    def function_body(self):
        try:
            stmts, _ = self.seq(0, Ctx(), [])
        except IndexError:
            # a path reached an instruction with fewer values on the stack than it takes
            # (a pop of an empty list, in ``_block_end`` or in any of the executor's op
            # handlers): the structure chosen does not fit this code. Over the stdlib
            # round trip and the tests on 3.8-3.13 this happens once, at the top level
            # (3.10, corpus `for_else_inside_try_with_return_in_else`: RETURN_VALUE in
            # the first reading ``api`` tries; the next one succeeds). It stays an
            # IndexError up to here on purpose: a Mismatch raised at the pop would be
            # caught by the retries inside the structure (``emit_branch``,
            # ``_value_branch``, trial conditions, ...) and could change which reading of
            # a region is taken; an underflow abandons the whole reading. Checking every
            # pop explicitly would mean a non-Mismatch signal in the executor's handlers.
            raise Mismatch("unexpected stack state while structuring",
                           function=self.code.co_name) from None
        return stmts

    def seq(self, bid, ctx, stack, enter=False):
        """Emit from block ``bid`` until ctx.stop; ``enter`` = bid is the loop head being emitted."""
        key = (bid, ctx.stop, ctx.loop.header if ctx.loop else None, enter,
               ctx.handler.target if ctx.handler else None, ctx.region_exit)
        if key in self._active:
            raise Mismatch("control flow that does not nest (block %s reached again)" % bid,
                           function=self.code.co_name)
        self._active.add(key)
        try:
            return self._seq(bid, ctx, stack, enter)
        finally:
            self._active.discard(key)

    def _seq(self, bid, ctx, stack, enter):
        out = []
        stack = list(stack)
        first = enter
        visited = set()
        came_by = None  # the jump that led to ``bid``
        while True:
            if bid is None:
                return out, stack
            if bid == ctx.stop and not first:
                more = self._clause_return(bid, ctx, stack)
                if more is not None:
                    out.extend(more)
                    return out, None
                return out, stack
            if bid in visited and not (ctx.loop is not None and bid in ctx.loop.continue_targets):
                # a well-nested sequence passes each block once; anything else would loop
                raise Mismatch("control flow returns to block %s without a loop" % bid,
                               function=self.code.co_name)
            visited.add(bid)
            # (a latch that runs statements before its test ends the region it follows:
            # the statements come after the try, 3.12+)
            if ctx.loop is not None and not first and not (
                    bid == ctx.region_exit and bid in ctx.loop.retests) and \
                    self._loop_jump(bid, ctx, stack, out, came_by):
                return out, None
            if ctx.region is not None and bid not in ctx.region:
                if bid == ctx.region_exit and not self._constant_return_out(bid, ctx) or \
                        self._copy_of_exit(bid, ctx, stack) or \
                        self._bare_jump_to(bid, ctx.region_exit) and not (
                        ctx.loop is not None and ctx.loop.header in ctx.region):
                    # (from a loop inside the region such a jump is a break)
                    ret = self._loop_arm_return(bid, ctx, stack) if ctx.loop is not None \
                        and ctx.loop.header in ctx.region else None
                    if ret is not None:  # (`with cm: while True: ... return f()`)
                        out.extend(ret)
                        return out, None
                    self._region_end_at = bid
                    return out, stack
                if self._bare_jump_out(bid, ctx):
                    bid = self.cfg.through_jumps(bid)
                    continue
                # an escaping path (return/break/continue through cleanup code)
                more, st = self._escape(bid, ctx, stack)
                out.extend(more)
                return out, st
            enter_now, first = first, False
            blk = self.cfg[bid]
            done = self._construct_at(bid, ctx, stack, enter_now)
            if done is None:
                bid, stack, jump = self._emit_block(blk, ctx, stack, out)
                if jump is not None:
                    came_by = jump
            else:
                stmts, bid, stack = done
                out.extend(stmts)
            if stack is None:
                return out, None

    def _loop_jump(self, bid, ctx, stack, out, came_by):
        """Whether block ``bid``, reached inside the body of loop ``ctx.loop``, is one of
        the loop's own ways on, which ends the sequence: `continue` (the head; a latch
        that tests the condition again, its statements first) or `break` (the follow).
        The statement is appended to ``out``."""
        loop = ctx.loop
        if bid in loop.continue_targets:
            node = ast.Continue()
            if self._continue_in_clause(came_by):
                facts.note(node, Fact.EXPLICIT, True)
            out.append(node)
            return True
        if bid == loop.follow or loop.follow is not None and self.cfg.jump_only_target(bid) is not None \
                and self._jumps_on_as(loop.follow, bid):  # (a bare jump to where the follow goes)
            out.append(ast.Break())
            return True
        if bid in loop.retests:
            self.ex.run(self.cfg[bid].instrs[:-1], stack, out)
            stack.pop()  # the test, evaluated again at the head
            out.append(ast.Continue())
            return True
        return False

    def _construct_at(self, bid, ctx, stack, enter_now):
        """The construct that starts at block ``bid``: a try/with region entered there, a
        loop headed there, a match statement whose subject is on the stack. Its
        (statements, block to go on from, stack), or None for ordinary code."""
        if enter_now and bid in self._inner_loops:
            return self.emit_inner_loop(bid, ctx, stack)
        if not same_entry(self.effective_handler(bid), ctx.handler):
            entry = self._region_to_enter(bid, ctx, enter_now)
            if entry is not None:
                return self.emit_protected(bid, entry, ctx, stack, enter_now)
        if bid in self.latches and bid not in self._emitting_loops and not enter_now:
            return self.emit_loop(bid, ctx, stack)
        if bid in self.matches and stack:
            return self.emit_match(self.matches[bid], ctx, stack)  # (None: does not fit)
        return None

    def _region_to_enter(self, bid, ctx, enter_now):
        """The handler entry of the outermost region around ``bid`` inside the one being
        emitted, or None: none, or a loop headed at ``bid`` that the region lies inside
        (the loop is emitted first, the region inside its body; the jump back into a
        `yield from` of the region after its CLEANUP_THROW is the region's, not the loop's)."""
        chain = self.handler_chain(bid)
        outer_pos = 0
        if ctx.handler is not None:
            for k, e in enumerate(chain):
                if same_entry(e, ctx.handler):
                    outer_pos = k + 1
                    break
        if outer_pos >= len(chain):
            return None
        if bid in self.latches and bid not in self._emitting_loops and not enter_now:
            region = self.region_of(chain[outer_pos])
            if not {b for b in self._live_loop_body(bid) if not self._thrown_in_return(b, region)} <= region:
                return None
        return chain[outer_pos]

    def _emit_block(self, blk, ctx, stack, out):
        """Run block ``blk`` and emit what its last instruction does. (block to go on
        from, stack, the JUMP that leads there or None); stack None: no way on (a
        return, a raise, arms that all left)."""
        body = blk.instrs
        last = blk.last
        if last.opname == "END_FINALLY" and len(body) == 1:
            # 3.8: re-raises a pending exception, or ends a finally body run normally
            if stack and isinstance(stack[-1], M.ExcValue):
                out.append(reraise())
                return None, None, None
            self.ex.run(body, stack, out)
            return self.cfg.fall(blk), stack, None
        control = last.opname in COND_JUMPS or last.opname in V.BLOCK_CONTROL
        self.ex.run(body[:-1] if control else body, stack, out)
        if self.ex.temps and (last.opname in COND_JUMPS or last.opname == "JUMP" or not control):
            # values kept across blocks are bound to temporaries (the condition itself
            # stays on top, evaluated after them)
            if last.opname in COND_JUMPS and stack:
                cond = stack.pop()
                self.ex.flush(stack, out)
                stack.append(cond)
            else:
                self.ex.flush(stack, out)
        if not control:
            return self.cfg.fall(blk), stack, None
        return self._block_end(blk, ctx, stack, out)

    def _block_end(self, blk, ctx, stack, out):
        """The statement or construct of a block's last instruction, the rest run (see
        ``_emit_block``)."""
        last = blk.last
        op = last.opname
        if op == "JUMP":
            return self.cfg.target(last), stack, last
        if op == "RETURN_VALUE":
            ret = self._return(last, stack.pop())
            # the function's own last instruction: its implicit `return None`, when
            # a path that falls off the end brings it into a statement
            facts.note(ret, Fact.AT_END, last.index == len(self.cfg.instrs) - 1)
            out.append(ret)
            return None, None, None
        if op == "RAISE_VARARGS":
            out.append(self._raise(last.arg, stack))
            return None, None, None
        if op == "RERAISE":
            out.append(reraise())
            return None, None, None
        if op in COND_JUMPS:
            stmts, bid, stack = self.emit_branch(blk, ctx, stack)
            out.extend(stmts)
            return bid, stack, None
        if op == "SEND":
            self._send(stack)
            return self.cfg.target(last), stack, None
        if op == "FOR_ITER":
            raise Mismatch("FOR_ITER outside a loop header", function=self.code.co_name,
                           opname=op, offset=last.offset)
        raise Mismatch("unsupported control instruction", function=self.code.co_name,
                       opname=op, offset=last.offset)

    def _bare_jump_out(self, bid, ctx):
        """Whether block ``bid``, outside the try region being emitted, is only a jump to
        where that region ends or to the loop's follow or head (3.13 leaves the jump
        after an inner clause's POP_EXCEPT unprotected): the same way out as a jump
        there from inside, not a path escaping through clean-up code."""
        to = self.cfg.through_jumps(bid)
        if to == bid:
            return False
        ends = {ctx.region_exit}
        if ctx.loop is not None:
            ends |= {ctx.loop.follow} | set(ctx.loop.continue_targets)
        return to in ends - {None}

    def _send(self, stack):
        """`await x` / `yield from x` (3.11+): the send/yield loop is one expression."""
        stack.pop()  # the value sent in first (None)
        it = stack.pop()
        result = E.yield_from_expr(it)
        stack.extend([it, result] if V.SEND_KEEPS_ITER else [result])

    def _loop_arm_return(self, bid, ctx, stack):
        """The `return` of an arm of a loop body inside a try or with statement that
        leaves the region at its exit ``bid`` with the value on the stack: through the
        with's exit call, or straight into the RETURN_VALUE (3.11+ leaves it unprotected,
        up to 3.10 it follows POP_BLOCK), or through the copy of a finally body. Its
        statements, or None for any other way out (a loop's own value on top, the
        iterator of a for loop in the body, is no value returned)."""
        if not stack or not isinstance(stack[-1], ast.expr) or isinstance(stack[-1], M.Marker):
            return None
        ret = self._return_through_with_exit(bid, ctx, stack)
        if ret is not None or ctx.handler is None:
            return None if ret is None else [ret]
        base = self._try_depth.get(ctx.handler.target)
        blk = self.cfg[self._past_pop_blocks(bid)] if bid in self.cfg.blocks else None
        if blk is None or base is None or len(stack) != base + 1:
            return None
        if [i.opname for i in blk.instrs] == ["RETURN_VALUE"]:
            return [self._return(blk.last, stack[-1])]
        return self._loop_arm_return_through_finally(bid, ctx, stack)

    def _return(self, ins, value):
        """The return statement of RETURN_VALUE ``ins``, marked with what its encoding
        says: ``_const_stmt`` for a `return <constant>` statement (RETURN_CONST), and
        ``_ifexp_arm`` for a constant returned by a copied `return`, which only a
        conditional expression's arm leaves behind (see ``V.RETURN_CONST_FUSED``)."""
        node = ast.Return(value=value)
        load = self.cfg.instrs[ins.index - 1] if ins.index > 0 else None
        if V.EXIT_BLOCKS_COPIED and load is not None and load.opname == "LOAD_CONST" and \
                load.argval is None and isinstance(value, ast.Constant) and value.value is None \
                and ins.index > 1:
            # the compiler's `return None` at the end of the function, copied (3.10+) to
            # the end of an arm that falls off it: no line of its own (up to 3.9 a
            # `return` in a finally body, after its POP_FINALLY, looks the same)
            # (and no line of a statement that ran into it: not after a jump, nor after
            # the clean-up of an `except ... as e` that an explicit `return` runs first)
            prev = self.cfg.instrs[ins.index - 2]
            facts.note(node, Fact.IMPLICIT, (load.line is None or load.line == prev.line) and
                       prev.target is None and prev.opname not in V.NOT_BEFORE_IMPLICIT_RETURN)
        if V.RETURN_CONST_FUSED:
            facts.note(node, Fact.CONST_STMT, ins.extra == "const")
            prev = self.cfg.instrs[ins.index - 1] if ins.index > 0 else None
            facts.note(node, Fact.IFEXP_ARM,
                       not facts.get(node, Fact.CONST_STMT) and prev is not None and
                       prev.opname == "LOAD_CONST" and
                       self.cfg.block_at[prev.index] == self.cfg.block_at[ins.index])
        elif V.RETURN_ARM_BY_LINE and load is not None and load.opname == "LOAD_CONST" and \
                self.cfg.block_at[load.index] == self.cfg.block_at[ins.index]:
            # (a line start on the load, or on what the return runs first: a loop's POP_TOP)
            first = self.cfg[self.cfg.block_at[load.index]].instrs[0].index
            stmt = any(i.offset in self._line_starts for i in self.cfg.instrs[first:load.index + 1]) \
                or facts.get(node, Fact.IMPLICIT, False)
            facts.note(node, Fact.CONST_STMT, stmt)
            facts.note(node, Fact.IFEXP_ARM, not stmt)
        return node

    def _raise(self, argc, stack):
        cause = stack.pop() if argc >= 2 else None
        exc = stack.pop() if argc >= 1 else None
        return ast.Raise(exc=exc, cause=cause)

    def _continue_partial(self, blk, rest_instrs, ctx, stack, out):
        """Execute the remainder of a block, then hand the next block to the caller."""
        if not rest_instrs:
            return out, self.cfg.fall(blk), stack
        last = rest_instrs[-1]
        control = last.opname in COND_JUMPS or last.opname in TERMINATORS or last.opname == "FOR_ITER"
        self.ex.run(rest_instrs[:-1] if control else rest_instrs, stack, out)
        if not control:
            return out, self.cfg.fall(blk), stack
        op = last.opname
        if op == "JUMP":
            return out, self.cfg.target(last), stack
        if op == "RETURN_VALUE":
            out.append(self._return(last, stack.pop()))
            return out, None, None
        if op == "RAISE_VARARGS":
            out.append(self._raise(last.arg, stack))
            return out, None, None
        if op == "RERAISE":
            out.append(reraise())
            return out, None, None
        if op in COND_JUMPS:
            stmts, nxt, st = self.emit_branch(blk, ctx, stack)
            return out + stmts, nxt, st
        raise Mismatch("unexpected instruction after a with exit", opname=op,
                       offset=last.offset, function=self.code.co_name)
