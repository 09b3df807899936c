"""The statement forms the compiler turns into other ones, rebuilt: asserts (an if on a
raise of AssertionError), while loops compiled as if + do-while, a loop body's
trailing continue, two returns that were one conditional expression.
"""
import ast

from ..symbolic import exprs as E
from ...bytecode import versions as V
from .. import facts
from ..facts import Fact
from .copies import strip_with_exits
from .tree import ESCAPES, TRY_KINDS, is_return_none, leaves, same, same_stmts


def join_ifexp_returns(stmts):
    """`if c: return a` + `return b` back into `return a if c else b` where a returned
    constant shows it was an arm of a conditional expression (``_ifexp_arm``). The two
    forms differ only there on 3.12+: a `return` statement of a constant is one
    RETURN_CONST, while a conditional expression's arm gets a copy of the shared return."""
    while len(stmts) >= 2 and isinstance(stmts[-1], ast.Return) and isinstance(stmts[-2], ast.If) \
            and not stmts[-2].orelse and len(stmts[-2].body) == 1 \
            and isinstance(stmts[-2].body[0], ast.Return):
        a, b = stmts[-2].body[0], stmts[-1]
        if a.value is None or b.value is None or facts.get(a, Fact.CONST_STMT, False) or \
                facts.get(b, Fact.CONST_STMT, False) or not (facts.get(a, Fact.IFEXP_ARM, False) or
                                                         facts.get(b, Fact.IFEXP_ARM, False)):
            return
        joined = ast.Return(value=ast.IfExp(test=stmts[-2].test, body=a.value, orelse=b.value))
        facts.note(joined, Fact.IFEXP_ARM, True)
        stmts[-2:] = [joined]


def join_guarded_while_else(stmts):
    """3.10+ compile `while c: B` `else: E` + `R` (R ending in a jump out: `break`,
    `return`, ...) as `if c: <do-while c>` with E laid down once, where both the entry
    test and the loop's end go. That can come back as `if c: [while c: B else: E; R]`
    followed by `E; R` (the entry test's way, read as the code after the if; E may be
    empty, and R a `return` the compiler copied): the two are one `while c: B else: E`
    + `R`, and written so they compile the way the source did (as two, E and R would be
    compiled twice). R must leave: otherwise a loop that ends through E would run E
    again after the if. An E that leaves itself is all the entry test's way runs: it
    comes back as the if's else arm (R then may go on: a `break` of B reaches it alone),
    or as the code after the if (R must leave, as above)."""
    k = 0
    while k < len(stmts):
        s = stmts[k]
        loop = _guarded_while_else(s)
        if loop is not None:
            rest = s.body[1:]
            tail = loop.orelse + rest
            if loop.orelse and isinstance(loop.orelse[-1], ESCAPES + (ast.Raise,)):
                tail = loop.orelse
                if s.orelse:
                    if same_stmts(s.orelse, tail):
                        stmts[k:k + 1] = [loop] + rest
                    k += 1
                    continue
            if rest and isinstance(rest[-1], ESCAPES + (ast.Raise,)) and not s.orelse and \
                    same_stmts(stmts[k + 1:k + 1 + len(tail)], tail):
                stmts[k:k + 1 + len(tail)] = [loop] + rest
        k += 1


def _guarded_while_else(s):
    """The loop of `if c: [while c: ...; ...]` (the loop laid out test-at-the-end, as
    3.10+ compile `while c:`), else None."""
    if not isinstance(s, ast.If) or not s.body:
        return None
    loop = s.body[0]
    if isinstance(loop, ast.While) and facts.get(loop, Fact.INVERTED, False) \
            and same(loop.test, s.test) and (s.orelse or len(s.body) >= 2):
        return loop
    return None


def falls_off_end(s):
    """`if c: A else: B` at the end of a function, where A ends in the compiler's copy
    of the implicit `return None` (and B leaves too): an if/else in the source, which
    stays one (both returns go with the function's tail)."""
    last = s.body[-1]
    return facts.get(last, Fact.IMPLICIT, False) and is_return_none(last) and \
        bool(s.orelse) and leaves(s.orelse[-1])


def _as_assert(s):
    """`if not c: raise AssertionError(msg)` from LOAD_ASSERTION_ERROR is `assert c, msg`."""
    if s.orelse or len(s.body) != 1:
        return None
    node = s.body[0]
    if isinstance(node, ast.Raise):
        node = raise_as_assert(node) or _global_raise_as_assert(s, node)
    elif not is_assert_false(node):
        return None
    if node is not None:
        node.test = E.negate(s.test)
    return node


def _global_raise_as_assert(s, node):
    """3.8: `if not c: raise AssertionError(msg)` whose jump skips the raise when c is true
    is `assert c, msg`; written as an if, a negated comparison would compile to the
    opposite operator and jump (`not (a is b)` is folded into `a is not b`)."""
    if not V.ASSERT_LOADS_GLOBAL or not facts.get(s, Fact.JUMPS_IF_TRUE, False) or node.cause is not None:
        return None
    exc, msg = node.exc, None
    if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords and \
            not isinstance(exc.args[0], ast.Starred):
        exc, msg = exc.func, exc.args[0]
    if not (isinstance(exc, ast.Name) and exc.id == "AssertionError"):
        return None
    return ast.Assert(test=E.const(False), msg=msg)


def is_assert_false(s):
    return isinstance(s, ast.Assert) and isinstance(s.test, ast.Constant) and s.test.value is False


def raise_as_assert(s):
    """`raise AssertionError(msg)` from LOAD_ASSERTION_ERROR is `assert False, msg` (the
    compiler drops the test of an assert that always fails)."""
    exc = s.exc
    msg = None
    if s.cause is not None:
        return None
    if isinstance(exc, ast.Call) and facts.get(exc.func, Fact.ASSERTION, False) and \
            len(exc.args) == 1 and not exc.keywords:
        msg = exc.args[0]
    elif not facts.get(exc, Fact.ASSERTION, False):
        return None
    return ast.Assert(test=E.const(False), msg=msg)


def fix_if(s):
    node = _as_assert(s)
    if node is not None:
        return [node]
    if not s.body or all(isinstance(x, ast.Pass) for x in s.body):
        if s.orelse and not _pass_arm_kept(s):
            s.test = E.negate(s.test)
            s.body, s.orelse = s.orelse, []
        else:
            s.body = [ast.Pass()]
    loop = _while_from_if(s)
    return s if loop is None else [loop]


def _pass_arm_kept(s):
    """Whether `if c: pass` `else: B` stays so: its body was a jump over B (``PASS_ARM``;
    `if not c: B` has none), and B does not end in a jump of its own (`if not c:
    continue`, as a comprehension filter reads, compiles the same)."""
    return facts.get(s, Fact.PASS_ARM, False) and not isinstance(s.orelse[-1], ESCAPES + (ast.Raise,))


def _while_from_if(s):
    """3.10+ compile `while c:` as `if c: <do-while c>`: the `while` loop when the if
    statement ``s`` is that, else None. `if a: while c:` compiles as `if a: if c:
    <do-while c>`, the two tests read as one `if a and c:`: that comes back as `if a:`
    around the loop (left as it was, the loop's first test would run twice). `while c:
    ... else: E` is `if c: <do-while c> else: E` `else: E`."""
    if len(s.body) != 1 or not isinstance(s.body[0], ast.While):
        return None
    loop = s.body[0]
    inverted = facts.get(loop, Fact.INVERTED, False)
    if inverted and same(loop.test, s.test) and same_stmts(s.orelse, loop.orelse):
        return loop
    if s.orelse:
        return None
    compound = _compound_while(s)
    if compound is not None or not inverted:
        return compound
    head = _and_head(s.test, loop.test)
    return None if head is None else ast.If(test=head, body=[loop], orelse=[])


def _and_head(test, tail):
    """`a` when ``test`` is `a and tail` (a: one or more operands), else None."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return None
    ops = tail.values if isinstance(tail, ast.BoolOp) and isinstance(tail.op, ast.And) else [tail]
    k = len(test.values) - len(ops)
    if k < 1 or not same_stmts(test.values[k:], ops):
        return None
    return test.values[0] if k == 1 else ast.BoolOp(op=ast.And(), values=test.values[:k])


def _continues(node):
    """Whether ``node`` holds a `continue` of the loop around it."""
    if isinstance(node, ast.Continue):
        return True
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return any(_continues(x) for x in node.orelse)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) or \
            not isinstance(node, ast.stmt):
        return False
    return any(_continues(x) for x in ast.iter_child_nodes(node))


def _compound_while(s):
    """3.10+ `while a and b:` is `if a and b: do { body } while (a and b)`; the do-while's
    test at the end of the body comes back as `if not a: break` + the loop test `b`
    (`while a or b:` as `while True:` + `if not a and not b: break`). The `while` loop
    when ``s`` is that, else None."""
    if s.orelse or len(s.body) != 1 or not isinstance(s.body[0], ast.While):
        return None
    loop = s.body[0]
    if loop.orelse or len(loop.body) < 2 or any(_continues(x) for x in loop.body):
        return None  # (a `continue` would skip the test at the end of the body)
    stop = _if_break_test(loop.body[-1])
    if stop is None:
        return None
    test = s.test
    if isinstance(loop.test, ast.Constant) and loop.test.value is True:
        head = test
    elif facts.get(loop, Fact.INVERTED, False):
        head = _and_head(test, loop.test)
        if head is None:
            return None
    else:
        return None
    if not same(stop, E.negate(head)):
        return None
    node = ast.While(test=test, body=loop.body[:-1], orelse=[])
    facts.note(node, Fact.INVERTED, True)
    return node


def _if_break_test(stmt):
    """The test of ``stmt`` when it is `if c: break` (no else), else None."""
    if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 and \
            isinstance(stmt.body[0], ast.Break):
        return stmt.test
    return None


def drop_trailing_continue(body):
    while body and isinstance(body[-1], ast.Continue) and not facts.get(body[-1], Fact.EXPLICIT, False):
        body.pop()
    if body and isinstance(body[-1], ast.If):
        last = body[-1]
        if not facts.get(last, Fact.ELSE_KEPT, False):
            # (`if c: continue` `else: X` keeps its continue: up to 3.9 the dead jump over
            # the else shows it was written, see Emitter._dead_else_jump)
            drop_trailing_continue(last.body)
        drop_trailing_continue(last.orelse)
        if not last.body:
            if last.orelse:
                last.test = E.negate(last.test)
                last.body, last.orelse = last.orelse, []
            else:
                last.body = [ast.Pass()]
        loop = _while_from_if(last)  # (the `continue` after it hid the shape)
        if loop is not None:
            body[-1] = loop
    if body and isinstance(body[-1], TRY_KINDS):
        last = body[-1]
        for arm in (last.body, last.orelse):
            drop_trailing_continue(arm)
        for h in last.handlers:
            drop_trailing_continue(h.body)
            if not h.body:
                h.body = [ast.Pass()]
        if not last.body:
            last.body = [ast.Pass()]
    if body and isinstance(body[-1], (ast.With, ast.AsyncWith)):
        last = body[-1]
        last.body = strip_with_exits(last.body, facts.get(last, Fact.WITH_EXIT, None))
        drop_trailing_continue(last.body)
        if not last.body:
            last.body = [ast.Pass()]
