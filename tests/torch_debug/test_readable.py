"""The folding of Dynamo's bookkeeping (depyf/torch_debug/readable.py), rule by rule.

Each case is (source, expected text after folding); the cases that must NOT fold expect
the source back. Every case is also run, folded and unfolded, on recording stand-ins for
the globals it calls: both must make the same calls in the same order and return the same
value (or raise the same exception)."""
import ast
import textwrap

import pytest

from depyf.torch_debug import readable


def fold(src, **kwargs):
    return readable.fold(textwrap.dedent(src), "f", **kwargs)


def same_text(src):
    return ast.unparse(ast.parse(textwrap.dedent(src))) + "\n"


class Log:
    """Globals for the cases: calling ``f``, ``g``, ``h``... records the call."""

    def __init__(self):
        self.calls = []
        self.seen = []  # containers passed so far: their identity is part of the behaviour

    def namespace(self):
        ns = {}
        for name in ("f", "g", "h", "k", "enter", "exit_", "resume"):
            ns[name] = self.recorder(name)
        ns["GLOBAL_LIST"] = []
        ns["utils"] = type("utils", (), {
            "record_pregraph_bytecode_enter": staticmethod(self.recorder("enter")),
            "record_pregraph_bytecode_exit": staticmethod(self.recorder("exit"))})
        return ns

    def canon(self, value):
        if isinstance(value, (list, tuple)):
            if not any(value is s for s in self.seen):
                self.seen.append(value)
            ident = next(i for i, s in enumerate(self.seen) if s is value)
            return (type(value).__name__, ident, [self.canon(v) for v in value])
        return value

    def recorder(self, name):
        def call(*args):
            self.calls.append((name, [self.canon(a) for a in args]))
            return (name, len(self.calls))
        return call


def behaviour(src, args):
    log = Log()
    ns = log.namespace()
    exec(compile(src, "<case>", "exec"), ns)
    try:
        result = ("value", ns["f"](*args))
    except Exception as exc:  # the same exception type is part of the behaviour
        result = ("raises", type(exc).__name__)
    return result, log.calls


def check(src, expected, args=(1, 2), **kwargs):
    src = textwrap.dedent(src)
    out = fold(src, **kwargs)
    assert out == same_text(expected), out
    if not kwargs.get("drop_profiling_calls"):
        assert behaviour(out, args) == behaviour(src, args)
    return out


# ------------------------------------------------------------------- statements with no effect

def test_literal_and_name_statements_are_dropped():
    check("""
        def f(a, b):
            []
            ()
            [[*[]]]
            a
            {'k': a}
            return b
    """, """
        def f(a, b):
            return b
    """)


def test_statements_that_may_do_something_stay():
    # a call, an attribute read, a global read (may raise NameError), a maybe-unbound
    # local, a set display of a variable (hashing can run code)
    src = """
        def f(a, b):
            g()
            a.real
            GLOBAL_LIST
            if a > 5:
                y = 1
            y
            {a}
            return b
    """
    check(src, src)


# ------------------------------------------------------------------------ dead temporaries

def test_dead_temporaries_holding_displays_are_dropped():
    check("""
        def f(a, b):
            __temp_1 = []
            __temp_2 = [a, (b,)]
            __temp_3 = []
            __temp_4 = []
            __temp_3 += __temp_4
            __temp_5 = [__temp_3]
            return a
    """, """
        def f(a, b):
            return a
    """)


def test_dead_walrus_and_its_del_are_dropped():
    check("""
        def f(a, b):
            __temp_1 = g
            tmp_2 = (tmp_1 := __temp_1)()
            (tmp_3 := h)(tmp_2)
            del tmp_1
            del tmp_3
            return tmp_2
    """, """
        def f(a, b):
            tmp_2 = g()
            h(tmp_2)
            return tmp_2
    """)


def test_dead_stores_that_are_not_provably_harmless_stay():
    # a call's result (the call stays, and so does the temporary: no change at all), a
    # user variable, a temporary also deleted where it may be unbound
    src = """
        def f(a, b):
            __temp_1 = g(a)
            x = []
            if a > 5:
                __temp_2 = []
            del __temp_2
            return b
    """
    check(src, src)


def test_a_list_extended_by_a_call_result_is_not_dead_code():
    src = """
        def f(a, b):
            __temp_1 = []
            __temp_1 += g(a)
            return b
    """
    check(src, src)


# ------------------------------------------------------------------ single-use temporaries

def test_a_temporary_used_once_in_the_next_statement_is_inlined():
    check("""
        def f(a, b):
            __temp_1 = g(a)
            graph_out_0 = __temp_1
            __temp_2 = graph_out_0[0]
            return h(__temp_2)
    """, """
        def f(a, b):
            graph_out_0 = g(a)
            __temp_1 = graph_out_0[0]
            return h(__temp_1)
    """)


def test_a_temporary_used_twice_is_not_inlined():
    src = """
        def f(a, b):
            __temp_1 = g(a)
            return (__temp_1, __temp_1)
    """
    check(src, src)


def test_a_temporary_read_after_another_effect_is_not_inlined():
    # h() would run before g(a) if __temp_1 were replaced by g(a)
    check("""
        def f(a, b):
            __temp_1 = g(a)
            return k(h(), __temp_1)
    """, """
        def f(a, b):
            __temp_1 = g(a)
            return k(h(), __temp_1)
    """)
    # the global `k` is read before the argument: g(a) could rebind it
    src = """
        def f(a, b):
            __temp_1 = g(a)
            return k(__temp_1)
    """
    check(src, src)


def test_a_temporary_used_in_a_later_statement_or_conditionally_is_not_inlined():
    src = """
        def f(a, b):
            __temp_1 = g(a)
            h()
            __temp_2 = g(b)
            return a and __temp_2 or __temp_1
    """
    check(src, src)


def test_a_store_moves_before_deletions_of_other_names():
    check("""
        def f(a, b):
            tmp_1 = a
            __temp_1 = g(tmp_1)
            del tmp_1
            graph_out_0 = __temp_1
            return graph_out_0
    """, """
        def f(a, b):
            tmp_1 = a
            graph_out_0 = g(tmp_1)
            del tmp_1
            return graph_out_0
    """)


def test_user_variables_and_closure_variables_are_never_inlined():
    src = """
        def f(a, b):
            x = g(a)
            __temp_1 = h(b)
            k = lambda: __temp_1
            return x
    """
    check(src, src)


# ------------------------------------------------------------------------- walrus and copies

def test_a_leading_walrus_becomes_an_assignment():
    check("""
        def f(a, b):
            __temp_1 = (tmp_3 := g(a))[0]
            __temp_2 = tmp_3[1]
            del tmp_3
            return h(__temp_1, __temp_2)
    """, """
        def f(a, b):
            tmp_3 = g(a)
            __temp_1 = tmp_3[0]
            __temp_2 = tmp_3[1]
            del tmp_3
            return h(__temp_1, __temp_2)
    """)


def test_a_walrus_after_an_effect_stays():
    src = """
        def f(a, b):
            return g(h(), (tmp_1 := k(a)), tmp_1)
    """
    check(src, src)


def test_copies_of_values_are_propagated():
    # (the walrus rule, then the list rule's tracking of simple values)
    check("""
        def f(a, b):
            __temp_1 = (tmp_20 := g(a))
            tmp_20(1)
            __temp_2 = b
            h(2)
            __temp_1(__temp_2)
    """, """
        def f(a, b):
            tmp_20 = g(a)
            tmp_20(1)
            h(2)
            tmp_20(b)
    """)


# -------------------------------------------------------------- profiling and safety limits

PROFILED = """
    def f(a, b):
        __temp_1 = g
        __temp_2 = utils.record_pregraph_bytecode_enter
        tmp_2 = (tmp_1 := __temp_2)()
        __temp_3 = utils.record_pregraph_bytecode_exit
        (tmp_3 := __temp_3)(tmp_2)
        __temp_4 = __temp_1(a, b)
        del tmp_1
        del tmp_3
        graph_out_0 = __temp_4
        return graph_out_0
"""


def test_profiler_calls_stay_in_the_running_code():
    check(PROFILED, """
        def f(a, b):
            __temp_1 = g
            tmp_2 = utils.record_pregraph_bytecode_enter()
            utils.record_pregraph_bytecode_exit(tmp_2)
            graph_out_0 = __temp_1(a, b)
            return graph_out_0
    """)


def test_profiler_calls_leave_the_reading_copy():
    check(PROFILED, """
        def f(a, b):
            graph_out_0 = g(a, b)
            return graph_out_0
    """, drop_profiling_calls=True, renumber=False)


# torch 2.15+: the calls only while the profiler is on (as the decompiler reads them)
PROFILED_215 = """
    def f(a, b):
        __temp_1 = g
        tmp_3 = profiler._is_profiler_enabled
        tmp_2 = utils
        tmp_1 = None
        if tmp_3:
            tmp_1 = tmp_2.record_pregraph_bytecode_enter()
        if tmp_1 is not None:
            tmp_2.record_pregraph_bytecode_exit(tmp_1)
        graph_out_0 = __temp_1(a, b)
        return graph_out_0
"""


def test_conditional_profiler_calls_leave_the_reading_copy():
    check(PROFILED_215, """
        def f(a, b):
            graph_out_0 = g(a, b)
            return graph_out_0
    """, drop_profiling_calls=True, renumber=False)


def test_conditional_profiler_calls_stay_in_the_running_code():
    src = textwrap.dedent(PROFILED_215)
    assert "record_pregraph_bytecode_exit(tmp_1)" in fold(src)
    assert "if tmp_3:" in fold(src)


def test_functions_that_look_at_their_locals_are_left_alone():
    src = """
        def f(a, b):
            __temp_1 = []
            __temp_2 = g(a)
            h(locals())
            return __temp_2
    """
    check(src, src)


def test_temporaries_are_renumbered_in_order_unless_asked_not_to():
    src = """
        def f(a, b):
            __temp_7 = g(a)
            __temp_3 = h(b)
            return k(__temp_3, __temp_7)
    """
    check(src, """
        def f(a, b):
            __temp_1 = g(a)
            __temp_2 = h(b)
            return k(__temp_2, __temp_1)
    """)
    check(src, src, renumber=False)


def test_functions_with_f_strings_are_folded_and_renumbered():
    # the expressions of an f-string are printed by printers of their own: the renumbered
    # text renames the temporaries there too
    check("""
        def f(a, b):
            __temp_7 = g(a)
            __temp_3 = h(b)
            __temp_9 = f"{__temp_3!r}:{__temp_7:>{b}}"
            return __temp_9
    """, """
        def f(a, b):
            __temp_1 = g(a)
            return f'{h(b)!r}:{__temp_1:>{b}}'
    """)


@pytest.mark.parametrize("src", [
    "def f(a, b):\n    return a +\n",  # not Python: given back unchanged
    "x = 1\n",  # no function of that name
])
def test_text_that_cannot_be_folded_is_returned_unchanged(src):
    assert readable.fold(src, "f") == src


# ------------------------------------------------------------------ on a real dump (torch)

NOISE = [  # what the decompiled text of Dynamo's code is full of without the folding
    (r"(?m)^\s*(\[\]|\(\))\s*$", "a display as a statement"),
    (r"\+= \[\]|\+= __temp_\d+$", "a list extended by a temporary or by nothing"),
    (r"(?m)^\s*__temp_\d+ = \[\]$", "an empty list stored in a temporary"),
    (r":= __temp_\d+\)", "a temporary copied into one of Dynamo's"),
    (r"\(\*__temp_\d+\)", "a resume function called with a list of arguments"),
    (r"\[0:0\] = ", "an empty slice assignment"),
]


def test_the_toy_example_dump_is_folded_and_runs_the_same(tmp_path):
    import glob
    import os
    import re

    import torch

    import depyf
    from support import assert_all_compile, assert_bitwise_equal
    from workloads import WORKLOADS

    run = WORKLOADS["toy"][0]
    torch._dynamo.reset()
    reference = run("eager")
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)):
        dumped = run("eager")
    torch._dynamo.reset()
    assert_bitwise_equal(reference, dumped, "toy with prepare_debug")
    assert_all_compile(str(tmp_path))

    paths = sorted(glob.glob(str(tmp_path / "__transformed_code_*.py")))
    assert len(paths) == 3, paths  # toy_example and its two resume functions
    for path in paths:
        text = open(path).read()
        assert "This is the code that runs" in text and "Shown as decompiled" not in text, text
        for pattern, what in NOISE:
            assert not re.search(pattern, text), "%s left in %s:\n%s" % (what, os.path.basename(path), text)
        # the running code keeps Dynamo's profiler range around the graph's arguments
        assert "record_pregraph_bytecode_enter()" in text and "record_pregraph_bytecode_exit(" in text
    main = open(str(tmp_path / "__transformed_code_0_for_toy_example.py")).read()
    # the graph break: both branches call their resume function with the values directly
    calls = re.findall(r"return __resume_at_\d+_\d+\(\[\], \[\], b, __temp_\d+\)", main)
    assert len(calls) == 2, main
    assert len([line for line in main.splitlines() if not line.startswith("#")]) <= 16, main

    full = open(str(tmp_path / "full_code_for_toy_example_0.py")).read()
    assert "record_pregraph_bytecode" not in full  # the reading copy leaves the profiler out
    # (the reading copy is the running text minus the profiler calls; it is not folded a
    # second time, to keep compile-time overhead down)
    assert re.search(r"graph_out_0 = (__compiled_fn_\d+|__temp_\d+)\(a, b\)", full), full


def test_statements_a_rule_made_without_a_position_can_be_measured():
    """The rules never fill in positions (that walk after every change was a seventh of
    a fold): the printer reads none, so measuring a statement a rule built without one
    works (``ast.unparse`` would need ``lineno`` of an assignment)."""
    from depyf.torch_debug.readable import rules

    st = ast.Assign(targets=[ast.Name(id="__temp_1", ctx=ast.Store())],
                    value=ast.Call(func=ast.Name(id="g", ctx=ast.Load()), args=[], keywords=[]))
    nxt = ast.Assign(targets=[ast.Name(id="x", ctx=ast.Store())],
                     value=ast.Name(id="__temp_1", ctx=ast.Load()))
    assert rules._short_enough(st, nxt)
    assert not hasattr(st, "lineno") and not hasattr(nxt, "lineno")


def test_a_chain_of_single_use_temporaries_folds_in_one_call():
    """``t1 = x; t2 = t1.a; y = t2(b)``: each inlining hands the next statement a value,
    forwards and backwards; one call of the rule takes the whole chain (a chain of k used
    to take k rounds of every rule), with the same result."""
    from depyf.torch_debug.readable import rules
    from depyf.torch_debug.readable.bound import bound_before
    from depyf.torch_debug.readable.facts import Facts

    src = textwrap.dedent("""
        def f(a, b):
            __temp_1 = a
            __temp_2 = __temp_1.real
            __temp_3 = g(b)
            __temp_4 = __temp_2 + __temp_3
            return __temp_4
    """)
    func = ast.parse(src).body[0]
    facts = Facts(func)
    assert rules.inline_single_use(func, facts, bound_before(func))
    assert ast.unparse(func).splitlines()[1:] == ["    return a.real + g(b)"]
    check(src, """
        def f(a, b):
            return a.real + g(b)
    """)


def test_renamed_names_are_written_into_the_printed_text():
    """``Printed.again()``: the text printed once, with the new names of renamed Name nodes
    written in, is the text printed again."""
    from depyf.torch_debug.readable import printing

    tree = ast.parse(textwrap.dedent("""\
        def f(__temp_9, x):
            __temp_7 = x[__temp_9] + (lambda: __temp_9)()
            del __temp_9
            return [__temp_7 for __temp_3 in x if (__temp_2 := __temp_3)] or x
        """))
    printed = printing.Printed(tree)
    assert printed.text == printing.text(tree)
    for node in printed.names:
        node.id = node.id.replace("__temp_", "t")
    assert printed.again() == printing.text(tree)
    assert "t7 = x[t9]" in printed.again() and "(t2 := t3)" in printed.again()


@pytest.mark.parametrize("src", [PROFILED, PROFILED_215, """
    def f(a, b):
        __temp_1 = []
        __temp_2 = (tmp_1 := g)(a)['k']
        tmp_4 = (tmp_5 := a)['x']
        __temp_1 += [__temp_2, b, tmp_4, tmp_5]
        del tmp_1
        return h(*__temp_1)
"""])
def test_the_decompilers_tree_folds_as_its_text_does(src):
    """The hook folds the tree the decompiler printed its text from (``fold_module``), not
    a parse of that text: the folded text and the reading copy must be the same. The
    decompiler's nodes carry no positions."""
    from depyf.decompiler.api import Decompiler
    from depyf.decompiler.output.printer import unparse

    ns = {}
    exec(compile(textwrap.dedent(src), "<case>", "exec"), ns)
    tree = readable.unshare(Decompiler(ns["f"].__code__).to_ast("f"))
    assert not hasattr(tree.body[-1], "lineno")
    text = unparse(tree)
    expected = readable.fold(text, "f")
    folded = readable.fold_module(ast.Module(body=[tree], type_ignores=[]), "f")
    assert folded.text == expected
    assert folded.reading_text() == readable.drop_profiling_calls(expected)


def test_unshare_copies_a_node_found_in_two_places_and_renames():
    shared = ast.Name(id="t", ctx=ast.Load())
    tree = ast.parse("def f():\n    x = g\n    return x")
    tree.body[0].body[0].value = shared
    tree.body[0].body[1].value = shared
    readable.unshare(tree, {"t": "u", "x": "y"})
    first, second = tree.body[0].body[0].value, tree.body[0].body[1].value
    assert first is not second and shared in (first, second) and second.id == first.id == "u"
    assert tree.body[0].body[0].targets[0].id == "y"
