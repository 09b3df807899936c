"""f-strings, string constants, docstrings, implicit returns and empty bodies."""
from ._harness import case


@case(("abc",), ("é\n",), (3,))
def fstring_conversions(x):
    return f"{x}|{x!r}|{x!s}|{x!a}"


@case((3.14159, 8), (-2.5, 3), (0.0, 1))
def fstring_format_specs(x, width):
    return [f"{x:.2f}", f"{x:>10}", f"{x:<{width}}", f"{x:{width}.{width - 1}}", f"{x!r:>12}", f"{x:+08.3f}"]


@case((42,), (-7,))
def fstring_int_specs(n):
    return f"{n:#x} {n:#o} {n:b} {n:,} {n:_} {n:^9d} {n:=+6}"


@case(("ab", 3), ("", 0))
def fstring_expressions(s, n):
    return f"{s * n}-{len(s) + n}-{s.upper()!r}-{'yes' if n else 'no'}-{[n, n]}-{ {'k': n}['k'] }"


@case((1, 2),)
def fstring_braces_and_text(a, b):
    return f"{{literal}} {a}{{{b}}} {a}{b} end"


@case(("x",),)
def fstring_nested_fstring(s):
    inner = f"<{s}>"
    return f"[{f'({inner})'}]"


@case(("name", 5),)
def fstring_multiline(key, value):
    return (
        f"{key}="
        f"{value}"
        " plain "
        f"{value * 2:04d}"
    )


@case()
def fstring_only_text():
    return f"no fields here"


@case((12.5,), (3,))
def format_builtin_and_method(x):
    return format(x, "08.2f"), "{:>6}|{!r}".format(x, x), "%5.1f%%" % x, "%s-%r" % (x, str(x))


@case()
def return_string_constant():
    return "abc"


@case((0,), (1,), (2,))
def return_string_constants_by_branch(n):
    if n == 0:
        return "zero"
    if n == 1:
        return 'quote " inside'
    return "multi\nline\ttab\\backslash"


@case()
def return_bytes_constant():
    return b"\x00\xffbytes"


@case()
def returns_none_implicitly():
    x = 1
    x += 1


@case((True,), (False,))
def returns_none_on_one_path(flag):
    if flag:
        return "set"


@case()
def empty_body():
    pass


@case()
def docstring_only():
    """Only a docstring."""


@case((2,),)
def docstring_and_body(n):
    """Doubles ``n``.

    A multi-line docstring with 'quotes' and "double quotes".
    """
    return n * 2


@case()
def string_not_docstring():
    x = "not a docstring"
    return x


@case(("Hello World",), ("",))
def string_methods(s):
    return s.lower(), s.split(), s.replace("o", "0"), s[::-1], s.startswith("He"), "-".join(s.split())


@case(("a", "b"),)
def implicit_concatenation(a, b):
    return "x" "y" + a + b'z'.decode() + b
