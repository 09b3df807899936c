"""try/except* (3.11+): the handler's prologue tells it from a bare except clause, and
each clause tests what the clauses before it left unhandled."""
import ast

from ..mismatch import Mismatch
from ..symbolic import markers as M
from .helpers import first_op


class TryStars:
    """Mixin of ``Emitter``: try/except* statements."""

    def _is_star_handler(self, target):
        """The handler's own prologue (not that of an except* nested in its first lines:
        a bare except clause starting with a try/except*) builds the list of what its
        clauses raise, then tests the first type."""
        ops = [i.opname for i in self.cfg.instrs[target + 1:target + 4]]
        return (ops == ["COPY", "BUILD_LIST", "SWAP"] or ops[:2] == ["BUILD_LIST", "COPY"]) and \
            any(i.opname == "CHECK_EG_MATCH" for i in self.cfg.instrs[target:target + 12])

    def _emit_try_star(self, entry, ctx, stack, body, body_stack, exit_block):
        """try/except*: every clause tests what the clauses before it left unhandled.

        Handler layout: PUSH_EXC_INFO and a list for the exceptions the clauses raise; per
        clause `<type>; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE next; STORE name | POP_TOP;
        body` whose end jumps to the next clause; then PREP_RERAISE_STAR re-raises what is
        left (or nothing) and POP_EXCEPT leads to the code after the statement."""
        from ..rewrite.clauses import clause
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
            check = first_op(instrs, pos, 64, "CHECK_EG_MATCH")
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
                stop = first_op(instrs, stop, len(instrs), "PREP_RERAISE_STAR").index
            stmts, _ = self.seq(start, ctx.but(stop=stop), hstack + [M.ExcValue()])
            handlers.append(clause(st[-1], stmts, self.code.co_name))
            pos = fail + 1
        end = first_op(instrs, pos, 8, "POP_EXCEPT")
        if end is None:
            raise Mismatch("unrecognized except* handler end", function=self.code.co_name)
        after = instrs[end.index + 1]
        follow = self.cfg.target(after) if after.opname == "JUMP" else self.cfg.alias.get(after.index, after.index)
        if after.opname == "JUMP" and ctx.region is not None and after.index not in ctx.region:
            # 3.13: the jump on leaves the enclosing try body too (unprotected): that
            # try's way out, not code of its body
            follow = self.cfg.alias.get(after.index, after.index)
        node = ast.TryStar(body=body or [ast.Pass()], handlers=handlers, orelse=[], finalbody=[])
        if body_stack is not None and exit_block is not None and exit_block != follow:
            node.orelse, _ = self.seq(exit_block, ctx.but(stop=follow), body_stack)
        return [node], follow, list(stack)
