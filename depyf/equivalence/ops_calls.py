"""Opcodes that run user code through attributes, calls and operators, and the ones that
make functions and import modules.

Every call is one event ``("call",)`` with operands ``(callable, positional, keywords)``
whatever opcode spelled it: ``f(a, b)`` by CALL, by CALL_FUNCTION_EX with a built tuple
(CPython's form for more than 30 arguments) or by ``f(*(a, b))`` is the same event. A
method call ``o.m(x)`` is the attribute read ``o.m`` then a call of its result.
"""
from .machine import Event, ModelLimit, OK, OK0, OKB, opcode_table, pop_apply
from .ops_build import extended, known_items
from .ops_items import get_item
from .terms import NONE, NULL, identity_test, negate

TABLE, op = opcode_table()


# Attribute reads that run no user code: methods of the lists, dicts and sets the code
# built itself, and the closure of a function it made.
_CONTAINER_METHODS = {
    "list": frozenset(["append", "extend", "insert", "pop", "remove", "index", "count",
                       "clear", "copy", "reverse", "sort"]),
    "dict": frozenset(["get", "items", "keys", "values", "update", "pop", "setdefault",
                       "copy", "clear", "popitem"]),
    "set": frozenset(["add", "update", "discard", "remove", "pop", "copy", "clear"]),
}


def _pure_attribute(f, obj, name):
    o = f.obj(obj)
    if o is None:
        return None
    if name in _CONTAINER_METHODS.get(o.kind, ()):
        return ("bm", obj, name)
    if o.kind == "function" and name == "__closure__" and o.contents[0] == "fn":
        return o.contents[6]
    return None


def _push_method(m, g, value):
    """Push an attribute read for a method call in the version's call convention
    (NULL beside it: the result is called with no extra ``self``)."""
    if m.facts.NULL_AFTER_CALLABLE:
        g.push(value, NULL)
    else:
        g.push(NULL, value)


def _attribute(m, f, obj, name, method, n_pop):
    pure = _pure_attribute(f, obj, name)

    def push(g, value):
        g.pop(n_pop)
        if method:
            _push_method(m, g, value)
        else:
            g.push(value)
    if pure is not None:
        push(f, pure)
        return None
    return Event(("getattr", name), (obj,), lambda g, label, r: push(g, r[0]))


@op("LOAD_ATTR")
def load_attr(m, f, ins, i):
    method = m.facts.LOAD_ATTR_METHOD_BIT and ins.arg & 1
    return _attribute(m, f, f.peek(), ins.argval, method, 1)


@op("LOAD_METHOD")
def load_method(m, f, ins, i):
    return _attribute(m, f, f.peek(), ins.argval, True, 1)


@op("LOAD_SUPER_ATTR")
def load_super_attr(m, f, ins, i):
    glob, cls, self_ = f.peek(3), f.peek(2), f.peek()

    def apply(g, label, results):
        g.pop(3)
        if ins.arg & 1:
            _push_method(m, g, results[0])
        else:
            g.push(results[0])
    return Event(("super attribute", ins.argval), (glob, cls, self_), apply)


@op("STORE_ATTR")
def store_attr(m, f, ins, i):
    obj, value = f.peek(), f.peek(2)
    return Event(("setattr", ins.argval), (obj, value), pop_apply(2), OK0)


@op("DELETE_ATTR")
def delete_attr(m, f, ins, i):
    return Event(("delattr", ins.argval), (f.peek(),), pop_apply(1), OK0)


# -- calls ---------------------------------------------------------------------------
def _call(m, f, n_pop, fn, args, kwnames=(), star=None, starstar=None):
    """The event (or pure effect) of calling ``fn``; ``n_pop`` stack items are the call's."""
    args = tuple(args)
    positional = args[:len(args) - len(kwnames)] if kwnames else args
    keywords = tuple(zip(kwnames, args[len(args) - len(kwnames):])) if kwnames else ()
    if star is not None:
        items = known_items(f, star)
        positional = ("t", items) if items is not None else ("star", star)
    else:
        positional = ("t", positional)
    if starstar is not None:
        o = f.obj(starstar)
        if o is not None and o.kind == "dict" and o.contents[0] == "d" and all(
                k[:2] == ("c", "str") for k, _ in o.contents[1]):
            keywords = tuple((k[2], v) for k, v in o.contents[1])
        else:
            keywords = ("starstar", starstar)
    handled, event = _pure_call(f, fn, positional, keywords, n_pop)
    if handled:
        return event
    kw = ("kw", keywords) if not keywords or keywords[0] != "starstar" else keywords
    return Event(("call",), (fn, positional, _kw_term(kw)), pop_apply(n_pop))


def _kw_term(kw):
    if kw[0] == "starstar":
        return ("starstar", kw[1])
    return ("t", tuple(("t", (("c", "str", k), v)) for k, v in kw[1]))


def _pure_call(f, fn, positional, keywords, n_pop):
    """``list.append``/``list.extend`` on a list the code built, ``list.reverse`` on one
    with known items: no user code runs. ``(handled, event)``: done here (event None) or
    needing ``event`` first."""
    if fn[0] == "bm" and fn[2] == "reverse" and not keywords and positional == ("t", ()):
        return _reversed_in_place(f, fn[1], n_pop), None
    if fn[0] != "bm" or keywords or positional[0] != "t" or len(positional[1]) != 1:
        return False, None
    o = f.obj(fn[1])
    if o is None or o.kind != "list" or fn[2] not in ("append", "extend"):
        return False, None
    arg = positional[1][0]
    items = (arg,) if fn[2] == "append" else known_items(f, arg)
    if items is not None:
        f.pop(n_pop)
        o.contents = extended(o.contents, ("t", items))
        f.push(NONE)
        return True, None

    def apply(g, label, results):
        g.pop(n_pop)
        target = g.obj(fn[1])
        target.contents = extended(target.contents, results[0])
        g.push(NONE)
    return True, Event(("iterate",), (arg,), apply)


def _reversed_in_place(f, target, n_pop):
    """``target.reverse()`` on a list the code built with known items (Dynamo's SWAP
    before 3.11: the stack's items in a list, reversed, unpacked): its items reversed,
    None returned; False (the call an event) for any other list."""
    o = f.obj(target)
    if o is None or o.kind != "list" or o.contents[0] != "t":
        return False
    f.pop(n_pop)
    o.contents = ("t", tuple(reversed(o.contents[1])))
    f.push(NONE)
    return True


def _receiver_call(m, f, argc, above=0, kwnames=()):
    """CALL/CALL_METHOD: ``[NULL or method, callable or self, args]`` up to 3.12,
    ``[callable, self or NULL, args]`` from 3.13; ``above``: items over the arguments
    (3.13 CALL_KW's names)."""
    top_of_args = len(f.stack) - above
    args = f.stack[top_of_args - argc:top_of_args]
    below, top = f.peek(argc + above + 2), f.peek(argc + above + 1)
    if m.facts.NULL_AFTER_CALLABLE:
        fn, self_ = below, top
    else:
        fn, self_ = (top, NULL) if below == NULL else (below, top)
    if self_ != NULL:
        args = [self_] + list(args)
    return _call(m, f, argc + 2 + above, fn, args, kwnames)


@op("CALL_FUNCTION")
def call_function(m, f, ins, i):
    args = f.stack[len(f.stack) - ins.arg:] if ins.arg else []
    return _call(m, f, ins.arg + 1, f.peek(ins.arg + 1), args)


@op("CALL_FUNCTION_KW")
def call_function_kw(m, f, ins, i):
    names = f.peek()
    args = f.stack[len(f.stack) - ins.arg - 1:-1]
    return _call(m, f, ins.arg + 2, f.peek(ins.arg + 2), args, _names(names))


def _names(term):
    if term[0] != "t" or not all(x[:2] == ("c", "str") for x in term[1]):
        raise ModelLimit("keyword names that are not a constant tuple of strings")
    return tuple(x[2] for x in term[1])


@op("CALL_METHOD", "CALL")
def call(m, f, ins, i):
    kwnames = f.kwnames or ()
    return _with_kwnames_cleared(_receiver_call(m, f, ins.arg, 0, kwnames), f)


def _with_kwnames_cleared(result, f):
    if result is None:
        f.kwnames = None
        return None
    inner = result.apply

    def apply(g, label, results):
        g.kwnames = None
        inner(g, label, results)
    result.apply = apply
    return result


@op("CALL_KW")
def call_kw(m, f, ins, i):
    return _receiver_call(m, f, ins.arg, 1, _names(f.peek()))


@op("KW_NAMES")
def kw_names(m, f, ins, i):
    f.kwnames = tuple(f.info.code.co_consts[ins.arg])


@op("CALL_FUNCTION_EX")
def call_function_ex(m, f, ins, i):
    if m.facts.CALL_FUNCTION_EX_KWARGS_SLOT:  # 3.14: always a slot, NULL for none
        has_kwargs = 1
        kwargs = f.peek() if f.peek() != NULL else None
    else:
        has_kwargs = ins.arg & 1
        kwargs = f.peek() if has_kwargs else None
    args = f.peek(1 + has_kwargs)
    depth = 2 + has_kwargs
    if m.facts.CALL_PUSHES_NULL:  # a NULL beside the callable (3.11+)
        fn = f.peek(depth + 1) if m.facts.NULL_AFTER_CALLABLE else f.peek(depth)
        if (f.peek(depth) if m.facts.NULL_AFTER_CALLABLE else f.peek(depth + 1)) != NULL:
            raise ModelLimit("CALL_FUNCTION_EX without its NULL")
        depth += 1
    else:
        fn = f.peek(depth)
    return _call(m, f, depth, fn, (), star=args, starstar=kwargs)


# -- functions and classes -------------------------------------------------------------
def local_qualname(qualname):
    """The part of a qualified name below the innermost enclosing function (the
    enclosing scopes are rebuilt, not reproduced, when source is recompiled)."""
    return qualname.rsplit(".<locals>.", 1)[-1]


@op("MAKE_FUNCTION")
def make_function(m, f, ins, i):
    flags = ins.arg if m.facts.MAKE_FUNCTION_TAKES_FLAGS else 0
    if m.facts.QUALNAME_ON_STACK:
        qualname = f.pop()
        qualname = ("c", "qualname", local_qualname(qualname[2]) if qualname[:2] == ("c", "str") else qualname)
    code = f.pop()
    code_obj = m.code_of(code)
    if code_obj is None:
        raise ModelLimit("MAKE_FUNCTION of something that is not a code object")
    if not m.facts.QUALNAME_ON_STACK:
        qualname = ("c", "qualname", local_qualname(getattr(code_obj, "co_qualname", code_obj.co_name)))
    attrs = {}
    for bit, what in ((8, "closure"), (4, "annotations"), (2, "kwdefaults"), (1, "defaults")):
        if flags & bit:
            attrs[what] = f.pop()
    f.push(f.new("function", function_contents(code, qualname, attrs)))


def function_contents(code, qualname, attrs):
    return ("fn", code, qualname, attrs.get("defaults", NONE), attrs.get("kwdefaults", NONE),
            attrs.get("annotations", NONE), attrs.get("closure", ("t", ())),
            attrs.get("annotate", NONE))


_ATTRIBUTE_SLOTS = {1: 3, 2: 4, 4: 5, 8: 6, 16: 7}  # SET_FUNCTION_ATTRIBUTE flag -> slot


@op("SET_FUNCTION_ATTRIBUTE")
def set_function_attribute(m, f, ins, i):
    fn = f.pop()
    value = f.pop()
    o = f.obj(fn)
    if o is None or o.kind != "function" or o.contents[0] != "fn":
        raise ModelLimit("SET_FUNCTION_ATTRIBUTE on something the code did not make")
    slot = _ATTRIBUTE_SLOTS.get(ins.arg)
    if slot is None:
        raise ModelLimit("SET_FUNCTION_ATTRIBUTE %d is not modelled" % ins.arg)
    contents = list(o.contents)
    contents[slot] = value
    o.contents = tuple(contents)
    f.push(fn)


# -- imports -------------------------------------------------------------------------
@op("IMPORT_NAME")
def import_name(m, f, ins, i):
    level, fromlist = f.peek(2), f.peek()
    return Event(("import", ins.argval), (level, fromlist), pop_apply(2))


@op("IMPORT_FROM")
def import_from(m, f, ins, i):
    return Event(("import from", ins.argval), (f.peek(),), pop_apply(0))


@op("IMPORT_STAR")
def import_star(m, f, ins, i):
    return Event(("import *",), (f.peek(),), pop_apply(1, False), OK0)


# -- operators -------------------------------------------------------------------------
def _binary(m, f, symbol):
    a, b = f.peek(2), f.peek()
    o = f.obj(a)
    if o is not None and o.kind == "list" and symbol == "+=":
        items = known_items(f, b)
        if items is not None:  # list += known sequence: extend in place, same list
            f.pop(2)
            o.contents = extended(o.contents, ("t", items))
            f.push(a)
            return None
    return Event(("binary", symbol), (a, b), pop_apply(2))


@op("BINARY_OP")
def binary_op(m, f, ins, i):
    if ins.arg == m.facts.NB_SUBSCR:  # 3.14: BINARY_SUBSCR
        return get_item(f, f.peek(2), f.peek(), 2)
    return _binary(m, f, ins.argrepr)


def _old_binary(symbol):
    def handler(m, f, ins, i):
        return _binary(m, f, symbol)
    return handler


for _name, _symbol in (("ADD", "+"), ("SUBTRACT", "-"), ("MULTIPLY", "*"),
                       ("MATRIX_MULTIPLY", "@"), ("TRUE_DIVIDE", "/"), ("FLOOR_DIVIDE", "//"),
                       ("MODULO", "%"), ("POWER", "**"), ("LSHIFT", "<<"), ("RSHIFT", ">>"),
                       ("AND", "&"), ("OR", "|"), ("XOR", "^")):
    TABLE["BINARY_" + _name] = _old_binary(_symbol)
    TABLE["INPLACE_" + _name] = _old_binary(_symbol + "=")


@op("UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT")
def unary(m, f, ins, i):
    return Event(("unary", ins.opname[6:].lower()), (f.peek(),), pop_apply(1))


@op("UNARY_NOT")
def unary_not(m, f, ins, i):
    v = f.peek()
    known = m.known_truth(f, v)
    if known is not None:
        f.pop()
        f.push(negate(known))
        return None
    return Event(("truth",), (v,), lambda g, label, r: (g.pop(), g.push(negate(r[0]))), OKB)


def _is_bool(term):
    from .terms import bool_atom
    return bool_atom(term) is not None


@op("TO_BOOL")
def to_bool(m, f, ins, i):
    v = f.peek()
    known = m.known_truth(f, v)
    if known is not None:
        f.pop()
        f.push(known)
        return None
    return Event(("truth",), (v,), lambda g, label, r: (g.pop(), g.push(r[0])), OKB)


@op("COMPARE_OP")
def compare_op(m, f, ins, i):
    if f.ready is not None and f.ready[0] == "compared":  # 3.13 bool(...): second half
        result = f.peek()
        known = m.known_truth(f, result)
        if known is not None:
            f.ready = None
            f.pop()
            f.push(known)
            return None
        return Event(("truth",), (result,), lambda g, label, r: (g.pop(), g.push(r[0])), OKB)

    a, b = f.peek(2), f.peek()
    text = ins.argval if isinstance(ins.argval, str) else ins.argrepr
    to_bool = ins.argrepr.startswith("bool(")  # 3.13: the result is made a bool at once
    if text.startswith("bool(") and text.endswith(")"):
        text = text[5:-1]
    if text in ("is", "is not"):  # 3.8
        f.pop(2)
        t = m.identity(f, a, b)
        f.push(t if text == "is" else negate(t))
        return None
    if text in ("in", "not in"):  # 3.8
        return _contains(f, a, b, text == "not in")
    if text == "exception match":  # 3.8
        return Event(("exception match",), (a, b), pop_apply(2), OKB)

    def apply(g, label, results):
        g.pop(2)
        g.push(results[0])
        if to_bool:
            g.ready = ("compared",)
            g.pc = i
    return Event(("compare", text), (a, b), apply)


@op("IS_OP")
def is_op(m, f, ins, i):
    a, b = f.pop(2)
    t = m.identity(f, a, b)
    f.push(negate(t) if ins.arg else t)


def _contains(f, item, container, invert):
    def apply(g, label, results):
        g.pop(2)
        g.push(negate(results[0]) if invert else results[0])
    return Event(("contains",), (container, item), apply, OKB)


@op("CONTAINS_OP")
def contains_op(m, f, ins, i):
    return _contains(f, f.peek(2), f.peek(), ins.arg)
