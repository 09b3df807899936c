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
    _ALL_QUOTES = _module._ALL_QUOTES  # the base class's default quote types, in its order

    class Unparser(_BaseUnparser):
        """``ast.unparse`` without positions (no line number is read), but a
        comprehension filter marked ``OWN_LINE`` starts a new line: the compiler's jumps
        differ when a filter is not on its element's line; and an internal value reached
        while printing is a Mismatch (the same check as ``_Check``, made on the way
        instead of by a second walk of the tree)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._methods = _METHODS.setdefault(type(self), {})

        def traverse(self, node):
            # the base class finds each node's method by name (a string concatenation
            # and a getattr per node); the method is looked up once per class here
            if isinstance(node, list):
                for item in node:
                    self.traverse(item)
                return
            method = self._methods.get(node.__class__)
            if method is None:
                method = _method(self, node)
            method(self, node)

        # ``block``/``delimit`` as plain context managers: the base class's are
        # generator-based (``contextlib``), a frame and a generator per statement and per
        # pair of brackets
        def block(self, *, extra=None):
            self.write(":")
            if extra:
                self.write(extra)
            return _Indented(self)

        def delimit(self, start, end):
            self.write(start)
            return _Closing(self, end)

        def _str_literal_helper(self, string, *, quote_types=None, escape_special_whitespace=False):
            # The base class escapes character by character (a Python call per character
            # of every docstring). Where no character needs an escape, its answer is the
            # string as it is between the first of the quotes it can take; otherwise
            # (and where no quote fits) the base class answers.
            if quote_types is None:
                quote_types = _ALL_QUOTES
            plain = "\\" not in string and (string.isprintable() or not escape_special_whitespace
                                              and string.replace("\n", "").replace("\t", "").isprintable())
            possible = [q for q in quote_types if q not in string and
                        (len(q) == 3 or "\n" not in string)] if plain else None
            if not possible:
                return super()._str_literal_helper(
                    string, quote_types=quote_types, escape_special_whitespace=escape_special_whitespace)
            if string:
                # (a quote type that ends like the string goes last; if one must be
                # used, the string's last character is escaped)
                possible.sort(key=lambda q: q[0] == string[-1])
                if possible[0][0] == string[-1]:
                    string = string[:-1] + "\\" + string[-1]
            return string, possible

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


    _METHODS = {}  # printer class -> {node class: the function that prints it}

    def _method(printer, node):
        if isinstance(node, (Marker, PseudoStmt)):
            raise Mismatch("internal value %r left in the output" % (node,))
        cls = type(printer)
        method = getattr(cls, "visit_" + node.__class__.__name__, cls.generic_visit)
        printer._methods[node.__class__] = method
        return method

    class _Indented:
        __slots__ = ("printer",)

        def __init__(self, printer):
            self.printer = printer

        def __enter__(self):
            self.printer._indent += 1

        def __exit__(self, kind, value, traceback):
            if kind is None:  # as the base class's: an error leaves the printer as it is
                self.printer._indent -= 1

    class _Closing:
        __slots__ = ("printer", "end")

        def __init__(self, printer, end):
            self.printer = printer
            self.end = end

        def __enter__(self):
            pass

        def __exit__(self, kind, value, traceback):
            if kind is None:
                self.printer.write(self.end)


def unparse(node, indentation=4):
    if V.HAS_AST_UNPARSE:
        text = Unparser().visit(node)
    else:  # pragma: no cover - exercised on 3.8 only
        import io
        _Check().visit(node)
        out = io.StringIO()
        _backport_unparser()(ast.fix_missing_locations(node), out)
        text = out.getvalue().strip("\n")
    if indentation != 4:
        text = _reindent(text, indentation)
    return text + "\n"


_BACKPORT = []


def _backport_unparser():  # pragma: no cover - 3.8 only
    """``astunparse``'s printer, but the text of an f-string written with escapes where
    it holds a backslash or a character that is not printable (it wrote them as they
    are: a NUL does not compile, and a carriage return before a newline is read back
    as a newline only)."""
    if not _BACKPORT:
        import astunparse

        class Unparser(astunparse.Unparser):
            def _fstring_Constant(self, t, write):
                write(_fstring_text(t.value).replace("{", "{{").replace("}", "}}"))

            _fstring_Str = lambda self, t, write: Unparser._fstring_Constant(self, ast.Constant(t.s), write)

        _BACKPORT.append(Unparser)
    return _BACKPORT[0]


def _fstring_text(value):
    if "\\" not in value and value.isprintable():
        return value
    return "".join(c if c.isprintable() and c != "\\" else
                   c.encode("unicode_escape").decode("ascii") for c in value)


def _reindent(text, width):
    lines = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        lines.append(" " * (depth * width) + stripped)
    return "\n".join(lines)
