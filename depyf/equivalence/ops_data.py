"""Opcodes that move and build values: the stack, local variables, cells, globals and
names, constants, tuples/lists/sets/dicts and their in-place updates, unpacking."""
from ..bytecode import versions as V
from .machine import Event, ModelLimit, OK, OK0, RAISES, opcode_table, pop_apply
from .terms import NULL, UNBOUND

TABLE, op = opcode_table()


# -- the stack -----------------------------------------------------------------------
@op(*(V.NO_EFFECT | V.CELL_SETUP))  # cells are addressed by name: nothing to set up
def nothing(m, f, ins, i):
    return None


@op("POP_TOP")
def pop_top(m, f, ins, i):
    f.pop()


@op("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N")
def rot(m, f, ins, i):
    n = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(ins.opname, ins.arg)
    items = f.pop(n)
    f.push(items[-1], *items[:-1])


@op("DUP_TOP")
def dup_top(m, f, ins, i):
    f.push(f.peek())


@op("DUP_TOP_TWO")
def dup_top_two(m, f, ins, i):
    f.push(f.peek(2), f.peek(2))


@op("COPY")
def copy_(m, f, ins, i):
    f.push(f.peek(ins.arg))


@op("SWAP")
def swap(m, f, ins, i):
    n = ins.arg
    f.peek(n)
    f.stack[-1], f.stack[-n] = f.stack[-n], f.stack[-1]


@op("PUSH_NULL")
def push_null(m, f, ins, i):
    f.push(NULL)


@op("END_FOR")
def end_for(m, f, ins, i):
    # reached only by falling through; 3.12: pops the value and the iterator, 3.13: one
    f.pop(2 if m.facts.END_FOR_POPS_TWO else 1)


# -- constants and local variables -----------------------------------------------------
@op("LOAD_CONST")
def load_const(m, f, ins, i):
    f.push(m.const(ins.argval))


@op("LOAD_SMALL_INT")  # 3.14: an int 0..255, the argument itself
def load_small_int(m, f, ins, i):
    f.push(m.const(ins.arg))


@op("LOAD_COMMON_CONSTANT")  # 3.14: a builtin object itself, not a global lookup
def load_common_constant(m, f, ins, i):
    f.push(("op", "builtin", m.facts.COMMON_CONSTANTS[ins.arg]))


@op("RETURN_CONST")
def return_const(m, f, ins, i):
    f.result = ("return", m.const(ins.argval))


def _bound(m, f, name, i, checked=True):
    """The value of local ``name``, or an event that checks or fails the read.

    ``checked=False``: the compiler proved the variable bound (3.12+ emits LOAD_FAST and
    its super-instructions only then, LOAD_FAST_CHECK otherwise), so a "maybe unbound"
    value is read as bound."""
    v = f.local(name)
    if v == UNBOUND:
        if not checked:
            raise ModelLimit("%s reads %r, unbound on this path, as proven bound"
                             % (f.info.describe(i), name))
        return None, Event(("unbound local",), (), None, RAISES)
    if v[0] == "u":
        bound = ("s",) + v[1:]
        if not checked:
            return bound, None

        def apply(g, label, results):
            g.set_local(name, bound)
            g.pc = i  # read it again, now bound
        return None, Event(("may be unbound",), (v,), apply, OK0)
    return v, None


@op("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW")  # 3.14 borrows: a refcount detail
def load_fast(m, f, ins, i):
    name = ins.argval
    if name in f.info.cells:  # 3.13 loads a cell itself (to build a closure) this way
        f.push(("cell", name))
        return None
    checked = ins.opname == "LOAD_FAST_CHECK" or m.facts.LOAD_FAST_CHECKS
    v, event = _bound(m, f, name, i, checked)
    if event is not None:
        return event
    f.push(v)


@op("LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW")
def load_fast_load_fast(m, f, ins, i):
    f.push(*[_bound(m, f, name, i, checked=False)[0] for name in ins.argval])


@op("LOAD_FAST_AND_CLEAR")
def load_fast_and_clear(m, f, ins, i):
    f.push(f.local(ins.argval))
    f.set_local(ins.argval, UNBOUND)


@op("STORE_FAST", "STORE_FAST_MAYBE_NULL")
def store_fast(m, f, ins, i):
    f.set_local(ins.argval, f.pop())


@op("STORE_FAST_STORE_FAST")
def store_fast_store_fast(m, f, ins, i):
    first, second = ins.argval
    f.set_local(first, f.pop())
    f.set_local(second, f.pop())


@op("STORE_FAST_LOAD_FAST")
def store_fast_load_fast(m, f, ins, i):
    first, second = ins.argval
    f.set_local(first, f.pop())
    f.push(_bound(m, f, second, i, checked=False)[0])


@op("DELETE_FAST")
def delete_fast(m, f, ins, i):
    v, event = _bound(m, f, ins.argval, i)
    if event is not None:
        return event
    f.set_local(ins.argval, UNBOUND)


# -- cells: read and written through events (a closure may run in any call) ------------
@op("LOAD_DEREF", "LOAD_CLASSDEREF")
def load_deref(m, f, ins, i):
    return Event(("load cell", ins.argval), (), pop_apply(0))


@op("STORE_DEREF")
def store_deref(m, f, ins, i):
    return Event(("store cell", ins.argval), (f.peek(),), pop_apply(1), OK0)


@op("DELETE_DEREF")
def delete_deref(m, f, ins, i):
    return Event(("delete cell", ins.argval), (), pop_apply(0), OK0)


@op("LOAD_CLOSURE")
def load_closure(m, f, ins, i):
    f.push(("cell", ins.argval))


@op("LOAD_FROM_DICT_OR_DEREF")
def load_from_dict_or_deref(m, f, ins, i):
    return Event(("load from dict or cell", ins.argval), (f.peek(),), pop_apply(1))


# -- globals and names -----------------------------------------------------------------
@op("LOAD_GLOBAL")
def load_global(m, f, ins, i):
    name = ins.argval
    with_null = m.facts.LOAD_GLOBAL_NULL_BIT and ins.arg & 1
    bound = m.global_term(name)

    def push(g, value):
        if with_null and not m.facts.NULL_AFTER_CALLABLE:
            g.push(NULL)
        g.push(value)
        if with_null and m.facts.NULL_AFTER_CALLABLE:
            g.push(NULL)
    if bound is not None:
        push(f, bound)
        return None
    return Event(("load global", m.global_name(name)), (), lambda g, label, r: push(g, r[0]))


@op("STORE_GLOBAL")
def store_global(m, f, ins, i):
    return Event(("store global", m.global_name(ins.argval)), (f.peek(),), pop_apply(1), OK0)


@op("DELETE_GLOBAL")
def delete_global(m, f, ins, i):
    return Event(("delete global", m.global_name(ins.argval)), (), pop_apply(0), OK0)


@op("LOAD_NAME")
def load_name(m, f, ins, i):
    return Event(("load name", m.global_name(ins.argval)), (), pop_apply(0))


@op("STORE_NAME")
def store_name(m, f, ins, i):
    value = f.peek()
    if ins.argval == "__firstlineno__" and value[:2] == ("c", "int"):
        value = ("c", "int", "<line number>")  # 3.13+ class bodies: where, not what
    return Event(("store name", m.global_name(ins.argval)), (value,), pop_apply(1), OK0)


@op("DELETE_NAME")
def delete_name(m, f, ins, i):
    return Event(("delete name", m.global_name(ins.argval)), (), pop_apply(0), OK0)


@op("LOAD_FROM_DICT_OR_GLOBALS")
def load_from_dict_or_globals(m, f, ins, i):
    return Event(("load from dict or global", m.global_name(ins.argval)), (f.peek(),),
                 pop_apply(1))


@op("LOAD_LOCALS")
def load_locals(m, f, ins, i):
    f.push(("op", "locals"))


@op("LOAD_BUILD_CLASS")
def load_build_class(m, f, ins, i):
    f.push(("op", "builtin", "__build_class__"))


@op("LOAD_ASSERTION_ERROR")
def load_assertion_error(m, f, ins, i):
    f.push(("op", "builtin", "AssertionError"))


@op("SETUP_ANNOTATIONS")
def setup_annotations(m, f, ins, i):
    return Event(("setup annotations",), (), pop_apply(0), OK0)


@op("PRINT_EXPR")
def print_expr(m, f, ins, i):
    return Event(("print expression",), (f.peek(),), pop_apply(1), OK0)
