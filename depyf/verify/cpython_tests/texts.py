"""The three texts of every file of a target, and the folders that hold them.

- ``orig``: the file as it is (bytes copied: the same encoding, the same lines);
- ``deco``: the decompiled text of the module code object the running interpreter
  compiles the file to, as ``depyf.decompile_module`` returns it (proven), or the text it
  refused (``UnprovenError.source``); a file that cannot be read keeps its original
  text there, and says so;
- ``ctrl``: the same source printed back from its syntax tree (the project's printer,
  ``ast.unparse`` on 3.9+), with a blank line before every statement: the same program
  with another text, other line numbers (inside each function too: a line event
  relative to ``co_firstlineno`` moves) and no comments. A test that changes on it
  depends on the source text, not the code.

Test folders and data files are copied unchanged into all three. The three folder names
have the same length, so that paths differ in one place only.
"""
import ast
import os
import shutil
import time

from ...errors import DecompilationError, InternalError, UnprovenError
from ...decompiler.output.printer import unparse
from ...decompiler.output.prove_module import unproven_notes
from ..roundtrip import DecompileTimeout, time_limit

VARIANTS = ("orig", "deco", "ctrl")
# How a file's decompilation ended, from the best to the worst (a target takes its worst).
STATUSES = ("proven", "copied", "unproven", "unreadable", "timeout", "internal-error")


def default_decompile(code):
    import depyf
    return depyf.decompile_module(code)


class FileText:
    """One decompiled file: ``status`` (``STATUSES``), ``text`` (None: the original stands
    in), ``reasons`` (why not proven or not read), ``seconds``."""

    def __init__(self, rel, status, text=None, reasons=(), seconds=0.0):
        self.rel, self.status, self.text = rel, status, text
        self.reasons, self.seconds = list(reasons), seconds

    def to_json(self):
        return {"file": self.rel, "status": self.status, "reasons": self.reasons,
                "seconds": round(self.seconds, 2)}


def decompile_file(rel, path, decompile=default_decompile, timeout=600.0):
    """The ``FileText`` of one source file."""
    with open(path, "rb") as f:
        source = f.read()
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return FileText(rel, "copied", reasons=["does not compile here: %s" % exc])
    start = time.perf_counter()
    try:
        with time_limit(timeout):
            text = decompile(code)
        return FileText(rel, "proven", text, seconds=time.perf_counter() - start)
    except UnprovenError as exc:
        notes = unproven_notes(exc.verdict) if hasattr(exc.verdict, "unproven") else [str(exc)]
        return FileText(rel, "unproven", exc.source, notes, time.perf_counter() - start)
    except DecompileTimeout:
        return FileText(rel, "timeout", reasons=["decompiling took over %g s" % timeout],
                        seconds=time.perf_counter() - start)
    except InternalError as exc:
        return FileText(rel, "internal-error", reasons=[_line(exc)],
                        seconds=time.perf_counter() - start)
    except DecompilationError as exc:
        return FileText(rel, "unreadable", reasons=[_line(exc)],
                        seconds=time.perf_counter() - start)
    except Exception as exc:  # a bug of depyf that escaped its public errors
        return FileText(rel, "internal-error", reasons=["%s: %s" % (type(exc).__name__, _line(exc))],
                        seconds=time.perf_counter() - start)


def _line(exc):
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:400]


def control_text(path):
    """The control text of a source file, or None when it cannot be made (does not
    parse, or the printed text does not compile)."""
    with open(path, "rb") as f:
        source = f.read()
    try:
        text = spread_statements(unparse(ast.parse(source)))
        compile(text, path, "exec", dont_inherit=True)
    except Exception:
        return None
    return text


def spread_statements(text):
    """``text`` with a blank line before each line where a statement starts (never
    inside a bracket or a string): the distance from a function's first line to each of
    its statements changes, the program does not."""
    starts = {node.lineno for node in ast.walk(ast.parse(text)) if isinstance(node, ast.stmt)}
    lines = text.splitlines(True)
    return "".join(("\n" if number in starts else "") + line
                   for number, line in enumerate(lines, 1))


def write_variant(root, files, texts):
    """Write one variant of a target under ``root``: ``texts`` {relative path: text} for
    the files that have one, the original bytes for every other file."""
    for rel, path, _ in files:
        dest = os.path.join(root, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        text = texts.get(rel)
        if text is None:
            shutil.copyfile(path, dest)
        else:
            with open(dest, "w", encoding="utf-8") as f:
                f.write(text)


def target_status(file_texts):
    """The worst status among a target's decompiled files."""
    return max((ft.status for ft in file_texts), key=STATUSES.index, default="proven")
