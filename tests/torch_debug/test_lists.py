"""The list rule of the folding (depyf/torch_debug/lists.py): the lists Dynamo shuffles at a
graph break are replaced by what they hold, and anything the rule cannot prove leaves the
function unchanged. Cases are checked like in test_readable (text, and the same calls on
recording stand-ins)."""
from test_readable import behaviour, check

# What Dynamo 2.13 emits at a data-dependent branch (the toy example), decompiled.
GRAPH_BREAK = """
    def f(a, b):
        graph_out_0 = g(a, b)
        __temp_5 = [()]
        __temp_6 = graph_out_0[0]
        __temp_7 = [graph_out_0[1]]
        __temp_8 = __temp_7[0:1]
        __temp_9 = [b]
        __temp_8 += __temp_9
        __temp_10 = [__temp_8]
        del graph_out_0
        if __temp_6:
            __temp_11 = []
            __temp_10[0][0:0] = __temp_11
            __temp_12 = __temp_10[0]
            __temp_13 = [__temp_12]
            __temp_14 = __temp_5[0]
            __temp_15 = [__temp_14]
            __temp_16 = __temp_13[0]
            __temp_17 = __temp_16[1]
            __temp_18 = __temp_16[0]
            __temp_16[0:] = [__temp_17, __temp_18]
            __temp_19 = []
            __temp_20 = resume
            __temp_21 = __temp_13[-1]
            del __temp_13[-1]
            __temp_22 = [__temp_19, __temp_13]
            __temp_22 += __temp_21
            return __temp_20(*__temp_22)
        __temp_23 = []
        __temp_24 = resume
        __temp_25 = __temp_10[0]
        __temp_26 = [__temp_23, []]
        __temp_26 += __temp_25
        return __temp_24(*__temp_26)
"""


def test_the_lists_of_a_graph_break_become_the_call_of_the_resume_function():
    check(GRAPH_BREAK, """
        def f(a, b):
            graph_out_0 = g(a, b)
            __temp_1 = graph_out_0[0]
            __temp_2 = graph_out_0[1]
            del graph_out_0
            if __temp_1:
                return resume([], [], b, __temp_2)
            return resume([], [], __temp_2, b)
    """, args=([3], 2))


def test_an_element_with_an_effect_is_evaluated_where_it_was():
    check("""
        def f(a, b):
            __temp_1 = [g(a)]
            h()
            __temp_2 = [b]
            __temp_2 += __temp_1
            return k(*__temp_2)
    """, """
        def f(a, b):
            __temp_1 = g(a)
            h()
            return k(b, __temp_1)
    """)


def test_a_list_reaching_a_call_is_written_there():
    check("""
        def f(a, b):
            __temp_1 = [a]
            __temp_1 += [b]
            return g(__temp_1)
    """, """
        def f(a, b):
            return g([a, b])
    """)


def test_a_list_used_twice_after_it_escapes_is_kept():
    # g receives the object, then it is extended and passed again: one object, not two
    src = """
        def f(a, b):
            __temp_1 = [a]
            g(__temp_1)
            __temp_1 += [b]
            return h(__temp_1)
    """
    check(src, src)
    src = """
        def f(a, b):
            __temp_1 = [a]
            return g(__temp_1, __temp_1)
    """
    check(src, src)


def test_an_index_out_of_range_still_raises():
    src = """
        def f(a, b):
            __temp_1 = [a]
            __temp_2 = __temp_1[3]
            return g(__temp_2)
    """
    out = check(src, """
        def f(a, b):
            __temp_1 = [a][3]
            return g(__temp_1)
    """)  # (the single-use rule, not the list rule: the IndexError is raised as before)
    assert behaviour(out, (1, 2))[0] == ("raises", "IndexError")


def test_branches_that_leave_different_lists_keep_the_code():
    src = """
        def f(a, b):
            __temp_1 = [a]
            if g(b):
                __temp_1 += [b]
            return h(*__temp_1)
    """
    check(src, src)


def test_a_list_referenced_in_a_loop_is_kept():
    src = """
        def f(a, b):
            __temp_1 = [a, b]
            for x in __temp_1:
                g(x)
            return h(*__temp_1)
    """
    check(src, src)


def test_an_element_naming_a_variable_that_changes_is_not_replaced_by_the_name():
    # `x` is bound again after the list is built: the list keeps the old value
    src = """
        def f(a, b):
            x = g(a)
            __temp_1 = [x]
            x = h(b)
            return k(*__temp_1, x)
    """
    out = check(src, """
        def f(a, b):
            x = g(a)
            __temp_1 = x
            x = h(b)
            return k(__temp_1, x)
    """)
    assert "k(x, x)" not in out


def test_an_element_is_evaluated_once_when_a_dynamo_name_keeps_it():
    check("""
        def f(a, b):
            tmp_5 = [g(a)][0]
            return h(tmp_5, tmp_5)
    """, """
        def f(a, b):
            tmp_5 = g(a)
            return h(tmp_5, tmp_5)
    """)


def test_a_tuple_passed_twice_stays_one_tuple():
    src = """
        def f(a, b):
            __temp_1 = (a, b)
            g(__temp_1)
            return h(__temp_1)
    """
    check(src, src)


def test_an_unpacked_display_of_temporaries_becomes_one_store_each():
    # what is left of Dynamo rebuilding a caller's stack after a nested graph break
    # (UNPACK_SEQUENCE 2; BUILD_LIST 2 twice, read as assignments to temporaries)
    check("""
        def f(a, b):
            __temp_1 = g(a)
            __temp_2 = g(b)
            __temp_3, __temp_4 = [__temp_1, __temp_2]
            __temp_5, __temp_6 = [__temp_4, __temp_3]
            return resume([], [], __temp_6, __temp_5)
    """, """
        def f(a, b):
            __temp_1 = g(a)
            __temp_2 = g(b)
            return resume([], [], __temp_1, __temp_2)
    """)


def test_a_swap_or_a_computed_display_stays_unpacked():
    check("""
        def f(a, b):
            __temp_1 = g(a)
            __temp_2 = g(b)
            __temp_1, __temp_2 = [__temp_2, __temp_1]
            __temp_3, __temp_4 = [g(__temp_1), __temp_2]
            return resume(__temp_3, __temp_4)
    """, """
        def f(a, b):
            __temp_1 = g(a)
            __temp_2 = g(b)
            __temp_1, __temp_2 = [__temp_2, __temp_1]
            __temp_3, __temp_4 = [g(__temp_1), __temp_2]
            return resume(__temp_3, __temp_4)
    """)
