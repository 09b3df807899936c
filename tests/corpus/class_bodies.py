"""Class bodies that store the names the compiler stores itself (``__module__``,
``__qualname__``, ``__doc__``, ``__classcell__``, ``__annotations__``), and annotations
inside blocks of a class body."""
import contextlib

from ._harness import case


class Described:
    """A descriptor a class body stores as its ``__doc__``."""

    def __get__(self, obj, owner):
        return "described " + owner.__name__


@case(("zoneinfo",), ("other",))
def class_body_sets_module_and_qualname(module):
    # zoneinfo.ZoneInfo is pickled by the module it names: its body says which
    class Zone:
        __module__ = module
        __qualname__ = "ZoneInfo"
        key = 1

    return Zone.__module__, Zone.__qualname__, Zone.__name__, Zone.key


@case((1,),)
def class_body_restates_module_and_qualname(n):
    class Again:
        __module__ = __name__
        __qualname__ = "Again"
        value = n

    return Again.__module__ == __name__, Again.__qualname__, Again.value


@case((2,),)
def class_body_sets_doc_descriptor(n):
    class NoDocstring:
        __doc__ = Described()
        size = n

    return NoDocstring.__doc__, NoDocstring().__doc__, NoDocstring.size


@case((3,),)
def class_docstring_then_doc_again(n):
    class Twice:
        """the docstring"""
        __doc__ = "stored again " + str(n)

    class Computed:
        """first"""
        count = n
        __doc__ = Described()

    return Twice.__doc__, Computed.__doc__, Computed.count


@case((42,), (None,))
def class_body_sets_classcell(value):
    # type.__new__ refuses a __classcell__ that is not a cell
    result = "made"
    try:
        class Cell:
            __classcell__ = value
    except TypeError as exc:
        result = str(exc)
    return result


@case((5,),)
def class_body_sets_classcell_before_super(n):
    # the compiler's own store of __classcell__ comes last and wins
    class Base:
        def get(self):
            return n

    class Child(Base):
        __classcell__ = 42

        def get(self):
            return super().get() + 1

    return Child().get()


@case((1,),)
def class_body_assigns_annotations(n):
    class Assigned:
        __annotations__ = {"a": int}
        b: str = "x" * n

    class Untouched:
        __annotations__ = {}
        __annotations__["x"] = int
        count = len(__annotations__)

    return Assigned.__annotations__, Assigned.b, Untouched.__annotations__, Untouched.count


@case((0,), (2,))
def class_annotations_in_blocks(n):
    class InWith:
        with contextlib.nullcontext():
            x: int = n
            y: str

    class InIf:
        if n:
            x: int = n
        z: float = 1.5

    class InTry:
        try:
            x: int = 10 // n
        except ZeroDivisionError:
            y: str = "zero"

    class InFor:
        for i in range(n):
            x: int = i

    return (InWith.__annotations__, InWith.x, InIf.__annotations__, InTry.__annotations__,
            InFor.__annotations__, getattr(InFor, "x", None))


@case((1,), (0,), (3,))
def class_body_ends_in_try_else(n):
    # the body's end falls out of the handler and the else (3.10+ copies it into both)
    class Tail:
        if n:
            try:
                value = 10 // (n - 1)
            except ZeroDivisionError:
                pass
            else:
                value = -value
        else:
            value = None

    return Tail.value if hasattr(Tail, "value") else "unset"


@case((0,), (2,), (5,))
def class_body_ends_in_loop_break(n):
    # a break out of the loop that ends the body jumps to the body's end (copied there)
    class Search:
        for i in range(4):
            if i == n:
                found = i
                break
        else:
            found = -1

    class Plain:
        for i in range(4):
            if i == n:
                break

    return Search.found, Plain.i


class _Holder:
    pass


@case((1,), (0,))
def class_annotates_attribute_and_item_targets(n):
    # an annotated attribute or item (no name annotated): the annotation is evaluated and
    # dropped, but the class still gets an `__annotations__` (test_grammar's CBad)
    holder, items = _Holder(), {}

    class Annotated:
        holder.attr: int = n
        items[n]: str = "x"

    return vars(holder), items, Annotated.__annotations__
