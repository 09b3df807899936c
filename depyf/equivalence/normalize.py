"""Normalized bytecode: what "bytecode-equal" means for the stdlib round trip.

Two code objects are bytecode-equal when ``normalize(a) == normalize(b)``. The normal form
keeps everything that decides behaviour and drops only what a faithful re-compilation of
decompiled source cannot reproduce (source positions) or what carries no meaning (padding):

Instructions (from ``dis.get_instructions``, one ``Instr(opname, arg)`` each):
  - dropped: the instructions that do nothing when they run (``versions.NO_EFFECT``:
    ``NOP``, ``CACHE``, ``EXTENDED_ARG``, ``RESUME``, 3.11's ``PRECALL``, 3.14's
    ``NOT_TAKEN``...;
    ``EXTENDED_ARG`` only widens the next argument, which ``dis`` has already resolved).
  - jump arguments: the INDEX of the target in the normalized stream (a target that was a
    dropped instruction maps to the next kept one), so byte offsets, ``EXTENDED_ARG``
    padding and dropped ``NOP``s do not matter.
  - constant arguments (``LOAD_CONST``, ``RETURN_CONST``, ``KW_NAMES``): ``(type, value)``,
    recursively for tuples and frozensets, ``repr`` for floats and complex numbers (so
    ``0.0`` and ``-0.0`` differ, and ``1``, ``1.0`` and ``True`` differ), and code objects
    normalized recursively by these same rules (never compared by identity).
  - every other argument: ``(argval, argrepr)`` as ``dis`` resolves them: names and local
    variables by string (never by table index), plus the flag bits the raw argument also
    carries (``LOAD_GLOBAL``'s push-NULL bit, ``LOAD_ATTR``'s method bit, ``COMPARE_OP``'s
    to-bool bit all show in ``argrepr``).
  - 3.13's super-instructions ``LOAD_FAST_LOAD_FAST``, ``STORE_FAST_LOAD_FAST`` and
    ``STORE_FAST_STORE_FAST`` (3.14: ``LOAD_FAST_BORROW_LOAD_FAST_BORROW`` too) are split
    into their two halves: the compiler only fuses two instructions that carry the same
    line number, so fusing is a line-number artifact.
  - 3.14's ``LOAD_FAST_BORROW`` is recorded as ``LOAD_FAST``: it reads the same variable
    and only skips the reference count where the compiler proved the frame keeps the
    object alive, a proof it makes or not for the same instructions depending on block
    boundaries (a dead ``if 0: pass`` before the read is enough to lose it).
  - line numbers and positions are not part of the record at all; the one line number
    that is an operand (3.13+ class bodies: ``__firstlineno__ = <int>``; 3.14 loads it
    with ``LOAD_SMALL_INT`` below 256) is masked to one ``LOAD_CONST``.
  - 3.14's ``LOAD_SMALL_INT`` has its int (0..255) as argument: ``(value, "")``.

Code attributes compared: ``co_name``, ``co_argcount``, ``co_posonlyargcount``,
``co_kwonlyargcount``, ``co_flags`` (all bits but ``CO_NESTED``, which records only that
the code was compiled inside a function: the interpreter never reads it, and a
comprehension or lambda of a module body decompiled alone is recompiled inside one),
``co_varnames``, ``co_freevars``,
``co_cellvars``, and the docstring slot ``co_consts[0]`` (as a constant; on 3.14 only when
``CO_HAS_DOCSTRING`` says it is one: otherwise it is just the first constant the compiler met,
maybe one left unreferenced by folding).

Exception table (3.11+): the entries as ``(start, end, target, depth, lasti)`` with
``start``/``end``/``target`` as normalized instruction indexes; neighbouring entries with the
same handler, depth and lasti are merged (one protected range split in two is the same
range).

Ignored: ``co_firstlineno``, ``co_lnotab``/``co_linetable``, ``co_qualname``,
``co_filename``, ``co_stacksize`` (follows from the instructions), the byte layout of
``co_exceptiontable``, the order and size of ``co_consts``/``co_names`` beyond what the
instructions reference.
"""
import dis
import inspect
import types
from collections import namedtuple

from ..bytecode import exctable
from ..bytecode import raw as raw_reader
from ..bytecode import versions as V

Instr = namedtuple("Instr", "opname arg")
ExceptionEntry = namedtuple("ExceptionEntry", "start end target depth lasti")
NormalizedCode = namedtuple(
    "NormalizedCode",
    "name argcount posonlyargcount kwonlyargcount flags varnames freevars cellvars "
    "docstring instructions exception_table",
)
# One difference between two normalized code objects: ``category`` groups similar
# differences for the failure report, ``detail`` says exactly where.
Difference = namedtuple("Difference", "category detail")

DROPPED_OPS = V.NO_EFFECT
JUMP_OPS = frozenset(
    dis.opname[op]
    for op in set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ()))
    if op < len(dis.opname)
)
CONST_OPS = frozenset(dis.opname[op] for op in dis.hasconst if op < len(dis.opname))
HAS_EXCEPTION_TABLE = V.HAS_EXCEPTION_TABLE
DOCSTRING_FLAG = V.DOCSTRING_FLAG
SMALL_INT_LOADS = V.SMALL_INT_LOADS
BORROWED = V.BORROWED_LOADS


SUPER_INSTRUCTIONS = V.SUPER_INSTRUCTIONS


_LITERAL_KINDS = (type(None), type(Ellipsis), bool, int, str, bytes, slice)


def normalize_const(value):
    """``(type name, value)`` with containers and code objects normalized recursively.
    By exact type, as CPython compares code constants: an instance of a subclass
    (Dynamo puts a ``torch.Size`` in ``co_consts``; it equals the plain tuple) and any
    other object is itself, by identity."""
    kind = type(value)
    if kind is types.CodeType:
        return ("code", normalize(value))
    if kind is tuple:
        return ("tuple", tuple(normalize_const(v) for v in value))
    if kind is frozenset:
        return ("frozenset", frozenset(normalize_const(v) for v in value))
    if kind in (float, complex):
        return (kind.__name__, repr(value))
    if kind in _LITERAL_KINDS:
        return (kind.__name__, value)
    return ("object", id(value))


def normalize(code):
    """The normal form of ``code`` (a ``NormalizedCode``, hashable and comparable)."""
    raw = list(raw_reader.instructions(code))
    index_of_offset = _index_of_offsets(code, raw)
    instructions = []
    for ins in raw:
        if ins.opname in DROPPED_OPS:
            continue
        if ins.opname in SUPER_INSTRUCTIONS:
            first, second = SUPER_INSTRUCTIONS[ins.opname]
            a, b = ins.argval
            instructions.append(Instr(BORROWED.get(first, first), (a, a)))
            instructions.append(Instr(BORROWED.get(second, second), (b, b)))
            continue
        if ins.arg is None:
            arg = None
        elif ins.opname in JUMP_OPS:
            arg = ("jump", index_of_offset(ins.argval))
        elif ins.opname in CONST_OPS:
            # the constant itself, not ``argval``: 3.11's dis leaves KW_NAMES' unresolved
            arg = normalize_const(code.co_consts[ins.arg])
        else:
            arg = (ins.argval, ins.argrepr)
        instructions.append(Instr(BORROWED.get(ins.opname, ins.opname), arg))
    _mask_class_firstlineno(instructions)
    return NormalizedCode(
        name=code.co_name,
        argcount=code.co_argcount,
        posonlyargcount=getattr(code, "co_posonlyargcount", 0),
        kwonlyargcount=code.co_kwonlyargcount,
        flags=code.co_flags & ~inspect.CO_NESTED,
        varnames=code.co_varnames,
        freevars=code.co_freevars,
        cellvars=code.co_cellvars,
        docstring=_docstring(code),
        instructions=tuple(instructions),
        exception_table=_exception_table(code, index_of_offset),
    )


def _docstring(code):
    """The docstring slot: ``co_consts[0]``; on 3.14 only with ``CO_HAS_DOCSTRING`` set
    (the flag itself is compared with ``co_flags``)."""
    if not code.co_consts or (DOCSTRING_FLAG and not code.co_flags & DOCSTRING_FLAG):
        return None
    return normalize_const(code.co_consts[0])


def _mask_class_firstlineno(instructions):
    # 3.13+ class bodies store their first line number: ``__firstlineno__ = <int>``
    # (3.14: LOAD_SMALL_INT below 256, LOAD_CONST from 256: one masked form for both).
    for i in range(len(instructions) - 1):
        ins, nxt = instructions[i], instructions[i + 1]
        if ((ins.opname == "LOAD_CONST" or ins.opname in SMALL_INT_LOADS)
                and nxt.opname == "STORE_NAME"
                and nxt.arg is not None and nxt.arg[0] == "__firstlineno__"):
            instructions[i] = Instr("LOAD_CONST", ("firstlineno", None))


def _index_of_offsets(code, raw):
    """A function mapping a byte offset to the index of the next kept instruction."""
    kept_before = {}
    count = 0
    for ins in raw:
        kept_before[ins.offset] = count
        if ins.opname not in DROPPED_OPS:
            count += 2 if ins.opname in SUPER_INSTRUCTIONS else 1
    offsets = sorted(kept_before)
    end = len(code.co_code)

    def index_of_offset(offset):
        if offset in kept_before:
            return kept_before[offset]
        if offset >= end:
            return count
        # Inside an instruction's inline CACHE entries (3.11+): the next instruction.
        later = [o for o in offsets if o > offset]
        return kept_before[later[0]] if later else count

    return index_of_offset


def parse_exception_table(code):
    """Raw ``(start, end, target, depth, lasti)`` entries in byte offsets, end exclusive."""
    return [ExceptionEntry(*e) for e in exctable.parse(code)]


def _exception_table(code, index_of_offset):
    if not HAS_EXCEPTION_TABLE:
        return ()
    merged = []
    for e in parse_exception_table(code):
        entry = ExceptionEntry(
            index_of_offset(e.start), index_of_offset(e.end), index_of_offset(e.target),
            e.depth, e.lasti,
        )
        if entry.start == entry.end:
            continue  # covered only dropped instructions
        if merged and merged[-1].end == entry.start and merged[-1][2:] == entry[2:]:
            merged[-1] = merged[-1]._replace(end=entry.end)
        else:
            merged.append(entry)
    return tuple(merged)


def _fmt_instr(ins):
    if ins is None:
        return "<end>"
    arg = ins.arg
    if arg is None:
        return ins.opname
    if ins.opname in JUMP_OPS:
        return "%s to #%d" % (ins.opname, arg[1])
    if ins.opname in CONST_OPS:
        if arg[0] == "code":
            return "%s <code %s>" % (ins.opname, arg[1].name)
        return "%s %s(%r)" % (ins.opname, arg[0], arg[1])
    argval, argrepr = arg
    return "%s %s" % (ins.opname, argrepr or repr(argval))


def first_difference(expected, actual, where=""):
    """The first ``Difference`` between two ``NormalizedCode``, or None when equal.

    ``expected`` is the original, ``actual`` the recompiled one. Nested code objects are
    compared recursively and the path to them is part of ``detail``.
    """
    if expected == actual:
        return None
    here = where + expected.name
    for field in ("name", "argcount", "posonlyargcount", "kwonlyargcount", "flags",
                  "varnames", "freevars", "cellvars", "docstring"):
        a, b = getattr(expected, field), getattr(actual, field)
        if a != b:
            if field == "flags":
                a, b = _flag_names(a), _flag_names(b)
            return Difference("co_%s differs" % field, "%s: co_%s %r != %r" % (here, field, a, b))
    for i, (a, b) in enumerate(zip(expected.instructions, actual.instructions)):
        if a == b:
            continue
        if a.opname != b.opname:
            return Difference(
                "opcode differs: %s vs %s" % (a.opname, b.opname),
                "%s: instruction #%d: expected %s, got %s" % (here, i, _fmt_instr(a), _fmt_instr(b)),
            )
        if _is_code_arg(a.arg) and _is_code_arg(b.arg):
            if a.arg[1].name == b.arg[1].name:
                return first_difference(a.arg[1], b.arg[1], here + " > ")
        return Difference(
            "argument differs: %s" % a.opname,
            "%s: instruction #%d: expected %s, got %s" % (here, i, _fmt_instr(a), _fmt_instr(b)),
        )
    n, m = len(expected.instructions), len(actual.instructions)
    if n != m:
        i = min(n, m)
        a = expected.instructions[i] if i < n else None
        b = actual.instructions[i] if i < m else None
        return Difference(
            "instruction count differs",
            "%s: %d vs %d instructions; first extra: expected %s, got %s"
            % (here, n, m, _fmt_instr(a), _fmt_instr(b)),
        )
    return Difference(
        "exception table differs",
        "%s: expected %s, got %s" % (here, list(expected.exception_table), list(actual.exception_table)),
    )


def _is_code_arg(arg):
    return isinstance(arg, tuple) and len(arg) == 2 and arg[0] == "code"


def _flag_names(flags):
    names = [name for bit, name in sorted(dis.COMPILER_FLAG_NAMES.items()) if flags & bit]
    rest = flags & ~sum(dis.COMPILER_FLAG_NAMES)
    if rest:
        names.append(hex(rest))
    return "|".join(names) or "0"
