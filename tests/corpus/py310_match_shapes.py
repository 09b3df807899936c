# min-python: 3.10
"""More ``match`` shapes: matches nested in other statements and in each other, subjects
with side effects, names bound in cells and globals, the last case's guard, rarer
patterns (``**rest`` alone, ``[*_]``, dotted keys, grouped or-patterns with ``as``)."""
import enum

from ._harness import case


class Shape(enum.Enum):
    SQUARE = "sq"
    CIRCLE = "ci"


class Pair:
    __match_args__ = ("left", "right")

    def __init__(self, left, right):
        self.left, self.right = left, right


@case(([1, [2, 3]],), ([1, "x"],), ({"k": [5]},), (7,))
def nested_match_statements(v):
    match v:
        case [first, rest]:
            match rest:
                case [a, b]:
                    return first + a + b
                case str():
                    return "text after %d" % first
        case {"k": inner}:
            match inner:
                case [x]:
                    return x * 10
        case _:
            pass
    return "fell out"


@case((0,), (1,), (2,))
def subject_evaluated_once(n):
    calls = []

    def subject():
        calls.append(n)
        return n

    match subject():
        case 0:
            r = "zero"
        case 1:
            r = "one"
        case _:
            r = "many"
    return r, calls


@case(({Shape.SQUARE: 3},), ({Shape.CIRCLE: 2, "r": 1},), ({},), ({"other": 1},))
def dotted_mapping_keys(d):
    match d:
        case {Shape.SQUARE: side}:
            return "square", side
        case {Shape.CIRCLE: r, **others}:
            return "circle", r, others
        case {**everything}:
            return "mapping", everything


@case(([],), ([1],), ((1, 2, 3),), ("abc",), (5,))
def empty_and_star_only(v):
    match v:
        case []:
            return "empty"
        case [*_]:
            return "some sequence"
        case _:
            return "no sequence"


@case((1,), (2,), (3,), (10,))
def grouped_or_with_as_and_guard(v):
    match v:
        case (1 | 2) as n if n > 1:
            return "two", n
        case (1 | 3) as n:
            return "one or three", n
        case _:
            return "other"


@case((3,), (9,), ("s",))
def last_case_capture_with_guard(v):
    match v:
        case str():
            r = "str"
        case x if x > 5:
            r = "big %d" % x
        case _:
            r = "small"
    return r


@case((0,), (3,), (9,))
def last_case_capture_then_if(v):
    match v:
        case 0:
            return "zero"
        case x:
            if x > 5:
                r = "big"
            else:
                r = "small"
    return r, x


@case((1j,), (-2,), (2.5,), ("a" "b",), (b"\x00",), (0,))
def literal_kinds(v):
    match v:
        case 1j:
            return "imaginary"
        case -2:
            return "minus two"
        case 2.5:
            return "float"
        case "ab":
            return "concatenated"
        case b"\x00":
            return "nul byte"
        case _:
            return "other"


@case((Pair(1, Pair(2, 3)),), (Pair("a", 1),), (Pair(0, 0),), (3,))
def nested_class_patterns(p):
    match p:
        case Pair(int(a), Pair(b, c)):
            return a + b + c
        case Pair(left=str() | bytes() as s):
            return "text", s
        case Pair(0, right=0):
            return "zeros"
    return "none"


@case(([1, 2, 3],), ([0, 4],), ([],))
def match_in_while_with_break(items):
    items = list(items)
    seen = []
    while items:
        match items.pop():
            case 0:
                break
            case n if n % 2:
                seen.append(("odd", n))
            case n:
                seen.append(("even", n))
    else:
        seen.append("drained")
    return seen


@case(("7",), ("x",), (None,))
def match_inside_try(s):
    try:
        match s:
            case str(text):
                return int(text)
            case None:
                raise KeyError("none")
    except ValueError as e:
        return "bad: %s" % e
    except KeyError:
        return "key"


@case(([1, 2],), ((3,),))
def captures_into_cells(v):
    match v:
        case [a, b]:
            pass
        case [a]:
            b = 0

    def total():
        return a + b

    return total()


MATCHED = None


@case(("x",), (1,))
def capture_into_global(v):
    global MATCHED
    match v:
        case str() as MATCHED:
            return "stored"
        case _:
            return "left alone"


@case(([1, [2, [3, 4]]],), ([1, [2, 3]],), ([0, [0, [0, "x"]]],))
def deeply_nested_sequences(v):
    match v:
        case [a, [b, [c, int(d)]]]:
            return a + b + c + d
        case [a, [b, int(c)]]:
            return a * b * c
        case [_, [_, [_, other]]]:
            return other


@case((Pair(1, 2),), (Pair("a", [3]),), ("x",))
def single_case_match_on_a_local_class(p):
    cls = Pair
    r = "no pair"
    match p:
        case cls(left, right):
            match right:
                case [x]:
                    r = (left, x)
                case _:
                    r = (left, right)
    return r


class Box:
    def __init__(self, limit):
        self.limit = limit

    def small(self, v):
        return isinstance(v, int) and v < self.limit


@case((Box(5), 3), (Box(5), Pair(1, 2)), (Box(5), 9))
def wildcard_guard_first(box, v):
    # 3.12+: no copy of the subject for `case _ if ...` (its COPY 1 / POP_TOP cancel out)
    match v:
        case _ if box.small(v):
            return "small"
        case Pair():
            return "pair"
    return "other"


@case((Box(5), 3, 0), (Box(5), 7, 1), (Box(5), 7, 0), (Box(5), [1, 2], 0),
      (Box(5), [0, 2], 0), (Box(5), 8, 0), (Box(5), "s", 0))
def wildcard_guards_in_a_row(box, v, flag):
    match v:
        case _ if box.small(v) and not flag:
            return "small"
        case _ if flag or v == 8:
            return "flag or eight"
        case [a, b] if a:
            return a + b
        case str():
            return "str"
        case _:
            return "else"


@case((Box(5), [3, 9]), (Box(5), [Pair(1, 2), 7, "x"]))
def wildcard_guard_in_a_loop(box, items):
    out = []
    for v in items:
        match v:
            case _ if box.small(v):
                out.append("small")
                continue
            case Pair(left=l):
                out.append(l)
            case _:
                out.append("?")
    return out


@case((0,), (1,), ([1, 2],))
def match_guard_always_false(x):
    # a guard the compiler finds false takes the case's body with it: the pattern's
    # success goes where its failure goes (test_patma's test_patma_068)
    y = None
    match x:
        case 0 if False:
            y = 0
        case [a, b] if 0:
            y = a
        case 0:
            y = 1
    return y


@case((0, False), (0, True), (3, False))
def match_after_chained_assignment(x, flag):
    # `y = z = None` copies its value as a case copies the subject: no match statement
    # starts there (its second store is no guard; test_patma's test_patma_240)
    y = z = None
    match x:
        case 0 if not flag:
            y = 0
        case z if not flag:
            y = 1
    return y, z


@case(([1],), (5,), ({"x": 2},), ([1, 2],))
def match_or_pattern_ending_in_capture(v):
    # the last alternative captures the subject itself: it falls into the stores the
    # others jump to (3.13's test_patma)
    match v:
        case [x] | x:
            first = x
    match v:
        case {"x": y} | y:
            second = y
    return first, second


@case((0,), (1,), (2,))
def wildcard_guard_then_value_case(x):
    # 3.12+: neither case copies the subject (the bare guard's copy and pop cancel out,
    # the last one consumes it): no COPY 1 and no MATCH_* in the code (test_patma_171)
    y = None
    match x:
        case _ if x == 2:
            y = 0
        case 1:
            y = 1
    return y


@case((0,), (3,))
def wildcard_guard_then_guarded_capture(x):
    # the last case binds the subject before its guard (test_patma_172)
    z = None
    y = -1
    match x:
        case _ if not x:
            y = 0
        case z if x > 1:
            y = 1
    return y, z
