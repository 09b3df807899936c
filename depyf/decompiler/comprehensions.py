"""Rebuild list/set/dict comprehensions and generator expressions from their loops."""
import ast

from ..errors import DecompilationError
from . import symbolic as S


def _generators(stmts, generators):
    """Walk nested for/if down to the append/yield; return the element node(s)."""
    if len(stmts) > 1 and generators and isinstance(stmts[0], ast.If) and not stmts[0].orelse \
            and len(stmts[0].body) == 1 and isinstance(stmts[0].body[0], ast.Continue):
        # `if not c: continue` then the rest: the filter `if c`; `if a or b: continue`
        # is `if not a if not b`
        test = stmts[0].test
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
        generators[-1].ifs.extend(S.negate(p) for p in parts)
        return _generators(stmts[1:], generators)
    if len(stmts) != 1:
        raise DecompilationError("comprehension body has %d statements" % len(stmts))
    s = stmts[0]
    if isinstance(s, (ast.For, ast.AsyncFor)):
        if s.orelse:
            raise DecompilationError("comprehension loop with else")
        generators.append(ast.comprehension(target=s.target, iter=s.iter, ifs=[],
                                            is_async=int(isinstance(s, ast.AsyncFor))))
        return _generators(s.body, generators)
    if isinstance(s, ast.If) and not s.orelse and generators:
        generators[-1].ifs.append(s.test)
        return _generators(s.body, generators)
    if isinstance(s, S.AppendStmt):
        return s
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Yield):
        return s
    raise DecompilationError("unexpected statement in a comprehension: %s" % type(s).__name__)


def comprehension_from_body(code, body, iter_expr):
    """``body`` is the decompiled comprehension function; ``.0`` is its iterator argument."""
    body = [s for s in body if not (isinstance(s, ast.Return) and s.value is None)]
    if body and isinstance(body[-1], ast.Return):
        body = body[:-1]
    generators = []
    leaf = _generators(body, generators)
    first = generators[0]
    if isinstance(first.iter, ast.Name) and first.iter.id == ".0":
        first.iter = iter_expr
    if isinstance(leaf, ast.Expr):
        value = leaf.value.value
        return ast.GeneratorExp(elt=value if value is not None else S.const(None), generators=generators)
    acc = leaf.acc
    if leaf.key is not None:
        return ast.DictComp(key=leaf.key, value=leaf.value, generators=generators)
    if isinstance(acc, ast.Set) or getattr(acc, "kind", None) == "set":
        return ast.SetComp(elt=leaf.value, generators=generators)
    return ast.ListComp(elt=leaf.value, generators=generators)
