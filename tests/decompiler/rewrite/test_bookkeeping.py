"""rewrite.bookkeeping: the declarations read from what a function binds and reads."""
import depyf


def test_a_dict_constant_among_the_operands_is_no_name():
    """Dynamo's code loads dict constants (no source makes one): the scan for names an
    inlined comprehension hides passes over them (it raised TypeError, unhashable)."""
    def f(x):
        return x + "replaced"
    co = f.__code__
    consts = tuple({"a": 1} if c == "replaced" else c for c in co.co_consts)
    g = type(f)(co.replace(co_consts=consts), {})
    text = depyf.decompile(g)
    assert "__depyf_const_0" in text
