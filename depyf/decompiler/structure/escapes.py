"""The way out of a `return` whose value leaves try and with bodies on the stack: through
the copies of their finally bodies and the exit calls of withs, to the return (3.11+
leave the RETURN_VALUE outside all of them)."""
import ast

from ..mismatch import Mismatch
from ...bytecode import versions as V
from ..symbolic import markers as M
from ..rewrite.tree import all_paths_end
from .helpers import const_returned


class Escapes:
    """Mixin of ``Emitter``: escaping paths and the returns they carry."""

    def _escape(self, bid, ctx, stack):
        """The path from block ``bid`` that escapes the region of ``ctx`` (a return,
        break or continue through clean-up code), emitted in the enclosing ctx: its
        statements and the stack it goes on with (None: it left)."""
        self._note_pending_return(ctx, stack)
        value = stack[-1] if stack and self.ex.pending_returns.get(id(stack[-1])) is stack[-1] \
            else None
        # (out of a finally copy: the way out may be a copy of a with's exit call)
        out_of_copy = V.RETURN_THROUGH_FINALLY_COPIES and ctx.handler is not None and \
            self.handler_kind.get(ctx.handler.target) == "try" and self._handler_is_finally(ctx.handler)
        saved, self._region_end_at = self._escaping_value, None
        self._escaping_value = value if out_of_copy else None
        try:
            more, st = self.seq(bid, ctx.escape, stack)
        finally:
            self._escaping_value = saved
        if V.RETURN_THROUGH_FINALLY_COPIES and more and st and value is not None and st[-1] is value:
            # a `return` whose finally copy ends the enclosing try or with body: on into
            # that one's finally copy or exit call, and the return
            rest = self._return_past_region_end(ctx.escape, st, value, self._region_end_at)
            if rest is not None:
                return more + rest, None
        if st is not None and self._left_with_into_return_none(more, ctx.escape):
            rest, st = self._escape(self._region_end_at, ctx.escape, st)
            return more + rest, st
        return more, st

    def _loop_arm_return_through_finally(self, bid, ctx, stack):
        """`try: while True: ... return x ... finally: A`: the body has no normal way out,
        so the region's exit ``bid`` is the copy of A on the way of the `return` (the
        value on the stack): that escaping path, the copy and the return (the copy is
        stripped by ``rewrite.copies``), or None when it does not end in that return."""
        if self.handler_kind.get(ctx.handler.target) != "try" or \
                not self._handler_is_finally(ctx.handler):
            return None
        value = stack[-1]
        try:
            more, st = self._escape(bid, ctx, stack)
        except Mismatch:
            return None
        ends = all_paths_end(more, lambda n: isinstance(n, ast.Return) and n.value is value)
        return more if st is None and more and ends else None

    def _left_with_into_return_none(self, more, ctx):
        """Whether the escaping path ``more`` ran the exit call of a with it left and then
        reached the end of the enclosing region of ``ctx``, a `return None`: the `return`
        of an except clause in the with (3.12+ give the constant return no line of its
        own; joined with the implicit one that ends the function there, which the region's
        normal way out reaches too). Not the region's end: the way out of the function."""
        at = self._region_end_at
        if at is None or at != ctx.region_exit or ctx.escape is None or \
                not any(isinstance(s, M.WithExitStmt) for s in more):
            return False
        returned = const_returned(self.cfg[at].instrs)
        return returned is not None and returned.argval is None

    def _constant_return_out(self, bid, ctx):
        """Whether reaching ``bid``, the block after the try body of ``ctx``, is the way
        out of a `return <constant>` (which leaves the try first, up to 3.10): the block
        is that return, and the sequence being emitted ends inside the body (an arm of an
        if, an else clause: their statement goes on there), so it is not the body's end."""
        return ctx.stop is not None and ctx.stop in ctx.region and self._constant_return(bid)

    def _constant_return(self, bid):
        """Whether block ``bid`` is `LOAD_CONST; RETURN_VALUE` where that is reached by
        leaving try bodies (POP_BLOCK) first (up to 3.10)."""
        return V.CONST_RETURN_AFTER_POP_BLOCK and const_returned(self.cfg[bid].instrs) is not None

    def _return_past_region_end(self, ctx, stack, value, at=None):
        """The rest of the way of a `return` whose value reached the end of the try or
        with body of ``ctx`` (past the copy of an inner finally body; ``at``: the block
        where, a copy of the exit call, if known): into that try's finally copy, or that
        with's exit call and then the copies of the finally bodies around it, and the
        return. Its statements, or None."""
        rest = self._return_through_finally_copy(ctx, stack, value)
        marker = next((v for v in reversed(stack) if isinstance(v, M.WithExit)), None)
        if rest is not None or not V.RETURN_THROUGH_FINALLY_COPIES or marker is None or ctx.region_exit is None or ctx.escape is None:
            return rest
        try:
            start = at if at is not None and at not in ctx.region else ctx.region_exit
            tail, nxt, st = self._skip_with_exit(start, marker, ctx.escape, list(stack))
        except Mismatch:
            return None
        if st is not None and st[-1:] == [value] and nxt is not None:
            # on through the copies of the finally bodies around the with, outside them
            out_ctx = ctx.escape
            while out_ctx.region is not None and nxt not in out_ctx.region and \
                    out_ctx.escape is not None:
                out_ctx = out_ctx.escape
            try:
                more, st = self.seq(nxt, out_ctx, st)
            except Mismatch:
                return None
            tail, nxt = tail + more, None
        ok = st is None and nxt is None and tail and \
            all(isinstance(s, (ast.If, ast.Expr, ast.Return)) for s in tail)
        ends = all_paths_end(tail, lambda n: isinstance(n, ast.Return) and n.value is value)
        return tail if ok and ends else None

    def _return_through_finally_copy(self, ctx, stack, value):
        """`try: try: return f() finally: A` `finally: B`: past A's copy the value goes on
        into B's copy (no with exits) and the return: the inner body's, or None."""
        if ctx.region_exit is None or ctx.escape is None or not stack or stack[-1] is not value:
            return None
        try:
            rest, st = self.seq(ctx.region_exit, ctx.escape, list(stack))
        except Mismatch:
            return None
        ok = st is None and all(isinstance(s, (ast.If, ast.Expr, ast.Return)) for s in rest)
        ends = all_paths_end(rest, lambda n: isinstance(n, ast.Return) and n.value is value)
        return rest if ok and ends else None
