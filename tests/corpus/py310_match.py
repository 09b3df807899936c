# min-python: 3.10
"""``match`` statements: literal, capture, wildcard, value, class, mapping, sequence,
or- and as-patterns, guards."""
import enum
from dataclasses import dataclass

from ._harness import case


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


@dataclass
class Point:
    x: int
    y: int


class Box:
    __match_args__ = ("content",)

    def __init__(self, content, label=""):
        self.content = content
        self.label = label


@case((0,), (1,), ("two",), (3.0,), (None,), (True,), (False,), (b"x",), (-1,), (99,))
def literal_patterns(v):
    match v:
        case None:
            return "none"
        case True:
            return "true"
        case False:
            return "false"
        case 0:
            return "zero"
        case 1:
            return "one"
        case "two":
            return "two"
        case 3.0:
            return "three"
        case b"x":
            return "bytes"
        case -1:
            return "minus one"
        case _:
            return "other"


@case((5,), ("s",))
def capture_pattern(v):
    match v:
        case int(n):
            return "int", n
        case other:
            return "captured", other


@case((7,), (1,), (2,))
def match_without_matching_case(v):
    r = "unchanged"
    match v:
        case 1:
            r = "one"
        case 2:
            r = "two"
    return r


@case((Color.RED,), (Color.GREEN,), (Color.BLUE,), (3,))
def value_patterns(c):
    match c:
        case Color.RED:
            return "red"
        case Color.GREEN | Color.BLUE:
            return "green or blue"
        case _:
            return "not a color"


@case((Point(0, 0),), (Point(0, 5),), (Point(3, 0),), (Point(2, 2),), (Point(1, 9),), ("p",))
def class_patterns(p):
    match p:
        case Point(x=0, y=0):
            return "origin"
        case Point(0, y):
            return "on y axis at %d" % y
        case Point(x, 0):
            return "on x axis at %d" % x
        case Point(x=x, y=y) if x == y:
            return "diagonal %d" % x
        case Point():
            return "somewhere"
        case str() | bytes():
            return "text"


@case((Box(3),), (Box("s", "lbl"),), (Box([1, 2]),), (Box(None),))
def class_pattern_match_args_and_keywords(b):
    match b:
        case Box(int(n)):
            return "int box", n
        case Box(str() as s, label="lbl"):
            return "labelled str box", s
        case Box([a, b]):
            return "pair box", a + b
        case Box(content=c):
            return "box of", c


@case(({"action": "go", "to": "north"},), ({"action": "stop"},), ({"action": "say", "text": "hi", "loud": True},), ({},), ({"action": 1},), ({"action": "dance"},), ({"action": "stop", "now": 1},))
def mapping_patterns(cmd):
    match cmd:
        case {"action": "go", "to": direction}:
            return "going", direction
        case {"action": "stop", **rest} if not rest:
            return "stopping"
        case {"action": "say", "text": str(text), **rest}:
            return "saying", text, sorted(rest)
        case {"action": str()}:
            return "unknown action"
        case {}:
            return "empty or odd"


@case(([],), ([1],), ([1, 2],), ([1, 2, 3, 4],), ((5, 6),), ("ab",), ([0, [1, 2]],))
def sequence_patterns(seq):
    match seq:
        case []:
            return "empty"
        case [x]:
            return "one", x
        case [0, [a, b]]:
            return "nested", a, b
        case [x, y]:
            return "two", x + y
        case [first, *middle, last]:
            return "many", first, middle, last
        case _:
            return "not a sequence pattern"


@case(([1, 2, 3],), ([9],), ((1, 2),), ([],))
def sequence_star_wildcards(seq):
    match seq:
        case [1, *_]:
            return "starts with 1"
        case [*_, 9]:
            return "ends with 9"
        case [*rest]:
            return "rest", rest


@case((1,), (2,), (3,), ("a",), ("b",), ([1, "x"],), (None,))
def or_patterns(v):
    match v:
        case 1 | 2:
            return "small"
        case 3 | "a" | "b" as letter_or_three:
            return "three-ish", letter_or_three
        case [1 | 2, ("x" | "y") as s]:
            return "pair", s
        case _:
            return "none"


@case(([1, (2, 3)],), ([1, 5],))
def as_patterns(v):
    match v:
        case [int() as a, (int() as b, int()) as pair]:
            return a, b, pair
        case [a, b] as whole:
            return "whole", whole


@case((5,), (-5,), (0,), (50,), ("x",))
def guards(v):
    match v:
        case int(n) if n > 10:
            return "big"
        case int(n) if n > 0:
            return "positive"
        case int(n) if n < 0:
            return "negative"
        case int():
            return "zero"
        case _:
            return "not int"


@case(([1, 2, "stop", 3],), ([4, "skip", 5],))
def match_in_loop_with_break_and_continue(items):
    out = []
    for item in items:
        match item:
            case "stop":
                break
            case "skip":
                continue
            case int(n):
                out.append(n * 2)
    else:
        out.append("done")
    return out


@case(({"points": [Point(1, 2), Point(3, 4)]},), ({"points": []},), ({"points": [Point(1, 1)]},))
def nested_patterns(data):
    match data:
        case {"points": [Point(x=x1), Point(y=y2)]}:
            return x1 + y2
        case {"points": [Point() as p]}:
            return p
        case {"points": []}:
            return "no points"


@case(((1, 2),), ((1, 2, 3),), ([1],))
def match_tuple_subject_and_assignments(v):
    kind = None
    match v:
        case (a, b):
            kind = "pair"
            total = a + b
        case (a, b, c):
            kind = "triple"
            total = a + b + c
        case _:
            total = 0
    return kind, total


@case((1, "a"), (2, "b"), (1, "z"))
def match_on_tuple_of_arguments(n, s):
    match n, s:
        case 1, "a":
            return "1a"
        case 2, _:
            return "2x"
        case _, str(t):
            return "any " + t


@case(("hello world",), ("quit",), ("go north now",))
def match_split_command(text):
    match text.split():
        case ["quit"]:
            return "quit"
        case ["go", direction, *extra]:
            return direction, extra
        case [verb, obj]:
            return verb.upper(), obj


@case((1,), (3,), (4,))
def match_with_side_effects_in_guard(v):
    log = []

    def check(x):
        log.append(x)
        return x > 3

    match v:
        case int(n) if check(n):
            res = "big"
        case int(n) if check(n + 1):
            res = "second guard"
        case _:
            res = "small"
    return res, log


@case(({"a": 1, "b": 2},), ({"a": 1},))
def mapping_rest_capture(d):
    match d:
        case {"a": 1, **rest} if rest:
            return rest
        case {"a": a}:
            return a


@case((1,), (2,), (3,))
def match_returns_and_falls_through(v):
    match v:
        case 1:
            print("one")
        case 2:
            return "two"
    return "after match"
