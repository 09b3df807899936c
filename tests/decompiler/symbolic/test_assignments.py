"""depyf.decompiler.symbolic: multi-target assignments whose later targets compute their
parts (a call in a subscript) while the assigned value waits on the stack."""
import textwrap

import depyf
from depyf.equivalence.normalize import first_difference, normalize


def _function(source, name="f"):
    namespace = {}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)
    return namespace[name]


def test_a_call_in_a_chained_target_needs_no_temporary():
    # inspect.getmodule: `d[f] = d[realpath(f)] = v` was written with a __temp variable
    fn = _function("""
        def f(d, key, g):
            d[key] = d[g(key)] = len(key)
            return d
    """)
    text = depyf.decompile(fn)
    assert "__temp" not in text, text
    again = _function(text)
    assert first_difference(normalize(fn.__code__), normalize(again.__code__)) is None, text
    assert again({}, "ab", str.upper) == fn({}, "ab", str.upper)


def test_a_call_in_a_parallel_target_keeps_the_order_of_evaluation():
    # values first, then each target's parts, left to right
    fn = _function("""
        def f(d, log):
            d[log.append(1) or 'a'], d[log.append(2) or 'b'] = log.append(3) or 'x', 'y'
            return d, log
    """)
    text = depyf.decompile(fn)
    again = _function(text)
    assert again({}, []) == fn({}, []) == ({"a": "x", "b": "y"}, [3, 1, 2]), text


def test_a_computed_later_target_of_a_swap_needs_no_temporary():
    # `s[-1], s[-i.arg] = s[-i.arg], s[-1]`: the second target computes `-i.arg` after
    # the first store; the stores take the values in the order they were made
    fn = _function("""
        def f(s, i):
            s[-1], s[-i[0]] = s[-i[0]], s[-1]
            return s
    """)
    text = depyf.decompile(fn)
    assert "__temp" not in text, text
    assert _function(text)([1, 2, 3], [2]) == fn([1, 2, 3], [2]) == [1, 3, 2]


def test_temporaries_bind_the_values_before_a_permutation():
    # bound where they are consumed, after the swap, the values were evaluated out of order
    from depyf.decompiler.output.printer import unparse
    from depyf.decompiler.session import DecompileSession
    import ast
    fn = _function("""
        def f(s, i):
            s[-1], s[-i.arg] = s[-i.arg], s[-1]
    """)
    body = DecompileSession({}, "__temp_", reading="temporaries").body_of(fn.__code__)
    text = unparse(ast.Module(body=body, type_ignores=[]))
    first = text.splitlines()[0]
    assert first.startswith("__temp_1 =") and "i.arg" in first, text
