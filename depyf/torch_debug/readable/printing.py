"""Printing folded code: the decompiler's printer (``ast.unparse`` that reads no
positions, so the statements the rules build need none), optionally noting the order in
which it writes names (the order of appearance ``renumber_temporaries`` follows, without
parsing the printed text again to learn it) and where, so that the text of renamed
names is the same text with the new names written in (without printing it again)."""
from ...decompiler.output.printer import Unparser


class _NameRecorder(Unparser):
    def __init__(self):
        super().__init__()
        self.names = []
        self.places = []  # (the list of pieces, the index, the name) of each name written

    def visit_Name(self, node):
        self.names.append(node)
        self.places.append((self._source, len(self._source), node.id))
        super().visit_Name(node)


def text(node):
    """The source of ``node``, as ``ast.unparse`` prints it."""
    return Unparser().visit(node)


class Printed:
    """``text(node)``, with the Name nodes in the order the text shows them (``names``);
    ``again()``: the text of ``node`` once some of those names changed (``node.id``)."""

    def __init__(self, node):
        self.node = node
        self._printer = _NameRecorder()
        self.text = self._printer.visit(node)
        self.names = self._printer.names

    def again(self):
        pieces = self._printer._source  # (the pieces of ``text``)
        patched = list(pieces)
        for name, (where, i, written) in zip(self.names, self._printer.places):
            if written == name.id:
                continue
            if where is not pieces or patched[i] != written:  # (into a buffer: an f-string)
                return text(self.node)
            patched[i] = name.id
        return "".join(patched)
