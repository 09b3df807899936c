"""Stage 5: ast -> source text.

``ast.unparse`` does the printing on 3.9+; 3.8 lacks it and uses the ``astunparse``
backport (a 3.8-only dependency). Internal markers that leak into the tree are reported
as a DecompilationError instead of printing broken code.
"""
import ast
import sys

from ..errors import DecompilationError
from .symbolic import Marker, PseudoStmt


class _Check(ast.NodeVisitor):
    def generic_visit(self, node):
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, (Marker, PseudoStmt)):
                    raise DecompilationError("internal value %r left in the output (in %s.%s)"
                                             % (item, type(node).__name__, field))
                if isinstance(item, ast.AST):
                    self.visit(item)


def unparse(node, indentation=4):
    _Check().visit(node)
    node = ast.fix_missing_locations(node)
    if sys.version_info >= (3, 9):
        text = ast.unparse(node)
    else:  # pragma: no cover - exercised on 3.8 only
        import astunparse
        text = astunparse.unparse(node).strip("\n")
    if indentation != 4:
        text = _reindent(text, indentation)
    return text + "\n"


def _reindent(text, width):
    lines = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        lines.append(" " * (depth * width) + stripped)
    return "\n".join(lines)
