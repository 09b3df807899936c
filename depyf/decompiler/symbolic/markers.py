"""Markers: stack values with no source form of their own (NULL, a with exit, a caught
exception, an iterator being unpacked, ...), and pseudo statements that structuring and
rewriting turn into real ones. A leaf module: plain classes, not ast expressions, so one
leaking into the output fails loudly (``output.printer``)."""
import ast


# ---- markers ---------------------------------------------------------------------------
class Marker:
    def __repr__(self):
        return "<%s>" % type(self).__name__


class ForItem(Marker):
    """The value FOR_ITER produced; the first store in the body is the loop target."""


class Null(Marker):
    """The NULL slot that method calls and 3.11+ calls keep below the callable."""


NULL = Null()


class WithExit(Marker):
    def __init__(self, manager, is_async=False):
        self.manager = manager
        self.is_async = is_async


class EnterResult(Marker):
    """What ``__enter__`` returned: becomes the ``as`` target of the with statement."""

    def __init__(self, exit_marker):
        self.exit = exit_marker


class ExcValue(Marker):
    """The exception being handled (3.11+: one value; up to 3.10: type/value/traceback)."""

    def __init__(self, part="value"):
        self.part = part


class PrevExc(Marker):
    """The previously handled exception that PUSH_EXC_INFO saves."""


class SavedLocal(Marker):
    """3.12+ inlined comprehension: a local saved before the loop and restored after."""

    def __init__(self, name):
        self.name = name


class Accumulator(Marker):
    """The list/set/dict that a comprehension body appends to."""

    def __init__(self, kind):
        self.kind = kind


class FuncMarker(Marker):
    """A function object built by MAKE_FUNCTION, waiting to become a def or lambda."""

    def __init__(self, code, defaults=None, kwdefaults=None, annotations=None, closure=None):
        self.code = code
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.annotations = annotations
        self.closure = closure
        self.annotate = None  # 3.14+: the FuncMarker of its ``__annotate__`` function
        self.decorators = []
        self.type_params = []  # PEP 695 (3.12+), set by generics
        self.made_into_def = False  # set by ``session.make_def``: no value left to turn into a lambda


class FinallyMarker(Marker):
    """3.8: the None that BEGIN_FINALLY pushes before falling into a finally body."""


class FinallyPlaceholder(Marker):
    """3.8: the None below a try/finally whose finally body returns, breaks or continues."""


class CellRef(Marker):
    """LOAD_CLOSURE: the cell of a variable, not its value (MAKE_FUNCTION's closure)."""

    def __init__(self, name):
        self.name = name


class BuildClassMarker(Marker):
    """``__build_class__`` loaded by LOAD_BUILD_CLASS."""


class Converted(Marker):
    """3.13 CONVERT_VALUE result: a value with a pending !r/!s/!a conversion."""

    def __init__(self, value, conversion):
        self.value = value
        self.conversion = conversion


class InplaceResult(Marker):
    """Result of an in-place operator; becomes an AugAssign when stored back."""

    def __init__(self, target, op, value):
        self.target = target
        self.op = op
        self.value = value


class ExcMatch(Marker):
    """Result of an except-clause type test, branched on by the handler."""

    def __init__(self, type_expr):
        self.type_expr = type_expr


class WithExitCall(Marker):
    """The value of calling a with-exit on the normal path; popped right away."""

    def __init__(self, exit_marker):
        self.exit = exit_marker


class ImportName(Marker):
    def __init__(self, module, fromlist, level):
        self.module = module
        self.fromlist = fromlist
        self.level = level
        self.attr_path = []  # IMPORT_FROM / LOAD_ATTR chain for `import a.b as c`
        self.names = []  # `from m import x as y`: the (x, y) pairs stored so far


class YieldFromIter(Marker):
    def __init__(self, value, kind):
        self.value = value
        self.kind = kind  # "yield_from" or "await"


class GenStart(Marker):
    """3.11+ generators pop the sent-in None right after RETURN_GENERATOR."""


# ---- pseudo statements produced for the structuring/rewrite stage --------------------------
class PseudoStmt(ast.stmt):
    _fields = ()


class WithExitStmt(PseudoStmt):
    _fields = ("exit",)


class PopExceptStmt(PseudoStmt):
    _fields = ()


class AppendStmt(PseudoStmt):
    """``acc.append(value)`` (or add / setitem) inside a comprehension body."""

    _fields = ("acc", "value", "key")


class RestoreStmt(PseudoStmt):
    _fields = ("name",)


def is_pseudo(node):
    return isinstance(node, PseudoStmt)


class UnpackTarget:
    """Collects the targets of UNPACK_SEQUENCE / UNPACK_EX as they are stored."""

    def __init__(self, count, star_index=None):
        self.count = count
        self.star_index = star_index
        self.targets = []

    def complete(self):
        return len(self.targets) == self.count


#: an unpacking target whose store the compiler dropped as a duplicate of the next one
SAME_AS_NEXT = object()


class UnpackSlot(Marker):
    """Item ``index`` of ``unpack`` (0: the first, which UNPACK_SEQUENCE leaves on top)
    waiting on the stack for its target; a permutation (ROT_*, SWAP) or a copy (DUP_TOP,
    COPY) of the items moves this, so the item a store takes is this index, not a place."""

    def __init__(self, unpack, source, index):
        self.unpack = unpack
        self.source = source
        self.index = index


class GetIter(Marker):
    def __init__(self, value, is_async=False):
        self.value = value
        self.is_async = is_async


class FromItem(Marker):
    def __init__(self, imp, attr):
        self.imp = imp
        self.attr = attr


class AttrChain(Marker):
    def __init__(self, imp, attr):
        self.imp = imp
        self.attr = attr


class SetupAnnotations(PseudoStmt):
    _fields = ()


class AnnotateDef(PseudoStmt):
    """3.14+: a class or module body storing the ``__annotate__`` function the compiler
    wrote for its annotations (``fm``); the session turns it back into annotations."""
    _fields = ("fm",)
