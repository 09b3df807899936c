"""With statements: the body, the `as` target taken from the __enter__ result, the
normal exit call skipped, and the returns the exit call hides."""
import ast

from ..mismatch import Mismatch
from ..symbolic import markers as M
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS
from .. import facts
from ..facts import Fact
from .helpers import (WITH_EXIT_WINDOW, const_key, const_returned, const_returned_after_exits,
                      skip_exit_calls)
from ..rewrite.tree import all_paths_end


class Withs:
    """Mixin of ``Emitter``: with statements."""

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
            return self._after_body_left(node, entry, stack, exit_marker)
        # normal exit: the exit call, then on
        tail_stmts, nxt, st = self._skip_with_exit(exit_block, exit_marker, ctx, body_stack)
        if body_stack and not any(v is body_stack[-1] for v in stack):
            # `with cm: return f()`: a value kept on the stack while the exit runs can
            # only be a return value, computed inside: the return belongs in the body
            # (after the exit, or after the exits of enclosing withs and finally bodies,
            # the compiler's copies on the way out). The code after the with is where a
            # suppressing __exit__ goes on.
            ret = tail_stmts[0] if tail_stmts and isinstance(tail_stmts[0], ast.Return) and \
                tail_stmts[0].value is body_stack[-1] else ast.Return(value=body_stack[-1])
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + [ret]
            return self._after_body_left(node, entry, stack, exit_marker)
        ret = self._const_return_after_exit(tail_stmts, nxt)
        if ret is not None:
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + [ret]
            return self._after_body_left(node, entry, stack, exit_marker)
        ret, cont = self._const_return_not_after(entry, tail_stmts, nxt)
        if ret is None and not tail_stmts and nxt is not None:
            ret, cont = self._finally_copy_then_return(entry, nxt, ctx, st)
        if ret is not None:
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + ret
            return [node], cont, stack[:next(k for k, v in enumerate(stack) if v is exit_marker)]
        cont = self._loop_jump_in_body(node, entry, tail_stmts, nxt, ctx, st)
        if cont is not None:
            return [node], cont, stack[:next(k for k, v in enumerate(stack) if v is exit_marker)]
        return [node] + tail_stmts, nxt, st

    def _loop_jump_in_body(self, node, entry, tail_stmts, nxt, ctx, stack):
        """`with cm: ...; break` (or `continue`): the exit call, then the jump out of the
        loop, where a suppressing __exit__ goes on after the with, somewhere else. The
        jump is put at the end of the body of ``node``; where that path goes on, or None
        (no such jump: the body ends where the statement does)."""
        if ctx.loop is None:
            return None
        if nxt is None and len(tail_stmts) == 1 and self._plain_return(tail_stmts[0]):
            # 3.10+ copy the `return x` after the loop to where the break was
            cont = self._with_suppressed_exit(entry)
            if cont is None or cont not in self.cfg.blocks:
                return None
            node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + tail_stmts
            return cont
        if tail_stmts or nxt is None or nxt not in self.cfg.blocks:
            return None
        cont = self._with_suppressed_exit(entry)
        if cont is None or cont not in self.cfg.blocks or \
                self.cfg.through_jumps(cont) == self.cfg.through_jumps(nxt):
            return None
        jump = []
        if not self._loop_jump(nxt, ctx, list(stack), jump, None) or \
                not isinstance(jump[-1], (ast.Break, ast.Continue)) or len(jump) != 1:
            return None
        node.body = [b for b in node.body if not isinstance(b, ast.Pass)] + jump
        return cont

    def _plain_return(self, stmt):
        """A return of constants and local variables no inner function shares (a tuple of
        them): the same whether read before or after the exit call."""
        if not isinstance(stmt, ast.Return):
            return False
        values = [stmt.value]
        while values:
            value = values.pop()
            if isinstance(value, ast.Tuple):
                values.extend(value.elts)
            elif not (value is None or isinstance(value, ast.Constant) or isinstance(value, ast.Name)
                      and value.id in self.code.co_varnames and value.id not in self.code.co_cellvars):
                return False
        return True

    def _after_body_left(self, node, entry, stack, exit_marker):
        """The with ``node`` whose body never falls out (it returns, raises, breaks): a
        suppressing __exit__ still resumes after the with, and the code there is the
        code after the statement. (statements, where to go on or None, stack)."""
        cont = self._with_suppressed_exit(entry)
        if cont is None:
            return [node], None, None
        # (the body took the __enter__ result above the exit)
        return [node], cont, stack[:next(k for k, v in enumerate(stack) if v is exit_marker)]

    def _const_return_after_exit(self, tail_stmts, nxt):
        """`with cm: ...; return <constant>` (up to 3.9): the exit call, the POP_BLOCKs of
        enclosing try statements (3.8: and the calls of their finally bodies), then the
        value loaded and returned, with no jump between
        (after the with, the code goes on with a jump; 3.10+ copies returns there)."""
        if V.EXIT_BLOCKS_COPIED:
            return None
        if nxt is None and len(tail_stmts) == 1 and isinstance(tail_stmts[0], ast.Return) and \
                isinstance(tail_stmts[0].value, (ast.Constant, type(None))):
            return tail_stmts[0]
        if tail_stmts or nxt is None or nxt < 1:
            return None
        instrs = self.cfg.instrs
        at = skip_exit_calls(instrs, nxt)  # (a return from nested withs: theirs too)
        while True:  # (3.8: the finally bodies of enclosing try statements called first)
            ops = [i.opname for i in instrs[at:at + 2]]
            if ops[:1] == ["CALL_FINALLY"] or ops == ["POP_BLOCK", "CALL_FINALLY"]:
                at += ops.index("CALL_FINALLY") + 1
            else:
                break
        if [i.opname for i in instrs[at:at + 2]] != ["LOAD_CONST", "RETURN_VALUE"] or \
                instrs[nxt - 1].opname != "POP_BLOCK" or any(nxt <= (i.target or -1) <= at for i in instrs):
            return None
        k = nxt - 1
        while k > 0 and instrs[k].opname == "POP_BLOCK":
            k -= 1
        if not (instrs[k].opname == "POP_TOP" and instrs[k - 1].opname == "CALL" and instrs[k - 1].arg == 3) \
                and not (instrs[k].opname == "POP_FINALLY" and instrs[k - 1].opname == "WITH_CLEANUP_FINISH"):
            # (3.8: the exit's WITH_CLEANUP_FINISH, then POP_FINALLY: a return leaving a with)
            return None
        return ast.Return(value=E.const(instrs[at].argval))

    def _const_return_not_after(self, entry, tail_stmts, nxt):
        """`with cm: ...; return <constant>` (3.10+): the exit call, then the constant
        returned (in the statements after the exit, or in block ``nxt``, the end of an
        enclosing try), like a return after the with. But code after the with also runs
        where a suppressing __exit__ goes on (jumped to, or copied there); where that
        path returns something else, the return is the body's. (the Return node, where
        the suppressing path goes on), or (None, None)."""
        if not V.EXIT_BLOCKS_COPIED:
            return None, None
        if nxt is None and tail_stmts:
            if len(tail_stmts) > 1 and isinstance(tail_stmts[-1], ast.Return) and \
                    all(isinstance(s, M.WithExitStmt) for s in tail_stmts[:-1]):
                # (a return from nested withs runs the exits of the enclosing ones first)
                tail_stmts = tail_stmts[-1:]
            value = _const_ends(tail_stmts)
            if value is None:
                return None, None
            ret = tail_stmts
        elif not tail_stmts and nxt in self.cfg.blocks:
            blk = self.cfg[self.cfg.through_jumps(nxt)]
            load = const_returned_after_exits(blk.instrs)
            if load is None:
                return None, None
            value = const_key(load.argval)
            ret = [self._return(blk.last, E.const(load.argval))]
        else:
            return None, None
        cont = self._with_suppressed_exit(entry)
        if cont is None or cont not in self.cfg.blocks:
            return None, None
        other = const_returned_after_exits(self.cfg[self.cfg.through_jumps(cont)].instrs)
        if other is not None and const_key(other.argval) == value:
            return None, None
        return ret, cont

    def _finally_copy_then_return(self, entry, nxt, ctx, stack):
        """`try: with cm: ...; return <constant>` `finally: ...`: after the exit call,
        block ``nxt`` runs a copy of the finally body that ends in that return (on each of
        its paths, 3.10+; once after them, 3.9), while a suppressing __exit__ goes on
        elsewhere (after the with): the return is the body's. (the copy and its returns:
        stripped with the try's other copies; where the suppressing path goes on), or
        (None, None)."""
        if not V.RETURN_THROUGH_FINALLY_COPIES:
            return None, None  # (3.8 calls the finally body: ``_const_return_after_exit``)
        cont = self._with_suppressed_exit(entry)
        if cont is None or cont not in self.cfg.blocks or nxt not in self.cfg.blocks or \
                self.cfg.through_jumps(cont) == self.cfg.through_jumps(nxt):
            return None, None
        try:
            stmts, after = self.seq(nxt, ctx, list(stack))
        except Mismatch:
            return None, None
        value = _const_ends(stmts) if after is None and len(stmts) > 0 else None
        if value is None or isinstance(stmts[0], ast.Return):
            return None, None
        other = const_returned(self.cfg[self.cfg.through_jumps(cont)].instrs)
        if other is not None and const_key(other.argval) == value:
            return None, None
        return stmts, cont

    def _with_suppressed_exit(self, entry):
        """Where a with's handler continues when __exit__ returned true (or None)."""
        window = self.cfg.instrs[entry.target:entry.target + WITH_EXIT_WINDOW]
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


def _const_ends(stmts):
    """The constant (``const_key``) that every path of ``stmts`` returns, where they are
    one return or if statements and expressions ended by it (the copy of a finally body
    on the way out of the return), else None."""
    ends = []
    if not all_paths_end(stmts, lambda x: isinstance(x, ast.Return) and not ends.append(x)):
        return None
    if len(stmts) > 1 and not all(isinstance(x, (ast.If, ast.Expr, ast.Return)) for x in stmts):
        return None
    values = {const_key(None if r.value is None else r.value.value) if isinstance(
        r.value, (ast.Constant, type(None))) else None for r in ends}
    return values.pop() if len(values) == 1 and None not in values else None
