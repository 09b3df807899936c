"""3.14+ template strings (PEP 750): BUILD_INTERPOLATION and BUILD_TEMPLATE.

``t"a{x!r:>{w}}b"`` compiles to the constant tuple of its literal parts, then per field
the value, the source text of its expression (a constant) and the format spec,
BUILD_INTERPOLATION (the conversion in its argument), a tuple of the fields, and
BUILD_TEMPLATE. The result is an ``ast.TemplateStr`` of constants and
``ast.Interpolation`` nodes, which the 3.14 printer writes as a t-string.

The expression text is part of the value (``Interpolation.expression``): the field is
printed with the text the source had (``Interpolation.str``) when that text reads as the
same expression. A debug field ``{x=}`` leaves ``"x="`` at the end of the literal before
it; such a literal and field are printed as ``{x=}`` again.
"""
import ast
import re

from ...bytecode import versions as V
from ..mismatch import Mismatch
from .exprs import const
from .stackops import pop

_DEBUG_TAIL = re.compile(r"\s*=\s*\Z")


class Templates:
    """A mixin of ``Executor`` (``executor.py``); see the module docstring."""

    def op_BUILD_INTERPOLATION(self, ins, stack, out):
        spec = pop(stack) if ins.arg & 1 else None
        text = pop(stack)
        value = pop(stack)
        conversion = V.INTERPOLATION_CONVERSIONS.get(ins.arg >> 2)
        if conversion is None or not _is_str(text):
            raise Mismatch("BUILD_INTERPOLATION without a conversion or an expression text")
        if spec is not None and not isinstance(spec, ast.JoinedStr):
            if not isinstance(spec, ast.expr):
                raise Mismatch("format spec %r of an interpolation" % (spec,))
            spec = ast.JoinedStr(values=[spec])
        stack.append(ast.Interpolation(value=value, str=source_text(text.value, value),
                                       conversion=conversion, format_spec=spec))

    def op_BUILD_TEMPLATE(self, ins, stack, out):
        fields = pop(stack)
        strings = pop(stack)
        parts = strings.elts if isinstance(strings, ast.Tuple) else None
        if parts is None or not all(_is_str(p) for p in parts) or \
                not isinstance(fields, ast.Tuple) or len(parts) != len(fields.elts) + 1 or \
                not all(isinstance(f, ast.Interpolation) for f in fields.elts):
            raise Mismatch("BUILD_TEMPLATE of something else than literal parts and fields")
        values = []
        for part, field in zip(parts, fields.elts + [None]):
            if part.value:
                values.append(const(part.value))
            if field is not None:
                values.append(field)
        stack.append(ast.TemplateStr(values=debug_fields(values)))


def _is_str(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def source_text(text, value):
    """The expression text to print for a field: ``text`` when it reads as ``value``
    (None otherwise: the printer writes ``value``)."""
    try:
        same = ast.unparse(ast.parse(text.strip(), mode="eval").body) == ast.unparse(value)
    except (SyntaxError, ValueError, TypeError, AttributeError, RecursionError):
        return None
    return text if same else None


def debug_fields(values):
    """``values`` with each ``<literal ending in 'x ='>{x!r}`` pair written as the debug
    field ``{x =}`` (which compiles to that pair): the literal's tail moves into the
    field's text; ``!r`` is implied there without a format spec."""
    out = []
    for node in values:
        prev = out[-1] if out else None
        if isinstance(node, ast.Interpolation) and node.str is not None and _is_str(prev):
            debug = _debug_text(prev.value, node)
            if debug is not None:
                implied = node.conversion == ord("r") and node.format_spec is None
                node = ast.Interpolation(value=node.value, str=debug,
                                         conversion=-1 if implied else node.conversion,
                                         format_spec=node.format_spec)
                rest = prev.value[:-len(debug)]
                out.pop()
                if rest:
                    out.append(const(rest))
        out.append(node)
    return out


def _debug_text(literal, field):
    """The tail of ``literal`` that a debug field of ``field`` writes (its expression text,
    ``=`` and blanks), or None when the pair is no debug field."""
    if field.conversion == -1 and field.format_spec is None:
        return None  # `{x=}` formats with repr: no debug field leaves the conversion out
    head = literal.rfind(field.str)
    if head < 0 or not _DEBUG_TAIL.match(literal[head + len(field.str):]):
        return None
    return literal[head:]
