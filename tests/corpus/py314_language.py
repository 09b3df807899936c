# min-python: 3.14
"""3.14 language features: template strings (PEP 750), deferred annotations (PEP 649/749)
as written in defs and class bodies, and ``except A, B:`` without parentheses (PEP 758)."""
from ._harness import case


def _template(t):
    """A template as data: its strings and, per field, value, expression text,
    conversion and format spec."""
    return (t.strings, [(i.value, i.expression, i.conversion, i.format_spec)
                        for i in t.interpolations])


@case((3, "a", 5), (-1.5, [1], 2))
def template_fields(x, y, w):
    a = t"hi {x!r:>{w}} and {y!s} {x!a}" t" more {y}"
    b = t""
    c = t"{ x }{x+1 if isinstance(x, int) else x}{{literal}}"
    return _template(a), _template(b), _template(c)


@case((2.5, 7), (10, 3))
def template_format_specs(x, w):
    nested = t"{x:{w}.{w}}|{x:>{w}}|{x:{'<'}{w}}"
    plain = t"{x:.2f}{x!r:>12}"
    return _template(nested), _template(plain), [str(v.format_spec) for v in nested.interpolations]


@case((4,), ("s",))
def template_debug_fields(x):
    d = t"{x=}{x = }{x=:>6}{x=!s}"
    return _template(d)


@case((1, 2),)
def template_in_expressions(a, b):
    items = [t"{a}-{i}" for i in range(b)]
    joined = "".join(part if isinstance(part, str) else str(part.value) for part in items[-1])
    return [_template(t) for t in items], joined, (t"{a}" if a else t"{b}").values


@case((1,), (2,))
def annotated_def_signature(n):
    def f(x: int, *a: "T", k: str = "s", **kw: dict) -> list[int]:
        return [x, len(a), k, len(kw)]

    def g(p: float, /, q: "list[str]" = None) -> None:
        return q

    return f(n, 1, k="z", q=2), g(n), f.__annotations__, g.__annotations__


@case((1,),)
def annotated_def_with_closure(n):
    T = list[int] if n else dict

    def f(x: T, y: n.__class__) -> T:
        return x

    return f([n], 0), f.__annotations__


@case((0,), (1,))
def class_body_annotations(n):
    class C:
        """A class with annotations."""
        a: int = 1
        b: "str"
        if n:
            c: int
        else:
            c: float = 2.5
        d: list[int]

        def m(self, x: list[int]) -> int:
            return x[0] + self.a

    return C.__annotations__, C.a, getattr(C, "c", None), C().m([n]), C.m.__annotations__


@case((0,), (1,), (2,))
def class_body_conditional_annotations(n):
    class K:
        try:
            if n > 1:
                raise ValueError
            x: int = n
        except ValueError:
            y: str = "y"
        for i in range(n):
            z: float
        w: bool = True

    return K.__annotations__, K.__dict__.get("x"), K.__dict__.get("y"), K.w


class CustomError(Exception):
    pass


@case((0,), (1,), (2,), (3,))
def except_without_parentheses(n):
    try:
        if n == 0:
            raise ValueError("v")
        if n == 1:
            raise KeyError("k")
        if n == 2:
            raise CustomError("c")
        return "none"
    except ValueError, KeyError:
        return "value or key"
    except TypeError, CustomError:
        return "type or custom"


@case((0,), (1,), (2,))
def except_star_without_parentheses(n):
    log = []
    try:
        raise ExceptionGroup("g", [[ValueError("v")], [KeyError("k"), TypeError("t")], [OSError("o")]][n])
    except* ValueError, KeyError:
        log.append("value or key")
    except* TypeError, OSError:
        log.append("type or os")
    return log
