"""Printing folded code: the decompiler's printer (``ast.unparse`` that reads no
positions, so the statements the rules build need none), optionally noting the order in
which it writes names (the order of appearance ``renumber_temporaries`` follows, without
parsing the printed text again to learn it)."""
from ...decompiler.output.printer import Unparser


class _NameRecorder(Unparser):
    def __init__(self):
        super().__init__()
        self.names = []

    def visit_Name(self, node):
        self.names.append(node)
        super().visit_Name(node)


def text(node):
    """The source of ``node``, as ``ast.unparse`` prints it."""
    return Unparser().visit(node)


def text_and_names(node):
    """``(text(node), the Name nodes in the order the text shows them)``."""
    printer = _NameRecorder()
    return printer.visit(node), printer.names
