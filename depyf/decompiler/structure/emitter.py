"""Stage 3: structuring the control-flow graph into statements.

``Emitter.seq`` walks blocks from an entry to a stop block, executing each block
symbolically (``symbolic.Executor``) and turning branches, loops and protected regions
into ``ast`` statements:

* a conditional jump becomes ``if``/``else`` whose arms end at the branches' nearest
  common postdominator (or a value-producing conditional expression when the arms only
  leave values on the stack: ``and``/``or``/ternaries/chained comparisons);
* a block targeted by a backward jump heads a loop (``for`` over FOR_ITER, else ``while``);
  jumps to the loop head or to its exit inside the body are ``continue``/``break``;
* a block covered by an exception handler starts a ``try`` (or ``with``) region; the
  handler's code is structured like any other code and then read back as except clauses.

Idioms the compiler leaves behind (with-exit calls and finally bodies copied onto every
exit path, exception-name cleanup) are emitted as pseudo statements and removed by
``rewrite``.
"""
import ast

from ..mismatch import Mismatch
from . import patterns
from ..symbolic import markers as M
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.cfg import CFG
from ..flow.instructions import COND_JUMPS, EXPLICIT_BACK, IMPLICIT_BACK, TERMINATORS
from ..symbolic.markers import Marker
from .. import facts
from ..facts import Fact



class Ctx:
    """Where a statement sequence is being emitted: what ends it, what break/continue mean."""

    __slots__ = ("stop", "loop", "handler", "region", "region_exit", "escape", "clause_base")

    def __init__(self, stop=None, loop=None, handler=None, region=None, region_exit=None, escape=None,
                 clause_base=None):
        self.stop = stop
        self.loop = loop
        self.handler = handler
        self.region = region
        self.region_exit = region_exit
        self.escape = escape  # ctx to emit escaping paths (return/break through cleanup) in
        # in except clauses: the stack depth of the try statement (one value above it
        # where a clause ends is the value of a `return` in it, on its way out)
        self.clause_base = clause_base

    def but(self, **kw):
        c = Ctx(self.stop, self.loop, self.handler, self.region, self.region_exit, self.escape,
                self.clause_base)
        for k, v in kw.items():
            setattr(c, k, v)
        return c

    def sinks(self):
        s = set()
        if self.stop is not None:
            s.add(self.stop)
        if self.loop is not None:
            s.update(self.loop.continue_targets)
            if self.loop.retests:
                s.add(self.loop.body_start)
            if self.loop.follow is not None:
                s.add(self.loop.follow)
        if self.region_exit is not None:
            s.add(self.region_exit)
        return s


class Loop:
    __slots__ = ("header", "follow", "body", "continue_targets", "retests", "body_start")

    def __init__(self, header, follow, body, continue_targets, retests=(), body_start=None):
        self.header = header
        self.follow = follow
        self.body = body
        self.continue_targets = continue_targets
        # blocks that end the body by testing the loop's condition again (3.10+ `while`):
        # their statements, then `continue`; their jump back to ``body_start`` is one
        self.retests = frozenset(retests)
        self.body_start = body_start


class Emitter:
    def __init__(self, code, instrs, entries, executor, merge_tails=False):
        self.code = code
        # joining copied exits helps rebuild compiler output; Dynamo's arms keep values on
        # the stack up to their own return, so temporaries mode keeps the blocks apart
        self.matches = patterns.find_matches(instrs)
        starts = _after_except_star(instrs) | _after_with_suppress(instrs)
        for m in self.matches.values():
            starts |= m.leaders()
        self.cfg = CFG(instrs, entries, merge_exits=not executor.temps,
                       merge_tails=merge_tails and not executor.temps, extra_leaders=starts)
        self.ex = executor
        self._dom = self.cfg.dominators()  # (dominator bit masks, block index)
        # handler target -> the blocks it protects
        self._protected = {}
        for blk in self.cfg.blocks.values():
            if blk.handler is not None:
                self._protected.setdefault(blk.handler.target, []).append(blk.id)
        self._region_cache = {}  # (start, target) of an entry -> ``region_of`` it
        self._find_loops()
        self._classify_handlers()
        self._emitting_loops = set()
        self._active = set()  # seq calls in progress, to refuse endless recursion
        self._clause_returns = 0  # how many except clauses returned through their end

    # -- analysis -----------------------------------------------------------------------------
    def _find_loops(self):
        self.latches = {}
        for blk in self.cfg.blocks.values():
            if blk.last.opname == "FOR_ITER" and len(blk.instrs) == 1:
                self.latches[blk.id] = []  # a for loop, even one whose body never loops back
        dom, index = self._dom
        dead = []
        for blk in self.cfg.blocks.values():
            last = blk.last
            if last.target is None or last.opname not in COND_JUMPS | {"JUMP"}:
                continue
            head = self.cfg.target(last)
            if blk.id in dom and blk.id != self.cfg.order[0] and dom[blk.id] == 1 << index[blk.id]:
                dead.append((blk.id, head))
                continue
            # a back edge goes to a block that dominates its source (handlers placed after
            # the code they return to jump backwards without looping)
            if head in index and blk.id in dom and dom[blk.id] >> index[head] & 1 and \
                    self.cfg[head].last.opname != "SEND":
                self.latches.setdefault(head, []).append(blk.id)
        for bid, head in dead:
            # code nothing reaches (the jump back after a loop's last break) belongs to
            # the loop it jumps to; it makes no loop of its own
            if head in self.latches and bid > head:
                self.latches[head].append(bid)

    def loop_body(self, header):
        """The blocks from which the loop goes back to ``header``; a handler inside the
        loop that goes back is reached from the code it protects (after the header)."""
        dom, index = self._dom
        body = {header}
        work = list(self.latches.get(header, ()))
        while work:
            b = work.pop()
            if b in body:
                continue
            body.add(b)
            work.extend(self.cfg[b].preds)
            work.extend(p for p in self._protected.get(b, ()) if p in dom and dom[p] >> index[header] & 1)
        return body

    def _live_loop_body(self, header):
        """The loop's blocks but dead code (the jump back after its last break, the
        clean-up after a raise in a handler): 3.8/3.9 leave it unprotected even when a
        try statement holds the whole loop."""
        body = self.loop_body(header)
        dom, index = self._dom  # dead code dominates only itself
        return {b for b in body if b == header or b in dom and dom[b] != 1 << index[b]}

    def _classify_handlers(self):
        """Kind of each handler target: 'try', 'with', or 'cleanup' (compiler-internal)."""
        self.handler_kind = {}
        for e in self.cfg.entries:
            if e.target in self.handler_kind or e.target not in self.cfg.blocks:
                continue
            ops = [i.opname for i in self.cfg.instrs[e.target:e.target + 6]]
            if ops[:2] == ["PUSH_EXC_INFO", "WITH_EXCEPT_START"] or ops[:1] in (
                    ["WITH_EXCEPT_START"], ["WITH_CLEANUP_START"]):
                kind = "with"
            elif ops[:1] == ["PUSH_EXC_INFO"]:
                kind = "try"
            elif ops[:1] == ["END_ASYNC_FOR"] or ops[:2] == ["CLEANUP_THROW", "END_SEND"] or \
                    ops[:1] == ["CLEANUP_THROW"]:
                kind = "cleanup"
            elif ops[:1] == ["COPY"] and not V.HAS_EXCEPTION_TABLE:
                kind = "try"
            elif V.HAS_EXCEPTION_TABLE:
                kind = "cleanup"
            else:
                kind = self._classify_old(e.target, ops)
            self.handler_kind[e.target] = kind

    def _classify_old(self, target, ops):
        # up to 3.10: `except E as e` bodies are protected by a cleanup that deletes e
        instrs = self.cfg.instrs[target:target + 5]
        if tuple(i.opname for i in instrs[:3]) in V.EXC_NAME_CLEANUPS:
            if instrs[0].argval is None and instrs[3].opname in V.HANDLER_RERAISES:
                return "cleanup"
        return "try"

    def effective_handler(self, bid):
        """The innermost handler of a block that is a try/with (not compiler cleanup)."""
        e = self.cfg[bid].handler
        seen = set()
        while e is not None and self.handler_kind.get(e.target) == "cleanup":
            if e.target in seen:
                return None
            seen.add(e.target)
            e = self.cfg[e.target].handler if e.target in self.cfg.blocks else None
        return e

    def handler_chain(self, bid):
        chain = []
        e = self.effective_handler(bid)
        while e is not None:
            chain.append(e)
            e = self.effective_handler(e.target) if e.target in self.cfg.blocks else None
        return chain[::-1]  # outermost first

    def region_of(self, entry):
        """Blocks protected by ``entry``, directly or through nested handlers."""
        key = (entry.start, entry.target)
        cache = self._region_cache
        if key in cache:
            return cache[key]
        region = set()
        for bid in self.cfg.order:
            chain = self.handler_chain(bid)
            if any(e.target == entry.target for e in chain):
                region.add(bid)
        cache[key] = region
        return region

    # -- emission -------------------------------------------------------------------------------
    def function_body(self):
        try:
            stmts, _ = self.seq(0, Ctx(), [])
        except IndexError:
            # a path reached an instruction with fewer values on the stack than it takes:
            # the structure chosen does not fit this code
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
            if ctx.loop is not None and not first:
                if bid in ctx.loop.continue_targets:
                    node = ast.Continue()
                    if self._continue_in_clause(came_by):
                        facts.note(node, Fact.EXPLICIT, True)
                    out.append(node)
                    return out, None
                if bid == ctx.loop.follow:
                    out.append(ast.Break())
                    return out, None
                if bid in ctx.loop.retests:
                    self.ex.run(self.cfg[bid].instrs[:-1], stack, out)
                    stack.pop()  # the test, evaluated again at the head
                    out.append(ast.Continue())
                    return out, None
            if ctx.region is not None and bid not in ctx.region:
                if bid == ctx.region_exit or self._bare_jump_to(bid, ctx.region_exit) and not (
                        ctx.loop is not None and ctx.loop.header in ctx.region):
                    # (from a loop inside the region such a jump is a break)
                    return out, stack
                if self._bare_jump_out(bid, ctx):
                    bid = self.cfg.through_jumps(bid)
                    continue
                # an escaping path (return/break/continue through cleanup code)
                more, st = self.seq(bid, ctx.escape, stack)
                out.extend(more)
                return out, st
            enter_now, first = first, False
            blk = self.cfg[bid]
            eff = self.effective_handler(bid)
            if not _same_entry(eff, ctx.handler):
                chain = self.handler_chain(bid)
                outer_pos = 0
                if ctx.handler is not None:
                    for k, e in enumerate(chain):
                        if _same_entry(e, ctx.handler):
                            outer_pos = k + 1
                            break
                loop_first = (bid in self.latches and bid not in self._emitting_loops and
                              not enter_now and outer_pos < len(chain) and
                              not self._live_loop_body(bid) <= self.region_of(chain[outer_pos]))
                if outer_pos < len(chain) and not loop_first:
                    entry = chain[outer_pos]
                    stmts, bid, stack = self.emit_protected(bid, entry, ctx, stack, enter_now)
                    out.extend(stmts)
                    if stack is None:
                        return out, None
                    continue
            if bid in self.latches and bid not in self._emitting_loops and not enter_now:
                stmts, bid, stack = self.emit_loop(bid, ctx, stack)
                out.extend(stmts)
                if stack is None:
                    return out, None
                continue
            if bid in self.matches and stack:
                done = self.emit_match(self.matches[bid], ctx, stack)
                if done is not None:
                    stmts, bid, stack = done
                    out.extend(stmts)
                    if stack is None:
                        return out, None
                    continue
            body = blk.instrs
            last = blk.last
            if last.opname == "END_FINALLY" and len(body) == 1:
                # 3.8: re-raises a pending exception, or ends a finally body run normally
                if stack and isinstance(stack[-1], M.ExcValue):
                    out.append(_reraise())
                    return out, None
                self.ex.run(body, stack, out)
                bid = self.cfg.fall(blk)
                if bid is None:
                    return out, stack
                continue
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
                bid = self.cfg.fall(blk)
                if bid is None:
                    return out, stack
                continue
            op = last.opname
            if op == "JUMP":
                bid = self.cfg.target(last)
                came_by = last
                continue
            if op == "RETURN_VALUE":
                ret = self._return(last, stack.pop())
                # the function's own last instruction: its implicit `return None`, when
                # a path that falls off the end brings it into a statement
                facts.note(ret, Fact.AT_END, last.index == len(self.cfg.instrs) - 1)
                out.append(ret)
                return out, None
            if op == "RAISE_VARARGS":
                out.append(self._raise(last.arg, stack))
                return out, None
            if op == "RERAISE":
                out.append(_reraise())
                return out, None
            if op in COND_JUMPS:
                stmts, bid, stack = self.emit_branch(blk, ctx, stack)
                out.extend(stmts)
                if stack is None:
                    return out, None
                continue
            if op == "SEND":
                self._send(stack)
                bid = self.cfg.target(last)
                continue
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
        return node

    def _raise(self, argc, stack):
        cause = stack.pop() if argc >= 2 else None
        exc = stack.pop() if argc >= 1 else None
        return ast.Raise(exc=exc, cause=cause)

    # -- branches -------------------------------------------------------------------------------
    def _condition(self, blk, stack):
        """Pop the branch condition; return (test, true_target, false_target, keeps_value)."""
        last = blk.last
        op = last.opname
        fall = self.cfg.fall(blk)
        jump = self.cfg.target(last)
        if op in V.JUMP_OR_POP:
            value = stack[-1]
            if op == "JUMP_IF_FALSE_OR_POP":
                return value, fall, jump, True
            return value, jump, fall, True
        value = stack.pop()
        if op == "POP_JUMP_IF_FALSE":
            return value, fall, jump, False
        if op == "POP_JUMP_IF_TRUE":
            return value, jump, fall, False
        if op == "POP_JUMP_IF_NONE":
            return E.compare(value, ast.Is(), E.const(None)), jump, fall, False
        if op == "POP_JUMP_IF_NOT_NONE":
            return E.compare(value, ast.IsNot(), E.const(None)), jump, fall, False
        raise Mismatch("unknown branch", opname=op, offset=last.offset)

    def emit_branch(self, blk, ctx, stack):
        test, t_true, t_false, keeps = self._condition(blk, stack)
        if keeps:
            # value-context and/or: jump keeps the value, fallthrough pops it
            jump_stack = list(stack)
            stack.pop()
            fall_stack = stack
            if blk.last.opname == "JUMP_IF_FALSE_OR_POP":
                true_stack, false_stack = fall_stack, jump_stack
            else:
                true_stack, false_stack = jump_stack, fall_stack
            return self._value_branch(test, t_true, t_false, true_stack, false_stack, ctx)
        chain = set()  # the blocks that test the further links of a chained comparison
        if isinstance(test, M.ExcMatch):
            pass
        elif _pending(stack) and isinstance(test, ast.Compare) and stack[-1] is test.comparators[-1]:
            chained = self._chained_condition(test, t_true, t_false, stack)
            if chained is not None:
                chain.add(t_true)
                test, t_true, t_false = chained
                stack.pop()
            else:
                return self._value_branch(test, t_true, t_false, list(stack), list(stack), ctx)
        elif _pending(stack) or (stack and stack[-1] is test):
            if _pending(stack) and stack[-1] is not test:
                # the test of a conditional expression: `f(x, a if b and c else d)`
                test, t_true, t_false, folded = self._compound_folded(blk, test, t_true, t_false, ctx, stack)
                try:
                    return self._value_branch(test, t_true, t_false, list(stack), list(stack), ctx)
                except Mismatch:
                    pass
                # 3.9+: a finally body copied between `return x` and its RETURN_VALUE
                # runs its statements while x waits on the stack
                stmts, nxt, st = self._statement_branch(blk, test, t_true, t_false, ctx, stack, folded)
                for node in stmts:
                    facts.note(node, Fact.UNDER_PENDING_VALUE, True)
                return stmts, nxt, st
            return self._value_branch(test, t_true, t_false, list(stack), list(stack), ctx)
        test, t_true, t_false, folded = self._compound_folded(blk, test, t_true, t_false, ctx, stack)
        try:
            return self._statement_branch(blk, test, t_true, t_false, ctx, stack, folded | chain)
        except Mismatch:
            operand = self._bool_operand(test, t_true, t_false, stack)
            if operand is None:
                raise
        return self.emit_branch(operand[0], ctx, operand[1])

    def _bool_operand(self, test, t_true, t_false, stack):
        """3.8/3.9 `(a or b) and r`: a's jump skips b straight to r, and b ends in the
        value-keeping jump of the `and` (likewise `(a and b) or r`). The value of a never
        counts (r follows), so b's block can test `a or b` in its place: returns that
        block and the stack to run its jump with, or None for any other shape."""
        for to_r, to_b in ((t_true, t_false), (t_false, t_true)):
            if to_b not in self.cfg.blocks:
                continue
            bblk = self.cfg[to_b]
            op = bblk.last.opname
            if op not in V.JUMP_OR_POP or self.cfg.fall(bblk) != to_r \
                    or len(bblk.preds) != 1:
                continue
            st, out = list(stack), []
            try:
                self.ex.run(bblk.instrs[:-1], st, out)
            except Mismatch:
                return None
            if out or len(st) != len(stack) + 1:
                return None
            goes_to_r = test if to_r == t_true else E.negate(test)
            if op == "JUMP_IF_FALSE_OR_POP":
                st[-1] = _boolop(ast.Or, goes_to_r, st[-1])
            else:
                st[-1] = _boolop(ast.And, E.negate(goes_to_r), st[-1])
            return bblk, st
        return None

    def _statement_branch(self, blk, test, t_true, t_false, ctx, stack, folded=frozenset()):
        """An if statement on ``test`` (already folded from the blocks ``folded``), its
        arms run from ``stack``."""
        merge = self._branch_merge(test, t_true, t_false, ctx, blk)
        then_first = t_true
        else_first = t_false
        cond = test
        fall = self.cfg.fall(blk)
        own = {self.cfg.target(self.cfg[b].last) for b in folded
               if self._own_continue(b, self.cfg.target(self.cfg[b].last))}
        if own & {t_true, t_false}:
            # a `continue` of its own right after the test is the body of the if
            if t_false in own and t_true not in own:
                then_first, else_first, cond = t_false, t_true, E.negate(test)
        elif t_false == fall and t_true != fall:
            then_first, else_first, cond = t_false, t_true, E.negate(test)
        elif t_true != fall and t_false != fall:
            # both are jumps (compound conditions): the end of the loop body the tests
            # jumped back from is never an arm of its own (3.12+); else the block laid
            # out after the last test is the body (a jump back to a loop head is no
            # body), else the nearer one
            back = self._implicit_back(folded)
            after = self.cfg.fall(self.cfg[max(folded)])
            if t_true in back and t_false not in back:
                then_first, else_first, cond = t_false, t_true, E.negate(test)
            elif t_false in back and t_true not in back:
                pass
            elif after == t_false or (after != t_true and t_false < t_true):
                then_first, else_first, cond = t_false, t_true, E.negate(test)
        dead_jump = self._dead_else_jump(then_first, else_first) if V.KEEPS_DEAD_JUMPS else None
        if dead_jump is not None and merge == ctx.stop:
            merge = self._dead_jump_end(dead_jump, else_first, ctx)
        elif merge == ctx.stop and V.KEEPS_DEAD_JUMPS and not isinstance(test, M.ExcMatch):
            merge = self._else_jump_end(then_first, else_first, ctx)
        while True:
            sub = ctx.but(stop=merge) if merge is not None else ctx
            then_stmts, then_stack = self.seq(then_first, sub, stack)
            if else_first == merge:
                else_stmts, else_stack = [], list(stack)
            else:
                else_stmts, else_stack = self.seq(else_first, sub, stack)
            if (merge is not None and then_stack is not None and else_stack is not None
                    and len(then_stack) == len(else_stack) > len(stack)):
                # a conditional expression whose value is computed inside the arms (3.12+
                # restores the locals an inlined comprehension hid: no statements of its own)
                if not any(not isinstance(x, M.RestoreStmt) for x in then_stmts + else_stmts):
                    merged = [x if x is y else _ifexp(cond, x, y) for x, y in zip(then_stack, else_stack)]
                    return [], merge, merged
                if self._bare_return(merge) and merge != ctx.stop:
                    # arms that return in places and bring a value to the compiler's one
                    # shared `return` elsewhere: each arm returns through it
                    merge = None
                    continue
                raise Mismatch("statements inside a conditional expression",
                               function=self.code.co_name)
            break
        node = ast.If(test=cond, body=then_stmts or [ast.Pass()], orelse=else_stmts)
        if self._skips_through_jump(then_first, ctx) or self._skips_through_jump(else_first, ctx):
            facts.note(node, Fact.TEST_OWN_LINE, True)
        facts.note(node, Fact.JUMPS_IF_TRUE, cond is not test)  # the body is what a true test jumps over
        if V.KEEPS_DEAD_JUMPS and else_stmts:
            # a body that never goes on: `else:` was written exactly when its jump is left
            if dead_jump is not None and not self._jump_statement_end(dead_jump, then_stmts, ctx):
                facts.note(node, Fact.ELSE_KEPT, True)
            elif then_stack is None:
                facts.note(node, Fact.ELSE_KEPT, else_stack is None and self._label_after_return(else_first, ctx))
        if merge is None and ctx.region_exit is not None and \
                then_stack is not None and else_stack is not None and \
                len(then_stack) == len(else_stack) > len(stack) and \
                not all(E.same_expr(x, y) for x, y in zip(then_stack, else_stack)):
            # arms that bring different values to where the enclosing construct ends: a
            # conditional expression cut off there (a try body ends before the
            # RETURN_VALUE of `return a if c else b`, 3.11+); one arm's values would stand
            # for both
            if any(not isinstance(x, M.RestoreStmt) for x in then_stmts + else_stmts):
                raise Mismatch("arms of a branch leave different values",
                               function=self.code.co_name)
            return [], None, [x if x is y else _ifexp(cond, x, y) for x, y in zip(then_stack, else_stack)]
        if merge is None:
            end_stack = None
            if then_stack is not None or else_stack is not None:
                end_stack = then_stack if then_stack is not None else else_stack
            return [node], None, end_stack
        if then_stack is None and else_stack is None:
            # both arms left (return/break/...); the merge block is reached some other way
            return [node], merge, None if merge is None else list(stack)
        st = then_stack if then_stack is not None else else_stack
        return [node], merge, st

    def _skips_through_jump(self, bid, ctx):
        """Whether the arm at ``bid`` is a jump of its own back to the loop head: the
        compiler sends a test straight to the head when the jump back is on the test's
        line, so the test stood on another line than the end of the body (a comprehension
        filter below its element)."""
        if ctx.loop is None or bid not in self.cfg.blocks:
            return False
        blk = self.cfg[bid]
        return len(blk.instrs) == 1 and blk.last.opname == "JUMP" and \
            self.cfg.target(blk.last) in ctx.loop.continue_targets

    def _own_continue(self, bid, target):
        """Whether block ``bid`` ends in a test that jumps back to ``target`` through a
        `continue` statement only that test leads to (3.12+): `if a: continue` +
        `if b: continue` are two statements, not `if a or b: continue`."""
        last = self.cfg[bid].last
        return last.extra == EXPLICIT_BACK and last.opname in COND_JUMPS and self.cfg.target(last) == target

    def _implicit_back(self, bids):
        """Loop heads the condition blocks ``bids`` jump back to as the end of the loop
        body (3.12+: no `continue` statement there, see ``IMPLICIT_BACK``)."""
        out = set()
        for b in bids:
            last = self.cfg[b].last
            if last.extra == IMPLICIT_BACK and last.opname in COND_JUMPS:
                out.add(self.cfg.target(last))
        return out

    def _dead_else_jump(self, then_first, else_first):
        """Up to 3.9: the unreachable jump laid out right before ``else_first`` that ended
        an if body which never goes on (`if c: raise X` `else: ...`), or None."""
        if then_first is None or else_first is None or then_first >= else_first:
            return None
        blk = self.cfg.laid_out_before(else_first)
        if blk is None or blk.id < then_first or len(blk.instrs) != 1 or \
                blk.last.opname != "JUMP" or not self._unreached(blk):
            return None
        return blk

    def _unreached(self, blk):
        """Whether nothing reaches block ``blk`` (3.8: but the end of an except chain, an
        END_FINALLY that only falls through when no exception is on)."""
        return not any(e.target == blk.id for e in self.cfg.entries) and \
            all(self.cfg[p].instrs[-1].opname == "END_FINALLY" for p in blk.preds)

    def _jump_statement_end(self, dead_jump, then_stmts, ctx):
        """Whether the dead jump may be the `continue`/`break` ending the if body itself
        (its other jumps were threaded past it) rather than the jump over an `else`: it
        goes where that statement goes, and the body does not visibly end otherwise."""
        loop = ctx.loop
        target = self.cfg.target(dead_jump.last)
        if loop is None:
            return False
        if target in loop.continue_targets:
            # (right after a body's own `continue`, a dead jump back is the jump over an
            # else: the end of the if statement ends the loop body)
            ends = (ast.Return, ast.Raise, ast.Break)
            before = self.cfg.laid_out_before(dead_jump.id)
            if before is not None and before.preds and before.last.opname == "JUMP" and \
                    self.cfg.target(before.last) == target:
                ends += (ast.Continue,)
        elif target == loop.follow:
            # (after a `continue`, a dead jump out of the loop is a `break` statement)
            ends = (ast.Return, ast.Raise, ast.Break)
        else:
            return False
        return not (then_stmts and isinstance(then_stmts[-1], ends))

    def _label_after_return(self, else_first, ctx):
        """Up to 3.9 the peephole optimizer drops what follows a `return` up to the next
        jump target: unreachable code right after the else code's last `return` shows
        that the if statement ended there (its end was a jump target), so it had an else."""
        before = self.cfg.laid_out_before(else_first)
        if before is None or before.last.opname != "RETURN_VALUE":
            return False  # the body's jump over the else would be left after anything else
        arm = self.cfg.reachable(else_first, ctx.sinks(), ctx.region)
        if not arm:
            return False
        k = self.cfg.order.index(else_first)
        while k < len(self.cfg.order) and self.cfg.order[k] in arm:
            k += 1
        if k >= len(self.cfg.order):
            return False
        blk = self.cfg[self.cfg.order[k]]
        return self.cfg.laid_out_before(blk.id).last.opname == "RETURN_VALUE" and \
            blk.id > max(arm) and self._unreached(blk)

    def _else_jump_end(self, then_first, else_first, ctx):
        """Up to 3.9, where `if c: A` `else: B` ends when only A goes on: the target of the
        jump ending A (laid out right before B), when B never goes on past it. (3.10+
        moves such code; its jumps say less.)"""
        if then_first is None or else_first is None or then_first >= else_first:
            return ctx.stop
        blk = self.cfg.laid_out_before(else_first)
        if blk is None or blk.id < then_first or blk.last.opname != "JUMP":
            return ctx.stop
        end = self.cfg.target(blk.last)
        sinks = ctx.sinks()
        if end is None or end <= else_first or end in sinks or \
                (ctx.stop is not None and end > ctx.stop) or \
                (ctx.region is not None and end not in ctx.region) or \
                (ctx.loop is not None and end not in ctx.loop.body):
            return ctx.stop
        if any(b >= end for b in self.cfg.reachable(else_first, sinks, ctx.region)):
            return ctx.stop
        return end

    def _dead_jump_end(self, blk, else_first, ctx):
        """Where the if statement whose body ended in the dead jump ``blk`` ends: the
        jump's target when the else code goes on to it within the enclosing construct,
        else where that construct ends."""
        end = self.cfg.target(blk.last)
        if end is None or end <= else_first or (ctx.stop is not None and end > ctx.stop):
            return ctx.stop
        if end not in self.cfg.reachable(else_first, ctx.sinks() - {end}, ctx.region):
            return ctx.stop
        return end

    def _bare_return(self, bid):
        """Whether block ``bid`` only returns the value on top of the stack."""
        return bid in self.cfg.blocks and [i.opname for i in self.cfg[bid].instrs] == ["RETURN_VALUE"]

    def _trial_condition(self, blk, stack):
        """Run a block that ends in a conditional jump on a copy of ``stack``: its
        (test, true target, false target, stack after) when it only computes the test
        (no statements, a popping jump), else None."""
        st = list(stack)
        out = []
        try:
            self.ex.run(blk.instrs[:-1], st, out)
            test, t_true, t_false, keeps = self._condition(blk, st)
        except Mismatch:
            return None
        if out or keeps:
            return None
        return test, t_true, t_false, st

    def _chained_condition(self, test, t_true, t_false, stack):
        """`if a < b < c:` keeps b on the stack; the false path pops it in a cleanup block."""
        if t_true not in self.cfg.blocks or t_false not in self.cfg.blocks:
            return None
        clean = self.cfg[t_false]
        ops = [i.opname for i in clean.instrs]
        if ops in (["POP_TOP", "JUMP"], ["POP_TOP"]) and len(clean.succs) == 1:
            false_target = clean.succs[0]  # (a copied exit there is merged with its original)
        elif ops[0] == "POP_TOP" and len(ops) > 1 and not clean.succs:
            # 3.10+ pasted the false arm (a `raise`, a `return`) after the cleanup's POP_TOP
            false_target = None
        else:
            return None
        blk = self.cfg[t_true]
        if blk.last.opname not in COND_JUMPS or len(blk.preds) != 1:
            return None
        trial = self._trial_condition(blk, stack)
        if trial is None:
            return None
        t2, tt, tf, st = trial
        if not isinstance(t2, ast.Compare) or t2.left is not stack[-1]:
            return None
        if blk.last.opname in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE") and false_target is not None \
                and self.cfg.through_jumps(tt) == self.cfg.through_jumps(false_target):
            # 3.11+ folds a last link `is None` into the jump, which goes where the
            # chain is false: `x is y is None` jumps away when not None
            flip = {ast.Is: ast.IsNot, ast.IsNot: ast.Is}[type(t2.ops[0])]
            t2, tt, tf = ast.Compare(left=t2.left, ops=[flip()], comparators=t2.comparators), tf, tt
        joined = ast.Compare(left=test.left, ops=test.ops + t2.ops,
                             comparators=test.comparators + t2.comparators)
        if len(st) == len(stack) and st[-1] is t2.comparators[-1] and tf == t_false:
            deeper = self._chained_condition(joined, tt, tf, st)
            return deeper
        if len(st) != len(stack) - 1:
            return None
        if false_target is None:
            if tf in self.cfg.blocks and _same_code(self.cfg[tf].instrs, clean.instrs[1:]):
                return joined, tt, tf
        elif self.cfg.through_jumps(tf) == self.cfg.through_jumps(false_target):
            return joined, tt, tf
        return None

    def _handler_goes_on_to(self, arm, other, ctx):
        """3.12+: where the except clauses of a try in ``arm`` go on after the handler
        (laid out after all the code, it jumps back) when that is the ``other`` arm's
        block: the arm's body returns, its handler meets the other arm there."""
        sinks = ctx.sinks()
        for b in sorted(self.cfg.reachable(arm, sinks, ctx.region)):
            entry = self.cfg[b].handler
            if entry is None or _same_entry(entry, ctx.handler):
                continue
            after = self._after_handlers(entry, sinks, None)
            if after is not None and after == other and after < entry.target:
                return after
            return None
        return None

    def _branch_merge(self, test, t_true, t_false, ctx, blk=None):
        """Where the two arms of a branch meet again."""
        merge = self.cfg.postdominator_merge([t_true, t_false], ctx.sinks(), ctx.region)
        found = merge is not None
        if merge is None and not isinstance(test, M.ExcMatch):
            # arms that return in places and go on elsewhere: meet where the rest goes on
            merge = self.cfg.first_common(t_true, t_false, ctx.sinks(), ctx.region)
        if merge is None and not isinstance(test, M.ExcMatch) and V.HANDLERS_AT_END:
            merge = self._handler_goes_on_to(t_true, t_false, ctx) or \
                self._handler_goes_on_to(t_false, t_true, ctx)
        if merge is None and blk is not None and not isinstance(test, M.ExcMatch):
            merge = self._jumped_over_else(blk, t_true, t_false, ctx)
        if merge is None and ctx.stop is None and not isinstance(test, M.ExcMatch):
            # an arm whose try body returns goes on only through its except clauses
            both = self._reach_with_handlers(t_true, ctx) & self._reach_with_handlers(t_false, ctx)
            both = {b for b in both if self.cfg[b].succs and not self._only_raises(b)
                    and _same_entry(self.effective_handler(b), ctx.handler)}
            merge = min(both) if both else None
        if merge is not None and not found and \
                any(self._ends_around(t, merge, ctx) for t in (t_true, t_false)):
            merge = None
        # otherwise they meet where the enclosing construct (or expression) ends
        return ctx.stop if merge is None else merge

    def _ends_around(self, bid, merge, ctx):
        """Whether a path from ``bid`` reaches the end of the enclosing try or with body
        without passing ``merge``: then the arms do not meet there (`if c: while c: ...
        break ... else: E` `else: E` at the end of a with body: the break leaves for the
        exit, and E, where the else arm and the loop's normal end meet, must not follow
        the if). (Not the end of an expression: and/or arms jump straight there.)"""
        end = ctx.region_exit
        if end is None or merge == end:
            return False
        seen = self.cfg.reachable(bid, ctx.sinks() | {merge}, ctx.region)
        return any(s == end for b in seen for s in self.cfg[b].succs)

    def _reach_with_handlers(self, bid, ctx):
        """Blocks reached from ``bid``, the handlers of try statements met on the way
        included (not the handler of the construct being emitted)."""
        seen, work = set(), [bid]
        sinks = ctx.sinks()
        while work:
            b = work.pop()
            if b in seen or b in sinks or b not in self.cfg.blocks or \
                    (ctx.region is not None and b not in ctx.region):
                continue
            seen.add(b)
            blk = self.cfg[b]
            work.extend(blk.succs)
            if blk.handler is not None and not _same_entry(blk.handler, ctx.handler):
                work.append(blk.handler.target)
        return seen

    def _jumped_over_else(self, blk, t_true, t_false, ctx):
        """The block after `if c: A else: B` where B never goes on (returns, raises):
        the compiler lays out A, a jump forward over B, B, then the rest, so A's jump
        past B shows where the statement ends. (Had the rest belonged in A, it would
        follow A directly, with B after it.) None where the layout says otherwise: A
        must be one stretch of the layout right after the test, B (or copies of its
        blocks) the stretch that A jumps over."""
        arms = [t for t in (t_true, t_false) if t is not None and t > blk.id]
        if t_true == t_false or not arms:
            return None
        first = min(arms)
        other = t_false if first == t_true else t_true
        sinks = ctx.sinks()
        if other is None or first in sinks or other in sinks:
            return None
        then_arm = {b for b in self.cfg.reachable(first, sinks | {other}, ctx.region) if b < other}
        end = max(then_arm) if then_arm else None
        if end is None or self.cfg[end].last.opname != "JUMP":
            return None
        after = self.cfg.target(self.cfg[end].last)
        if after is None or after <= end or after in sinks:
            return None
        else_arm = self.cfg.reachable(other, sinks, ctx.region)
        live = [b for b in self.cfg.order if b not in self.cfg.alias]
        if {b for b in live if first <= b <= end} != then_arm or not else_arm or after in else_arm:
            return None
        gap = [self.cfg.alias.get(b, b) for b in self.cfg.order if end < b < after]
        if not gap or any(b not in else_arm for b in gap):
            return None
        if any(s not in then_arm and s != after for b in then_arm for s in self.cfg[b].succs):
            return None
        return after

    def _value_branch(self, test, t_true, t_false, true_stack, false_stack, ctx):
        merge = self._branch_merge(test, t_true, t_false, ctx)
        try:
            return self._value_arms(test, t_true, t_false, true_stack, false_stack, ctx, merge)
        except Mismatch:
            if merge is None or not self._bare_return(merge):
                raise
        # an arm returns its value itself while the other brings it to a `return` of its
        # own (`return a < b < c or d`: the chain's cleanup lies after the return it falls
        # into): both arms return, and the value is the conditional expression of the two
        return self._value_arms(test, t_true, t_false, true_stack, false_stack, ctx, None)

    def _value_arms(self, test, t_true, t_false, true_stack, false_stack, ctx, merge):
        sub = ctx.but(stop=merge) if merge is not None else ctx
        a_stmts, a_stack = self.seq(t_true, sub, true_stack)
        b_stmts, b_stack = self.seq(t_false, sub, false_stack)
        if merge is None:
            # both arms return or raise (3.11+ copies the end of the statement into each
            # arm): one statement, the conditional expression where the two differ
            if (len(a_stmts) == 1 and len(b_stmts) == 1 and a_stack is None and b_stack is None
                    and isinstance(a_stmts[0], (ast.Return, ast.Raise))):
                stmt = _merge_exits(test, a_stmts[0], b_stmts[0])
                if stmt is not None:
                    return [stmt], None, None
            if (ctx.stop is None and ctx.region_exit is not None and not (a_stmts or b_stmts)
                    and a_stack is not None and b_stack is not None and len(a_stack) == len(b_stack)):
                # both arms bring the value out of a protected region (3.11+: the `return`
                # of `return a and b` in a try body lies after the region)
                return [], ctx.region_exit, _merge_stacks(test, a_stack, b_stack)
            raise Mismatch("conditional expression whose arms do not meet",
                           function=self.code.co_name)
        if a_stmts or b_stmts or a_stack is None or b_stack is None or len(a_stack) != len(b_stack):
            if a_stack is None and b_stack is not None and not b_stmts and not a_stmts:
                return [], merge, b_stack
            raise Mismatch("statements inside a conditional expression",
                           function=self.code.co_name)
        return [], merge, _merge_stacks(test, a_stack, b_stack)

    def _compound(self, blk, test, t_true, t_false, ctx, stack):
        """Fold short-circuit conditions (`a and b`, `a or not b`, ...) into one test.

        A block joins the test when only the blocks folded so far (starting with ``blk``)
        reach it: in `(a and b) or c`, both a and b jump to c. A block that starts a
        compound test of its own joins as a whole: `a or (b and c)`."""
        return self._compound_folded(blk, test, t_true, t_false, ctx, stack)[:3]

    def _compound_folded(self, blk, test, t_true, t_false, ctx, stack, depth=0):
        folded = {blk.id}
        changed = True
        while changed:
            changed = False
            for side in ("true", "false"):
                nxt = t_true if side == "true" else t_false
                if nxt in ctx.sinks() or nxt not in self.cfg.blocks:
                    continue
                nblk = self.cfg[nxt]
                if not set(nblk.preds) <= folded or nblk.last.opname not in COND_JUMPS or \
                        nblk.last.opname in V.JUMP_OR_POP:
                    continue
                if nxt in self.latches or (ctx.region is not None and nxt not in ctx.region):
                    continue
                if not _same_entry(self.effective_handler(nxt), ctx.handler):
                    continue
                trial = self._trial_condition(nblk, stack)
                if trial is None:
                    continue
                t2, tt, tf, sub_stack = trial
                if len(sub_stack) != len(stack) or isinstance(t2, M.ExcMatch):
                    continue
                shared = t_true if side == "false" else t_false
                if any(self._own_continue(b, shared) for b in folded | {nxt}):
                    continue
                inner = {nxt}
                if not ({tt, tf} & {t_true, t_false}) and depth < 8:
                    # the block's own targets are further tests: fold those first
                    t2, tt, tf, inner = self._compound_folded(nblk, t2, tt, tf, ctx, stack, depth + 1)
                if side == "false":  # reached when test is false
                    if tt == t_true:
                        test, t_false = _boolop(ast.Or, test, t2), tf
                    elif tf == t_true:
                        test, t_false = _boolop(ast.Or, test, E.negate(t2)), tt
                    else:
                        continue
                else:  # reached when test is true
                    if tf == t_false:
                        test, t_true = _boolop(ast.And, test, t2), tt
                    elif tt == t_false:
                        test, t_true = _boolop(ast.And, test, E.negate(t2)), tf
                    else:
                        continue
                folded |= inner
                changed = True
                break
        return test, t_true, t_false, folded

    # -- match statements -----------------------------------------------------------------------
    def emit_match(self, m, ctx, stack):
        """A `match` found by ``patterns.find_matches`` (the subject on top of ``stack``);
        None when the code around it does not fit, to emit it as ordinary code instead."""
        subject, rest = stack[-1], stack[:-1]
        try:
            pats = [c.pattern() for c in m.cases]
        except patterns.NotAMatch:
            return None
        alias = self.cfg.alias
        fail = alias.get(m.fail, m.fail)
        cases = []  # (pattern, guard, body block)
        for c, pat in zip(m.cases, pats):
            body = alias.get(c.body, c.body)
            guard = None
            if c.guard is not None:
                guard = self._guard_towards(c.guard, rest + [subject], ctx,
                                            alias.get(c.body - 1, c.body - 1), alias.get(c.next, c.next))
                if guard is None:
                    return None
            elif c.next is None and body in self.cfg.blocks and body not in self.latches:
                found = self._guard(body, rest, ctx)  # the last case: a guard or the body's if?
                if found is not None and fail is not None and found[1] == fail:
                    found = (E.negate(found[0]), found[2], found[1])
                if found is not None and (fail is None or found[2] == fail):
                    guard, body, fail = found
            cases.append((pat, guard, body))
        starts = [b for _, _, b in cases] + ([fail] if fail is not None else [])
        sinks = ctx.sinks()
        follow = self.cfg.postdominator_merge(starts, sinks, ctx.region)
        if follow is None and fail is not None and any(
                fail in self.cfg.reachable(b, sinks, ctx.region) for _, _, b in cases):
            follow = fail  # some bodies return, the others go on after the match
        if follow is None:
            follow = self.cfg.postdominator_merge(starts, sinks, ctx.region, ignore_terminal=True)
        if follow is None:
            # the bodies go on where the enclosing construct ends (or all leave): code a
            # failed match runs is a `case _:` unless it is that place itself
            follow = ctx.stop
        sub = ctx.but(stop=follow) if follow is not None else ctx
        out = []
        for pat, guard, body in cases:
            stmts, _ = self.seq(body, sub, rest)
            out.append(ast.match_case(pattern=pat, guard=guard, body=stmts or [ast.Pass()]))
        after = follow
        if fail is not None and follow is not None and fail != follow:
            stmts, _ = self.seq(fail, sub, rest)  # `case _:`
            out.append(ast.match_case(pattern=ast.MatchAs(pattern=None, name=None), guard=None,
                                      body=stmts or [ast.Pass()]))
        elif fail is not None:
            after = fail  # nothing matched: go on after the match statement
        node = ast.Match(subject=subject, cases=out)
        return [node], after, (list(rest) if after is not None else None)

    def _guard(self, bid, stack, ctx):
        """(test, true target, false target) when block ``bid`` starts a condition that
        leaves ``stack`` as it found it, else None."""
        blk = self.cfg[bid]
        if blk.last.opname not in COND_JUMPS or blk.last.opname in V.JUMP_OR_POP:
            return None
        trial = self._trial_condition(blk, stack)
        if trial is None:
            return None
        test, t_true, t_false, after = trial
        if len(after) != len(stack) or any(a is not b for a, b in zip(after, stack)):
            return None
        return self._compound(blk, test, t_true, t_false, ctx, stack)

    def _guard_towards(self, bid, stack, ctx, body, fail):
        """The guard test at ``bid`` when it leads to ``body`` (or ``fail`` when false)."""
        found = self._guard(bid, stack, ctx)
        if found is None:
            return None
        test, t_true, t_false = found
        if t_true == fail and t_false == body:
            return E.negate(test)
        return test if (t_true, t_false) == (body, fail) else None

    # -- loops ----------------------------------------------------------------------------------
    def emit_loop(self, header, ctx, stack):
        blk = self.cfg[header]
        body = self.loop_body(header)
        self._emitting_loops.add(header)
        try:
            if blk.last.opname == "FOR_ITER" and len(blk.instrs) == 1:
                return self._emit_for(blk, body, ctx, stack)
            if self._anext_entry(blk) is not None:
                return self._emit_async_for(blk, body, ctx, stack)
            return self._emit_while(blk, body, ctx, stack)
        finally:
            self._emitting_loops.discard(header)

    def _loop_follow(self, body, exits, ctx, for_exit=None):
        cands = set(exits)
        for b in body:
            for s in self.cfg[b].succs:
                if s not in body:
                    cands.add(s)
        cands.discard(None)
        cands |= self._clause_breaks(body)
        # ways out that only raise (`if c: raise`, except clauses that raise, the re-raise
        # when no clause matched) go nowhere: they do not take part in where the loop
        # ends, unlike its own exits (a for loop's end may raise). Only when a break (a
        # jump) is left to show where the loop ends (a loop left by returns only has no
        # end), and that end is not inside the clean-up of a handler a break leaves
        # (3.8-3.10)
        natural = {self.cfg.alias.get(e, e) for e in exits} | ({for_exit} if for_exit else set())
        going = {c for c in cands if c in natural or not self._only_raises(c)}
        if going != cands and any(c in self.cfg.blocks and self.cfg[c].last.opname == "JUMP" for c in going):
            follow = self._follow_of(going, exits, ctx, for_exit)
            if follow is not None and follow in self.cfg.blocks and \
                    self.cfg[follow].instrs[0].opname not in ("POP_EXCEPT", "POP_BLOCK"):
                return follow
        return self._follow_of(cands, exits, ctx, for_exit)

    def _clause_breaks(self, body):
        """Where except clauses of try statements inside the loop ``body`` go on (after
        POP_EXCEPT) outside it: a `break` in the clause. The clause is no part of the
        body (it does not go back to the head), so the body's own edges miss that exit."""
        out = set()
        for target, protected in self._protected.items():
            if target in body or not protected or not set(protected) <= body:
                continue
            entry = self.cfg[protected[0]].handler
            if self.handler_kind.get(target, "try") != "try":
                continue
            after = self._after_handlers(entry, set(), None)
            if after is not None and after not in body:
                out.add(after)
        return out

    def _follow_of(self, cands, exits, ctx, for_exit):
        """Where a loop whose ways out lead to ``cands`` ends."""
        sinks = ctx.sinks()
        if not cands:
            return None
        if for_exit is not None and cands == {for_exit} and for_exit not in sinks and (
                ctx.region is None or for_exit in ctx.region):
            return for_exit  # a for loop without breaks ends where the iterator runs out
        merge = self.cfg.postdominator_merge(sorted(cands), sinks, ctx.region)
        ends = {b for b in (ctx.region_exit, ctx.stop) if b is not None}
        if merge is None and ends:
            # the other ways out return (or leave the try statement) in places: the loop
            # ends where the one path that goes on to the enclosing construct's end resumes
            going = [c for c in cands if self._goes_on(c, ends, sinks, ctx.region)]
            start = going[0] if len(going) == 1 else None
            if start is not None and start not in {self.cfg.alias.get(e, e) for e in exits}:
                # a break: its arm ends jumping past the loop (an arm that falls on
                # does not tell where the loop ends)
                last = self.cfg[start].last
                start = self.cfg.target(last) if last.opname == "JUMP" else None
            # (a break that only cleans up on its way to the end is the rule below)
            if start is not None and start not in sinks and not self._only_cleanup_to(start, ends) \
                    and _same_entry(self.effective_handler(start), ctx.handler):
                return start
        if merge is None:
            # breaks that leave for where the enclosing try body or statement ends (3.11+
            # jumps there directly, through any finally copies), or for the head or exit of
            # the enclosing loop (a jump to a jump is threaded: `break` as the last thing of
            # an outer loop's body goes straight to its head): the loop ends there too
            breaks = cands - {self.cfg.alias.get(e, e) for e in exits}
            ends = [ctx.region_exit, ctx.stop]
            if ctx.loop is not None:
                ends += sorted(ctx.loop.continue_targets) + [ctx.loop.follow]
            for end in ends:
                if end is not None and any(self._leaves_to(c, end, sinks, ctx.region) for c in breaks):
                    return end
        return merge

    def _only_raises(self, bid):
        """Whether every path from block ``bid`` ends in a raise."""
        if bid not in self.cfg.blocks:
            return False
        for b in self.cfg.reachable(bid, set()):
            blk = self.cfg[b]
            if not blk.succs and blk.last.opname not in V.RAISES:
                return False
        return True

    def _only_cleanup_to(self, bid, ends):
        """Whether block ``bid`` leads to one of ``ends`` dropping values on the way, and
        nothing else (a break that leaves for where the enclosing construct ends)."""
        seen = set()
        while bid not in ends:
            if bid in seen or bid not in self.cfg.blocks:
                return False
            seen.add(bid)
            blk = self.cfg[bid]
            if len(blk.succs) != 1 or any(i.opname not in V.CLEANUP_ONLY for i in blk.instrs):
                return False
            bid = blk.succs[0]
        return True

    def _goes_on(self, bid, ends, sinks, region):
        """Whether a path from ``bid`` reaches one of ``ends`` (some of ``sinks``)."""
        if bid in ends:
            return True
        reach = self.cfg.reachable(bid, sinks, region)
        return any(s in ends for b in reach for s in self.cfg[b].succs)

    def _leaves_to(self, bid, end, sinks, region):
        """Whether a path from ``bid`` reaches ``end`` (one of ``sinks``), also through
        a bare jump outside ``region`` (3.13 leaves the jump after a POP_EXCEPT in an
        enclosing try body unprotected)."""
        if bid == end:
            return True
        reach = self.cfg.reachable(bid, sinks, region)
        return any(s == end or self.cfg.through_jumps(s) == end
                   for b in reach for s in self.cfg[b].succs)

    def _emit_for(self, blk, body, ctx, stack):
        # (3.13 copies a small exit after the loop into each `break`: the copies are one)
        exit_ = self.cfg.target(blk.last)
        it = stack.pop()
        is_async = False
        if isinstance(it, M.GetIter):
            is_async = it.is_async
            iter_expr = it.value
        else:
            iter_expr = it
            it = M.GetIter(it)
        follow = self._loop_follow(body, [exit_], ctx, for_exit=self.cfg.alias.get(exit_, exit_))
        if follow is None:
            follow = exit_
        loop = Loop(blk.id, follow, body, {blk.id})
        inner = ctx.but(loop=loop, stop=None)
        body_stmts, _ = self.seq(blk.end, inner, stack + [it, M.ForItem()])
        target, body_stmts = _take_target(body_stmts)
        orelse = []
        if follow != exit_:
            orelse, _ = self.seq(exit_, ctx.but(stop=follow), stack)
        node = (ast.AsyncFor if is_async else ast.For)(
            target=target, iter=iter_expr, body=body_stmts or [ast.Pass()], orelse=orelse,
            type_comment=None)
        inlined = self._inlined_comprehension(node, stack, iter_expr)
        if inlined is not None:
            return [], follow, inlined
        return [node], follow, stack

    def _inlined_comprehension(self, loop, stack, iter_expr):
        """3.12+ inlines list/set/dict comprehensions: a (async) for loop that appends to
        the display below its iterator builds a value. The stack with that value, or None."""
        acc = stack[-1] if stack else None
        if V.INLINED_COMPREHENSIONS and isinstance(acc, (ast.List, ast.Set, ast.Dict)) and \
                _appends_to(loop.body, acc):
            from ..rewrite.comprehensions import comprehension_from_body
            from ..rewrite.rules import _fix
            return stack[:-1] + [comprehension_from_body(self.code, _fix([loop]), iter_expr)]
        return None

    def _anext_entry(self, blk):
        """The exception entry ending an `async for` whose head is ``blk``, or None."""
        for ins in self.cfg.instrs[blk.id:blk.id + 3]:
            if ins.opname == "GET_ANEXT":
                e = self.cfg[self.cfg.block_at[ins.index]].handler
                if e is not None and self.cfg.instrs[e.target].opname == "END_ASYNC_FOR":
                    return e
        return None

    def _emit_async_for(self, blk, body, ctx, stack):
        """`async for`: GET_ANEXT + await at the head; StopAsyncIteration ends the loop in
        an END_ASYNC_FOR handler, which continues after the loop."""
        entry = self._anext_entry(blk)
        it = stack[-1]
        iter_expr = it.value if isinstance(it, M.GetIter) else it
        if not isinstance(it, M.GetIter):
            # an async comprehension's `.0` is the async iterator already; below the loop
            # body it is the loop's iterator, not a value waiting to be used
            stack = stack[:-1] + [M.GetIter(it, is_async=True)]
        after = self.cfg.fall(self.cfg[entry.target])
        follow = self._loop_follow(body, [after] if after is not None else [], ctx) or after
        loop = Loop(blk.id, follow, body, {blk.id})
        body_stmts, _ = self.seq(blk.id, ctx.but(loop=loop, stop=None), stack, enter=True)
        target, body_stmts = _take_target(body_stmts)
        node = ast.AsyncFor(target=target, iter=iter_expr, body=body_stmts or [ast.Pass()],
                            orelse=[], type_comment=None)
        rest = stack[:-1]
        inlined = self._inlined_comprehension(node, rest, iter_expr)
        if inlined is not None:
            return [], follow, inlined
        if after is not None and follow != after:
            node.orelse, _ = self.seq(after, ctx.but(stop=follow), rest)
        return [node], follow, rest

    def _emit_while(self, blk, body, ctx, stack):
        header = blk.id
        latches = self.latches[header]
        # 3.10+ compile `while c:` as `if c: do { body } while (c)`: the latch tests c
        latch = self.cfg[latches[0]] if len(latches) == 1 else None
        classic = self._emit_classic_while(blk, body, ctx, stack)
        if classic is not None:
            return classic
        tested_at_end = latch is not None and latch.last.opname in COND_JUMPS and \
            latch.last.opname not in V.JUMP_OR_POP
        if tested_at_end:
            jump, fall = self.cfg.target(latch.last), self.cfg.fall(latch)
            exit_ = fall if jump == header else jump
            follow = self._loop_follow(body, [exit_], ctx) or exit_
            if not self._guarded(header, body, latch, exit_, stack):
                if self.cfg.through_jumps(exit_) == self.cfg.through_jumps(follow):
                    return self._emit_do_while(blk, body, latch, follow, ctx, stack)
                tested_at_end = False  # with an else clause: a `while True:` that tests inside
        if tested_at_end:
            pure = latch.id != header and self._pure_condition(latch, stack)
            loop = Loop(header, follow, body, {header, latch.id} if pure else {header})
            body_stmts, loop_stack = [], list(stack)
            if latch.id != header:
                inner = ctx.but(loop=loop, stop=latch.id)
                body_stmts, loop_stack = self.seq(header, inner, stack, enter=True)
                if loop_stack is None:
                    loop_stack = list(stack)
            self.ex.run(latch.instrs[:-1], loop_stack, body_stmts)
            test, t_true, t_false, _ = self._condition(latch, loop_stack)
            if t_true != header:
                test = E.negate(test)
            orelse = []
            if follow != exit_:
                orelse, _ = self.seq(exit_, ctx.but(stop=follow), stack)
            node = ast.While(test=test, body=body_stmts or [ast.Pass()], orelse=orelse)
            facts.note(node, Fact.INVERTED, True)
            return [node], follow, stack
        # classic `while c:` (condition at the head) or `while True:`
        follow = self._loop_follow(body, [], ctx)
        loop = Loop(header, follow, body, {header})
        inner = ctx.but(loop=loop, stop=None)
        body_stmts, _ = self.seq(header, inner, stack, enter=True)
        test = E.const(True)
        orelse = []
        node = ast.While(test=test, body=body_stmts or [ast.Pass()], orelse=orelse)
        return [node], follow, (stack if follow is not None else None)

    def _test_towards(self, blk, stack, target, entered=False):
        """(condition under which block ``blk`` jumps to ``target``, its other successor),
        the block's statements aside; None when ``blk`` does not end in such a test.
        ``entered``: ``stack`` is what the block leaves, not what it starts with (its
        statements may use values from before it: those are stand-ins)."""
        if blk.last.opname not in COND_JUMPS or blk.last.opname in V.JUMP_OR_POP:
            return None
        pads = [Marker() for _ in range(4)] if entered else []
        st = list(stack) + pads
        try:
            self.ex.run(blk.instrs[:-1], st, [])
            test, t_true, t_false, _ = self._condition(blk, st)
        except Mismatch:
            return None
        if not entered and len(st) != len(stack) or _mentions(test, pads):
            return None
        if t_true == target:
            return test, t_false
        if t_false == target:
            return E.negate(test), t_true
        return None

    def _guarded(self, header, body, latch, exit_, stack):
        """Whether the only way into a loop that tests its condition at the end (its
        ``latch``) is a test of that same condition leaving for the same exit: 3.10+
        `while c:` (`if c: do { body } while (c)`). Otherwise the body runs before the
        first test, a `while True:` that breaks at the end."""
        if V.WHILE_TESTS_AT_HEAD:
            return False
        outside = [p for p in self.cfg[header].preds if p not in body]
        if len(outside) != 1:
            return False
        again = self._test_towards(latch, stack, header, entered=True)
        first = self._test_towards(self.cfg[outside[0]], stack, header, entered=True)
        through = self.cfg.through_jumps
        return again is not None and first is not None and E.same_expr(again[0], first[0]) and \
            through(again[1]) == through(first[1]) == through(exit_)

    def _emit_do_while(self, blk, body, latch, follow, ctx, stack):
        """`while True: body; if not c: break`: the test ends the body (in ``latch``)."""
        header = blk.id
        loop = Loop(header, follow, body, {header})
        body_stmts, loop_stack = [], list(stack)
        if latch.id != header:
            body_stmts, loop_stack = self.seq(header, ctx.but(loop=loop, stop=latch.id), stack,
                                              enter=True)
            if loop_stack is None:
                loop_stack = list(stack)
        self.ex.run(latch.instrs[:-1], loop_stack, body_stmts)
        test, t_true, t_false, _ = self._condition(latch, loop_stack)
        leave = E.negate(test) if t_true == header else test
        body_stmts.append(ast.If(test=leave, body=[ast.Break()], orelse=[]))
        node = ast.While(test=E.const(True), body=body_stmts, orelse=[])
        return [node], follow, stack

    def _emit_classic_while(self, blk, body, ctx, stack):
        """`while c:` tested at the head: the head only computes the test and leaves the
        loop on one arm. Up to 3.9 every `while c:` looks so; 3.10+ compile it as
        `if c: do { body } while (c)`, and the head is a loop of its own only when a
        `continue` jumps back to it: then the do-while's latches are continues too.
        None when the head is not such a test."""
        if blk.last.opname not in COND_JUMPS or blk.last.opname in V.JUMP_OR_POP:
            return None
        trial = self._trial_condition(blk, stack)
        if trial is None:
            return None
        test, t_true, t_false, st = trial
        if len(st) != len(stack) or (t_true in body) == (t_false in body):
            return None
        exit_ = t_false if t_true in body else t_true
        retests = self._retest_latches(blk.id, test, t_true, t_false, exit_, st)
        if retests is None:
            return None
        follow = self._loop_follow(body, [exit_], ctx)
        if follow is None:
            follow = exit_
        do_while = t_true if t_false == exit_ else t_false
        loop = Loop(blk.id, follow, body, {blk.id}, retests, do_while)
        inner = ctx.but(loop=loop, stop=None)
        test, t_true, t_false = self._compound(blk, test, t_true, t_false, inner, st)
        if t_true in body and t_false not in body:
            first, out = t_true, t_false
        elif t_false in body and t_true not in body:
            first, out, test = t_false, t_true, E.negate(test)
        else:
            return None
        if self.cfg.through_jumps(out) != self.cfg.through_jumps(exit_):
            return None
        if retests:
            # the do-while's head is the first block of the body, no loop of its own
            self._emitting_loops.add(do_while)
        try:
            body_stmts, _ = self.seq(first, inner, st)
        finally:
            if retests:
                self._emitting_loops.discard(do_while)
        orelse = []
        if follow != exit_:
            orelse, _ = self.seq(exit_, ctx.but(stop=follow), stack)
        node = ast.While(test=test, body=body_stmts or [ast.Pass()], orelse=orelse)
        return [node], follow, stack

    def _retest_latches(self, header, test, t_true, t_false, exit_, stack):
        """The latches that test ``test`` again at the end of a 3.10+ `while` body whose
        head (``header``, a loop because `continue` jumps to it) tests it, going on to the
        same blocks: the body's first one, or ``exit_``. [] up to 3.9, None when the loop
        is no such `while`."""
        if V.WHILE_TESTS_AT_HEAD:
            return []
        first = t_true if t_false == exit_ else t_false
        latches = self.latches.get(first)
        if not latches or first == header or header in latches:
            return None
        through = self.cfg.through_jumps
        for bid in latches:
            lblk = self.cfg[bid]
            if lblk.last.opname not in COND_JUMPS or lblk.last.opname in V.JUMP_OR_POP or \
                    not _same_entry(self.effective_handler(bid), self.effective_handler(first)):
                return None
            st = list(stack)
            try:
                self.ex.run(lblk.instrs[:-1], st, [])  # statements of the body, then the test
                t2, tt, tf, keeps = self._condition(lblk, st)
            except Mismatch:
                return None
            into, out = (tt, tf) if t_false == exit_ else (tf, tt)
            if len(st) != len(stack) or not E.same_expr(t2, test) or into != first or \
                    through(out) != through(exit_):
                return None
        return list(latches)

    def _pure_condition(self, blk, stack):
        out = []
        st = list(stack)
        try:
            self.ex.run(blk.instrs[:-1], st, out)
        except Mismatch:
            return False
        return not out and len(st) == len(stack) + 1

    # -- protected regions (try / with) ------------------------------------------------------
    def emit_protected(self, bid, entry, ctx, stack, enter=False):
        kind = self.handler_kind.get(entry.target, "try")
        region = self.region_of(entry)
        # where the body falls out of its region: the last such place in layout (exits
        # through return/break/continue are laid out inline, before the normal one)
        # (3.12+ `await` leaves a CLEANUP_THROW block that jumps back into the await when
        # a thrown-in exception ends the awaited one: not a way out of the try)
        outside = {t for b in region for t in self.cfg[b].succs if t not in region
                   and not (kind == "try" and self.cfg[b].instrs[0].opname == "CLEANUP_THROW")}
        # a bare jump to another of these exits is the same way out (3.12+: a with's
        # suppressed-exception path jumps to the code after the try, the body falls into it)
        outside = {t for t in outside if not self._jumps_back_to(t, outside)}
        outside = self._fold_bare_jump_exits(outside, region)
        exit_block = max(outside) if outside else None
        inner = ctx.but(handler=entry, region=region, region_exit=exit_block, escape=ctx, stop=None)
        # (``enter``: the region starts at the head of the loop being emitted)
        if kind == "with":
            return self._emit_with(bid, entry, inner, ctx, stack, exit_block, enter)
        return self._emit_try(bid, entry, inner, ctx, stack, exit_block, enter)

    def _fold_bare_jump_exits(self, exits, region):
        """3.13 leaves the jump that ends an arm of a try body out of the protected range:
        the arms leave the region through blocks that only jump on. Such jumps to where
        another way out goes, or to where several of them go, are that one way out.
        (Otherwise the code after the try would be emitted again inside the arm.)"""
        through = self.cfg.through_jumps
        bare = {t: through(t) for t in exits if t in self.cfg.blocks and
                [i.opname for i in self.cfg[t].instrs] == ["JUMP"] and through(t) not in region
                and through(t) > t}
        targets = [to for to in bare.values()]
        folded = {t for t, to in bare.items() if to in exits or targets.count(to) > 1}
        return (exits - folded) | {bare[t] for t in folded}

    def _bare_jump_to(self, bid, target):
        """Whether block ``bid`` only jumps forward (through other such blocks) to
        ``target``."""
        blk = self.cfg.blocks.get(bid)
        return blk is not None and [i.opname for i in blk.instrs] == ["JUMP"] and \
            target is not None and target > bid and self.cfg.through_jumps(bid) == target

    def _jumps_back_to(self, bid, exits):
        """Whether block ``bid`` is where an inner handler that ended (POP_EXCEPT: a with
        that suppressed, an except clause) only jumps back to one of ``exits`` laid out
        before it: the same way out as that exit."""
        blk = self.cfg.blocks.get(bid)
        if blk is None or [i.opname for i in blk.instrs] != ["JUMP"] or not blk.preds:
            return False
        to = self.cfg.through_jumps(bid)
        return to in exits and to < bid and to not in self.latches and all(
            any(i.opname == "POP_EXCEPT" for i in self.cfg[p].instrs) for p in blk.preds)

    def _emit_with(self, bid, entry, inner, ctx, stack, exit_block, enter):
        exit_marker = None
        for v in reversed(stack):
            if isinstance(v, M.WithExit):
                exit_marker = v
                break
        if exit_marker is None:
            raise Mismatch("with block without a context manager", function=self.code.co_name)
        body, body_stack = self.seq(bid, inner, stack, enter=enter)
        target = None
        if body and isinstance(body[0], ast.Assign) and isinstance(body[0].value, M.EnterResult):
            target = body[0].targets[0]
            body = body[1:]
        elif body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, M.EnterResult):
            body = body[1:]
        elif body and isinstance(body[0], ast.Assign) and isinstance(body[0].value, ast.Await) and \
                isinstance(body[0].value.value, M.EnterResult):
            target = body[0].targets[0]
            body = body[1:]
        elif body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Await) and \
                isinstance(body[0].value.value, M.EnterResult):
            body = body[1:]
        item = ast.withitem(context_expr=exit_marker.manager, optional_vars=target)
        node = (ast.AsyncWith if exit_marker.is_async else ast.With)(
            items=[item], body=body or [ast.Pass()], type_comment=None)
        facts.note(node, Fact.WITH_EXIT, exit_marker)
        if body_stack is None:
            # the body never falls out, but a suppressing __exit__ resumes after the with
            cont = self._with_suppressed_exit(entry)
            if cont is None:
                return [node], None, None
            # (the body took the __enter__ result above the exit)
            return [node], cont, stack[:next(k for k, v in enumerate(stack) if v is exit_marker)]
        # normal exit: the exit call, then on
        if body_stack and not any(v is body_stack[-1] for v in stack):
            # a value kept on the stack while the exit runs can only be a return value:
            # the enclosing construct may return it after more exits of its own
            facts.note(node, Fact.WITH_RETURNS, body_stack[-1])
        tail_stmts, nxt, st = self._skip_with_exit(exit_block, exit_marker, ctx, body_stack)
        if body_stack and tail_stmts and isinstance(tail_stmts[0], ast.Return) and \
                tail_stmts[0].value is body_stack[-1] and not any(v is body_stack[-1] for v in stack):
            # `with cm: return f()`: the value is computed inside, kept on the stack while
            # the exit runs, then returned: the return belongs in the body
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + [tail_stmts[0]]
            return [node], None, None
        ret = self._const_return_after_exit(tail_stmts, nxt)
        if ret is not None:
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + [ret]
            return [node], None, None
        ret, cont = self._const_return_not_after(entry, tail_stmts, nxt)
        if ret is not None:
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + [ret]
            return [node], cont, stack[:next(k for k, v in enumerate(stack) if v is exit_marker)]
        return [node] + tail_stmts, nxt, st

    def _const_return_after_exit(self, tail_stmts, nxt):
        """`with cm: ...; return <constant>` (up to 3.9): the exit call, the POP_BLOCKs of
        enclosing try statements, then the value loaded and returned, with no jump between
        (after the with, the code goes on with a jump; 3.10+ copies returns there)."""
        if V.EXIT_BLOCKS_COPIED:
            return None
        if nxt is None and len(tail_stmts) == 1 and isinstance(tail_stmts[0], ast.Return) and \
                isinstance(tail_stmts[0].value, (ast.Constant, type(None))):
            return tail_stmts[0]
        if tail_stmts or nxt is None or nxt < 1:
            return None
        instrs = self.cfg.instrs
        if [i.opname for i in instrs[nxt:nxt + 2]] != ["LOAD_CONST", "RETURN_VALUE"] or \
                instrs[nxt - 1].opname != "POP_BLOCK" or any(i.target == nxt for i in instrs):
            return None
        k = nxt - 1
        while k > 0 and instrs[k].opname == "POP_BLOCK":
            k -= 1
        if not (instrs[k].opname == "POP_TOP" and instrs[k - 1].opname == "CALL" and instrs[k - 1].arg == 3) \
                and not (instrs[k].opname == "POP_FINALLY" and instrs[k - 1].opname == "WITH_CLEANUP_FINISH"):
            # (3.8: the exit's WITH_CLEANUP_FINISH, then POP_FINALLY: a return leaving a with)
            return None
        return ast.Return(value=E.const(instrs[nxt].argval))

    def _const_return_not_after(self, entry, tail_stmts, nxt):
        """`with cm: ...; return <constant>` (3.10+): the exit call, then the constant
        returned (in the statements after the exit, or in block ``nxt``, the end of an
        enclosing try), like a return after the with. But code after the with also runs
        where a suppressing __exit__ goes on (jumped to, or copied there); where that
        path returns something else, the return is the body's. (the Return node, where
        the suppressing path goes on), or (None, None)."""
        if not V.EXIT_BLOCKS_COPIED:
            return None, None
        if nxt is None and len(tail_stmts) == 1 and isinstance(tail_stmts[0], ast.Return):
            ret = tail_stmts[0]
            if not isinstance(ret.value, (ast.Constant, type(None))):
                return None, None
            value = _const_key(None if ret.value is None else ret.value.value)
        elif not tail_stmts and nxt in self.cfg.blocks:
            blk = self.cfg[self.cfg.through_jumps(nxt)]
            load = _const_returned(blk.instrs)
            if load is None:
                return None, None
            value = _const_key(load.argval)
            ret = self._return(blk.last, E.const(load.argval))
        else:
            return None, None
        cont = self._with_suppressed_exit(entry)
        if cont is None or cont not in self.cfg.blocks:
            return None, None
        other = _const_returned(self.cfg[self.cfg.through_jumps(cont)].instrs)
        if other is not None and _const_key(other.argval) == value:
            return None, None
        return ret, cont

    def _with_suppressed_exit(self, entry):
        """Where a with's handler continues when __exit__ returned true (or None)."""
        window = self.cfg.instrs[entry.target:entry.target + _WITH_EXIT_WINDOW]
        if window[0].opname == "WITH_CLEANUP_START":
            # 3.8: END_FINALLY re-raises unless __exit__ suppressed; then on after it
            end = next((i for i in window if i.opname == "END_FINALLY"), None)
            return None if end is None else self.cfg.fall(self.cfg[self.cfg.block_at[end.index]])
        # to the branch taken when __exit__ suppressed the exception
        test = next((i for i in window if i.opname in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE")), None)
        if test is None:
            return None
        blk = self.cfg[self.cfg.block_at[test.index]]
        blk = self.cfg[self.cfg.target(test) if test.opname == "POP_JUMP_IF_TRUE" else self.cfg.fall(blk)]
        # then past the POP_EXCEPT that ends the handler
        seen = set()
        while True:
            if blk.id in seen:
                return None
            seen.add(blk.id)
            if any(i.opname == "POP_EXCEPT" for i in blk.instrs):
                nxt = blk.succs[0] if blk.succs else None
                return nxt
            if len(blk.succs) != 1:
                return None
            blk = self.cfg[blk.succs[0]]

    def _skip_with_exit(self, bid, exit_marker, ctx, stack):
        """Run the normal-exit call block(s) of a with statement; continue after them."""
        out = []
        st = list(stack)
        while bid is not None:
            blk = self.cfg[bid]
            n = len(out)
            if blk.last.opname == "SEND":  # `async with`: the exit call is awaited
                self.ex.run(blk.instrs[:-1], st, out)
                self._send(st)
                bid = self.cfg.target(blk.last)
                continue
            for k, ins in enumerate(blk.instrs):
                last = k == len(blk.instrs) - 1
                if last and ins.opname in COND_JUMPS | {"JUMP", "RETURN_VALUE", "FOR_ITER"}:
                    # exit call finished inside this block?  continue normally from here
                    break
                self.ex.run([ins], st, out)
                if out[n:] and isinstance(out[-1], M.WithExitStmt) and out[-1].exit is exit_marker:
                    out.pop()
                    rest_instrs = blk.instrs[k + 1:]
                    return self._continue_partial(blk, rest_instrs, ctx, st, out)
            else:
                bid = self.cfg.fall(blk)
                continue
            break
        raise Mismatch("could not find the end of a with statement", function=self.code.co_name)

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
            out.append(_reraise())
            return out, None, None
        if op in COND_JUMPS:
            stmts, nxt, st = self.emit_branch(blk, ctx, stack)
            return out + stmts, nxt, st
        raise Mismatch("unexpected instruction after a with exit", opname=op,
                       offset=last.offset, function=self.code.co_name)

    # -- except* (3.11+) -------------------------------------------------------------------------
    def _is_star_handler(self, target):
        return any(i.opname == "CHECK_EG_MATCH" for i in self.cfg.instrs[target:target + 12])

    def _emit_try_star(self, entry, ctx, stack, body, body_stack, exit_block):
        """try/except*: every clause tests what the clauses before it left unhandled.

        Handler layout: PUSH_EXC_INFO and a list for the exceptions the clauses raise; per
        clause `<type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE next; STORE name | POP_TOP;
        body` whose end jumps to the next clause; then PREP_RERAISE_STAR re-raises what is
        left (or nothing) and POP_EXCEPT leads to the code after the statement."""
        from ..rewrite.rules import _clause
        instrs = self.cfg.instrs
        pos = entry.target + 1
        ops = [i.opname for i in instrs[pos:pos + 3]]
        if ops == ["COPY", "BUILD_LIST", "SWAP"]:
            pos += 3
        elif ops[:2] == ["BUILD_LIST", "COPY"]:
            pos += 2
        else:
            raise Mismatch("unrecognized except* handler", function=self.code.co_name)
        hstack = list(stack) + [M.ExcValue("group"), M.ExcValue("raised"), M.ExcValue("rest")]
        handlers = []
        while instrs[pos].opname != "LIST_APPEND":
            check = _first(instrs, pos, 64, "CHECK_EG_MATCH")
            check = check.index if check is not None else None
            if check is None or [i.opname for i in instrs[check + 1:check + 3]] != ["COPY", "POP_JUMP_IF_NONE"]:
                raise Mismatch("unrecognized except* clause", function=self.code.co_name)
            st, out = list(hstack), []
            self.ex.run(instrs[pos:check], st, out)
            if out or len(st) != len(hstack) + 1:
                raise Mismatch("except* type with statements", function=self.code.co_name)
            fail = instrs[check + 2].target
            if instrs[fail].opname != "POP_TOP":
                raise Mismatch("unrecognized except* clause end", function=self.code.co_name)
            start = self.cfg.fall(self.cfg[self.cfg.block_at[check + 2]])
            stop = fail + 1
            if instrs[stop].opname == "LIST_APPEND":  # the last clause: on to the re-raise
                stop = _first(instrs, stop, len(instrs), "PREP_RERAISE_STAR").index
            stmts, _ = self.seq(start, ctx.but(stop=stop), hstack + [M.ExcValue()])
            handlers.append(_clause(st[-1], stmts, self.code.co_name))
            pos = fail + 1
        end = _first(instrs, pos, 8, "POP_EXCEPT")
        if end is None:
            raise Mismatch("unrecognized except* handler end", function=self.code.co_name)
        after = instrs[end.index + 1]
        follow = self.cfg.target(after) if after.opname == "JUMP" else self.cfg.alias.get(after.index, after.index)
        node = ast.TryStar(body=body or [ast.Pass()], handlers=handlers, orelse=[], finalbody=[])
        if body_stack is not None and exit_block is not None and exit_block != follow:
            node.orelse, _ = self.seq(exit_block, ctx.but(stop=follow), body_stack)
        return [node], follow, list(stack)

    def _after_handlers(self, entry, sinks, region):
        """The one block that the except clauses of handler ``entry`` jump on to after
        their POP_EXCEPT, or None."""
        if self._handler_is_finally(entry):
            return None
        target = entry.target
        after, seen, work = set(), set(), [target]
        while work:
            b = work.pop()
            if b in seen or b in sinks or b not in self.cfg.blocks or (region is not None and b not in region):
                continue
            seen.add(b)
            blk = self.cfg[b]
            if any(i.opname == "POP_EXCEPT" for i in blk.instrs):
                if blk.last.opname == "JUMP":  # (not a return on its way out)
                    after.add(self.cfg.target(blk.last))
                elif blk.last.opname == "POP_EXCEPT" and self._joined_copy(blk.end):
                    # (3.10+ pasted a copy of the code the clause goes on to, a return,
                    # after its POP_EXCEPT: the copy is joined to the block it copies)
                    after.add(self.cfg.fall(blk))
                continue
            if self._no_match_reraise(blk):
                continue
            work.extend(blk.succs)
        after -= {target} | set(sinks)
        return after.pop() if len(after) == 1 else None

    def _handlers_rejoin(self, entry, exit_block, ctx):
        """Where the except clauses of ``entry`` go on after their POP_EXCEPT, when the
        body's way out ``exit_block`` goes on nowhere else (it reaches that place,
        directly or through an else clause, or returns, raises, breaks or continues),
        else None."""
        sinks = ctx.sinks()
        after = self._after_handlers(entry, sinks, ctx.region)
        if after is None or after in sinks:
            return None
        reach = self.cfg.reachable(exit_block, sinks | {after}, ctx.region)
        goes_on = {s for b in reach for s in self.cfg[b].succs} - reach
        if goes_on - sinks - {after}:
            return None
        if after not in goes_on and after != exit_block and ctx.loop is not None and \
                after not in self.loop_body(ctx.loop.header):
            return None  # (the clauses break out of a `while True` the body goes on in)
        return after

    def _joined_copy(self, bid):
        """Whether block ``bid`` is one of the copies of an exit block that the CFG
        joined into one (``CFG.alias``)."""
        alias = self.cfg.alias
        return bid in alias or bid in alias.values()

    def _no_match_reraise(self, blk):
        """3.8: the END_FINALLY that an except chain jumps to when no clause matched: it
        re-raises (the exception is on the stack), so its fall-through never runs."""
        if len(blk.instrs) != 1 or blk.last.opname != "END_FINALLY" or not blk.preds:
            return False
        for p in blk.preds:
            instrs = self.cfg[p].instrs
            if len(instrs) < 2 or instrs[-2].opname != "EXC_MATCH_POP2" or \
                    self.cfg.target(instrs[-1]) != blk.id:
                return False
        return True

    def _falls_into_else(self, entry, exit_block):
        """3.11 lays the handlers out right after the try body and its else clause: code
        the body runs straight into before them is the else clause (the code after the
        statement comes after the handlers, reached by a jump over them)."""
        if V.HANDLERS_AT_END or not V.HAS_EXCEPTION_TABLE:
            return False
        return any(self.cfg.fall(self.cfg[b]) == exit_block and
                   self.cfg[b].last.opname not in TERMINATORS
                   for b in self.region_of(entry))

    def _continue_in_clause(self, jump):
        """Whether ``jump`` is a `continue` written in an except clause (up to 3.10): the
        clause's own end, a dead `POP_EXCEPT; JUMP`, follows it. (The source keeps it even
        as the last statement of the loop body.)"""
        if not V.KEEPS_DEAD_JUMPS or jump is None or jump.index < 1 or \
                self.cfg.instrs[jump.index - 1].opname != "POP_EXCEPT":
            return False
        nxt = self.cfg.blocks.get(jump.index + 1)
        # (or the dead jump over the else of an if the continue ends the body of)
        return nxt is not None and not nxt.preds and nxt.instrs[0].opname in ("POP_EXCEPT", "JUMP")

    def _returns_const_in_body(self, entry, exit_block):
        """Up to 3.9 `return <constant>` in a try body pops the block first and loads the
        value after it: `POP_BLOCK; LOAD_CONST; RETURN_VALUE`, where a body that goes on
        has `POP_BLOCK; JUMP_FORWARD` (try/except) instead. That return is the body's."""
        if V.EXIT_BLOCKS_COPIED or self.handler_kind.get(entry.target) != "try" or \
                self._handler_is_finally(entry):
            return False
        instrs = self.cfg.instrs
        for b in self.region_of(entry):
            blk = self.cfg[b]
            if blk.last.opname == "POP_BLOCK" and self.cfg.fall(blk) == exit_block:
                tail = [i.opname for i in instrs[blk.end:blk.end + 2]]
                return tail == ["LOAD_CONST", "RETURN_VALUE"]
        return False

    def _clauses_end_at_loop_head(self, entry, ctx):
        """The loop head that an except clause's own end jumps to, else None.

        Up to 3.10 a clause ends `POP_EXCEPT; JUMP end-of-try`, the jump retargeted to the
        loop head when the try ends the loop body. A `continue` in the clause is the same
        pair, followed by the clause's own (dead) POP_EXCEPT and jump: that one is not."""
        if self._handler_is_finally(entry) or not V.KEEPS_DEAD_JUMPS:
            return None
        heads, seen, work = set(), set(), [entry.target]
        while work:
            b = work.pop()
            if b in seen or b not in self.cfg.blocks or b in ctx.sinks():
                continue
            seen.add(b)
            blk = self.cfg[b]
            ops = [i.opname for i in blk.instrs]
            if "POP_EXCEPT" in ops:
                last = blk.last
                if ops[-2:] == ["POP_EXCEPT", "JUMP"] and not self._continue_in_clause(last):
                    heads.add(self.cfg.target(last))
                continue
            if ops[-1] not in V.HANDLER_RERAISES:  # (the exception goes on: not a clause)
                work.extend(blk.succs)
        if len(heads) == 1 and heads <= ctx.loop.continue_targets:
            return heads.pop()
        return None

    def _handler_is_finally(self, entry):
        """A finally handler re-raises without ever testing the exception's type."""
        i = entry.target
        instrs = self.cfg.instrs
        ops = [ins.opname for ins in instrs[i:i + 3]]
        if ops[:1] == ["PUSH_EXC_INFO"]:
            ops = ops[1:]
        return not (ops[:1] == ["POP_TOP"] or "CHECK_EXC_MATCH" in [x.opname for x in instrs[i:i + 8]]
                    or "EXC_MATCH_POP2" in [x.opname for x in instrs[i:i + 8]])

    def _end_finally_of(self, start):
        """3.8: the END_FINALLY closing the finally body that begins at ``start``."""
        depth = 0
        for ins in self.cfg.instrs[start:]:
            if ins.opname in V.SETUPS_ENDING_IN_END_FINALLY:
                depth += 1
            elif ins.opname == "END_FINALLY":
                if depth == 0:
                    return ins.index
                depth -= 1
        return None

    def _emit_try_38(self, bid, entry, inner, ctx, stack, enter):
        """3.8 try/finally: the normal path falls into the finally body, which ends in
        END_FINALLY (returns and breaks reach it through CALL_FINALLY instead)."""
        end = self._end_finally_of(entry.target)
        if end is None:
            raise Mismatch("finally without END_FINALLY", function=self.code.co_name)
        body, body_stack = self.seq(bid, inner.but(region_exit=entry.target), stack, enter=enter)
        final, _ = self.seq(entry.target, ctx.but(stop=end), stack + [M.FinallyMarker()])
        node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
        nxt = self.cfg.fall(self.cfg[end])
        if body_stack is None:
            return [node], None, None
        return [node], nxt, stack

    def _past_pop_blocks(self, bid):
        """The first block from ``bid`` on that does more than POP_BLOCK (up to 3.10 a
        try and a with each pop their block before the with's exit)."""
        seen = set()
        while bid in self.cfg.blocks and bid not in seen and len(self.cfg[bid].succs) == 1 and \
                all(i.opname == "POP_BLOCK" for i in self.cfg[bid].instrs):
            seen.add(bid)
            bid = self.cfg[bid].succs[0]
        return bid

    def _return_through_with_exit(self, bid, ctx, stack):
        """`with cm: try: return f()`: the value leaves the try on the stack straight into
        the with's exit call (block ``bid``, the end of the enclosing with region), then is
        returned. The `return` belongs in the try body: after it, a raise in `f()` would
        escape the handlers. The Return node, or None when the value goes elsewhere."""
        marker = next((v for v in reversed(stack) if isinstance(v, M.WithExit)), None)
        if marker is None or ctx.escape is None:
            return None
        try:
            tail, _, _ = self._skip_with_exit(bid, marker, ctx.escape, list(stack))
        except Mismatch:
            return None
        if tail and isinstance(tail[0], ast.Return) and tail[0].value is stack[-1]:
            return tail[0]
        return None

    def _outermost_exit(self, bid, ctx):
        """Where a value left on the stack at block ``bid`` goes on: the RETURN_VALUE of
        a `return` in nested try bodies lies outside all of them (3.11+; up to 3.10 past
        their POP_BLOCKs), so the exit of this try may be the exit of enclosing ones
        too; the return (with the cleanup on its way) is emitted as the path escaping
        the outermost of them. The block and ctx to go on from."""
        while ctx.region is not None and ctx.escape is not None:
            if bid != ctx.region_exit:
                if self._past_pop_blocks(bid) != ctx.region_exit:
                    break
                bid = ctx.region_exit
            ctx = ctx.escape
        return bid, ctx

    def _clause_return(self, bid, ctx, stack):
        """An except clause that reaches the end of its try statement (``bid``) with a
        value above the statement's stack that it kept beneath the exception while it
        restored the exception state: the value of a `return` in the clause (its name
        deleted after that); the
        rest of its way out (finally copies, tails the compiler joined) belongs to the
        clause. Its statements, or None."""
        if ctx.clause_base is None or len(stack) != ctx.clause_base + 1 or \
                self.ex.returning.get(id(stack[-1])) is not stack[-1]:
            return None
        bid, out_ctx = self._outermost_exit(bid, ctx)
        if out_ctx is ctx:
            out_ctx = ctx.but(stop=None, clause_base=None)
        more, st = self.seq(bid, out_ctx, stack)
        if st is not None or not any(isinstance(n, ast.Return) and n.value is stack[-1]
                                     for s in more for n in ast.walk(s)):
            return None
        self._clause_returns += 1
        return more

    def _emit_try(self, bid, entry, inner, ctx, stack, exit_block, enter):
        if exit_block is not None and exit_block == entry.target:
            return self._emit_try_38(bid, entry, inner, ctx, stack, enter)
        body, body_stack = self.seq(bid, inner, stack, enter=enter)
        if body_stack is not None and len(body_stack) > len(stack) and exit_block is not None and \
                not any(isinstance(v, M.Marker) for v in body_stack[len(stack):]):
            # `return x` in the body: the value leaves the protected range on the stack
            # (3.11+ leaves the RETURN_VALUE itself unprotected; inside a handler the
            # exception state is popped first), so the return belongs to the body
            more, st = self.seq(*self._outermost_exit(exit_block, ctx), body_stack)
            if st is None:
                body.extend(more)
                body_stack, exit_block = None, None
            elif not more and self._past_pop_blocks(exit_block) == ctx.region_exit:
                ret = self._return_through_with_exit(ctx.region_exit, ctx, body_stack)
                if ret is not None:
                    body.append(ret)
                    body_stack, exit_block = None, None
        if body_stack is not None and exit_block is not None and self._returns_const_in_body(entry, exit_block):
            more, st = self.seq(exit_block, ctx, body_stack)
            if st is None:
                body.extend(more)
                body_stack, exit_block = None, None
        if self._is_star_handler(entry.target):
            return self._emit_try_star(entry, ctx, stack, body, body_stack, exit_block)
        if V.HAS_EXCEPTION_TABLE:
            handler_stack = list(stack) + [M.ExcValue()]
        else:
            handler_stack = list(stack) + [M.PrevExc(), M.PrevExc(), M.PrevExc(),
                                           M.ExcValue("tb"), M.ExcValue("value"), M.ExcValue("type")]
        sources = [entry.target] + ([exit_block] if exit_block is not None and body_stack is not None else [])
        follow = self.cfg.postdominator_merge(sources, ctx.sinks(), ctx.region)
        if follow == entry.target or (len(sources) == 1 and follow is not None and any(
                i.opname == "POP_EXCEPT" for i in self.cfg[follow].instrs)):
            # the handler (its own code, reached only from it while the body returns)
            # cannot be where the try statement ends
            follow = None
        if follow is None and len(sources) == 1:
            # ... but the end of an enclosing except clause (its POP_EXCEPT), where the
            # clauses of this one go on, is
            after = self._after_handlers(entry, ctx.sinks(), ctx.region)
            if after is not None and self.cfg[after].instrs[0].opname == "POP_EXCEPT":
                follow = after
        if follow is None and len(sources) == 2:
            # clauses that may re-raise, and that go on (after POP_EXCEPT) to a place the
            # body reaches too: the try ends there (code after it runs with the exception
            # state restored, not inside the clause)
            follow = self._handlers_rejoin(entry, exit_block, ctx)
        if follow is None:
            # handlers that go on to where the enclosing construct ends: the try ends there
            ends = [b for b in (ctx.region_exit, ctx.stop) if b is not None]
            reach = self.cfg.reachable(entry.target, set(ends))
            for b in ends:
                if any(b in self.cfg[r].succs for r in reach):
                    follow = b
                    break
        if follow is None and len(sources) == 2:
            # handlers and body that return or raise in places and go on elsewhere: the
            # try ends where the paths that go on meet
            follow = self.cfg.first_common(sources[0], sources[1], ctx.sinks(), ctx.region,
                                           going_on=True)
            if follow == entry.target:
                follow = None
        if follow is None:
            # a body that returns, clauses of which some go on: where they go on after
            # restoring the exception state (POP_EXCEPT) is where the try ends
            follow = self._after_handlers(entry, ctx.sinks(), ctx.region)
        if follow is None and entry.target > 0:
            # every handler escapes: the body's jump over the handlers shows where it ends
            before = self.cfg.instrs[entry.target - 1]
            if before.opname == "JUMP" and before.target > entry.target:
                follow = self.cfg.target(before)
            elif body_stack is not None and exit_block is not None and exit_block < entry.target and \
                    self.handler_kind.get(entry.target) == "try" and not self._handler_is_finally(entry) \
                    and not self._falls_into_else(entry, exit_block):
                # 3.12+ moves handlers to the end: the body runs straight on
                follow = exit_block
        if ctx.loop is not None and body_stack is not None and exit_block is not None and \
                follow in (None, exit_block, self.cfg.through_jumps(exit_block)):
            head = self._clauses_end_at_loop_head(entry, ctx)
            if head is not None and head != self.cfg.through_jumps(exit_block):
                # the try ends the loop body: the code the body goes on to is its else
                follow = head
        hctx = ctx.but(stop=follow, clause_base=len(stack))
        returned = self._clause_returns
        hstmts, hstack = self.seq(entry.target, hctx, handler_stack)
        clause_returned = self._clause_returns > returned
        if hstack is not None and (clause_returned and len(hstack) != len(stack) or any(
                isinstance(v, (M.ExcValue, M.PrevExc)) for v in hstack[len(stack):])):
            # the end reached as the bound of arms that left (returned through it, or
            # re-raised: the exception still on the stack), not by a clause that ended
            hstack = None
        if hstack is not None and follow is not None and \
                not self._leaves_to(entry.target, follow, ctx.sinks() | {follow}, None):
            hstack = None  # every clause returns or raises: the stop was reached as a bound
        from ..rewrite.rules import build_try
        node, is_finally = build_try(body, hstmts, self.code.co_name)
        if is_finally:
            # the finally body also runs, copied, on the normal path: continue there
            if body_stack is None:
                return [node], None, None
            facts.note(node, Fact.FINALLY_COPY, True)
            return [node], exit_block, body_stack
        orelse = []
        st = hstack if hstack is not None else body_stack
        if body_stack is not None and exit_block is not None and exit_block != follow:
            orelse, ostack = self.seq(exit_block, ctx.but(stop=follow), body_stack)
            if ostack is not None:
                st = ostack
            elif hstack is None:
                st = None
        node.orelse = orelse
        if follow is None:
            # every path left the try, or reached the end of the enclosing construct
            return [node], None, st
        if st is None and clause_returned:
            # the clauses that reached the end returned through it: no path goes on
            return [node], None, None
        if st is None and follow is not None:
            st = list(stack)
        return [node], follow, st


# how far into a with statement's handler its __exit__ call (awaited for async with)
# and the test of what it returned lie
_WITH_EXIT_WINDOW = 12


def _reraise():
    """The compiler's own re-raise (RERAISE, 3.8's END_FINALLY): a written `raise` is
    RAISE_VARARGS 0. Marked so that the end of a finally body can tell them apart."""
    node = ast.Raise(exc=None, cause=None)
    facts.note(node, Fact.IMPLICIT, True)
    return node


def _first(instrs, start, count, opname):
    """The first ``opname`` instruction among the ``count`` from ``start``, or None."""
    return next((i for i in instrs[start:start + count] if i.opname == opname), None)


def _const_returned(instrs):
    """The LOAD_CONST of the constant ``instrs`` return, when that is all they do (NOPs
    aside), else None."""
    ops = [i for i in instrs if i.opname != "NOP"]
    return ops[0] if [i.opname for i in ops] == ["LOAD_CONST", "RETURN_VALUE"] else None


def _const_key(value):
    """A constant told apart by type and repr (True == 1, 0.0 == -0.0)."""
    return type(value), repr(value)


def _after_with_suppress(instrs):
    """Where the code after a with statement starts when its __exit__ suppressed the
    exception: the handler pops the exception state and the exit, then runs straight on
    into that code when the compiler placed it there (3.9+)."""
    out = set()
    for ins in instrs:
        if ins.opname != "WITH_EXCEPT_START":
            continue
        jump = _first(instrs, ins.index + 1, _WITH_EXIT_WINDOW - 1, "POP_JUMP_IF_TRUE")
        if jump is None:
            continue
        pop = _first(instrs, jump.target, 6, "POP_EXCEPT")
        if pop is None:
            continue
        k = pop.index + 1
        while k < len(instrs) and instrs[k].opname == "POP_TOP":
            k += 1
        out.add(k)
    return out


def _after_except_star(instrs):
    """Where the code after an except* handler starts (the handler's last POP_EXCEPT is
    followed by it when the compiler copied it there instead of jumping)."""
    out = set()
    for ins in instrs:
        if ins.opname == "PREP_RERAISE_STAR":
            out.add(ins.index)  # where the last clause's body ends
            pop = _first(instrs, ins.index, 8, "POP_EXCEPT")
            if pop is not None:
                out.add(pop.index + 1)
    return out


def _mentions(expr, values):
    """Whether ``expr`` is or contains one of ``values`` (stand-ins, compared by identity)."""
    if not values:
        return False
    for node in [expr] + (list(ast.walk(expr)) if isinstance(expr, ast.AST) else []):
        if any(node is v for v in values):
            return True
        for _, field in ast.iter_fields(node) if isinstance(node, ast.AST) else ():
            for item in field if isinstance(field, list) else [field]:
                if any(item is v for v in values):
                    return True
    return False


def _same_entry(a, b):
    if a is None or b is None:
        return a is b
    return a.target == b.target


def _pending(stack):
    return (bool(stack) and isinstance(stack[-1], ast.expr) and not isinstance(stack[-1], Marker)
            and not facts.get(stack[-1], Fact.TEMP, False))


def _same_code(a, b):
    """Whether two instruction runs are copies of each other (same operations, arguments
    and lines)."""
    return [(i.opname, i.arg, i.line) for i in a] == [(i.opname, i.arg, i.line) for i in b]


def _merge_exits(test, a, b):
    """Two copies of one `return`/`raise` statement that differ in the value an arm of a
    conditional expression computed: the statement with ``a if test else b`` there.

    What was evaluated before the test is the same node in both (it came from the stack);
    what comes after the differing value is evaluated after the test either way and must
    read the same. None when the copies differ in more than one place."""

    def merged(x, y):
        xs, ys = _eval_children(x), _eval_children(y)
        if type(x) is not type(y) or xs is None or ys is None or len(xs) != len(ys) \
                or _shape(x) != _shape(y):
            return None
        diff = [k for k, (cx, cy) in enumerate(zip(xs, ys)) if not E.same_expr(cx, cy)]
        if not diff:
            return None
        k = diff[0]
        if any(not _same_node(xs[j], ys[j]) for j in range(k)) or \
                any(not E.same_expr(xs[j], ys[j]) for j in diff[1:]):
            return None
        inner = merged(xs[k], ys[k])
        if inner is None:
            if not isinstance(xs[k], ast.expr):
                return None
            inner = _ifexp(test, xs[k], ys[k])
        return _replace_child(x, xs[k], inner)

    if isinstance(a, ast.Return) and isinstance(b, ast.Return) and a.value is not None \
            and b.value is not None and E.same_expr(a.value, b.value):
        return ast.Return(value=_ifexp(test, a.value, b.value))
    return merged(a, b)


def _same_node(a, b):
    """The same value, from the stack: the same node, or a keyword argument (built by the
    call in each copy) that names it."""
    if isinstance(a, ast.keyword) and isinstance(b, ast.keyword):
        return a.arg == b.arg and a.value is b.value
    return a is b


def _eval_children(node):
    """The sub-expressions of ``node`` in the order they are evaluated, or None for a node
    whose children are not simply evaluated once, left to right."""
    if isinstance(node, ast.Dict):
        return [c for kv in zip(node.keys, node.values) for c in kv if c is not None]
    if isinstance(node, (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.SetComp,
                         ast.DictComp, ast.GeneratorExp, ast.NamedExpr)):
        return None
    out = []
    for _, value in ast.iter_fields(node):
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (ast.expr, ast.keyword)):
                out.append(item)
    return out


def _shape(node):
    """What ``node`` is apart from its sub-expressions (operators, names, constants)."""
    return [(f, ast.dump(v) if isinstance(v, ast.AST) else v) for f, v in ast.iter_fields(node)
            if not isinstance(v, (ast.expr, ast.keyword, list))] + \
        [(f, [ast.dump(i) if isinstance(i, ast.AST) else i for i in v
              if not isinstance(i, (ast.expr, ast.keyword))])
         for f, v in ast.iter_fields(node) if isinstance(v, list)]


def _replace_child(node, old, new):
    """A shallow copy of ``node`` with the child ``old`` (by identity) replaced by ``new``."""
    fields = {}
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            value = [new if item is old else item for item in value]
        elif value is old:
            value = new
        fields[name] = value
    copy = type(node)(**fields)
    for attr in type(node)._attributes:  # positions (lineno, ...); not the facts
        if hasattr(node, attr):
            setattr(copy, attr, getattr(node, attr))
    return copy


def _merge_stacks(test, a_stack, b_stack):
    """The stack where two arms of a value branch meet: where they differ, the value is
    the conditional expression (or and/or, chained comparison) of the two."""
    return [x if x is y else _ifexp(test, x, y) for x, y in zip(a_stack, b_stack)]


def _ifexp(test, body, orelse):
    if body is test or (not isinstance(body, Marker) and not isinstance(test, Marker)
                        and E.same_expr(body, test) and body is test):
        return _boolop(ast.Or, test, orelse)
    if orelse is test:
        return _chain_or_and(test, body)
    if isinstance(test, Marker) or isinstance(body, Marker) or isinstance(orelse, Marker):
        raise Mismatch("conditional expression over an internal value")
    return ast.IfExp(test=test, body=body, orelse=orelse)


def _chain_or_and(left, right):
    # `a < b < c`: the middle operand was duplicated, so it is the same node on both sides
    if isinstance(left, ast.Compare) and isinstance(right, ast.Compare) and \
            right.left is left.comparators[-1]:
        return ast.Compare(left=left.left, ops=left.ops + right.ops,
                           comparators=left.comparators + right.comparators)
    return _boolop(ast.And, left, right)


def _boolop(op, a, b):
    values = []
    for v in (a, b):
        if isinstance(v, ast.BoolOp) and isinstance(v.op, op):
            values.extend(v.values)
        else:
            values.append(v)
    node = ast.BoolOp(op=op(), values=values)
    return node


def _take_target(stmts):
    if stmts and isinstance(stmts[0], ast.Assign) and isinstance(stmts[0].value, M.ForItem):
        return stmts[0].targets[0], stmts[1:]
    if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, M.ForItem):
        return ast.Name(id="_", ctx=ast.Store()), stmts[1:]
    raise Mismatch("for loop without a target")


def _appends_to(stmts, acc):
    """Whether a comprehension-append to ``acc`` occurs in ``stmts`` (at any depth)."""
    for st in stmts:
        if isinstance(st, M.AppendStmt) and st.acc is acc:
            return True
        for field in ("body", "orelse"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and _appends_to(inner, acc):
                return True
    return False

