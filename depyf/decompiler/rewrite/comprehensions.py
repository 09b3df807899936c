"""Rebuild list/set/dict comprehensions and generator expressions from their loops."""
import ast
from inspect import CO_GENERATOR

from ..mismatch import Mismatch
from ..symbolic import markers as M
from ..symbolic import exprs as E
from .. import facts
from ..facts import Fact


def _generators(stmts, generators):
    """Walk nested for/if down to the append/yield; return the element node(s)."""
    if len(stmts) > 1 and generators and isinstance(stmts[0], ast.If) and not stmts[0].orelse \
            and len(stmts[0].body) == 1 and isinstance(stmts[0].body[0], ast.Continue):
        # `if not c: continue` then the rest: the filter `if c`; `if a or b: continue`
        # is `if not a if not b`
        test = stmts[0].test
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
        generators[-1].ifs.extend(_own_line(E.negate(p), stmts[0]) for p in parts)
        return _generators(stmts[1:], generators)
    if len(stmts) > 1 and generators and isinstance(stmts[0], ast.If):
        # `if (a if t else b)` comes out as `if t: <if not a: continue>` `else: <...>`;
        # `if a or (b and c)` as `if not a: <if b: <if not c: continue> else: continue>`
        passes = _passing_condition([stmts[0]])
        if passes is not _NOT_GUARDS:
            if passes is not None:
                generators[-1].ifs.append(passes)
            return _generators(stmts[1:], generators)
    if len(stmts) > 1 and generators and isinstance(stmts[0], ast.Assign) and len(stmts[0].targets) == 1:
        # 3.9+ compile `for y in [v]` (a one-item list or tuple, not the first `for`)
        # as `y = v`: no statement of a comprehension's own assigns
        generators.append(ast.comprehension(target=stmts[0].targets[0], iter=ast.List(
            elts=[stmts[0].value], ctx=ast.Load()), ifs=[], is_async=0))
        return _generators(stmts[1:], generators)
    if len(stmts) != 1:
        raise Mismatch("comprehension body has %d statements" % len(stmts))
    s = stmts[0]
    if isinstance(s, (ast.For, ast.AsyncFor)):
        if s.orelse:
            raise Mismatch("comprehension loop with else")
        generators.append(ast.comprehension(target=s.target, iter=s.iter, ifs=[],
                                            is_async=int(isinstance(s, ast.AsyncFor))))
        return _generators(s.body, generators)
    if isinstance(s, ast.If) and not s.orelse and generators:
        generators[-1].ifs.append(_own_line(s.test, s))
        return _generators(s.body, generators)
    if isinstance(s, M.AppendStmt):
        return s
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Yield):
        return s
    if isinstance(s, ast.Pass) and generators:
        return None  # the element and its filter were dead code: `if False` took them
    raise Mismatch("unexpected statement in a comprehension: %s" % type(s).__name__)


def _own_line(test, stmt):
    """The filter ``test`` of the if statement ``stmt``, marked to print on a line of its
    own when its jump shows it stood on one (see ``Emitter._skips_through_jump``)."""
    if facts.get(stmt, Fact.TEST_OWN_LINE, False):
        facts.note(test, Fact.OWN_LINE, True)
    return test


_NOT_GUARDS = object()
_NEVER = object()  # statements that skip every item (`continue`)


def _passing_condition(stmts):
    """For statements that only skip to the next item (`if c: continue`, nested under
    if/else): the condition under which an item gets past them, None for always, or
    _NOT_GUARDS when they do anything else. (A filter only needs the truth value.)"""
    if not stmts:
        return None
    first, rest = stmts[0], stmts[1:]
    if isinstance(first, ast.Pass):
        return _passing_condition(rest)
    if isinstance(first, ast.Continue):
        return _NEVER
    if not isinstance(first, ast.If):
        return _NOT_GUARDS
    if len(first.body) == 1 and isinstance(first.body[0], ast.Continue):
        if first.orelse:
            return _NOT_GUARDS
        here = E.negate(first.test)
    else:
        body, orelse = _passing_condition(first.body), _passing_condition(first.orelse)
        if body is _NOT_GUARDS or orelse is _NOT_GUARDS or body is orelse is _NEVER:
            return _NOT_GUARDS
        if body is None and orelse is None:
            return _NOT_GUARDS  # a test that decides nothing is not a filter
        if orelse is _NEVER:  # `if t: <guards> else: continue` (a jump kept apart by
            # its line: `a or (not b and c)` over lines in 3.10/3.11)
            here = _both(first.test, body)
        elif body is _NEVER:
            here = _both(E.negate(first.test), orelse)
        elif body is None:
            here = ast.BoolOp(op=ast.Or(), values=[first.test, orelse])
        elif orelse is None:
            here = ast.BoolOp(op=ast.Or(), values=[E.negate(first.test), body])
        else:
            here = ast.IfExp(test=first.test, body=body, orelse=orelse)
    after = _passing_condition(rest)
    if after is _NOT_GUARDS or after is _NEVER:
        return _NOT_GUARDS
    return here if after is None else ast.BoolOp(op=ast.And(), values=[here, after])


def _both(test, then):
    """``test and then`` (``test`` alone when ``then`` is None: always)."""
    return test if then is None else ast.BoolOp(op=ast.And(), values=[test, then])


def _dead_element(result, generators):
    """The comprehension whose element is never reached: a filter the compiler found
    false (`if False`) took the element away with it, so any element compiles to the same
    code; ``result`` is the display the comprehension returns (None: a generator
    expression)."""
    generators[-1].ifs.append(E.const(False))
    none = E.const(None)
    if result is None:
        return ast.GeneratorExp(elt=none, generators=generators)
    if isinstance(result, ast.Dict):
        return ast.DictComp(key=none, value=E.const(None), generators=generators)
    if isinstance(result, ast.Set) or getattr(result, "kind", None) == "set":
        return ast.SetComp(elt=none, generators=generators)
    if isinstance(result, ast.List):
        return ast.ListComp(elt=none, generators=generators)
    raise Mismatch("comprehension without an element returns %s" % type(result).__name__)


def comprehension_from_body(code, body, iter_expr):
    """``body`` is the decompiled comprehension function; ``.0`` is its iterator argument."""
    body = [s for s in body if not (isinstance(s, ast.Return) and s.value is None)]
    result = None
    if body and isinstance(body[-1], ast.Return):
        body, result = body[:-1], body[-1].value
    generators = []
    leaf = _generators(body, generators)
    first = generators[0]
    if isinstance(first.iter, ast.Name) and first.iter.id == ".0":
        first.iter = iter_expr
    if leaf is None:
        return _dead_element(None if code.co_flags & CO_GENERATOR else result, generators)
    if isinstance(leaf, ast.Expr):
        value = leaf.value.value
        return ast.GeneratorExp(elt=value if value is not None else E.const(None), generators=generators)
    acc = leaf.acc
    if leaf.key is not None:
        return ast.DictComp(key=leaf.key, value=leaf.value, generators=generators)
    if isinstance(acc, ast.Set) or getattr(acc, "kind", None) == "set":
        return ast.SetComp(elt=leaf.value, generators=generators)
    return ast.ListComp(elt=leaf.value, generators=generators)
