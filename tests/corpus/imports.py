"""Imports inside functions: plain, dotted, ``as`` aliases, ``from`` imports, relative."""
from ._harness import case


@case(("a/b",),)
def import_dotted(p):
    import os.path

    return os.path.basename(p), os.path.dirname(p)


@case(("a/b/c.txt",),)
def import_dotted_as(p):
    import os.path as osp
    import xml.etree.ElementTree as ET

    return osp.splitext(p), ET.fromstring("<r>%s</r>" % osp.basename(p)).text


@case(([3, 1, 2],),)
def from_import_as(xs):
    from collections import OrderedDict as OD, Counter
    from functools import reduce

    return list(OD((x, None) for x in xs)), Counter("aab")["a"], reduce(lambda a, b: a + b, xs)


@case((2,),)
def from_dotted_module_import(n):
    from os.path import join as pjoin
    from json.decoder import JSONDecodeError

    return pjoin("a", str(n)), JSONDecodeError.__name__


@case((4,),)
def import_several_in_one_statement(n):
    import math, operator as op

    return math.factorial(n), op.mul(n, 3)


@case((1,),)
def relative_import(n):
    from . import _harness
    from ._harness import CM as Manager

    log = []
    with Manager(log, "rel"):
        pass
    return log, _harness.__name__.split(".")[-1], n


@case(("no_such_module_xyz",), ("json",))
def import_failure_is_caught(name):
    try:
        import importlib

        mod = importlib.import_module(name)
    except ImportError as e:
        return "missing", e.name
    return mod.__name__


@case((1,), (0,))
def conditional_import(n):
    if n:
        import string as s
    else:
        import textwrap as s
    return s.__name__


@case(("x",),)
def import_inside_nested_function(v):
    def inner():
        from string import ascii_lowercase

        return ascii_lowercase.index(v)

    return inner()
