"""Source for float and complex constants whose ``repr`` does not give them back.

``repr(-0j)`` is ``(-0-0j)``, which evaluates to ``0j``: the real part ``-0`` is the int
zero, and ``-0 - 0j`` subtracts. A constant's signs of zero, infinities and NaNs come back
only through expressions the compiler folds into that constant: unary minus and ``+``/``-``
between a float and an imaginary literal. Which expression folds to which bits depends on
the version's complex arithmetic (up to 3.13 a float operand is made a complex with a
``+0.0`` imaginary part; 3.14 keeps it real), so the candidates are tried on the running
interpreter, and the first that compiles to exactly the constant is used. A leaf module.
"""
import ast
import dis
import math
import struct

INF = float("inf")
_FOLDED = frozenset(["LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "RESUME", "NOP", "CACHE"])
_FOUND = {}  # exact key of a constant -> its expression's text form, or None


def exact_key(value):
    """What tells two float or complex constants apart: type and bits, and for a NaN
    its sign only (its payload has no source form)."""
    parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
    return (type(value),) + tuple(("nan", math.copysign(1.0, p)) if p != p else
                                  struct.pack("<d", p) for p in parts)


def number_expr(value):
    """An expression the compiler folds into the float or complex ``value`` with its exact
    bits (signed zeros, infinities; NaN with its sign), or None."""
    key = exact_key(value)
    if key not in _FOUND:
        _FOUND[key] = next((node for node in _candidates(value) if _folds_to(node, key)), None)
    node = _FOUND[key]
    return None if node is None else _copy(node)


def _magnitude(x, imaginary):
    """A non-negative literal (or ``1e309 - 1e309``, a NaN) for ``abs(x)``, as a float or
    an imaginary number."""
    if x != x:
        inf = complex(0.0, INF) if imaginary else INF
        return ast.BinOp(left=ast.Constant(inf, None), op=ast.Sub(), right=ast.Constant(inf, None))
    if imaginary:
        return ast.Constant(complex(0.0, abs(x)), None)
    # (an int where the float is one: `3 + 4j`; a zero stays a float, it may be `-0.0`)
    whole = x and abs(x) < 2 ** 53 and float(x).is_integer()
    return ast.Constant(int(abs(x)) if whole else abs(x), None)


def _negated(node):
    return ast.UnaryOp(op=ast.USub(), operand=node)


def _candidates(value):
    written = ast.parse(repr(value).replace("inf", "1e309"), mode="eval").body
    if all(isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.operator, ast.unaryop))
           for n in ast.walk(written)):
        yield written  # its repr, where that is right: `(1-2j)`, `1.5`
    if isinstance(value, float):
        atom = _magnitude(value, False)
        yield atom
        yield _negated(atom)
        return
    real, imag = _magnitude(value.real, False), _magnitude(value.imag, True)
    forms = [imag, _negated(imag)]
    for r in (real, _negated(real)):
        for j in (imag, _negated(imag)):
            forms += [ast.BinOp(left=r, op=ast.Add(), right=j),
                      ast.BinOp(left=r, op=ast.Sub(), right=j)]
    for form in forms:
        yield form
        yield _negated(form)


def _folds_to(node, key):
    """Whether ``node`` compiles to one constant with the exact ``key``."""
    try:
        code = compile(ast.fix_missing_locations(ast.Expression(body=_copy(node))),
                       "<constant>", "eval")
        if not all(i.opname in _FOLDED for i in dis.get_instructions(code)):
            return False
        got = eval(code, {"__builtins__": {}})
    except (ArithmeticError, ValueError, SyntaxError):
        return False
    return type(got) is key[0] and exact_key(got) == key


def _copy(node):
    """A fresh copy of a small tree of Constant, UnaryOp and BinOp nodes (the result is
    put in a tree that later stages may annotate)."""
    if isinstance(node, ast.Constant):
        return ast.Constant(node.value, None)
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(op=type(node.op)(), operand=_copy(node.operand))
    return ast.BinOp(left=_copy(node.left), op=type(node.op)(), right=_copy(node.right))
