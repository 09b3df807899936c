"""The bytecode hook: Dynamo's transformed code -> a readable file that is also the code
that runs.

For each code object Dynamo generates (the transformed main function and every resume
function), ``TransformedCodeHook``:

1. decompiles it (``depyf.Decompiler``) into ``__transformed_code_<i>_for_<fn>.py``, with
   Dynamo's bookkeeping folded away (``readable.fold``: only rewrites that keep what the
   code does; the profiler calls ``record_pregraph_bytecode_enter/exit`` stay, since they
   run);
2. compiles that file's text with the file as ``co_filename`` (so debuggers map the running
   code to it), keeping the original frame's locals layout and closure shape;
3. checks the result against Dynamo's code (``equivalence.differences``);
4. hands it back to Dynamo to run -- the folded text if it passes the check, else the text
   as decompiled (the header then says why) -- or, if any step failed for that too, keeps Dynamo's code, writes the
   file with a header saying it is NOT the running code and why (and a ``dis`` listing as
   comments when decompilation itself failed), and warns once.

The file on disk is always exactly the text that was compiled, so breakpoints and
tracebacks map to its lines. The folded text is therefore the running code, and it must be
equivalent on its own; ``full_code_for_<fn>_<n>.py`` shows a further folded copy without
the profiler calls, for reading only.

Names: Dynamo calls graphs through globals ``__compiled_fn_<K>_<uuid>``; the readable code
calls them ``__compiled_fn_<K>`` (the graph files' prefix), and that alias is bound in the
function's globals next to Dynamo's own name. Non-literal constants the decompiler names
(``Decompiler.bindings``) are bound there too.
"""
import ast
import dis
import io
import re
import tokenize

from .. import errors
from ..bytecode import raw
from ..decompiler.api import Decompiler
from ..decompiler.output.printer import unparse
from . import adapter, compile_info, equivalence, local_names, overview, readable, resume
from .session import name_part  # noqa: F401  (file naming; also imported from here)
from .closure_text import closure_wrapped
from .graphs import compiles
from .gc_pause import paused_gc

COMPILED_FN = re.compile(r"^(__compiled_fn_\d+)_[0-9a-f]{8}(?:_[0-9a-f]{4}){3}_[0-9a-f]{12}$")


def compiled_fn_number(name):
    """K of ``__compiled_fn_<K>`` or ``__compiled_fn_<K>_<uuid>``; None for other names."""
    m = re.match(r"^__compiled_fn_(\d+)(?:_|$)", name)
    return int(m.group(1)) if m else None


def short_compiled_fn_name(name):
    m = COMPILED_FN.match(name)
    return m.group(1) if m else name


class TransformedRecord:
    """One transformed code object and what became of it."""

    def __init__(self, original, dynamo_code, func_name, file_name, compile_key):
        self.original = original
        self.dynamo_code = dynamo_code
        self.func_name = func_name
        self.file_name = file_name
        self.path = None
        self.compile_key = compile_key
        self.source = None  # the decompiled function (as written to the file)
        self.running_code = dynamo_code
        self.used = False
        self.reason = None
        self.fold_problem = None  # why the folded text was not used, if it was not
        self.source_folded = False  # source is the folded text (the readable copy skips folding)
        self.reading_source = None  # the readable copy, when the hook made it from its fold
        self.compiled_fns = []  # K numbers this code calls
        self.notes = []  # why it was compiled / where it broke, as comment lines
        self.links = []  # header lines linking resume functions (callers and callee)
        self.aliases = {}  # local name no source can spell -> its stand-in (local_names)


def _kept_names(original, dynamo_code, aliases=None):
    """Names the folding must leave alone: the original frame's variables and the cells
    (as the source spells them: ``aliases`` maps names no source can spell to stand-ins)."""
    names = set(original.co_varnames) | set(dynamo_code.co_freevars) | set(dynamo_code.co_cellvars)
    return {(aliases or {}).get(n, n) for n in names}


def _all_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            names |= _all_names(const)
    return names


def dynamo_globals(original, dynamo_code):
    """The globals Dynamo installed for its code (``__compiled_fn_<K>_<uuid>``,
    ``__resume_at_*``, ``__import_*``, ...): private names the user's code never reads.
    Dynamo binds them before the code runs and nothing the code calls rebinds them, so
    the proof may let the decompiled code read them at another moment (``equivalent``'s
    ``fixed_globals``)."""
    user = _all_names(original)
    return {n for n in _all_names(dynamo_code) - user
            if n.startswith("__") and not n.endswith("__")}


def rename_identifiers(source, mapping):
    """Rename NAME tokens (not strings or comments) according to ``mapping``."""
    if not mapping:
        return source
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in mapping:
            tok = tok._replace(string=mapping[tok.string])
        out.append(tok)
    return tokenize.untokenize(out)


_DECLARATION = re.compile(r"(?:global|nonlocal)\s")


def _function_node(tree, name):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None


def body_start(lines, func_name):
    """(line index, indentation) of the first statement after the ``global``/``nonlocal``
    declarations of the top-level ``def func_name``, read from the lines as the printer
    writes them (signature on one line, body indented by four spaces, no comments), or
    None where the text is not so (``body_start_parsed`` reads it then)."""
    heads = ("def %s(" % func_name, "async def %s(" % func_name)
    defs = [i for i, line in enumerate(lines) if line.startswith(heads)]
    if len(defs) != 1 or not lines[defs[0]].endswith(":"):
        return None
    for i in range(defs[0] + 1, len(lines)):
        line = lines[i]
        if not line.startswith("    ") or line[4:5] in ("", " ", "#"):
            return None
        if not _DECLARATION.match(line, 4):
            return i, "    "
    return None


def body_start_parsed(source, func_name):
    """``body_start`` from a parse of ``source`` (ValueError when it defines no such
    function); where only declarations are, the last of them."""
    node = _function_node(ast.parse(source), func_name)
    if node is None:
        raise ValueError("decompiled source has no top-level def %s" % func_name)
    declarations = (ast.Global, ast.Nonlocal)
    first = next((st for st in node.body if not isinstance(st, declarations)), node.body[-1])
    insert_at = first.lineno - 1
    if getattr(first, "decorator_list", None):
        insert_at = first.decorator_list[0].lineno - 1
    return insert_at, " " * first.col_offset


def shape_source(source, func_name, original, dynamo_code):
    """Make the decompiled ``def`` compile to the frame shape Dynamo requires.

    * locals: a dead ``if False:`` assignment right after the signature registers the
      original frame's local variables in their order, so ``co_varnames`` starts with them;
    * free variables: the ``def`` is nested in a function that defines them, so they become
      real closure cells (as in the code Dynamo hands back).
    Returns ``(text, getter)`` where ``getter(module_code)`` finds the function's code.
    """
    lines = source.splitlines()
    nargs = equivalence.argument_count(original)
    pad = [n for n in original.co_varnames[nargs:] if n not in dynamo_code.co_freevars]
    freevars = dynamo_code.co_freevars
    start = body_start(lines, func_name) or body_start_parsed(source, func_name)
    if pad or freevars:
        insert_at, indent = start
        pad_lines = [indent + "if False:  # keeps the frame shape Dynamo requires (never runs)"]
        if pad:  # the original frame's local variables, in order
            pad_lines.append(indent + "    " + " = ".join(pad) + " = None")
        if freevars:  # every closure variable, even one the code does not use
            pad_lines.append(indent + "    (%s,)" % ", ".join(freevars))
        lines[insert_at:insert_at] = pad_lines
    if freevars:
        lines = closure_wrapped(lines, func_name, freevars)

    def getter(module_code):
        for const in raw.defined_codes(module_code)[1:]:
            if const.co_name == func_name:
                return const
        return None

    return "\n".join(lines) + "\n", getter


def dis_listing(code):
    """A ``dis`` listing of ``code`` as comment lines (so the file stays valid Python)."""
    text = dis.Bytecode(code).dis()
    return "\n".join("# " + line if line else "#" for line in text.splitlines())


def _header(record, used, extra_lines):
    lines = [
        "# %s: the code Dynamo generated for `%s` (%s:%s), compile %s."
        % (
            record.file_name,
            record.original.co_name,
            record.original.co_filename,
            record.original.co_firstlineno,
            "%s/%s" % record.compile_key[:2] if record.compile_key else "?",
        ),
    ]
    if record.compiled_fns:
        lines.append(
            "# Graphs it calls: %s (see the files __compiled_fn_<K>.*.py)."
            % ", ".join("__compiled_fn_%d" % k for k in record.compiled_fns)
        )
    lines.extend(local_names.header_lines(record.aliases))
    if used:
        lines.append(
            "# This is the code that runs: breakpoints set in this file are hit (see depyf.debug())."
        )
        if record.fold_problem:
            lines.append("# Shown as decompiled, with Dynamo's bookkeeping: the folded text was not")
            lines.append("# equivalent (%s)." % record.fold_problem.splitlines()[0][:300])
    else:
        lines.append("# NOT the running code: Dynamo's own bytecode runs instead, because")
        lines.extend("#   " + line for line in record.reason.splitlines())
    lines.extend(record.links)
    lines.extend(record.notes)
    lines.extend(extra_lines)
    return "\n".join(lines) + "\n"


class TransformedCodeHook:
    """Callable registered with Dynamo's bytecode hook for one session."""

    def __init__(self, session, graph_dumper=None, replace=True, on_source=None):
        self.session = session
        self.graph_dumper = graph_dumper
        self.replace = replace
        self.on_source = on_source  # e.g. the logging hook

    def __call__(self, code, new_code):
        try:
            with paused_gc(), raw.remembered():  # (code objects decoded once per hook)
                return self._handle(code, new_code)
        except Exception as exc:  # the user's program must never break because of us
            self.session.warn_once(
                "hook-crash", "internal error while dumping %s (%s: %s); Dynamo's code runs "
                "unchanged." % (code.co_name, type(exc).__name__, exc)
            )
            return None

    def _handle(self, code, new_code):
        session = self.session
        key = adapter.current_compile_id()
        frame_globals = adapter.frame_globals_being_compiled(code)
        uuid_names = [n for n in new_code.co_names if compiled_fn_number(n) is not None]
        session.note_original(code)
        resume_codes = []
        if frame_globals is not None:
            for name in new_code.co_names:
                if name.startswith("__resume_"):
                    resume_code = adapter.resume_code(frame_globals.get(name))
                    if resume_code is not None:
                        session.note_original(resume_code, parent=code)
                        resume_codes.append(resume_code)
        overview.note_unreported_breaks(session, key, code, resume_codes)
        compile_info.note_trigger(session, key, adapter.user_stack())
        record = self._new_record(code, new_code, key)
        record.links = resume.callee_lines(session, code) + resume.caller_lines(resume.resume_links(
            session, code, record.file_name, new_code.co_names, frame_globals, self._reserve))
        if self.graph_dumper is not None:
            self.graph_dumper.compiled(key, record.compiled_fns, code, record.file_name,
                                       adapter.backend_being_compiled(code))
        record.notes = compile_info.trigger_line(session, key) + overview.notes_for(session, key)
        replacement = None
        try:
            replacement = self._build(record, code, new_code, uuid_names, frame_globals)
        except errors.DecompilationError as exc:
            record.reason = "decompilation failed: %s" % exc
        except Exception as exc:
            record.reason = "%s: %s" % (type(exc).__name__, exc)
        if replacement is None:
            self._write_fallback(record)
        session.add_record(record)
        if self.on_source is not None and record.source is not None:
            self.on_source(record)
        return replacement

    def record_existing(self, original, entry):
        """Write the readable file of a cache entry compiled before this dump session. Its code
        is already installed in Dynamo's cache, so it keeps running as it is."""
        session = self.session
        new_code = entry.code
        if new_code is None or id(new_code) in session.records_by_code:
            return  # (no code: Dynamo runs the original bytecode for this entry)
        record = self._new_record(original, new_code, adapter.compile_id_of_entry(entry))
        record.reason = "it was compiled before prepare_debug was entered"
        try:
            uuid_names = [n for n in new_code.co_names if compiled_fn_number(n) is not None]
            record.aliases = local_names.stand_ins(original, new_code)
            spelled = local_names.rename_locals(new_code, record.aliases)
            src = Decompiler(spelled).decompile(overwrite_fn_name=record.func_name)
            src = rename_identifiers(src, {n: short_compiled_fn_name(n) for n in uuid_names})
            record.source = src
            record.source = readable.fold(src, record.func_name,
                                          keep=_kept_names(original, new_code, record.aliases))
        except Exception as exc:
            record.reason += "; decompilation failed: %s" % exc
        self._write_fallback(record, warn=False)
        session.add_record(record)

    def _reserve(self, code):
        """The file name of ``code``'s first transformed code, reserved when a caller names it
        (so the caller's header can link to it before it runs)."""
        with self.session.lock:
            name = self.session.reserved_files.get(id(code))
            if name is None:
                name = self.session.reserved_files[id(code)] = self._file_name(code)
            return name

    def _file_name(self, code):
        part = name_part(code.co_name)
        return "__transformed_code_%d_for_%s.py" % (self.session.next_index(("transformed", part)), part)

    def _new_record(self, original, new_code, key):
        """A record named ``__transformed_code_<i>_for_<fn>`` (i counts per function name;
        a resume function's first file has the name its caller reserved)."""
        with self.session.lock:
            file_name = self.session.reserved_files.get(id(original))
            if file_name is None or file_name in self.session.used_files:
                file_name = self._file_name(original)
            self.session.used_files.add(file_name)
        record = TransformedRecord(original, new_code, file_name[:-3], file_name, key)
        record.compiled_fns = sorted(
            {compiled_fn_number(n) for n in new_code.co_names if compiled_fn_number(n) is not None}
        )
        return record

    def _build(self, record, code, new_code, uuid_names, frame_globals):
        fixed = dynamo_globals(code, new_code)
        record.aliases = local_names.stand_ins(code, new_code)
        name_map = {n: short_compiled_fn_name(n) for n in uuid_names}
        reasons = None
        try:  # fast: the decompiler's first reading, proven only once, as the file runs
            reasons, text, candidate, bindings = self._choose(
                record, code, new_code, uuid_names, frame_globals, fixed, name_map, proven=False)
        except Exception:
            pass
        if reasons is None or reasons:  # as before: every reading, each proven by the decompiler
            record.source, record.fold_problem, record.source_folded = None, None, False
            record.reading_source = None
            reasons, text, candidate, bindings = self._choose(
                record, code, new_code, uuid_names, frame_globals, fixed, name_map, proven=True)
        needs_globals = bool(bindings) or any(k != v for k, v in name_map.items())
        if not reasons and needs_globals and frame_globals is None:
            reasons.append("the frame's globals could not be found to bind %s" % sorted(bindings))
        if not self.replace:
            reasons.append("this dump session only logs (log_bytecode) and does not replace code")
        if reasons:
            record.reason = "the recompiled code is not equivalent to Dynamo's:\n" + "\n".join(
                "- " + r for r in reasons
            )
            return None
        for uuid_name, short in name_map.items():
            if uuid_name in frame_globals:
                frame_globals[short] = frame_globals[uuid_name]
        frame_globals.update(bindings)
        record.path = self.session.write(record.file_name, _header(record, True, []) + text)
        record.running_code = candidate
        record.used = True
        return candidate

    def _decompiled(self, record, new_code, uuid_names, frame_globals, fixed, proven):
        """(source, bindings, tree) of Dynamo's code, names shortened. ``proven``: through
        ``Decompiler.decompile`` (every reading, each proven by the decompiler; tree None);
        else the first reading unproven (``to_ast``): the caller proves the text it hands
        to Dynamo in any case (``_check``), so the decompiler's own proof of it would be
        done twice; its ``def`` node, for the fold to take as it is rather than parse a
        text, and source None (the text is printed only where it is needed: most often
        only the folded tree is). Returns None when the decompiler offers no unproven
        reading (a stand-in)."""
        decompiler = Decompiler(local_names.rename_locals(new_code, record.aliases), fixed_globals=fixed)
        if proven:
            tree, source = None, decompiler.decompile(overwrite_fn_name=record.func_name)
        else:
            to_ast = getattr(decompiler, "to_ast", None)
            if to_ast is None:
                return None
            tree = to_ast(record.func_name)
        bindings = dict(getattr(decompiler, "bindings", {}) or {})
        renames = {n: short_compiled_fn_name(n) for n in uuid_names}
        # constants the decompiler named: give them names unique in the target globals
        for name, value in list(bindings.items()):
            if frame_globals is not None and name in frame_globals and frame_globals[name] is not value:
                new = "%s_%d" % (name, id(value))
                renames[name] = new
                bindings[new] = bindings.pop(name)
        renames = {k: v for k, v in renames.items() if k != v}
        if tree is None:
            return rename_identifiers(source, renames), bindings, None
        readable.unshare(tree, renames)  # (the renamed names are globals: Name nodes)
        return None, bindings, tree

    def _choose(self, record, code, new_code, uuid_names, frame_globals, fixed, name_map, proven):
        """(reasons, file text, code object, bindings): the folded text if it is proven
        equivalent to Dynamo's code, else the text as decompiled (``reasons`` empty when
        that one is proven)."""
        source, bindings, tree = self._decompiled(record, new_code, uuid_names, frame_globals, fixed, proven)
        folding = folded = None
        try:
            keep = _kept_names(code, new_code, record.aliases)
            if tree is None:
                folded = readable.fold(source, record.func_name, keep=keep)
            else:  # (the tree of the first reading: no parse)
                folding = readable.fold_module(ast.Module(body=[tree], type_ignores=[]), record.func_name,
                                               keep=keep)
                if folding is None or not folding.changed:  # the text as decompiled
                    source = folded = unparse(tree) if folding is None else folding.text
                else:
                    folded = folding.text
        except Exception as exc:  # a bug in the folding must not cost the decompiled code
            record.fold_problem = "folding failed: %s: %s" % (type(exc).__name__, exc)
        def as_decompiled():
            if source is not None:
                return source
            # the first reading was folded (or half folded) in place: the text as
            # decompiled is printed from a new reading, only once it is needed
            return unparse(self._decompiled(record, new_code, uuid_names, frame_globals, fixed, proven)[2])

        record.source = folded if folded is not None else as_decompiled()
        reasons, text, candidate = ["not folded"], None, None
        if folded is not None and folded != source:
            try:
                text, candidate, reasons = self._check(record, code, new_code, folded, name_map, bindings,
                                                       fixed)
            except Exception as exc:  # a bug in the folding must not cost the decompiled code
                reasons = ["%s: %s" % (type(exc).__name__, exc)]
            if reasons:
                record.fold_problem = "; ".join(reasons)
                record.source = as_decompiled()
            else:
                record.source_folded = True
                try:  # (last: dropping the profiler calls changes the tree)
                    record.reading_source = folding.reading_text() if folding is not None else None
                except Exception:  # the full-code file makes its copy from the text
                    record.reading_source = None
        if reasons:
            text, candidate, reasons = self._check(record, code, new_code, record.source, name_map, bindings,
                                                   fixed)
        return reasons, text, candidate, bindings

    def _check(self, record, code, new_code, source, name_map, bindings, fixed_globals):
        """Compile ``source`` as the dump file and compare it with Dynamo's code:
        (file text, code object, reasons it may not replace Dynamo's). Names no source can
        spell are compiled as their stand-ins and given back to the code object, which is
        then what is checked (and run)."""
        aliases = record.aliases
        text, getter = shape_source(source, record.func_name, local_names.rename_locals(code, aliases),
                                    local_names.rename_locals(new_code, aliases))
        path = self.session.path(record.file_name)
        module_code = compile(_header(record, True, []) + text, path, "exec", dont_inherit=True)
        candidate = getter(module_code)
        if candidate is None:
            raise ValueError("compiled source does not define %s" % record.func_name)
        candidate = local_names.rename_locals(candidate, local_names.inverse(aliases))
        reasons = equivalence.differences(
            candidate,
            new_code,
            required_varnames=code.co_varnames,
            name_map=name_map,
            bindings=bindings,
            source=source,
            fixed_globals=fixed_globals,
        )
        return text, candidate, reasons

    def _write_fallback(self, record, warn=True):
        session = self.session
        extra = []
        if record.source is not None and compiles(record.source):
            body = record.source
        else:
            extra = ["#", "# Dynamo's bytecode (dis listing):"]
            body = dis_listing(record.dynamo_code) + "\n"
        record.path = session.write(record.file_name, _header(record, False, extra) + body)
        if not warn:
            return
        session.warn_once(
            "fallback",
            "could not use the decompiled code of %s as the running code (%s); Dynamo's "
            "own bytecode runs and the dump file says so. Further cases are listed in %s."
            % (record.original.co_name, " ".join(record.reason.splitlines()[:2]), "depyf_overview.py"),
        )

