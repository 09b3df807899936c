"""A minimal assembler for the running CPython: builds code objects that no source
compiles to (Dynamo writes such code), to test the equivalence checker and the
decompiler on them."""
import dis
import opcode
import sys
import types

PY = sys.version_info[:2]


def _caches(name):
    table = getattr(opcode, "_inline_cache_entries", None)
    if table is None:
        return 0
    if isinstance(table, dict):
        return table.get(name, 0)
    return table[dis.opmap[name]]


def _size(name):
    return 2 + 2 * _caches(name)


def _jump_arg(name, offset, target):
    """The argument of jump ``name`` at ``offset`` to ``target`` (byte offsets): an
    absolute jump's target, a relative one's distance from the next instruction (up to
    3.9 in bytes, then in instructions; backward jumps count back)."""
    unit = 1 if PY < (3, 10) else 2
    if dis.opmap[name] in dis.hasjabs:
        return target // unit
    delta = target - (offset + _size(name))
    return (-delta if "BACKWARD" in name else delta) // unit


def _places(ops):
    """The byte offset of each ``("LABEL", name)`` in ``ops``."""
    places, offset = {}, 0
    for name, arg in ops:
        if name == "LABEL":
            places[arg] = offset
        else:
            offset += _size(name)
    return places


def _varint(value, first):
    """One number of co_exceptiontable: 6-bit chunks, most significant first, 0x40 on
    all but the last, 0x80 on the first byte of an entry."""
    chunks = [value & 63]
    while value > 63:
        value >>= 6
        chunks.append(value & 63)
    out = [c | 0x40 for c in reversed(chunks[1:])] + [chunks[0]]
    if first:
        out[0] |= 0x80
    return bytes(out)


def _exception_table(ops, entries):
    """co_exceptiontable of ``entries``: ``(start, end, target, depth, lasti)``, the
    first three labels (``end`` exclusive: the label after the last protected op)."""
    places = _places(ops)
    table = b""
    for start, end, target, depth, lasti in entries:
        a, b, t = places[start] // 2, places[end] // 2, places[target] // 2
        table += _varint(a, True) + _varint(b - a, False) + _varint(t, False) + \
            _varint(depth << 1 | int(lasti), False)
    return table


def _encode(ops):
    """``ops`` as bytes: ``("LABEL", name)`` marks a place, a jump's argument may name one."""
    places = _places(ops)
    code_bytes, offset = bytearray(), 0
    for name, arg in ops:
        if name == "LABEL":
            continue
        if isinstance(arg, str):
            arg = _jump_arg(name, offset, places[arg])
        if not 0 <= arg <= 255:
            raise ValueError("arguments over 255 need EXTENDED_ARG")
        code_bytes += bytes([dis.opmap[name], arg])
        code_bytes += bytes(2 * _caches(name))
        offset += _size(name)
    return bytes(code_bytes)


def assemble(template, ops, names=(), varnames=None, stacksize=None, consts=None,
             exceptions=()):
    """``template``'s code with its instructions replaced by ``ops`` (``(opname, arg)``),
    and ``names``/``varnames``/``consts`` replaced when given. ``("LABEL", name)`` marks
    a jump target; a jump's argument may be such a name (no EXTENDED_ARG). 3.11+:
    ``exceptions`` are the exception table's entries (``_exception_table``)."""
    if PY >= (3, 11):
        ops = [("RESUME", 0)] + list(ops)
    kwargs = dict(co_code=_encode(ops), co_names=tuple(names) or template.co_names,
                  co_stacksize=stacksize or len(ops) + 4)
    if varnames is not None:
        kwargs["co_varnames"] = tuple(varnames)
        kwargs["co_nlocals"] = len(varnames)
    if consts is not None:
        kwargs["co_consts"] = tuple(consts)
    if PY >= (3, 10):
        kwargs["co_linetable"] = b""
    else:
        kwargs["co_lnotab"] = b""
    if PY >= (3, 11):
        kwargs["co_exceptiontable"] = _exception_table(ops, exceptions)
    elif exceptions:
        raise ValueError("no exception table before 3.11")
    return template.replace(**kwargs)


def call_global(name_index, args):
    """Ops that call global ``co_names[name_index]`` with locals ``args`` (indexes) and
    return the result, in the running version's call protocol, with a plain CALL."""
    loads = [("LOAD_FAST", a) for a in args]
    n = len(args)
    if PY < (3, 11):
        return [("LOAD_GLOBAL", name_index)] + loads + [("CALL_FUNCTION", n), ("RETURN_VALUE", 0)]
    call = [("PRECALL", n), ("CALL", n)] if PY == (3, 11) else [("CALL", n)]
    return [("LOAD_GLOBAL", name_index * 2 + 1)] + loads + call + [("RETURN_VALUE", 0)]
