"""A minimal assembler for the running CPython: builds code objects that no source
compiles to (Dynamo writes such code), to test the equivalence checker on them."""
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


def assemble(template, ops, names=(), varnames=None, stacksize=None, consts=None):
    """``template``'s code with its instructions replaced by ``ops`` (``(opname, arg)``),
    and ``names``/``varnames``/``consts`` replaced when given. No jumps."""
    code_bytes = bytearray()
    if PY >= (3, 11):
        ops = [("RESUME", 0)] + list(ops)
    for name, arg in ops:
        if arg > 255:
            raise ValueError("arguments over 255 need EXTENDED_ARG")
        code_bytes += bytes([dis.opmap[name], arg])
        code_bytes += bytes(2 * _caches(name))
    kwargs = dict(co_code=bytes(code_bytes), co_names=tuple(names) or template.co_names,
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
        kwargs["co_exceptiontable"] = b""
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
