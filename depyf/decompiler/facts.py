"""What one stage learned about an ``ast`` node and a later stage needs: the declared list.

Structuring knows things the tree cannot say (this ``return None`` is the compiler's, this
``try`` ends in a copy of its finally body, this tuple was one constant); rewriting and
printing act on them. They are recorded here, under the names of ``Fact``, in one dict
per node (``node.depyf_facts``), never as ad-hoc attributes: a misspelt fact is an
``AttributeError``, and every reader and writer can be found by its name. The dict lives
on the node so that ``copy.deepcopy`` of a tree (rewrite copies trees before changing
them) carries the facts along, with node identity inside them kept by deepcopy's memo.
"""
import enum

_ATTR = "depyf_facts"


class Fact(enum.Enum):
    # -- return / raise statements
    IMPLICIT = "a `return None` (or `raise`) the compiler added; not in the source"
    AT_END = "a `return None` that is the very last instruction of the code"
    CONST_STMT = "3.12+: a `return <constant>` compiled to RETURN_CONST"
    IFEXP_ARM = "a return whose value was loaded in the same block: maybe an if-expression arm"
    # -- if statements
    ELSE_KEPT = "the else arm is kept even where it could follow the if (the layout needs it)"
    JUMPS_IF_TRUE = "the body is what a true test jumps over (`assert` layout)"
    TEST_OWN_LINE = "the test starts a line of its own"
    PASS_ARM = "the body is a jump over the else arm: `if c: pass` `else: ...` in the source"
    UNDER_PENDING_VALUE = "emitted while a value of the enclosing expression is on the stack"
    RETURN_CANCELLED = ("the value of a `return` in a try body dropped by a break/continue "
                        "of its finally body (the return never happens)")
    # -- try / with / loops
    FINALLY_COPY = "a try statement whose normal path ends in a copy of its finally body"
    WITH_EXIT = "the marker of the with-exit call that ends this with statement's body"
    INVERTED = "a while loop laid out test-at-the-bottom (do-while shape)"
    EXPLICIT = "a `continue` written in the source, not the jump back of a loop body's end"
    # -- expressions
    OWN_LINE = "a comprehension test that starts a line of its own"
    ASSERTION = "the AssertionError loaded the way only `assert` loads it"
    AWAITED_BY_CALLER = "an async comprehension whose await belongs to the comprehension"
    TEMP = "a name the decompiler made up for a value that stays on the stack"
    CODE_OP = "the operator class of an `is`/`in` comparison as the code computed it"
    CONST = "the constant a tuple or set display was built from"
    CLASS_DEF = "the ClassDef built by this `__build_class__` call"
    CHAIN = "the targets already assigned from this walrus value (`a = b = value`)"

    # members are singletons: hashed by identity, not by ``Enum.__hash__`` (a Python-level
    # call on every lookup of a node's facts)
    __hash__ = object.__hash__


def note(node, fact, value=True):
    """Record ``fact`` about ``node`` (``value`` for facts that carry one)."""
    table = node.__dict__.get(_ATTR)
    if table is None:
        table = {}
        setattr(node, _ATTR, table)
    table[fact] = value
    return node


def get(node, fact, default=None):
    """The value recorded for ``fact`` about ``node``, or ``default``."""
    table = getattr(node, _ATTR, None)
    if table is None:
        return default
    return table.get(fact, default)


def has(node, fact):
    """Whether ``fact`` was recorded about ``node`` at all (whatever its value)."""
    table = getattr(node, _ATTR, None)
    return table is not None and fact in table
