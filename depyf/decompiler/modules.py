"""Whole modules and ``.pyc`` files.

A module's code object is decompiled like a function body (imports, class and function
definitions, top-level statements), without the ``def`` around it, and the text is
proven as a whole (``output.prove_module``): every code object in it against its
original. A ``.pyc`` is a 16-byte header followed by the marshalled module code;
marshal's format and the bytecode are specific to one Python version, so a file from
another version is refused with the version it needs.
"""
import ast
import importlib.util
import marshal
import sys
import types

from .boundary import NOT_PROVEN, public_errors
from .output.printer import unparse
from .output.prove_module import named_path, prove_module, unproven_notes
from . import facts
from .facts import Fact
from .mismatch import Mismatch
from .symbolic import exprs as E
from .symbolic import markers as M
from .session import READINGS, DecompileSession
from ..errors import UnprovenError, UnsupportedPycError

# First magic number of each version's range (Lib/importlib/_bootstrap_external.py).
_MAGIC_RANGES = [
    (3400, "3.8"), (3420, "3.9"), (3430, "3.10"), (3450, "3.11"), (3500, "3.12"),
    (3550, "3.13"), (3600, "3.14"), (3650, "3.15"), (3700, "3.16"),
]


# The versions whose bytecode depyf reads.
SUPPORTED_VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")


def pyc_version(magic):
    """The Python that writes .pyc files starting with ``magic`` (their first 4 bytes):
    "3.11" for a version of ``_MAGIC_RANGES``, "3.7 or older", "2.7 or older" (Python
    1.5 to 2.7), "newer than 3.16" past the table; None when ``magic`` is no .pyc magic
    number."""
    number = int.from_bytes(magic[:2], "little")
    if len(magic) < 4 or magic[2:4] != b"\r\n" or number < 3000:
        return None
    if number >= 20000:
        return "2.7 or older"
    if number < _MAGIC_RANGES[0][0]:
        return "3.7 or older"
    if number >= _MAGIC_RANGES[-1][0] + 50:
        return "newer than %s" % _MAGIC_RANGES[-1][1]
    return _version_of_magic(magic)


def _version_of_magic(magic):
    number = int.from_bytes(magic[:2], "little")
    found = None
    for start, version in _MAGIC_RANGES:
        if number >= start:
            found = version
    return found


def decompile_module(code, indentation=4, *, allow_unproven=False):
    """The source of the whole module whose code object is ``code``, proven: compiled
    on its own, every code object in it does what its original does. Not proven:
    ``UnprovenError`` naming each function or class not proven; with ``allow_unproven``
    the text anyway, each of those under a comment saying why (the module's first line
    when it is the module's own statements)."""
    if not isinstance(code, types.CodeType):
        raise TypeError("decompile_module expects a code object, got %s" % type(code).__name__)
    with public_errors("<module>"):
        return module_source(code, indentation, allow_unproven)[0]


def is_module(code):
    """Whether ``code`` is a module's code object."""
    return code.co_name == "<module>" and not code.co_flags & _CO_OPTIMIZED


def module_source(code, indentation=4, allow_unproven=False):
    """``(text, ModuleVerdict)`` of ``decompile_module`` (inside the caller's
    ``public_errors``), from ``read_module``."""
    tree, session, text, verdict = read_module(code, indentation)
    if verdict:
        return text, verdict
    if allow_unproven:
        return _marked(tree, session, verdict, indentation), verdict
    raise UnprovenError("the decompiled module is not proven to do what the bytecode does: "
                        + verdict.reason, source=text, verdict=verdict, function="<module>")


def read_module(code, indentation=4):
    """``(tree, session, text, ModuleVerdict)`` of the module ``code`` (inside the
    caller's ``public_errors``). Each reading of ``READINGS`` reads the whole module; a
    def or class statement not proven in it is read again in the other readings, alone
    (``_repair``); the first reading proven wins, else the first one's result (a first
    reading that does not fit: its error, unless another is proven). ``tree``
    is what ``text`` prints; ``session.made_statement`` finds its def and class
    statements."""
    first = refused = None
    for reading in READINGS:
        session = DecompileSession({}, "__temp_", reading)
        try:
            tree = session.make_module(code)
        except Mismatch as err:
            # (a function nested in the module may fit only another reading, as it does
            # when decompiled alone: those are tried)
            refused = refused or (err if reading is None else None)
            continue
        text = unparse(tree, indentation)
        verdict = prove_module(code, text, bindings=session.bindings)
        if not verdict:
            text, verdict = _repair(code, tree, session, verdict, indentation)
        if verdict:
            return tree, session, text, verdict
        first = first or (tree, session, text, verdict)
    if refused is not None:
        raise refused  # the public error says what the first reading met
    return first


def module_statement(code, inner, indentation=4):
    """``(text, ModuleVerdict)``: the def or class statement that the module ``code``
    makes from the code object ``inner`` nested in it, as the module makes it (its
    decorators, default values, annotations; a class's bases and keywords), printed on
    its own, and the verdict on the whole module's text, which proves it. ``text`` is
    None when the module is not proven, or no def or class statement is read from
    ``inner`` (a lambda's or a comprehension's code)."""
    with public_errors("<module>"):
        tree, session, _, verdict = read_module(code, indentation)
        node = session.made_statement(inner) if verdict else None
        if node is None:
            return None, verdict
        return unparse(ast.Module(body=[node], type_ignores=[]), indentation), verdict


def _repair(code, tree, session, verdict, indentation):
    """``(text, verdict)`` after reading each unproven def or class of ``tree`` again in
    the other readings, keeping a new body where it is proven (the module is proven
    again as a whole after each)."""
    text = unparse(tree, indentation)
    for item in list(verdict.unproven):
        path = named_path(item.path)
        node = session.made_statement(path[-1])
        if node is None or not any(u.code is item.code for u in verdict.unproven):
            continue
        kept = node.body
        for reading in READINGS:
            if reading == session.reading:
                continue
            try:
                node.body = _reread(DecompileSession(session.bindings, "__temp_", reading), path)
            except Mismatch:
                continue
            attempt = unparse(tree, indentation)
            again = prove_module(code, attempt, bindings=session.bindings)
            if not any(u.code is item.code for u in again.unproven):
                text, verdict, kept = attempt, again, node.body
                break
        node.body = kept
    return text, verdict


def decompile_pyc(path, indentation=4, *, allow_unproven=False):
    """Decompile a ``.pyc`` written by the running interpreter back to module source,
    proven as ``decompile_module`` proves it."""
    return decompile_module(read_pyc(path), indentation, allow_unproven=allow_unproven)


def _reread(session, path):
    """The body of the def or class statement of ``path[-1]`` read in ``session``'s
    reading, inside the code objects of ``path[:-1]`` (module first), as reading the
    whole module meets it (their scopes decide declarations and name mangling)."""
    code = path[-1]
    session.scopes = list(path[:-1])
    session.classes = [c.co_name for c in path[1:-1] if not c.co_flags & _CO_OPTIMIZED]
    if code.co_flags & _CO_OPTIMIZED:
        return session.make_def(M.FuncMarker(code)).body
    call = session.make_class([M.FuncMarker(code), E.const(code.co_name)], [])
    return facts.get(call, Fact.CLASS_DEF).body


_CO_OPTIMIZED = 0x1
_MARK = "__depyf_not_proven_%d__"


def _marked(tree, session, verdict, indentation):
    """The module's text with a NOT PROVEN comment above each unproven statement (the
    def or class nearest around each unproven code object), or at the top."""
    notes = {}
    for k, (item, note) in enumerate(zip(verdict.unproven, unproven_notes(verdict))):
        node = next((session.made_statement(c) for c in reversed(named_path(item.path)[1:])
                     if session.made_statement(c) is not None), None)
        notes[k] = (node, note)
    top = []
    for k, (node, note) in notes.items():
        body = _body_holding(tree, node) if node is not None else None
        if body is None:
            top.append(note)
        else:
            body.insert(body.index(node), ast.Expr(value=E.const(_MARK % k)))
    text = unparse(tree, indentation)
    lines = []
    comment = False  # the last line is a NOT PROVEN comment: no blank line after it
    for line in text.splitlines():
        stripped = line.strip()
        if comment and not stripped:
            continue
        comment = False
        for k, (_, note) in notes.items():
            if stripped.strip("'\"") == _MARK % k:
                line = line[:len(line) - len(line.lstrip())] + NOT_PROVEN % note
                comment = True
                break
        lines.append(line)
    head = [NOT_PROVEN % note for note in top]
    return "\n".join(head + lines) + "\n"


def _body_holding(tree, node):
    """The statement list of ``tree`` that holds ``node``, or None."""
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(parent, field, None)
            if isinstance(body, list) and any(item is node for item in body):
                return body
    return None


def read_pyc(path):
    """The module code object of a ``.pyc`` written by the running interpreter
    (``UnsupportedPycError`` for another version's file, or no .pyc at all)."""
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 16:
        raise UnsupportedPycError("%s is too short to be a .pyc file (%d bytes)" % (path, len(data)))
    magic = data[:4]
    running = "%d.%d" % sys.version_info[:2]
    if magic != importlib.util.MAGIC_NUMBER:
        if magic[2:4] != b"\r\n":
            raise UnsupportedPycError("%s is not a .pyc file (bad magic number %r)" % (path, magic))
        version = _version_of_magic(magic)
        raise UnsupportedPycError(
            "%s was written by Python %s; bytecode is version-specific, so decompile it with "
            "Python %s (this is Python %s)" % (path, version or "(unknown version)",
                                                version or "of that version", running))
    try:
        code = marshal.loads(data[16:])
    except (ValueError, EOFError, TypeError) as exc:
        raise UnsupportedPycError("%s: corrupt .pyc (%s)" % (path, exc)) from None
    if not isinstance(code, types.CodeType):
        raise UnsupportedPycError("%s does not contain a code object" % path)
    return code
