"""Opcodes on items and text: subscripts and slices, formatting, and the checks of
``match`` statements."""
from .machine import Event, OK, OK0, OKB, opcode_table, pop_apply
from .ops_build import known_items
from .terms import NONE

TABLE, op = opcode_table()


def _index(key):
    """An int constant, a ``slice`` of int/None constants, or None for anything else."""
    if key[:2] == ("c", "int"):
        return key[2]
    if key[:2] == ("op", "slice"):
        parts = []
        for part in key[2:]:
            if part == NONE:
                parts.append(None)
            elif part[:2] == ("c", "int"):
                parts.append(part[2])
            else:
                return None
        if parts[2] == 0:
            return None  # ValueError: left to the event
        return slice(*parts)
    return None


def _known_index(f, container, key):
    """``container[key]`` when no user code runs to get it: a tuple, or a list the code
    built, with known items, indexed by an int constant in range or sliced by constants
    (a new list from a list). None otherwise."""
    items = known_items(f, container)
    index = _index(key)
    if items is None or index is None:
        return None
    if isinstance(index, slice):
        part = ("t", items[index])
        return part if container[0] == "t" else f.new("list", part)
    if -len(items) <= index < len(items):
        return items[index]
    return None


def get_item(f, container, key, n_pop):
    item = _known_index(f, container, key)
    if item is not None:
        f.pop(n_pop)
        f.push(item)
        return None
    return Event(("getitem",), (container, key), pop_apply(n_pop))


def _changed_items(f, container, key, value=None, delete=False):
    """The new items of a list the code built after ``container[key] = value`` (or
    ``del``), when no user code runs for it; None otherwise."""
    o = f.obj(container)
    if o is None or o.kind != "list" or o.contents[0] != "t":
        return None
    index = _index(key)
    if index is None:
        return None
    items = list(o.contents[1])
    if isinstance(index, slice):
        if index.step not in (None, 1):
            return None  # extended slices may raise for a wrong length
        if delete:
            del items[index]
        else:
            new = known_items(f, value)
            if new is None:
                return None
            items[index] = new
        return ("t", tuple(items))
    if not -len(items) <= index < len(items):
        return None
    if delete:
        del items[index]
    else:
        items[index] = value
    return ("t", tuple(items))


@op("BINARY_SUBSCR")
def binary_subscr(m, f, ins, i):
    return get_item(f, f.peek(2), f.peek(), 2)


@op("BINARY_SLICE")
def binary_slice(m, f, ins, i):
    key = ("op", "slice", f.peek(2), f.peek(), NONE)
    return get_item(f, f.peek(3), key, 3)


def _set_item(f, container, key, value, n_pop):
    items = _changed_items(f, container, key, value)
    if items is not None:
        f.pop(n_pop)
        f.obj(container).contents = items
        return None
    return Event(("setitem",), (container, key, value), pop_apply(n_pop), OK0)


@op("STORE_SUBSCR")
def store_subscr(m, f, ins, i):
    return _set_item(f, f.peek(2), f.peek(), f.peek(3), 3)


@op("STORE_SLICE")
def store_slice(m, f, ins, i):
    key = ("op", "slice", f.peek(2), f.peek(), NONE)
    return _set_item(f, f.peek(3), key, f.peek(4), 4)


@op("DELETE_SUBSCR")
def delete_subscr(m, f, ins, i):
    container, key = f.peek(2), f.peek()
    items = _changed_items(f, container, key, delete=True)
    if items is not None:
        f.pop(2)
        f.obj(container).contents = items
        return None
    return Event(("delitem",), (container, key), pop_apply(2), OK0)


# -- formatting ------------------------------------------------------------------------
_CONVERSIONS = {0: "", 1: "str", 2: "repr", 3: "ascii"}


@op("FORMAT_VALUE")
def format_value(m, f, ins, i):  # up to 3.12: conversion and spec in one instruction
    conversion = _CONVERSIONS[ins.arg & 3]
    if ins.arg & 4:
        return Event(("format", conversion), (f.peek(2), f.peek()), pop_apply(2))
    return Event(("format", conversion), (f.peek(),), pop_apply(1))


@op("CONVERT_VALUE")
def convert_value(m, f, ins, i):
    return Event(("convert", _CONVERSIONS.get(ins.arg, ins.arg)), (f.peek(),), pop_apply(1))


@op("FORMAT_SIMPLE")
def format_simple(m, f, ins, i):
    return Event(("format", ""), (f.peek(),), pop_apply(1))


@op("FORMAT_WITH_SPEC")
def format_with_spec(m, f, ins, i):
    return Event(("format", ""), (f.peek(2), f.peek()), pop_apply(2))


@op("BUILD_INTERPOLATION")
def build_interpolation(m, f, ins, i):
    """3.14 t-strings: ``Interpolation(value, expression text, conversion, format spec)``
    (the argument: conversion << 2, bit 0 a spec on the stack); storing runs no user code."""
    spec = f.pop() if ins.arg & 1 else ("c", "str", "")
    value, text = f.pop(2)
    f.push(("op", "interpolation", value, text, ins.arg >> 2, spec))


@op("BUILD_TEMPLATE")
def build_template(m, f, ins, i):
    """3.14 t-strings: ``Template`` of the tuples of strings and interpolations."""
    strings, interpolations = f.pop(2)
    f.push(("op", "template", strings, interpolations))


# -- match statements (3.10+) ----------------------------------------------------------
@op("MATCH_MAPPING", "MATCH_SEQUENCE")
def match_kind(m, f, ins, i):
    # a test of the subject's type flags: no user code runs
    f.push(("op", "is-mapping" if ins.opname == "MATCH_MAPPING" else "is-sequence", f.peek()))


@op("MATCH_KEYS")
def match_keys(m, f, ins, i):
    results = "sb" if m.facts.MATCH_PUSHES_BOOL else "s"
    return Event(("match keys",), (f.peek(2), f.peek()), pop_apply(0), (("ok", results), ("raise", "")))


@op("MATCH_CLASS")
def match_class(m, f, ins, i):
    results = "sb" if m.facts.MATCH_PUSHES_BOOL else "s"
    return Event(("match class", ins.arg), (f.peek(3), f.peek(2), f.peek()), pop_apply(3),
                 (("ok", results), ("raise", "")))


@op("GET_LEN")
def get_len(m, f, ins, i):
    return Event(("len",), (f.peek(),), pop_apply(0))


@op("COPY_DICT_WITHOUT_KEYS")
def copy_dict_without_keys(m, f, ins, i):
    return Event(("copy dict without keys",), (f.peek(2), f.peek()), pop_apply(1))


__all__ = ["TABLE", "OK", "OKB"]
