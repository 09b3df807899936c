"""The instructions of a code object, as ``dis.get_instructions`` gives them, read fast.

``decode(code)`` decodes ``co_code`` once with a table built per opcode at import (name,
how the argument is resolved, inline cache size) and gives, for every instruction that
``dis.get_instructions`` yields, the same ``opname``, ``opcode``, ``arg``, ``argval``,
``argrepr``, ``offset``, ``starts_line`` and (3.13+) ``line_number``; what no caller
needs (positions, labels, jump-target flags, cache data) is not computed, and the repr of
a constant only when asked. ``tests/bytecode/test_reader.py`` compares it with ``dis``
over every code object of the stdlib corpus.

Why: ``dis`` spends most of its time on what no caller uses (3.11+: positions, caches,
jump labels; 3.8-3.10: a list search per instruction), about as long as compiling the
source again. ``raw.instructions`` decodes each code object once inside a
``raw.remembered()`` block.
"""
import dis
from collections import namedtuple

from . import versions as V

_ALL_OPNAME = getattr(dis, "_all_opname", dis.opname)
_ALL_OPMAP = getattr(dis, "_all_opmap", dis.opmap)
_DEOPT = getattr(dis, "deoptmap", {})
_HASARG = getattr(dis, "hasarg", None)
_UNKNOWN = getattr(dis, "UNKNOWN", None)
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_INT_OVERFLOW = 2 ** 31

# how an argument is resolved
(_PLAIN, _CONST, _CONST_UNKNOWN, _NAME, _NAME_NULL, _ATTR_NULL, _SUPER_ATTR, _JUMP_ABS,
 _JUMP_REL, _JUMP_BACK, _LOCAL, _CELL, _ORACLE, _FAST_PAIR, _COMPARE, _FORMAT_VALUE,
 _FLAGS, _BINARY_OP, _INTRINSIC_1, _INTRINSIC_2, _CONVERT_VALUE, _COMMON_CONSTANT, _SPECIAL,
 _IS, _CONTAINS) = range(25)

_Fields = namedtuple("_Fields", "opname opcode arg argval lazy_argrepr offset starts_line "
                                "line_number")


class Instruction(_Fields):
    """One instruction; ``argrepr`` is ``dis``'s (for constants computed on demand)."""

    __slots__ = ()

    @property
    def argrepr(self):
        r = self.lazy_argrepr
        return repr(self.argval) if r is None else r


def _deop(op):
    name = _ALL_OPNAME[op]
    return _ALL_OPMAP[_DEOPT[name]] if name in _DEOPT else op


def _cache_size(deop):
    entries = getattr(dis, "_inline_cache_entries", None)
    if entries is None:
        return 0
    if isinstance(entries, dict):  # 3.13: by name
        return dis._get_cache_size(_ALL_OPNAME[deop])
    return entries[deop]


def _has_arg(deop):
    return deop in _HASARG if _HASARG is not None else deop >= dis.HAVE_ARGUMENT


def _name_kind(name):
    if name == "LOAD_GLOBAL" and V.LOAD_GLOBAL_NULL_BIT:
        return _NAME_NULL
    if name == "LOAD_ATTR" and V.LOAD_ATTR_METHOD_BIT:
        return _ATTR_NULL
    if name == "LOAD_SUPER_ATTR":
        return _SUPER_ATTR
    return _NAME


def _jump_kind(deop, name):
    if deop in dis.hasjabs:
        return _JUMP_ABS if V.ABSOLUTE_JUMP_ARGREPR else None
    if deop in dis.hasjrel or deop in getattr(dis, "hasjump", ()):
        return _JUMP_BACK if V.HAS_BACKWARD_JUMPS and name in V.BACKWARD_JUMPS else _JUMP_REL
    return None


_LATE_KINDS = {"FORMAT_VALUE": _FORMAT_VALUE, "MAKE_FUNCTION": _FLAGS,
               "SET_FUNCTION_ATTRIBUTE": _FLAGS, "BINARY_OP": _BINARY_OP,
               "CALL_INTRINSIC_1": _INTRINSIC_1, "CALL_INTRINSIC_2": _INTRINSIC_2,
               "CONVERT_VALUE": _CONVERT_VALUE}
if V.DIS_NAMES_SPECIAL_ARGS:
    _LATE_KINDS.update({"LOAD_COMMON_CONSTANT": _COMMON_CONSTANT, "LOAD_SPECIAL": _SPECIAL,
                        "IS_OP": _IS, "CONTAINS_OP": _CONTAINS})


def _kind(deop):
    """How ``dis`` resolves the argument of ``deop``, in ``dis``'s order of cases."""
    name = _ALL_OPNAME[deop]
    if deop in dis.hasconst:
        return _CONST_UNKNOWN if V.DIS_RESOLVES_ONLY_LOAD_CONST and name != "LOAD_CONST" \
            else _CONST
    if deop in dis.hasname:
        return _name_kind(name)
    jump = _jump_kind(deop, name)
    if jump is not None:
        return jump
    if name in V.SUPER_INSTRUCTIONS:
        return _FAST_PAIR
    if V.VARNAME_FROM_OPARG:
        if deop in dis.haslocal or deop in dis.hasfree:
            return _ORACLE
    elif deop in dis.haslocal:
        return _LOCAL
    if deop in dis.hascompare:
        return _COMPARE
    if deop in dis.hasfree:
        return _CELL
    return _LATE_KINDS.get(name, _PLAIN)


def _table():
    """Per opcode byte: ``(opname, kind or None without argument, caches)``."""
    table = []
    for op in range(256):
        deop = _deop(op)
        kind = _kind(deop) if _has_arg(deop) else None
        table.append((_ALL_OPNAME[op], kind, _cache_size(deop)))
    return table


_TABLE = _table()
_FLAG_NAMES = getattr(dis, "FUNCTION_ATTR_FLAGS", None) or getattr(dis, "MAKE_FUNCTION_FLAGS", ())
_FORMAT_CONVERTERS = getattr(dis, "FORMAT_VALUE_CONVERTERS", None)
_NB_OPS = getattr(dis, "_nb_ops", None)
_INTRINSICS = (getattr(dis, "_intrinsic_1_descs", None), getattr(dis, "_intrinsic_2_descs", None))
_COMMON_CONSTANTS = getattr(dis, "_common_constants", ())
_SPECIAL_NAMES = getattr(dis, "_special_method_names", ())


def _with_null(name, null):
    return "%s + %s" % (name, null) if V.NULL_REPR_AFTER else "%s + %s" % (null, name)


def _flags_repr(arg):
    return ", ".join(s for i, s in enumerate(_FLAG_NAMES) if arg & (1 << i))


def _jump_reprs(out, jumps):
    """3.13: jump argreprs name the target by its rank among all targets (``to L<n>``)."""
    labels = {t: k + 1 for k, t in enumerate(sorted({out[i].argval for i in jumps}))}
    for i in jumps:
        word = "from" if out[i].opname in V.JUMP_REPR_FROM else "to"
        out[i] = out[i]._replace(lazy_argrepr="%s L%d" % (word, labels[out[i].argval]))


def _resolve(kind, arg, offset, caches, code):
    """``(argval, argrepr)`` of the less common kinds (see ``_decode`` for the rest)."""
    if kind == _NAME_NULL or kind == _ATTR_NULL or kind == _SUPER_ATTR:
        name = code.co_names[arg >> (V.LOAD_SUPER_ATTR_SHIFT if kind == _SUPER_ATTR else 1)]
        if arg & 1 and name:
            return name, _with_null(name, "NULL" if kind == _NAME_NULL else "NULL|self")
        return name, name
    if kind == _JUMP_ABS:
        return arg * 2, None
    if kind == _JUMP_REL or kind == _JUMP_BACK:
        step = arg * V.JUMP_ARG_UNIT
        target = offset + 2 + (-step if kind == _JUMP_BACK else step)
        if V.JUMP_AFTER_CACHES:
            target += 2 * caches
        return target, None
    if kind == _CELL:
        name = (code.co_cellvars + code.co_freevars)[arg]
        return name, name
    if kind == _FAST_PAIR:
        a, b = code._varname_from_oparg(arg >> 4), code._varname_from_oparg(arg & 15)
        return (a, b), a + ", " + b
    if kind == _COMPARE:
        op = dis.cmp_op[arg >> V.COMPARE_ARG_SHIFT]
        return op, ("bool(%s)" % op if arg & V.COMPARE_BOOL_BIT else op)
    if kind == _CONST_UNKNOWN:
        return _UNKNOWN, ""
    return _resolve_flags(kind, arg)


def _resolve_flags(kind, arg):
    if kind == _FORMAT_VALUE:
        conversion, text = _FORMAT_CONVERTERS[arg & 0x3]
        if arg & 0x4:
            text = text + ", with format" if text else "with format"
        return (conversion, bool(arg & 0x4)), text
    if kind == _FLAGS:
        return arg, _flags_repr(arg)
    if kind == _BINARY_OP:
        return arg, _NB_OPS[arg][1]
    if kind == _INTRINSIC_1 or kind == _INTRINSIC_2:
        return arg, _INTRINSICS[kind - _INTRINSIC_1][arg]
    if kind == _CONVERT_VALUE:
        return (None, str, repr, ascii)[arg], ("", "str", "repr", "ascii")[arg]
    return _resolve_named(kind, arg)


def _resolve_named(kind, arg):
    if kind == _COMMON_CONSTANT:
        obj = _COMMON_CONSTANTS[arg]
        return arg, (obj.__name__ if isinstance(obj, type) else repr(obj))
    if kind == _SPECIAL:
        return arg, _SPECIAL_NAMES[arg]
    if kind == _IS:
        return arg, "is not" if arg else "is"
    if kind == _CONTAINS:
        return arg, "not in" if arg else "in"
    return arg, ""


def _decode(code):
    co = code.co_code
    consts, names, varnames = code.co_consts, code.co_names, code.co_varnames
    oracle = getattr(code, "_varname_from_oparg", None)
    linestarts = dict(dis.findlinestarts(code))
    flag_lines = V.STARTS_LINE_IS_FLAG
    table, new, cls = _TABLE, tuple.__new__, Instruction
    out, jumps = [], []
    ext, i, n, line = 0, 0, len(co), None
    while i < n:
        op = co[i]
        opname, kind, caches = table[op]
        if kind is None:
            arg = argval = None
            argrepr = ""
            if not V.EXTENDED_ARG_SURVIVES_NO_ARG:
                ext = 0
        else:
            arg = co[i + 1] | ext
            if op == _EXTENDED_ARG:
                ext = arg << 8
                if V.SIGNED_ARG and ext >= _INT_OVERFLOW:
                    ext -= 2 * _INT_OVERFLOW
            else:
                ext = 0
            if kind == _PLAIN:
                argval, argrepr = arg, ""
            elif kind == _CONST:
                argval, argrepr = consts[arg], None
            elif kind == _NAME:
                argval = argrepr = names[arg]
            elif kind == _ORACLE:
                argval = argrepr = oracle(arg)
            elif kind == _LOCAL:
                argval = argrepr = varnames[arg]
            else:
                argval, argrepr = _resolve(kind, arg, i, caches, code)
                if argrepr is None:  # a jump
                    if V.JUMP_REPR_LABELS:
                        jumps.append(len(out))
                    argrepr = "to %r" % (argval,)
        if flag_lines:
            starts = i in linestarts
            if starts:
                line = linestarts[i]
        else:
            starts = linestarts.get(i)
        out.append(new(cls, (opname, op, arg, argval, argrepr, i, starts, line)))
        i += 2 + 2 * caches
    if jumps:
        _jump_reprs(out, jumps)
    return tuple(out)



def decode(code):
    """The instructions of ``code``: a tuple of ``Instruction`` (see the module doc)."""
    return _decode(code)
