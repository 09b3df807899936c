"""Layout snippets of the shapes found by CPython's language tests and torch's source
(``tests/corpus/language_shapes.py``): each, decompiled and compiled again, must give the
same normalized bytecode as the original (as in ``test_layout_roundtrip``)."""
import pytest

from test_layout_roundtrip_library import round_trip_check  # (tests/ is on sys.path)

SNIPPETS = {
    # 3.11+ stores in reverse order; the `or` merges start with the other values waiting
    "parallel_assignment_of_or_values": '''
        def f(s):
            start, stop, step = s.start or 0, s.stop or 9, s.step or 1
            return start, stop, step
    ''',
    "parallel_assignment_of_conditional_expressions": '''
        def f(s, x, y):
            a, b = (s if x else y), (x.real if y else s)
            return a, b
    ''',
    # 3.10+: `if c: do {...} while c` after a try/except/else, its try body breaking to
    # the outer loop's head, its else clause breaking the outer loop
    "while_else_breaking_from_try_after_try_else": '''
        def f(gs, n):
            i = 0
            while 1:
                try:
                    while i < n:
                        gs[i]()
                        i += 1
                except KeyError:
                    pass
                else:
                    yield i
                i -= 1
                while i >= 0:
                    try:
                        gs[i]()
                        i += 1
                        break
                    except KeyError:
                        i -= 1
                else:
                    break
    ''',
    # the outer loop's head is block 0
    "loop_at_function_start_continued_by_inner_break": '''
        def f(d, i):
            while 1:
                i -= 1
                while i >= 0:
                    try:
                        d[i]
                        break
                    except KeyError:
                        i -= 1
                else:
                    d = None
                    break
            return i, d
    ''',
    # a `return` in each arm of a try whose finally body branches (3.11+ copy the with's
    # exit call, or the outer finally body, into each arm's way out)
    "return_in_arms_through_branching_finally_inside_with": '''
        def f(x, y, p, has, cm, log):
            try:
                with cm:
                    try:
                        if p:
                            return x(1)
                        return y(2)
                    finally:
                        if has:
                            log.append("end")
            finally:
                log.append("finally")
    ''',
    "return_in_arms_through_branching_finally_inside_try_finally": '''
        def f(x, y, p, has, log):
            try:
                try:
                    if p:
                        return x(1)
                    return y(2)
                finally:
                    if has:
                        log.append("end")
            finally:
                log.append("finally")
    ''',
    "return_in_arms_through_branching_finally_in_with": '''
        def f(x, y, p, has, cm, log):
            with cm:
                try:
                    if p:
                        return x(1)
                    return y(2)
                finally:
                    if has:
                        log.append("end")
    ''',
    "return_in_arms_one_inside_with_through_branching_finally": '''
        def f(x, p, has, cm, rec, log):
            try:
                with cm:
                    try:
                        if p:
                            with rec():
                                return x(1)
                        return x(2)
                    finally:
                        if has:
                            log.append("end")
            finally:
                if has:
                    log.append("finally")
    ''',
    # 3.12+: a private type parameter is stored mangled with the class (its own scope's
    # for `class Foo[__T]`, the enclosing class's for a method)
    "private_type_params_mangled": '''
        def f(base):
            class Foo[__T, __U: __T](base(__T)):
                param = __T

                def meth[__V](self, arg: __T, arg2: __V):
                    return (__T, __V)
            return Foo
    ''',
    # 3.12+: an inlined comprehension in a bound whose variable (a cell: the lambda
    # captures it) shadows the type parameter the bound closes over
    "comprehension_in_bound_shadows_type_param": '''
        def f():
            type Alias[T: [lambda: T for T in (T, [1])[1]]] = [lambda: T for T in T.__name__]
            return Alias
    ''',
    # 3.13: breaks from the clauses of a loop that is all of a try body go through the
    # jump that ends the try body, to the outer loop's head
    "breaks_from_clauses_of_a_loop_that_ends_a_try_body": '''
        def f(g, res):
            while True:
                an = g()
                try:
                    while True:
                        try:
                            an()
                        except KeyError as ex:
                            res.append(ex)
                            break
                        except Exception:
                            res.append(2)
                            break
                except IndexError:
                    return res
    ''',
    # 3.12+: the copies of the waiting `return` carry the lines of the tests before them
    "return_through_finally_with_multiline_and": '''
        def f(x, has, record, log):
            try:
                try:
                    return x(log)
                finally:
                    log.append("inner")
            finally:
                if (
                    has
                    and not record
                ):
                    log.append("outer")
    ''',
}

# the snippets whose syntax needs a newer Python than 3.8
MIN_PYTHON = {"private_type_params_mangled": (3, 12),
              "comprehension_in_bound_shadows_type_param": (3, 12)}
# not read back bytecode-equal on some versions: the `break` that ends the try body is
# read as the try's else clause (proven; the jump lies elsewhere), and 3.12+ read the
# statement before the else clause's `break` as after the loop (3.14: the inner loop
# of the try body read as an if that continues the outer one, proven)
KNOWN = {"while_else_breaking_from_try_after_try_else": [(3, 8), (3, 9), (3, 10), (3, 14)],
         "loop_at_function_start_continued_by_inner_break": [(3, 8), (3, 9), (3, 10), (3, 12),
                                                             (3, 13)]}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_round_trip_gives_the_same_bytecode(name, request):
    round_trip_check(SNIPPETS, KNOWN, MIN_PYTHON, name, request)
