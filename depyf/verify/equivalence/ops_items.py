"""Opcodes on items and text: subscripts and slices, formatting, and the checks of
``match`` statements."""
from .machine import OK, OK0, OKB, Event, pop_apply
from .ops_build import known_items
from .terms import NONE

TABLE = {}


def op(*names):
    def register(fn):
        for name in names:
            TABLE[name] = fn
        return fn
    return register


def _known_index(f, container, key):
    """The item ``container[key]`` when no user code runs to get it (a tuple or a list
    the code built, with known items, indexed by an int constant in range)."""
    items = known_items(f, container)
    if items is None or key[:2] != ("c", "int"):
        return None
    k = key[2]
    if -len(items) <= k < len(items):
        return items[k]
    return None


def _get_item(f, container, key, n_pop):
    item = _known_index(f, container, key)
    if item is not None:
        f.pop(n_pop)
        f.push(item)
        return None
    return Event(("getitem",), (container, key), pop_apply(n_pop))


@op("BINARY_SUBSCR")
def binary_subscr(m, f, ins, i):
    return _get_item(f, f.peek(2), f.peek(), 2)


@op("BINARY_SLICE")
def binary_slice(m, f, ins, i):
    key = ("op", "slice", f.peek(2), f.peek(), NONE)
    return _get_item(f, f.peek(3), key, 3)


@op("STORE_SUBSCR")
def store_subscr(m, f, ins, i):
    value, container, key = f.peek(3), f.peek(2), f.peek()
    o = f.obj(container)
    if (o is not None and o.kind == "list" and o.contents[0] == "t"
            and _known_index(f, container, key) is not None):
        items = list(o.contents[1])
        items[key[2]] = value
        f.pop(3)
        o.contents = ("t", tuple(items))
        return None
    return Event(("setitem",), (container, key, value), pop_apply(3), OK0)


@op("STORE_SLICE")
def store_slice(m, f, ins, i):
    value, container = f.peek(4), f.peek(3)
    key = ("op", "slice", f.peek(2), f.peek(), NONE)
    return Event(("setitem",), (container, key, value), pop_apply(4), OK0)


@op("DELETE_SUBSCR")
def delete_subscr(m, f, ins, i):
    return Event(("delitem",), (f.peek(2), f.peek()), pop_apply(2), OK0)


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
