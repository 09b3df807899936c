"""Opcodes that build containers and change the ones the code made itself: tuples,
lists, sets, dicts, strings, slices, and unpacking.

Lists, sets and dicts are heap objects (``frame.Obj``) so that a list shared through the
stack (Dynamo does this) and changed in place is one object on both sides. Their contents
stay known as long as no user code runs on them: appending to a list the code built is
not an event; adding a key whose hash may run user code is.
"""
from .machine import Event, ModelLimit, OK, OK0, opcode_table, pop_apply
from .terms import NONE

TABLE, op = opcode_table()


_SAFE_TYPES = frozenset(["int", "str", "bytes", "bool", "NoneType", "float", "complex",
                         "ellipsis"])


def safe_key(term):
    """A constant whose hash and equality run no user code."""
    if term[0] == "c":
        return term[1] in _SAFE_TYPES
    if term[0] == "t":
        return all(safe_key(x) for x in term[1])
    return False


def known_items(f, term):
    """The items of a tuple term or of a list/tuple object with known contents."""
    if term[0] == "t":
        return term[1]
    o = f.obj(term)
    if o is not None and o.kind == "list" and o.contents[0] == "t":
        return o.contents[1]
    return None


def extended(contents, items_term):
    """List contents after ``extend`` with ``items_term`` (a tuple term or an unknown
    sequence of items)."""
    if items_term == ("t", ()):
        return contents
    if contents[0] == "t" and items_term[0] == "t":
        return ("t", contents[1] + items_term[1])
    return ("op", "extend", contents, items_term)


def container(f, depth, kind):
    o = f.obj(f.peek(depth))
    if o is None or o.kind != kind:
        raise ModelLimit("%s updates a %s the code did not build" % (f.info.describe(f.pc - 1), kind))
    return o


@op("BUILD_TUPLE")
def build_tuple(m, f, ins, i):
    f.push(("t", tuple(f.pop(ins.arg))))


@op("BUILD_LIST")
def build_list(m, f, ins, i):
    f.push(f.new("list", ("t", tuple(f.pop(ins.arg)))))


@op("BUILD_SET")
def build_set(m, f, ins, i):
    items = f.stack[len(f.stack) - ins.arg:]
    if all(safe_key(x) for x in items):
        f.pop(ins.arg)
        f.push(f.new("set", ("op", "set", tuple(sorted(set(items), key=repr)))))
        return None
    return Event(("build set",), items, _new_from_result(ins.arg, "set"))


def _new_from_result(n, kind):
    def apply(g, label, results):
        g.pop(n)
        g.push(g.new(kind, results[0]))
    return apply


@op("BUILD_MAP")
def build_map(m, f, ins, i):
    items = f.stack[len(f.stack) - 2 * ins.arg:]
    pairs = tuple(zip(items[0::2], items[1::2]))
    if all(safe_key(k) for k, _ in pairs):
        f.pop(2 * ins.arg)
        f.push(f.new("dict", ("d", _dict_pairs(pairs))))
        return None
    return Event(("build dict",), items, _new_from_result(2 * ins.arg, "dict"))


def _dict_pairs(pairs):
    """Key/value pairs as a dict keeps them: a repeated key keeps its first place and
    its last value."""
    out = {}
    for k, v in pairs:
        out[k] = v
    return tuple(out.items())


@op("BUILD_CONST_KEY_MAP")
def build_const_key_map(m, f, ins, i):
    keys = f.peek()
    if keys[0] != "t" or not all(safe_key(k) for k in keys[1]):
        return Event(("build dict",), f.stack[len(f.stack) - ins.arg - 1:],
                     _new_from_result(ins.arg + 1, "dict"))
    f.pop()
    values = f.pop(ins.arg)
    f.push(f.new("dict", ("d", _dict_pairs(zip(keys[1], values)))))


@op("BUILD_STRING")
def build_string(m, f, ins, i):
    f.push(("op", "str", tuple(f.pop(ins.arg))))


@op("BUILD_SLICE")
def build_slice(m, f, ins, i):
    parts = f.pop(ins.arg)
    f.push(("op", "slice", parts[0], parts[1], parts[2] if len(parts) == 3 else NONE))


@op("LIST_APPEND")
def list_append(m, f, ins, i):
    value = f.pop()
    o = container(f, ins.arg, "list")
    o.contents = extended(o.contents, ("t", (value,)))


@op("LIST_EXTEND")
def list_extend(m, f, ins, i):
    value = f.peek()
    o = container(f, ins.arg + 1, "list")
    items = known_items(f, value)
    if items is not None:
        f.pop()
        o.contents = extended(o.contents, ("t", items))
        return None

    def apply(g, label, results):
        g.pop()
        target = container(g, ins.arg, "list")
        target.contents = extended(target.contents, results[0])
    return Event(("iterate",), (value,), apply)


@op("LIST_TO_TUPLE")
def list_to_tuple(m, f, ins, i):
    f.push(as_tuple(f, f.pop()))


def as_tuple(f, term):
    o = f.obj(term)
    if o is None or o.kind != "list":
        raise ModelLimit("LIST_TO_TUPLE of something other than a list the code built")
    return o.contents if o.contents[0] == "t" else ("op", "tuple", o.contents)


@op("SET_ADD", "SET_UPDATE")
def set_add(m, f, ins, i):
    value = f.peek()
    o = container(f, ins.arg + 1, "set")
    items = (value,) if ins.opname == "SET_ADD" else _const_set_items(value)
    if items is not None and all(safe_key(x) for x in items) and o.contents[0:2] == ("op", "set"):
        f.pop()
        o.contents = ("op", "set", tuple(sorted(set(o.contents[2] + tuple(items)), key=repr)))
        return None
    return Event((ins.opname.lower().replace("_", " "),), (o.contents, value),
                 _contents_from_result(ins.arg, "set"))


def _const_set_items(term):
    if term[:2] == ("op", "frozenset"):
        return term[2]
    if term[0] == "t":
        return term[1]
    return None


def _contents_from_result(depth, kind):
    def apply(g, label, results):
        g.pop()
        container(g, depth, kind).contents = results[0]
    return apply


@op("MAP_ADD")
def map_add(m, f, ins, i):
    key, value = f.peek(2), f.peek()
    o = container(f, ins.arg + 2, "dict")
    if safe_key(key) and o.contents[0] == "d":
        f.pop(2)
        o.contents = ("d", _dict_pairs(o.contents[1] + ((key, value),)))
        return None

    def apply(g, label, results):
        g.pop(2)
        container(g, ins.arg, "dict").contents = results[0]
    return Event(("dict set item",), (o.contents, key, value), apply)


@op("DICT_UPDATE", "DICT_MERGE")
def dict_update(m, f, ins, i):
    value = f.peek()
    o = container(f, ins.arg + 1, "dict")
    other = f.obj(value)
    if (other is not None and other.kind == "dict" and other.contents[0] == "d"
            and o.contents[0] == "d" and all(safe_key(k) for k, _ in other.contents[1])):
        mine = {k for k, _ in o.contents[1]}
        if ins.opname == "DICT_UPDATE" or not mine & {k for k, _ in other.contents[1]}:
            f.pop()
            o.contents = ("d", _dict_pairs(o.contents[1] + other.contents[1]))
            return None
    return Event((ins.opname.lower().replace("_", " "),), (o.contents, value),
                 _contents_from_result(ins.arg, "dict"))


# 3.8: one opcode per kind of display with unpacking; run as the 3.9+ form (an empty
# container updated part by part), so that both spell the same events
@op("BUILD_LIST_UNPACK", "BUILD_TUPLE_UNPACK", "BUILD_TUPLE_UNPACK_WITH_CALL",
    "BUILD_SET_UNPACK", "BUILD_MAP_UNPACK", "BUILD_MAP_UNPACK_WITH_CALL")
def build_unpack(m, f, ins, i):
    kind = {"LIST": "list", "TUPLE": "list", "SET": "set", "MAP": "dict"}[ins.opname.split("_")[1]]
    parts = f.stack[len(f.stack) - ins.arg:]
    done, contents = (0, _EMPTY[kind]) if f.ready is None else f.ready[1:]
    while done < len(parts):
        part = parts[done]
        updated = _pure_update(f, kind, contents, part, "WITH_CALL" in ins.opname)
        if updated is None:
            return _update_event(kind, contents, part, done, i)
        contents, done = updated, done + 1
    f.ready = None
    f.pop(ins.arg)
    if ins.opname.startswith("BUILD_TUPLE"):
        f.push(contents if contents[0] == "t" else ("op", "tuple", contents))
    else:
        f.push(f.new(kind, contents))


_EMPTY = {"list": ("t", ()), "set": ("op", "set", ()), "dict": ("d", ())}


def _pure_update(f, kind, contents, part, strict):
    """``contents`` updated with ``part`` when no user code runs for it, else None."""
    if kind == "list":
        items = known_items(f, part)
        return extended(contents, ("t", items)) if items is not None else None
    if kind == "set":
        items = _const_set_items(part) or known_items(f, part)
        if items is not None and all(safe_key(x) for x in items) and contents[0:2] == ("op", "set"):
            return ("op", "set", tuple(sorted(set(contents[2] + tuple(items)), key=repr)))
        return None
    other = f.obj(part)
    if (other is None or other.kind != "dict" or other.contents[0] != "d" or contents[0] != "d"
            or not all(safe_key(k) for k, _ in other.contents[1])):
        return None
    if strict and {k for k, _ in contents[1]} & {k for k, _ in other.contents[1]}:
        return None  # a repeated keyword argument: TypeError, left to the event
    return ("d", _dict_pairs(contents[1] + other.contents[1]))


def _update_event(kind, contents, part, done, i):
    words = {"list": ("iterate",), "set": ("set update",), "dict": ("dict update",)}[kind]

    def apply(g, label, results):
        new = extended(contents, results[0]) if kind == "list" else results[0]
        g.ready = ("unpacked", done + 1, new)
        g.pc = i
    operands = (part,) if kind == "list" else (contents, part)
    return Event(words, operands, apply)


@op("UNPACK_SEQUENCE")
def unpack_sequence(m, f, ins, i):
    value = f.peek()
    items = known_items(f, value)
    if items is not None and len(items) == ins.arg:
        f.pop()
        f.push(*reversed(items))
        return None

    def apply(g, label, results):
        g.pop()
        g.push(*reversed(results))
    return Event(("unpack", ins.arg), (value,), apply, (("ok", "s" * ins.arg), ("raise", "")))


@op("UNPACK_EX")
def unpack_ex(m, f, ins, i):
    before, after = ins.arg & 0xFF, ins.arg >> 8
    value = f.peek()

    def apply(g, label, results):
        g.pop()
        firsts, rest, lasts = results[:before], results[before], results[before + 1:]
        g.push(*reversed(lasts))
        g.push(g.new("list", rest))
        g.push(*reversed(firsts))
    return Event(("unpack starred", before, after), (value,), apply,
                 (("ok", "s" * (before + 1 + after)), ("raise", "")))


__all__ = ["TABLE", "OK", "OK0", "pop_apply"]
