"""Links between a transformed function and the resume functions it calls.

At a graph break Dynamo's code ends with ``return __resume_at_<offset>_<n>(...)``: a global
holding a generated function (``torch_dynamo_resume_in_<fn>_at_<line>``) that continues the
user's function at bytecode ``<offset>`` of the code being compiled. Two branches of one
``if`` give two resume functions with the same name, so the name alone cannot say which
file is which. When the calling code is compiled we therefore

* reserve the dump file name of each resume function it calls (in the order the calls
  appear), so the caller's header can name the file before the resume function runs, and
* record where each one continues (the user's file, line and source text at ``<offset>``),

and both headers say it: the caller lists ``__resume_at_102_2 -> <file> (continues at
...)``; the resume file says which global it is, who calls it, and where it continues.
"""
import dis
import linecache
import os
import re

from . import adapter

# (torch 2.5 to 2.12 add a uuid: __resume_at_102_2_5609316d_5f44_493c_a8d7_136a2ca6d353)
_RESUME = re.compile(r"^__resume_at_(\d+)_\d+(?:_[0-9a-f]{8}(?:_[0-9a-f]{4}){3}_[0-9a-f]{12})?$")


class ResumeLink:
    __slots__ = ("global_name", "code", "caller_file", "where", "file_name")

    def __init__(self, global_name, code, caller_file, where, file_name):
        self.global_name, self.code, self.caller_file = global_name, code, caller_file
        self.where, self.file_name = where, file_name


def continues_at(code, offset):
    """``file:line `source``` of the instruction at ``offset`` in ``code`` ('' if unknown)."""
    line = None
    for start, end, lineno in code.co_lines():
        if start <= offset < end:
            line = lineno
            break
    if line is None:
        return ""
    text = linecache.getline(code.co_filename, line).strip()
    where = "%s:%d" % (os.path.basename(code.co_filename), line)
    return "%s `%s`" % (where, text) if text else where


def resume_links(session, caller_code, caller_file, names, frame_globals, reserve):
    """ResumeLinks for the ``__resume_at_*`` globals in ``names`` (the transformed code's
    co_names, in order)."""
    links = []
    for name in names:
        m = _RESUME.match(name)
        fn = frame_globals.get(name) if (m and frame_globals is not None) else None
        code = adapter.resume_code(fn)
        if code is None:
            continue
        where = continues_at(caller_code, int(m.group(1)))
        link = ResumeLink(name, code, caller_file, where, reserve(code))
        links.append(link)
        with session.lock:
            session.resume_links.setdefault(id(code), []).append(link)
    return links


def caller_lines(links):
    """Header lines of a transformed file that calls resume functions."""
    if not links:
        return []
    lines = ["# Resume functions it calls (after the graph break), each in its own file:"]
    for link in links:
        lines.append("#   %s -> %s%s" % (
            link.global_name, link.file_name,
            " (continues at %s)" % link.where if link.where else ""))
    return lines


def callee_lines(session, code):
    """Header lines of a resume function's file: which global it is, who calls it, where it
    continues the user's function."""
    with session.lock:
        links = list(session.resume_links.get(id(code), ()))
    lines = []
    for link in links:
        lines.append("# This is %s, called by %s; it continues at %s." % (
            link.global_name, link.caller_file, link.where or "(line unknown)"))
    return lines


def write_uncompiled(session):
    """A file for each resume function a header links to that Dynamo never compiled in this
    session (it skips frames with nothing to compile, such as a tail without tensors): the
    resume function as it ran, unchanged, so that every link leads to a file that holds
    what it names. Written at the end of the session; a later compile of the same resume
    function replaces it (the name was reserved for that)."""
    from ..decompiler.api import Decompiler
    from ..errors import DecompilationError
    from .closure_text import as_module_text
    from .graphs import compiles

    with session.lock:
        pending = {}
        for links in session.resume_links.values():
            for link in links:
                if link.file_name not in session.used_files:
                    pending.setdefault(link.file_name, []).append(link)
    for file_name, links in sorted(pending.items()):
        code = links[0].code
        head = ["# %s: the resume function %s." % (file_name, code.co_name),
                "# Dynamo did not compile it while the dump session was open (it ran as it is,",
                "# e.g. a tail with nothing to put in a graph): its own code, for reading only."]
        head += ["# It is %s, called by %s; it continues at %s." % (
            link.global_name, link.caller_file, link.where or "(line unknown)") for link in links]
        try:
            body = as_module_text(Decompiler(code).decompile(), code.co_name, code.co_freevars)
            if not compiles(body):
                raise DecompilationError("the text does not compile on its own")
        except DecompilationError as exc:
            listing = "\n".join(("# " + line).rstrip() for line in dis.Bytecode(code).dis().splitlines())
            body = "# (no proven source: %s)\n%s\n" % (" ".join(str(exc).split())[:300], listing)
        session.write(file_name, "\n".join(head) + "\n" + body)
