# min-python: 3.13
"""Type parameter defaults (PEP 696): ``def f[T = int]``, ``*Ts = *tuple[...]``,
``**P = [...]``, on functions, classes and ``type`` statements."""
from ._harness import case


def _defaults(params):
    return [(p.__name__, p.has_default(), repr(p.__default__) if p.has_default() else None)
            for p in params]


@case((2,),)
def generic_function_param_defaults(n):
    def f[T = int, *Ts = *tuple[int, str], **P = [int, str]](x: T) -> T:
        return x * n

    return f(3), _defaults(f.__type_params__)


@case((1,),)
def generic_class_bound_and_default(n):
    class Box[T: int = bool, U = None]:
        def __init__(self):
            self.value = n

    return Box().value, _defaults(Box.__type_params__), Box.__type_params__[0].__bound__


@case((1,),)
def type_alias_with_default(n):
    type Pair[K = str, *Ts = *tuple[()]] = tuple[K, K, *Ts]

    return Pair.__name__, _defaults(Pair.__type_params__), n
