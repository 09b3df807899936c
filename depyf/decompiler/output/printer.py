"""Stage 5: ast -> source text.

``ast.unparse`` does the printing on 3.9+; 3.8 lacks it and uses the ``astunparse``
backport (a 3.8-only dependency). Internal markers that leak into the tree are reported
as a Mismatch instead of printing broken code.
"""
import ast
import importlib

from ...bytecode import versions as V
from ..mismatch import Mismatch
from ..symbolic.markers import Marker, PseudoStmt
from .. import facts
from ..facts import Fact


class _Check(ast.NodeVisitor):
    def generic_visit(self, node):
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, (Marker, PseudoStmt)):
                    raise Mismatch("internal value %r left in the output (in %s.%s)"
                                   % (item, type(node).__name__, field))
                if isinstance(item, ast.AST):
                    self.visit(item)


if V.HAS_AST_UNPARSE:
    _module = importlib.import_module(V.AST_UNPARSER[0])
    _BaseUnparser = getattr(_module, V.AST_UNPARSER[1])
    _Precedence = getattr(_module, V.AST_UNPARSER[2])

    class Unparser(_BaseUnparser):
        """``ast.unparse`` without positions (no line number is read), but a
        comprehension filter marked ``OWN_LINE`` starts a new line: the compiler's jumps
        differ when a filter is not on its element's line; and an internal value reached
        while printing is a Mismatch (the same check as ``_Check``, made on the way
        instead of by a second walk of the tree)."""

        def traverse(self, node):
            if isinstance(node, (Marker, PseudoStmt)):
                raise Mismatch("internal value %r left in the output" % (node,))
            super().traverse(node)

        def get_type_comment(self, node):
            # decompiled trees carry no positions and no `# type: ignore` comments, so
            # the base class's lookup by line number (which needs positions filled in
            # by a further walk of the tree) has nothing to find
            comment = node.type_comment
            return None if comment is None else " # type: %s" % comment

        def visit_comprehension(self, node):
            if not any(facts.get(c, Fact.OWN_LINE, False) for c in node.ifs):
                return super().visit_comprehension(node)
            super().visit_comprehension(ast.comprehension(
                target=node.target, iter=node.iter, ifs=[], is_async=node.is_async))
            for test in node.ifs:
                self.write("\n if " if facts.get(test, Fact.OWN_LINE, False) else " if ")
                self.set_precedence(_Precedence.TEST.next(), test)
                self.traverse(test)


def unparse(node, indentation=4):
    if V.HAS_AST_UNPARSE:
        text = Unparser().visit(node)
    else:  # pragma: no cover - exercised on 3.8 only
        import astunparse
        _Check().visit(node)
        text = astunparse.unparse(ast.fix_missing_locations(node)).strip("\n")
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
