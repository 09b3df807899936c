"""Layout choices between equivalent source forms, checked by the round trip itself:
each function here must come back bytecode-equal (the compiler left evidence of which
form it compiled: block order, jump kinds, line numbers)."""

import pytest

from depyf.verify import collect_targets
from depyf.verify.roundtrip import check

LAYOUT_MODULE = '''
def and_test_ends_loop_body(items, b):
    for x in items:
        if x and b:
            print(x)
    return 1


def and_test_continue(mro, g):
    for entry in mro:
        d = g(entry)
        if d:
            c = d[0]
            if type(c) is int and c.real == 1 and c.imag is entry:
                continue
            return c
    return None


def nested_test_continue(xs):
    last = None
    for net in xs:
        if last is not None:
            if last.b >= net.b:
                continue
        yield net
        last = net


def negated_and_return(mro):
    for entry in mro:
        if entry:
            c = entry[0]
            if not (type(c) is int and
                    c.real == 1 and
                    c.imag is entry):
                return c
    return None


def continue_then_elif(xs, g, h):
    for x in xs:
        if x is None:
            continue
        elif x:
            g(x)
        h(x)


def break_then_else(xs, g, h):
    for x in xs:
        if x is None:
            break
        else:
            g(x)
        h(x)


def continue_else_ends_body(xs, g):
    for x in xs:
        if x is None:
            continue
        else:
            g(x)


def while_break_else(xs, g, h):
    while xs:
        if xs is None:
            break
        else:
            g(xs)
        h()


def continue_then_break(heap, startpos, pos):
    newitem = heap[pos]
    while pos > startpos:
        parentpos = (pos - 1) >> 1
        parent = heap[parentpos]
        if newitem < parent:
            heap[pos] = parent
            pos = parentpos
            continue
        break
    heap[pos] = newitem


def try_else_ends_loop_body(assigned, wrapped, wrapper):
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            pass
        else:
            setattr(wrapper, attr, value)
    return wrapper


def except_continue_ends_loop_body(xs, k):
    for inst in xs:
        try:
            delattr(inst, k)
        except AttributeError:
            continue


def except_for_else_continue(names, obj, mro, out):
    for key in names:
        try:
            value = getattr(obj, key)
        except AttributeError:
            for base in mro:
                if key in base.__dict__:
                    value = base.__dict__[key]
                    break
            else:
                continue
        out.append(value)


def assert_in_and_is(action, group):
    assert action in ("error", "ignore"), "invalid action: %r" % (action,)
    assert group is None
    return action


def assert_false_in_else(c):
    if c == 1:
        i = 0
    else:
        assert False, "bad " + repr(c)
    return i


def try_else_returns(fn, lstat):
    try:
        lstat(fn)
    except OSError:
        return False
    else:
        return True


def try_returns_constant(name, opener, error):
    try:
        if hasattr(name, "read"):
            t = opener(fileobj=name)
        else:
            t = opener(name)
        t.close()
        return True
    except error:
        return False


def chained_test_ends_loop_body(opt, shortopts, error):
    for i in range(len(shortopts)):
        if opt == shortopts[i] != ':':
            return shortopts.startswith(':', i + 1)
    raise error(opt)


def except_returns_none(table, fd):
    try:
        return table[fd]
    except KeyError:
        return None


def with_returns_constant_in_try(socket, error):
    try:
        with socket() as sock:
            sock.setsockopt(0)
            return True
    except error:
        return False


def or_and_or(obj, a, b, c, flags):
    # (inspect.isawaitable: the and/or arms jump straight to the expression's end)
    return isinstance(obj, a) or isinstance(obj, b) and bool(obj.flags & flags) or \
        isinstance(obj, c)
'''


@pytest.fixture(scope="module")
def layout_targets(tmp_path_factory):
    root = tmp_path_factory.mktemp("layout")
    (root / "layout_mod.py").write_text(LAYOUT_MODULE)
    targets, _ = collect_targets(["layout_mod"], root=str(root))
    return {t.qualname: t for t in targets}


@pytest.mark.parametrize("name", ["and_test_ends_loop_body", "and_test_continue",
                                  "nested_test_continue", "continue_then_elif", "break_then_else",
                                  "continue_else_ends_body", "while_break_else",
                                  "continue_then_break",
                                  "try_else_ends_loop_body",
                                  "except_continue_ends_loop_body", "except_for_else_continue",
                                  "assert_in_and_is",
                                  "assert_false_in_else",
                                  "try_else_returns",
                                  "try_returns_constant",
                                  "chained_test_ends_loop_body",
                                  "except_returns_none",
                                  "with_returns_constant_in_try",
                                  "or_and_or"])
def test_layout_round_trips(layout_targets, name):
    r = check(layout_targets[name])
    assert r.equal, r.reason
