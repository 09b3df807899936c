"""Match statements: the cases that ``patterns.find_matches`` read before the CFG was
built, placed in the block structure (guards, bodies, where the statement ends)."""
import ast

from . import patterns
from ..symbolic import exprs as E
from ...bytecode import versions as V
from ..flow.instructions import COND_JUMPS


class Matches:
    """Mixin of ``Emitter``: match statements."""

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
            if c.body is None:  # `case P if False:` (its body is gone with the guard)
                cases.append((pat, E.const(False), None))
                continue
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
        bodies = [b for _, _, b in cases if b is not None]
        starts = bodies + ([fail] if fail is not None else [])
        sinks = ctx.sinks()
        follow = self.cfg.postdominator_merge(starts, sinks, ctx.region)
        if follow is None and fail is not None and any(
                fail in self.cfg.reachable(b, sinks, ctx.region) for b in bodies):
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
            stmts = self.seq(body, sub, rest)[0] if body is not None else []
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
