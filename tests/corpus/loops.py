"""``for`` and ``while`` loops: ``break``, ``continue``, ``else``, nesting, ``return``
inside loops, and loops inside ``try``/``with``."""
from ._harness import CM, case


@case(([1, 2, 3],), ([],))
def for_simple(xs):
    total = 0
    for x in xs:
        total += x
    return total


@case((5,), (0,))
def while_simple(n):
    out = []
    i = 0
    while i < n:
        out.append(i)
        i += 1
    return out


@case((10,), (1,), (0,))
def while_true_with_break(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


@case((16,), (7,), (1,))
def while_true_with_return(n):
    steps = 0
    while True:
        if n == 1:
            return steps
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1


@case(([1, 3, 5],), ([1, 4, 5],), ([],))
def for_else(xs):
    for x in xs:
        if x % 2 == 0:
            found = x
            break
    else:
        found = None
    return found


@case((3,), (10,), (0,))
def while_else(n):
    i = 0
    while i < n:
        if i == 5:
            r = "broke"
            break
        i += 1
    else:
        r = "finished"
    return r, i


@case(([1, -2, 3, -4, 5],),)
def for_continue(xs):
    out = []
    for x in xs:
        if x < 0:
            continue
        out.append(x)
    return out


@case((4,), (0,))
def nested_loops_break_inner(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            pairs.append((i, j))
    return pairs


@case((4,), (0,))
def nested_loops_continue_outer_via_flag(n):
    out = []
    for i in range(n):
        skip = False
        for j in range(n):
            if i * j == 2:
                skip = True
                break
        if skip:
            continue
        out.append(i)
    return out


@case(([[1, 2], [3, 4]], 3), ([[1, 2], [3, 4]], 9))
def nested_loops_with_else_search(rows, target):
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if v == target:
                break
        else:
            continue
        return r, c
    return None


@case((20,), (5,))
def while_complex_condition(limit):
    a, b = 0, 1
    out = []
    while b < limit and len(out) < 6 or not out:
        out.append(b)
        a, b = b, a + b
    return out


@case(([1, 2, 3, 4, 5, 6],), ([1, 2],))
def return_inside_for(xs):
    for x in xs:
        if x * x > 10:
            return x
    return -1


@case(([5, 3, 8],), ([],))
def return_inside_while(xs):
    while xs:
        x = xs.pop()
        if x > 4:
            return x, xs
    return None, xs


@case(([1, 0, 2, "x", 3],),)
def continue_and_break_inside_try(xs):
    out = []
    for x in xs:
        try:
            if x == 3:
                break
            v = 10 // x
        except ZeroDivisionError:
            out.append("zero")
            continue
        except TypeError:
            out.append("type")
            continue
        out.append(v)
    return out


@case(([1, 2, 3, 4],),)
def break_and_continue_inside_try_finally(xs):
    log = []
    for x in xs:
        try:
            if x == 2:
                continue
            if x == 3:
                break
            log.append(x)
        finally:
            log.append("finally %d" % x)
    return log


@case(([1, 2, 3],),)
def break_and_continue_inside_with(xs):
    log = []
    for x in xs:
        with CM(log, "cm%d" % x):
            if x == 1:
                continue
            if x == 2:
                break
    return log


@case(([2, 4, 6],), ([1, 2],))
def while_with_else_and_continue(xs):
    i = 0
    total = 0
    while i < len(xs):
        i += 1
        if xs[i - 1] % 2:
            continue
        total += xs[i - 1]
    else:
        total = -total
    return total


@case(({"b": 2, "a": 1},),)
def for_over_dict_and_enumerate_zip(d):
    out = []
    for k in d:
        out.append(k)
    for k, v in d.items():
        out.append(v)
    for i, (k, v) in enumerate(sorted(d.items())):
        out.append((i, k, v))
    for a, b in zip("xy", range(5)):
        out.append(a * b)
    return out


@case((3,), (0,))
def loop_variable_after_loop(n):
    i = "unset"
    for i in range(n):
        pass
    return i


@case((3,),)
def nested_while_in_for(n):
    out = []
    for i in range(n):
        j = i
        while j > 0:
            if j == 2:
                j -= 1
                continue
            out.append((i, j))
            j -= 1
    return out


@case((5,), (2,))
def for_else_with_return_in_body(n):
    for i in range(n):
        if i == 3:
            return "found 3"
    else:
        return "no 3"


@case(([[1, 2], [3, 4], [5]],),)
def for_loop_modifying_targets(rows):
    total = 0
    for row in rows:
        for i in range(len(row)):
            row[i] *= 2
            total += row[i]
    return total, rows


@case((3,), (0,))
def triple_nested_break_continue(n):
    out = []
    for a in range(n):
        if a == 1:
            continue
        for b in range(n):
            for c in range(n):
                if c > b:
                    break
                if (a + b + c) % 2:
                    continue
                out.append((a, b, c))
            else:
                out.append("inner else")
    return out


@case((5,), (0,))
def while_with_try_inside(n):
    i = 0
    out = []
    while i < n:
        try:
            if i % 2:
                raise ValueError(i)
            out.append(i)
        except ValueError as e:
            out.append(-e.args[0])
        i += 1
    return out


@case(([3, 0, 4],),)
def for_with_empty_body_and_pass(xs):
    for x in xs:
        pass
    while False:
        pass
    return x


@case((4,),)
def for_with_unpacking_and_star(n):
    out = []
    for a, *b in [(i, i + 1, i + 2) for i in range(n)]:
        out.append(a + sum(b))
    return out


@case(([1, 2, 3],),)
def for_over_modified_list(xs):
    for x in xs:
        if x < 10:
            xs.append(x * 10)
    return xs


@case(("   ab  ", 2), ("    ", 9), ("x", 0), ("ab   ", 2))
def while_and_strip(s, amount):
    lpos = 0
    while amount and s[lpos] == ' ':
        lpos += 1
        amount -= 1
    rpos = len(s) - 1
    while amount and rpos >= 0 and s[rpos] == ' ':
        rpos -= 1
        amount -= 1
    return s[lpos:rpos + 1], amount


@case(([3, 1, 4, 1, 5, 9, 2, 6], 5), ([], 3), ([7, 7, 7], 2))
def while_and_with_continue(xs, budget):
    out = []
    i = 0
    while budget and i < len(xs):
        i += 1
        if xs[i - 1] % 2:
            continue
        out.append(xs[i - 1])
        budget -= 1
    return out, budget, i


@case((["real", "nope", "imag"],),)
def for_try_except_pass_else(names):
    out = {}
    for name in names:
        try:
            value = getattr(3, name)
        except AttributeError:
            pass
        else:
            out[name] = value
    return out


@case(([1, 2, 1, 3], 1), ([], 0), (["a", "b"], "b"))
def loop_ends_in_if_or(a, b):
    count = 0
    for i in a:
        if i is b or i == b:
            count += 1
    return count


@case((["x", "None", "y"], {}), ([], {}))
def loop_continue_then_try(names, ns):
    for name in names:
        if name in ('None', 'True'):
            continue
        try:
            ns[name] = {'x': 1}[name]
        except KeyError:
            ns[name] = None
    return ns


@case((["real", "nope", "imag"],))
def for_try_else_ends_body(attrs):
    out = []
    for attr in attrs:
        try:
            value = getattr(1, attr)
        except AttributeError:
            pass
        else:
            out.append(value)
    return out


@case((["real", "nope", "imag"],))
def for_except_continue_ends_body(attrs):
    out = []
    for attr in attrs:
        out.append(attr)
        try:
            out.append(getattr(1, attr))
        except AttributeError:
            continue
    return out


@case(([1, None, 0, 2],), ([None],))
def for_continue_then_elif(xs):
    out = []
    for x in xs:
        if x is None:
            continue
        elif x:
            out.append(x)
        out.append(-1)
    return out


@case(([1, 2, None, 3],), ([],))
def for_break_then_else(xs):
    out = []
    for x in xs:
        if x is None:
            break
        else:
            out.append(x)
        out.append(0)
    return out


@case(([3, 0, 2], 0), ([], 2), ([0, 0], 1), ([5], 0))
def while_or_condition(xs, extra):
    # 3.10+: `if a or b: while True: body; if not a and not b: break`
    out = []
    while xs or extra:
        if xs:
            out.append(xs.pop())
        else:
            extra -= 1
            out.append(extra)
    return out


@case((None, ["a", "b"]), ("x", ["x", "x", "y"]), ("x", ["y"]), ("x", ["x"]))
def if_then_while(src, toks):
    # 3.10+: `if a: while b:` is `if a: if b: <do-while b>`, read as one `if a and b:`;
    # the loop's test must still run once on entry (shlex.shlex.get_token)
    log = []

    def same(x):
        log.append(x)
        return x == src

    raw = toks.pop(0) if toks else None
    if src is not None:
        while same(raw):
            raw = toks.pop(0) if toks else None
    return raw, log


@case((["a", "-", "b"],), ([],))
def for_try_finally_if_ends_body(args):
    # the finally copy on the normal path ends the loop body: its if jumps back to the
    # head from one arm (a `continue` there until the body's trailing one is dropped)
    # (quopri.main)
    log = []
    for name in args:
        try:
            log.append(name)
        finally:
            if name != "-":
                log.append(0)
    return log


@case((["a", "-", "b"],), ([],))
def for_try_finally_then_same_again(args):
    log = []
    for name in args:
        try:
            log.append(name)
        finally:
            if name != "-":
                log.append(0)
        if name != "-":
            log.append(0)
    return log


@case(([3, 1, 2], 2), ([3, 1], 0), ([5, 9], 4), ([], 1), ([1, 1, 1], 0), ([0, 3], 2), ([0], 2))
def while_else_then_break_inside_loop(items, limit):
    # 3.10+: the inner `while` compiles as `if c: <do-while c>` and its else arm is laid
    # down once, where the entry test also goes (textwrap.TextWrapper._wrap_chunks)
    out = []
    while items:
        cur = items.pop()
        if cur > limit:
            out.append(cur)
        else:
            while limit:
                if cur == limit:
                    out.append("hit")
                    break
                limit -= 1
            else:
                if out:
                    prev = out[-1]
                    if prev != "last":
                        out[-1] = "last"
                        break
                out.append("none")
            break
    return out, limit


@case(([1, None, 2, 3],), ([],))
def continue_over_a_wide_jump(items):
    # a loop body long enough that its jumps back need EXTENDED_ARG (3.12+: a jump to
    # the `continue` that was folded into the test before it went to that prefix)
    out = []
    for n in items:
        a0 = str(n).upper()
        a1 = str(n).lower()
        a2 = str(n).strip()
        a3 = str(n).title()
        a4 = str(n).zfill(2)
        a5 = str(n).center(3)
        a6 = str(n).ljust(4)
        a7 = str(n).rjust(5)
        a8 = str(n).swapcase()
        a9 = str(n).casefold()
        a10 = str(n).lstrip()
        a11 = str(n).rstrip()
        a12 = str(n).expandtabs()
        if n is None or a0 == "3":
            continue
        out.append((a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))
    return out


# 3.10+: `while` heads that a `continue` makes loops of their own; the latches test the
# condition again (a compound one over several blocks; a None test the other way round)
@case(([1, 2, 3, 4, 5],), ([],), ([None, 1],))
def while_and_if_continue_at_end(xs):
    out = []
    it = iter(xs)
    while it is not None and next(it, None) is not None:
        if len(out) < 3:
            out.append(len(out) or -1)
            continue
    return out


@case(([1, 2, 3, 4],), ([],))
def while_not_none_if_continue(xs):
    out = []
    it = iter(xs)
    while next(it, None) is not None:
        if len(out) < 2:
            out.append(len(out))
            continue
    return out


@case(([None, 0, 1, 2, 3, 4], 4), ([5, 6, 7], 9), ([], 1))
def while_and_continue_then_if(xs, limit):
    n = 0
    out = []
    while n < len(xs) and n < limit:
        n += 1
        if xs[n - 1] is None or xs[n - 1] % 3 == 0:
            continue
        if (xs[n - 1] if xs[n - 1] > 1 else 0) != 0:
            out.append(n)
    return n, out


@case(([0, 1, 2, 13, 4, 5], 2), ([], 1))
def while_or_assert_continue(xs, k):
    seen = []
    while len(seen) in xs or len(seen) + 10 in xs:
        assert len(seen) % 1 == 0
        seen.append(k)
        if len(seen) % 2:
            continue
        seen.append(-k)
    return seen


@case(([3, 0, 5, 0, 2], [1, 2, 3, 8]), ([], []), ([9], [2]))
def nested_while_continue_break(xs, ys):
    out = []
    i = 0
    while i is not None:
        i = i + 1 if i < len(xs) else None
        if i is None or not xs[i - 1]:
            continue
        j = 0
        while j is not None:
            j += 1
            if j > len(ys):
                break
            if ys[j - 1] % 2:
                continue
            elif ys[j - 1] > xs[i - 1]:
                break
            out.append((i, j))
    return out


@case(([1] * 6, [1] * 10), ([], [1]))
def nested_while_not_continue_break(xs, ys):
    it, jt, kt = iter(xs), iter(ys), iter(range(100))
    while next(it, None) is not None:
        if not next(kt) % 2:
            continue
        while next(jt, None) is not None:
            if next(kt) % 3 == 0:
                continue
            elif next(kt) % 5 == 1:
                break
    return next(kt)


# a chained comparison as the loop test (3.11 refused it; 3.12/3.13 with a `continue`)
@case((3, 10), (0, 4), (None, 4), (-2, 4))
def while_and_chained_compare(x, n):
    out = []
    while x and 0 <= x < n:
        out.append(x)
        x += 1
    return out, x


@case((0, 3), (5, 2))
def while_chained_compare_only(x, n):
    while 0 <= x < n:
        x += 1
    return x


@case((2, 9), (1, 9), (0, 3), (-1, 3))
def while_and_chained_compare_continue(x, n):
    while x and 0 <= x < n:
        x += 1
        if x % 2:
            continue
        x += 1
    return x


# a `while` whose body never goes back to its test (each path returns, or breaks in a
# finally body) compiles like an `if` (3.10+, and the break jumps where the if ends):
# the break that drops the value of the `return` only a loop can hold (CPython's
# test_grammar)
@case((False,), (True,))
def while_return_break_in_finally_in_for(x):
    for count in [0, 1]:
        count2 = 0
        while count2 < 20:
            count2 += 10
            try:
                return count + count2
            finally:
                if x:
                    break
    return "end", count, count2


@case((False,), (True,))
def while_return_break_in_finally(x):
    n = 0
    while n < 20:
        n += 10
        try:
            return n
        finally:
            if x:
                break
    return "end", n


@case((1, []), (2, []), (0, []))
def while_return_break_in_finally_then_more(x, log):
    while x:
        log.append(x)
        try:
            return len(log)
        finally:
            if x > 1:
                break
            log.append(0)
    log.append(-1)
    return log


@case((2,), (0,))
def while_raise_break_in_finally(n):
    # 3.8: the break leaves the finally body (POP_FINALLY) for where the if ends
    count = 0
    while count < n:
        count += 1
        try:
            1 / 0
        finally:
            break
    return count


# 3.10/3.11: the breaks of a `while True:` around a try are copies of the function's
# `return None`; the one inside the try body is no place where the loop ends
@case(([1, 2, None, 3], True, []), ([1, 2], False, []), ([None], False, []))
def while_true_try_if_break_except_break(items, flag, out):
    it = iter(items)
    while True:
        try:
            item = next(it)
            if item is None:
                if flag:
                    out.append("stop")
                break
            out.append(item)
            if flag:
                out.append(-1)
        except StopIteration:
            break
