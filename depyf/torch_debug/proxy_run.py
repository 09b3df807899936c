"""Run a code object on recording proxies, to compare what two code objects DO.

Dynamo's transformed code only moves values around and calls things: its arguments,
globals (compiled graphs, resume functions, modules) and constants. Executed with every
argument, global and non-literal constant replaced by a ``Proxy`` that records each
operation done to it (attribute reads, calls with their arguments, subscripts, stores,
truth tests, iteration...) and returns a fresh proxy, the code runs without touching
anything real, and its ``trace`` -- the list of operations, with arguments written
canonically (proxies by label, containers by content *and identity*, so that a list passed
twice is seen as the same list) -- describes its behaviour for all inputs that take the
same branches. Truth tests are answered from a decision list; ``compare`` explores the
branch combinations (up to a budget) for both code objects with the same decisions.

Two code objects with equal traces for every explored decision list make the same calls
with the same (aliased) arguments in the same order and return the same value.
"""
import sys
import types

from ..bytecode import raw

_LITERALS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))
_MAX_EVENTS = 5000
_MAX_LINES = 20000
_ITER_LENGTH = 2


class _Budget(Exception):
    pass


class _Recorder:
    def __init__(self, decisions, labels):
        self.events = []
        self.decisions = list(decisions)
        self.truth_tests = 0
        self.labels = labels  # id(real object) -> label, for constants the code loads
        self.seen = {}  # id(container) -> first-seen index (aliasing)
        self.keep = []  # containers seen: kept alive so that their ids are not reused

    def record(self, op, *operands, result=True):
        # (few Python calls per operation: under the run's trace function each costs two)
        if len(self.events) >= _MAX_EVENTS:
            raise _Budget()
        event = [op]
        for o in operands:
            event.append(("P", _get(o, "_label")) if isinstance(o, Proxy) else self.canon(o))
        self.events.append(tuple(event))
        if result:
            return _proxy(self, "R%d" % (len(self.events) - 1))
        return None

    def decide(self, proxy):
        i = self.truth_tests
        self.truth_tests += 1
        value = self.decisions[i] if i < len(self.decisions) else True
        self.record("bool", proxy, value, result=False)
        return value

    def canon(self, value, depth=0):
        if isinstance(value, Proxy):
            return ("P", object.__getattribute__(value, "_label"))
        if depth > 20:
            return ("deep",)
        if id(value) in self.labels:
            return ("K", self.labels[id(value)])
        if isinstance(value, _LITERALS):
            return ("V", type(value).__name__, repr(value))
        if isinstance(value, (list, tuple, set, frozenset, dict, slice)):
            ident = None
            if isinstance(value, (list, dict, set)):
                if id(value) not in self.seen:
                    self.seen[id(value)] = len(self.seen)
                    self.keep.append(value)
                ident = self.seen[id(value)]
            if isinstance(value, dict):
                items = tuple((self.canon(k, depth + 1), self.canon(v, depth + 1)) for k, v in value.items())
            elif isinstance(value, slice):
                items = (self.canon(value.start), self.canon(value.stop), self.canon(value.step))
            elif isinstance(value, (set, frozenset)):
                items = tuple(sorted(repr(self.canon(v, depth + 1)) for v in value))
            else:
                items = tuple(self.canon(v, depth + 1) for v in value)
            return (type(value).__name__, ident, items)
        if isinstance(value, types.CellType):  # closure cells are passed to resume makers
            try:
                return ("cell", self.canon(value.cell_contents, depth + 1))
            except ValueError:
                return ("cell", "empty")
        if isinstance(value, types.CodeType):
            return ("code", value.co_name)
        if isinstance(value, types.FunctionType):
            return ("function", value.__code__.co_name)
        return ("obj", type(value).__name__)


def _op(name):
    def method(self, *args):
        return object.__getattribute__(self, "_rec").record(name, self, *args)

    method.__name__ = name
    return method


_get, _set = object.__getattribute__, object.__setattr__


def _proxy(rec, label):
    """``Proxy(rec, label)`` without a Python call to ``__init__``."""
    p = object.__new__(Proxy)
    _set(p, "_rec", rec)
    _set(p, "_label", label)
    return p


class Proxy:
    """A stand-in value that records what is done to it."""

    __slots__ = ("_rec", "_label")

    def __init__(self, rec, label):
        object.__setattr__(self, "_rec", rec)
        object.__setattr__(self, "_label", label)

    def __getattribute__(self, name):
        if name == "__class__":  # isinstance() asks this; it is not the code's doing
            return Proxy
        return object.__getattribute__(self, "_rec").record("getattr", self, name)

    def __setattr__(self, name, value):
        object.__getattribute__(self, "_rec").record("setattr", self, name, value, result=False)

    def __delattr__(self, name):
        object.__getattribute__(self, "_rec").record("delattr", self, name, result=False)

    def __call__(self, *args, **kwargs):
        return object.__getattribute__(self, "_rec").record("call", self, list(args), dict(kwargs))

    def __getitem__(self, key):
        return object.__getattribute__(self, "_rec").record("getitem", self, key)

    def __setitem__(self, key, value):
        object.__getattribute__(self, "_rec").record("setitem", self, key, value, result=False)

    def __delitem__(self, key):
        object.__getattribute__(self, "_rec").record("delitem", self, key, result=False)

    def __bool__(self):
        return object.__getattribute__(self, "_rec").decide(self)

    def __iter__(self):
        rec = object.__getattribute__(self, "_rec")
        rec.record("iter", self, result=False)
        return iter([rec.record("next", self, i) for i in range(_ITER_LENGTH)])

    def __len__(self):
        object.__getattribute__(self, "_rec").record("len", self, result=False)
        return _ITER_LENGTH

    def __index__(self):
        object.__getattribute__(self, "_rec").record("index", self, result=False)
        return 0

    def __hash__(self):
        return id(self)

    def __enter__(self):
        return object.__getattribute__(self, "_rec").record("enter", self)

    def __exit__(self, *exc):
        object.__getattribute__(self, "_rec").record("exit", self, list(exc), result=False)
        return False

    def __format__(self, spec):
        object.__getattribute__(self, "_rec").record("format", self, spec, result=False)
        return "<proxy>"

    def __repr__(self):
        return "<proxy %s>" % object.__getattribute__(self, "_label")

    __str__ = __repr__


for _name in (
    "__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __floordiv__ "
    "__rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __matmul__ __rmatmul__ __and__ __rand__ "
    "__or__ __ror__ __xor__ __rxor__ __lshift__ __rlshift__ __rshift__ __rrshift__ __neg__ "
    "__pos__ __invert__ __abs__ __lt__ __le__ __gt__ __ge__ __eq__ __ne__ __contains__ "
    "__iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ __imatmul__ "
    "__iand__ __ior__ __ixor__ __ilshift__ __irshift__"
).split():
    setattr(Proxy, _name, _op(_name))


def _is_literal(value):
    if isinstance(value, (tuple, frozenset)):
        return all(_is_literal(v) for v in value)
    return isinstance(value, _LITERALS) or isinstance(value, types.CodeType)


def _names(code):
    return {name for c in raw.defined_codes(code) for name in c.co_names}


def run(code, decisions, global_labels, const_labels, budget=True):
    """Execute ``code`` on proxies; returns (events, number of truth tests). A global
    ``name`` is the proxy labelled ``global_labels.get(name, "G:" + name)``. ``budget``:
    stop the run after ``_MAX_LINES`` lines of the code and of the functions it defines (a
    loop that never touches a proxy must end too); False where all of them run straight
    (``needs_budget``), where each line event would cost a Python call for nothing."""
    rec = _Recorder(decisions, {})
    # non-literal constants become proxies too (they could do real things when called)
    consts = []
    for c in code.co_consts:
        if _is_literal(c) and id(c) not in const_labels:
            # (a literal the candidate binds by name, e.g. a code object passed as a value
            # to _create_nested_fn, must be the same proxy on both sides)
            consts.append(c)
        else:
            consts.append(Proxy(rec, const_labels.get(id(c), "K:%s" % type(c).__name__)))
    code = code.replace(co_consts=tuple(consts))
    g = {"__builtins__": {}}
    for name in _names(code):
        g[name] = Proxy(rec, global_labels.get(name) or "G:" + name)
    # every parameter, *args and **kwargs included, becomes a plain positional one so that
    # each can be a proxy (a real **kwargs dict would raise KeyError on the first lookup)
    nparams = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    code = code.replace(co_argcount=nparams, co_posonlyargcount=0, co_kwonlyargcount=0,
                        co_flags=code.co_flags & ~0x0C)
    args = [Proxy(rec, "L:" + n) for n in code.co_varnames[:nparams]]
    closure = tuple(types.CellType(Proxy(rec, "C:" + n)) for n in code.co_freevars)
    fn = types.FunctionType(code, g, code.co_name, None, closure or None)
    kwargs = {}
    previous = sys.gettrace()
    sys.settrace(_LineBudget(code) if budget else None)  # (nor a debugger's tracer: not the user's code)
    try:
        result = fn(*args, **kwargs)
        rec.events.append(("return", rec.canon(result)))
    except _Budget:
        rec.events.append(("budget",))
    except Exception as exc:  # both must fail the same way
        rec.events.append(("raise", type(exc).__name__))
    finally:
        sys.settrace(previous)
        rec.keep = []  # (its containers hold proxies, which hold the recorder: a cycle)
    return rec.events, rec.truth_tests


def needs_budget(code):
    """Whether a run of ``code`` needs the line budget: some code it can run loops."""
    return not all(raw.runs_straight(c) for c in raw.defined_codes(code))


class _LineBudget:
    """A trace function that stops the run after ``_MAX_LINES`` line events in ``code``
    and the code it defines (an object, not a closure that returns itself: that would be
    a reference cycle)."""

    def __init__(self, code):
        self.codes = {id(c) for c in raw.defined_codes(code)}  # (alive: held by code)
        self.count = 0

    def __call__(self, frame, event, arg):
        return self.local if id(frame.f_code) in self.codes else None

    def local(self, frame, event, arg):
        if event == "line":
            self.count += 1
            if self.count > _MAX_LINES:
                raise _Budget()
        return self.local


def compare(candidate, reference, name_map, bindings, max_runs=16):
    """None if both behave the same on every explored branch combination, else a reason."""
    const_labels = {id(v): "K:" + k for k, v in bindings.items()}
    ref_globals = {name: "G:" + renamed for name, renamed in name_map.items()}
    # the candidate loads bound constants as globals: labelled like the reference's constants
    cand_globals = {k: "K:" + k for k in bindings}
    budgets = [needs_budget(code) for code in (reference, candidate)]
    todo, done = [()], set()
    runs = 0
    while todo and runs < max_runs:
        decisions = todo.pop(0)
        if decisions in done:
            continue
        done.add(decisions)
        runs += 1
        ref_events, n_ref = run(reference, decisions, ref_globals, const_labels, budgets[0])
        cand_events, _ = run(candidate, decisions, cand_globals, {}, budgets[1])
        if ref_events != cand_events:
            where = next(
                (i for i, (a, b) in enumerate(zip(ref_events, cand_events)) if a != b),
                min(len(ref_events), len(cand_events)),
            )
            got = cand_events[where] if where < len(cand_events) else "(end)"
            want = ref_events[where] if where < len(ref_events) else "(end)"
            return "behaves differently on proxies (branches %s): operation %d is %s, Dynamo's is %s" % (
                list(decisions) or "all true", where, _short(got), _short(want))
        for i in range(len(decisions), n_ref):
            for choice in (True, False):
                todo.append(tuple(decisions) + tuple(True for _ in range(len(decisions), i)) + (choice,))
    return None


def _short(event, limit=200):
    text = repr(event)
    return text if len(text) <= limit else text[: limit - 3] + "..."
