"""The text of a closure as a module compiles it.

A decompiled closure declares its free variables ``nonlocal`` (every one stays a closure
variable, as Dynamo requires of the code it runs), and ``nonlocal x`` compiles only inside
a function that has an ``x``. The dump files nest such a ``def`` in
``def __closure_for_<name>():``, which binds them: the running file (``shape_source``),
the full-code file's copy and original source, a resume function's file.
"""
import io
import re
import tokenize


def closure_wrapped(lines, func_name, freevars):
    """``lines``, which define ``def func_name``, nested in a function that binds
    ``freevars``: a closure's text as a module compiles it (``nonlocal x`` needs an
    enclosing ``x``), its free variables real cells."""
    return (
        ["def __closure_for_%s():  # gives %s its closure cells: %s" % (func_name, func_name, ", ".join(freevars))]
        + ["    %s = None" % v for v in freevars]
        + indented(lines)
        + ["    return %s" % func_name]
    )


def as_module_text(text, func_name, freevars):
    """Decompiled ``text`` of a code object (``def func_name``) with ``freevars`` as a
    module compiles it: nested in a function binding them, as in the dump file that runs
    (its ``nonlocal`` declarations keep them closure variables); as it is without any or
    where it holds no such def (a note, a listing)."""
    if not freevars or not re.search(r"^(?:async )?def %s\(" % re.escape(func_name), text, re.M):
        return text
    return "\n".join(closure_wrapped(text.splitlines(), func_name, freevars)) + "\n"


def indented(lines, prefix="    "):
    """``lines`` (of one text) with ``prefix`` before each that is not blank, except the
    lines that continue a string (a docstring's later lines): they are the string's value."""
    inside, text = set(), "\n".join(lines) + "\n"
    if '"""' in text or "'''" in text or "\\\n" in text:  # (else no string spans lines)
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.end[0] > tok.start[0]:
                    inside.update(range(tok.start[0] + 1, tok.end[0] + 1))
        except (tokenize.TokenError, SyntaxError):
            pass  # (not Python: every line indented)
    return [prefix + line if line.strip() and i + 1 not in inside else line
            for i, line in enumerate(lines)]
