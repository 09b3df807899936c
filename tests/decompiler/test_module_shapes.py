"""Module bodies through ``decompile_module``: the text compiles (under no flags but its
own), the equivalence checker proves it against the original module code, and running
both gives the same values (or the same exception).

The shapes: class bodies that store the names the compiler stores itself, annotations
in blocks (of a class or module body), ``from __future__ import annotations`` (after a
docstring, beside the ``global`` the module takes from a nested declaration), and the
lazy-import ``__init__`` of transformers' packages (a handler and an if arm that fall
into the module's end)."""
import importlib.util
import sys
import textwrap
import types

import pytest

from depyf.decompiler.modules import decompile_module
from depyf.equivalence import equivalent

CASES = {
    # idlelib/grep.py GrepDialog.grep_it (3.12): the method fits only the reading that
    # joins the copied tails the other way (the conditional expression's arms each end
    # in a copy of the call and the `return None`); the module is read so too
    "method_fitting_another_reading": ('''
        class Grep:
            def grep_it(self, names):
                hits = 0
                try:
                    for name in names:
                        hits += len(name)
                    self.log.append("hits" if hits else "none")
                except AttributeError:
                    pass

        g = Grep()
        g.log = []
        g.grep_it(["ab", "c"])
        g.grep_it([])
        Grep().grep_it([])
        ''', "g.log"),
    "class_sets_module_and_qualname": ('''
        class ZoneInfo:
            __module__ = "zoneinfo"
            __qualname__ = "Zone"
            key = 1

        class Again:
            __module__ = __name__
            __qualname__ = "Again"
        ''', "ZoneInfo.__module__, ZoneInfo.__qualname__, ZoneInfo.key, Again.__module__, "
             "Again.__qualname__"),
    "class_sets_doc": ('''
        class Described:
            def __get__(self, obj, owner):
                return "described"

        class NoDocstring:
            __doc__ = Described()

        class Twice:
            """first"""
            __doc__ = "second"

        class NotAString:
            __doc__ = 3
        ''', "NoDocstring.__doc__, Twice.__doc__, NotAString.__doc__"),
    "class_sets_classcell": ('''
        class Cell:
            __classcell__ = 42
        ''', "Cell"),  # TypeError: __classcell__ must be a nonlocal cell
    "class_sets_classcell_before_super": ('''
        class Child:
            __classcell__ = 42

            def get(self):
                return __class__
        ''', "Child().get() is Child"),
    "class_annotations": ('''
        class Assigned:
            __annotations__ = {"a": int}
            b: str = "x"

        class Explicit:
            __annotations__ = {}
            __annotations__["x"] = int
        ''', "Assigned.__annotations__, Explicit.__annotations__"),
    "class_annotations_in_blocks": ('''
        import contextlib

        class Blocks:
            with contextlib.nullcontext():
                a: int = 1
            if a:
                b: str
            try:
                c: float = 1 / 0
            except ZeroDivisionError:
                d: bytes
            for i in range(2):
                e: int = i
        ''', "Blocks.__annotations__, Blocks.a, Blocks.e"),
    "module_annotations_in_blocks": ('''
        import contextlib

        with contextlib.nullcontext():
            a: int = 1
        if a:
            b: str
        try:
            c: float = 1 / 0
        except ZeroDivisionError:
            d: bytes
        for i in range(2):
            e: int = i
        ''', "__annotations__, a, e"),
    "module_assigns_annotations": ('''
        __annotations__ = {}
        __annotations__["x"] = int
        ''', "__annotations__"),
    "future_annotations": ('''
        """The docstring."""
        from __future__ import annotations

        import dataclasses
        import typing

        x: int = 1
        y: 'T'
        if x:
            z: list[int] = []

        @dataclasses.dataclass
        class Data:
            a: int
            shared: typing.ClassVar[int] = 3
            quoted: 'str' = "q"

            def method(self, p: Data, *args: int, key: 'Data' = None) -> dict[str, 'Data']:
                def inner(q: typing.Optional[Data]) -> None:
                    pass
                return inner

        def outer(a: x.y[z], b: (1, 2), c: -1) -> 'int' | "str":
            pass
        ''', "__doc__, __annotations__, Data.__annotations__, "
             "[f.name for f in dataclasses.fields(Data)], Data.method.__annotations__, "
             "Data(1).method(None).__annotations__, outer.__annotations__"),
    "docstring_future_global": ('''
        """The docstring."""
        from __future__ import annotations

        X = 1
        Y = 2

        def set_x():
            global X
            X = 2

        def read_y():
            global Y
            return Y
        ''', "__doc__, X, Y, read_y()"),
    "lazy_init": ('''
        import sys
        from typing import TYPE_CHECKING

        _import_structure = {"configuration": ["Config"]}
        if TYPE_CHECKING:
            try:
                if not sys:
                    raise ImportError()
            except ImportError:
                pass
            else:
                from os import path
            try:
                import os
            except ImportError:
                from os import sep
            else:
                from os import sep as sep2
        else:
            import types
            _module = types.ModuleType(__name__)
            sys.modules[__name__] = _module
        ''', "sorted(_import_structure), sys.modules[__name__] is _module"),
    "module_ends_in_loops": ('''
        import sys

        for x in range(3):
            if x == len(sys.argv):
                break
        else:
            y = 2
        n = 0
        while True:
            n += 1
            for k in range(3):
                if k == n:
                    break
            if n > 2:
                break
        ''', "x, y, n, k"),
    "class_ends_in_loop": ('''
        import sys

        class Loop:
            def method(self):
                return __class__

            for x in range(3):
                if x == len(sys.argv):
                    break
            else:
                y = 2
        ''', "Loop.x, Loop.y, Loop().method() is Loop"),
}


def _run(code, values):
    """``values`` evaluated in the namespace of a module that ran ``code`` (registered
    in ``sys.modules`` while it runs, as an import does), or the exception raised."""
    module = types.ModuleType("depyf_module_shape")
    sys.modules[module.__name__] = module
    try:
        exec(code, module.__dict__)
        return eval(values, module.__dict__) if values is not None else None
    except Exception as exc:
        return type(exc).__name__, str(exc)
    finally:
        sys.modules.pop(module.__name__, None)


@pytest.mark.parametrize("name", sorted(CASES))
def test_module_shape(name):
    source, values = CASES[name]
    source = textwrap.dedent(source)
    original = compile(source, "<original>", "exec", dont_inherit=True)
    text = decompile_module(original)
    candidate = compile(text, "<decompiled>", "exec", dont_inherit=True)
    verdict = equivalent(original, candidate, compare_name=False)
    assert verdict, "%s\n--- decompiled ---\n%s" % (verdict.reason, text)
    assert _run(candidate, values) == _run(original, values), text


def _zoneinfo_source():
    try:
        spec = importlib.util.find_spec("zoneinfo._zoneinfo")
    except ImportError:
        return None
    return spec if spec is not None and spec.origin and spec.origin.endswith(".py") else None


@pytest.mark.skipif(_zoneinfo_source() is None, reason="zoneinfo's source is 3.9+ (not in a zip)")
def test_zoneinfo_keeps_its_module():
    """Lib/zoneinfo/_zoneinfo.py: ``ZoneInfo`` says ``__module__ = "zoneinfo"`` (it is
    pickled by that name)."""
    spec = _zoneinfo_source()
    with open(spec.origin, encoding="utf-8") as f:
        original = compile(f.read(), spec.origin, "exec", dont_inherit=True)
    text = decompile_module(original)
    assert '__module__ = "zoneinfo"' in text or "__module__ = 'zoneinfo'" in text
    candidate = compile(text, spec.origin, "exec", dont_inherit=True)
    assert equivalent(original, candidate, compare_name=False), text
    namespace = {"__name__": "zoneinfo._zoneinfo", "__package__": "zoneinfo"}
    exec(candidate, namespace)
    assert namespace["ZoneInfo"].__module__ == "zoneinfo"
