"""Template strings (PEP 750, 3.14+): BUILD_INTERPOLATION / BUILD_TEMPLATE read back as
``ast.TemplateStr`` and printed as the t-string the source wrote (behaviour: the corpus,
tests/corpus/py314_language.py)."""
import ast
import sys
import textwrap

import pytest

from depyf.decompiler.api import Decompiler
from depyf.decompiler.output.printer import unparse

pytestmark = pytest.mark.skipif(sys.version_info < (3, 14), reason="t-strings need Python 3.14")


def _body_text(source):
    namespace = {}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)
    return unparse(Decompiler(namespace["f"]).to_ast()).split("\n", 1)[1].strip()


@pytest.mark.parametrize("written", [
    't""',
    't"plain"',
    't"{x}"',
    't"a{x!r}b{y!s}c{x!a}"',
    't"{x:>10}"',
    't"{x!r:>{w}}"',
    't"{x:{w}.{w}}"',
    't"{x:{w:{w}}}"',
    't"{ x}"',  # `{ x }`: the compiler keeps the text without its trailing blanks
    't"{x+1}"',
    't"{x=}"',
    't"{x = }"',
    't"{x=:>3}"',
    't"{x=!s}"',
    't"{{literal}} {x}"',
])
def test_template_prints_as_written(written):
    text = _body_text("def f(x, y, w):\n    return %s\n" % written)
    # the same t-string, up to the quotes the printer picks
    assert text == "return " + written.replace('"', "'"), text


def test_implicit_concatenation_is_one_template():
    text = _body_text('def f(x, y):\n    return t"a{x}" t"b{y!r}"\n')
    assert text == "return t'a{x}b{y!r}'"


def test_expression_text_kept_only_when_it_reads_as_the_value():
    from depyf.decompiler.symbolic.templates import source_text
    assert source_text(" x+1", ast.parse("x + 1", mode="eval").body) == " x+1"
    assert source_text("y", ast.parse("x", mode="eval").body) is None
    assert source_text("x +", ast.parse("x", mode="eval").body) is None


def test_debug_field_needs_the_literal_tail():
    from depyf.decompiler.symbolic.templates import debug_fields
    field = ast.Interpolation(value=ast.Name(id="x"), str="x", conversion=ord("r"), format_spec=None)
    joined = debug_fields([ast.Constant(value="a x="), field])
    assert [type(v).__name__ for v in joined] == ["Constant", "Interpolation"]
    assert joined[0].value == "a " and joined[1].str == "x=" and joined[1].conversion == -1
    kept = debug_fields([ast.Constant(value="y="), field])  # another name: no debug field
    assert kept[0].value == "y=" and kept[1].str == "x" and kept[1].conversion == ord("r")
    plain = ast.Interpolation(value=ast.Name(id="x"), str="x", conversion=-1, format_spec=None)
    assert debug_fields([ast.Constant(value="x="), plain])[1].str == "x"  # {x=} means !r


def test_refuses_a_template_of_other_values():
    from depyf.decompiler.mismatch import Mismatch
    from depyf.decompiler.symbolic.templates import Templates

    class Ins:
        arg = None
    stack = [ast.Tuple(elts=[ast.Constant(value="a"), ast.Constant(value="b")]),
             ast.Tuple(elts=[ast.Name(id="x")])]
    with pytest.raises(Mismatch):
        Templates().op_BUILD_TEMPLATE(Ins(), stack, [])
