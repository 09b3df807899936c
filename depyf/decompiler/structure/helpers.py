"""Small utilities the construct families share (no state)."""
import ast

from ...bytecode import versions as V
from ..mismatch import Mismatch
from ..symbolic import markers as M
from ..symbolic.markers import Marker
from .. import facts
from ..facts import Fact


def reraise():
    """The compiler's own re-raise (RERAISE, 3.8's END_FINALLY): a written `raise` is
    RAISE_VARARGS 0. Marked so that the end of a finally body can tell them apart."""
    node = ast.Raise(exc=None, cause=None)
    facts.note(node, Fact.IMPLICIT, True)
    return node


def first_op(instrs, start, count, opname):
    """The first ``opname`` instruction among the ``count`` from ``start``, or None."""
    return next((i for i in instrs[start:start + count] if i.opname == opname), None)


def const_returned(instrs):
    """The LOAD_CONST of the constant ``instrs`` return, when that is all they do (NOPs
    aside), else None."""
    ops = [i for i in instrs if i.opname != "NOP"]
    return ops[0] if [i.opname for i in ops] == ["LOAD_CONST", "RETURN_VALUE"] else None


def const_returned_after_exits(instrs):
    """``const_returned`` of ``instrs`` after the exit calls of enclosing with statements
    (`__exit__(None, None, None)`, result dropped; up to 3.10 each after its POP_BLOCK)
    that a return from inside them runs first."""
    ops = [i for i in instrs if i.opname not in ("NOP", "POP_BLOCK")]
    while len(ops) > 5 and is_exit_call(ops[:5]):
        ops = ops[5:]
    return const_returned(ops)


_EXIT_38 = ["BEGIN_FINALLY", "WITH_CLEANUP_START", "WITH_CLEANUP_FINISH", "POP_FINALLY"]


def past_return_swaps(instrs, k):
    """Index after the swaps from ``instrs[k]`` that put a `return` value below a with's
    exit (``V.WITH_RETURN_SWAPS``), or None where they are not there."""
    swaps = V.WITH_RETURN_SWAPS
    ops = instrs[k:k + len(swaps)]
    if len(ops) == len(swaps) and all(i.opname == "SWAP" and i.arg == n for i, n in zip(ops, swaps)):
        return k + len(swaps)
    return None


def swaps_and_exits(instrs, k):
    """Whether ``instrs[k:]`` start the way out of a `return` through a with: its value
    swapped below the exit, then the exit called."""
    swapped = past_return_swaps(instrs, k)
    return swapped is not None and skip_exit_calls(instrs, swapped) > swapped


def skip_exit_calls(instrs, k):
    """Past the exit calls of with statements (and the POP_BLOCKs after them, up to
    3.10) from ``instrs[k]`` on: the way out of enclosing withs of a return."""
    while True:
        if len(instrs) > k + 5 and is_exit_call(instrs[k:k + 5]):
            k += 5
        elif [i.opname for i in instrs[k:k + 4]] == _EXIT_38:  # (3.8)
            k += 4
        else:
            return k
        while k < len(instrs) and instrs[k].opname == "POP_BLOCK":
            k += 1


def is_exit_call(ops):
    none = lambda i: i.opname == "LOAD_CONST" and i.argval is None
    return none(ops[0]) and all(none(i) or i.opname == "COPY" and i.arg == 1 for i in ops[1:3]) and \
        ops[3].opname == "CALL" and ops[3].arg in (2, 3) and ops[4].opname == "POP_TOP"


def const_key(value):
    """A constant told apart by type and repr (True == 1, 0.0 == -0.0)."""
    return type(value), repr(value)


def mentions(expr, values):
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


def same_entry(a, b):
    if a is None or b is None:
        return a is b
    return a.target == b.target


def pending_value(stack):
    """Whether a value of the source waits on the stack (below a branch's test). The NULL
    a call keeps next to its callable does not count: 3.13 pushes it after the callable
    (`f(a if c else b)` tests c over [f, NULL])."""
    top = len(stack) - 1
    while top >= 0 and isinstance(stack[top], M.Null):
        top -= 1
    return (top >= 0 and isinstance(stack[top], ast.expr) and not isinstance(stack[top], Marker)
            and not facts.get(stack[top], Fact.TEMP, False))


def same_code(a, b):
    """Whether two instruction runs are copies of each other (same operations, arguments
    and lines)."""
    return [(i.opname, i.arg, i.line) for i in a] == [(i.opname, i.arg, i.line) for i in b]


def take_target(stmts):
    if stmts and isinstance(stmts[0], ast.Assign) and isinstance(stmts[0].value, M.ForItem):
        return stmts[0].targets[0], stmts[1:]
    if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, M.ForItem):
        return ast.Name(id="_", ctx=ast.Store()), stmts[1:]
    raise Mismatch("for loop without a target")


def appends_to(stmts, acc):
    """Whether a comprehension-append to ``acc`` occurs in ``stmts`` (at any depth)."""
    for st in stmts:
        if isinstance(st, M.AppendStmt) and st.acc is acc:
            return True
        for field in ("body", "orelse"):
            inner = getattr(st, field, None)
            if isinstance(inner, list) and appends_to(inner, acc):
                return True
    return False


# how far into a with statement's handler its __exit__ call (awaited for async with)
# and the test of what it returned lie
WITH_EXIT_WINDOW = 12


def cancels_and_goes_on(stmts):
    """Whether a list in ``stmts`` (nested statements included, nested code not) ends in
    the dropped value of a `return` (``Fact.RETURN_CANCELLED``): the path goes on past it
    with no break/continue of its own."""
    if stmts and isinstance(stmts[-1], ast.Expr) and facts.get(stmts[-1], Fact.RETURN_CANCELLED, False):
        return True
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            if cancels_and_goes_on(getattr(s, field, None) or []):
                return True
        if any(cancels_and_goes_on(h.body) for h in getattr(s, "handlers", ())):
            return True
    return False
