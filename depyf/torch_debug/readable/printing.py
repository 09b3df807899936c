"""Printing folded code: the decompiler's printer (``ast.unparse`` that reads no
positions, so the statements the rules build need none), optionally noting the order in
which it writes names (the order of appearance ``renumber_temporaries`` follows, without
parsing the printed text again to learn it) and where, so that the text of renamed
names is the same text with the new names written in (without printing it again)."""
from ...decompiler.output.printer import Unparser


class _NameRecorder(Unparser):
    # printers made for the expressions of f-strings (``type(self)(_avoid_backslashes=True)``):
    # the names they write are not recorded here, so ``again`` prints everything anew
    nested = 0

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if kwargs:
            _NameRecorder.nested += 1
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
        nested = _NameRecorder.nested
        self.text = self._printer.visit(node)
        self.names = self._printer.names
        self._partial = _NameRecorder.nested != nested  # (names it did not record: f-strings)

    def again(self):
        if self._partial:
            return text(self.node)
        pieces = self._printer._source  # (the pieces of ``text``)
        patched = list(pieces)
        for name, (where, i, written) in zip(self.names, self._printer.places):
            if written == name.id:
                continue
            if where is not pieces or patched[i] != written:  # (into a buffer: an f-string)
                return text(self.node)
            patched[i] = name.id
        return "".join(patched)
