"""Classes defined inside functions: bases, methods, attributes, decorators, ``super()``."""
import dataclasses
import enum

from ._harness import case


class Base:
    kind = "base"

    def __init__(self, v):
        self.v = v

    def describe(self):
        return "%s(%s)" % (self.kind, self.v)


def register(cls):
    cls.registered = True
    return cls


@case((3,), (-1,))
def simple_class(n):
    class Point:
        dims = 2

        def __init__(self, x, y=0):
            self.x = x
            self.y = y

        def norm1(self):
            return abs(self.x) + abs(self.y)

        def __repr__(self):
            return "Point(%r, %r)" % (self.x, self.y)

    p = Point(n, n + 1)
    return Point.dims, p.norm1(), repr(p), Point.__name__, Point.__qualname__.split(".")[-1]


@case((5,),)
def subclass_with_super(n):
    class Child(Base):
        kind = "child"

        def __init__(self, v, extra):
            super().__init__(v * 2)
            self.extra = extra

        def describe(self):
            return super().describe() + "+" + str(self.extra)

    c = Child(n, "e")
    return c.describe(), isinstance(c, Base), Child.__mro__[1] is Base


@case((2,),)
def explicit_two_argument_super(n):
    class A(Base):
        def describe(self):
            return "A:" + super(A, self).describe()

    return A(n).describe()


@case((1,),)
def multiple_inheritance(n):
    class Left:
        def who(self):
            return ["left"] + super().who()

    class Right:
        def who(self):
            return ["right"]

    class Both(Left, Right):
        def who(self):
            return ["both"] + super().who()

    return Both().who(), [c.__name__ for c in Both.__mro__], n


@case((4,),)
def class_decorators_and_method_decorators(n):
    @register
    class C:
        factor = n

        @staticmethod
        def s(x):
            return x + 1

        @classmethod
        def c(cls, x):
            return x * cls.factor

        @property
        def p(self):
            return self.factor * 10

        @p.setter
        def p(self, value):
            self.factor = value

    obj = C()
    obj.p = 7
    return C.registered, C.s(n), C.c(2), obj.p, C().p


@case((2,),)
def class_with_metaclass_keyword(n):
    class Meta(type):
        def __new__(mcs, name, bases, ns, **kw):
            ns["extra"] = kw.get("extra", 0) * n
            return super().__new__(mcs, name, bases, ns)

        def __init__(cls, name, bases, ns, **kw):
            super().__init__(name, bases, ns)

    class C(metaclass=Meta, extra=5):
        pass

    return C.extra, type(C).__name__


@case((3,), (1,))
def class_body_statements(n):
    class C:
        """docstring of C"""

        values = [i * n for i in range(3)]
        total = 0
        for v in values:
            total += v
        if n > 2:
            big = True
        else:
            big = False
        del v

    return C.__doc__, C.values, C.total, C.big, hasattr(C, "v")


@case((1,), (2,))
def class_body_conditional_methods(n):
    class C:
        if n == 1:
            def f(self):
                return "one"
        else:
            def f(self):
                return "other"

    return C().f()


@case((7,),)
def dataclass_inside_function(n):
    @dataclasses.dataclass
    class Item:
        name: str
        qty: int = n

    a = Item("a")
    b = Item("b", 2)
    return a.qty, b.qty, a == Item("a"), dataclasses.astuple(b)


@case(("RED",), ("BLUE",))
def enum_inside_function(name):
    class Color(enum.Enum):
        RED = 1
        GREEN = 2
        BLUE = 3

    return Color[name].value, [c.name for c in Color]


@case((3,),)
def dunder_methods(n):
    class Vec:
        def __init__(self, *xs):
            self.xs = list(xs)

        def __add__(self, other):
            return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

        def __len__(self):
            return len(self.xs)

        def __getitem__(self, i):
            return self.xs[i]

        def __eq__(self, other):
            return self.xs == other.xs

        def __iter__(self):
            return iter(self.xs)

    v = Vec(1, n) + Vec(n, 1)
    return len(v), v[1], list(v), v == Vec(n + 1, n + 1)


@case((2,),)
def class_attribute_closure_and_name_mangling(n):
    class C:
        __secret = n

        def reveal(self):
            return self.__secret

        def __private(self):
            return "private"

        def call_private(self):
            return self.__private()

    return C().reveal(), C().call_private(), hasattr(C, "_C__secret")


@case((1,),)
def dunder_class_cell(n):
    class C:
        def which(self):
            return __class__.__name__

    return C().which(), n


@case((4,),)
def class_with_slots_and_init_subclass(n):
    seen = []

    class Base2:
        def __init_subclass__(cls, **kw):
            super().__init_subclass__()
            seen.append(cls.__name__)

    class Sub(Base2):
        __slots__ = ("a",)

        def __init__(self):
            self.a = n

    return Sub().a, seen, Sub.__slots__
