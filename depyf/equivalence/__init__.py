"""Do two code objects do the same thing? ``equivalent(original, candidate) -> Verdict``.

The check runs both code objects side by side on symbolic values (``product``): every
operation user code could observe or take part in is an *event* (calls, attribute and
global access, operators, truth tests, iteration, imports, raise, yield, reads and
writes of closure cells...), and the two must perform the same events, in the same
order, on equal operands, under the same outcomes of earlier events, inside the same
exception handlers, and end the same way (return the same value or let the same
exception out). Outcomes of events are unknowns shared by both sides, so every
combination of results, exceptions and branch directions is covered; states that meet
at the same pair of positions are joined so that loops are followed to a fixpoint.

What it is blind to, on purpose: how the bytecode is laid out (block order, inverted
jumps with swapped targets, loops rotated or tested at either end, code the compiler
copies such as return tails and finally bodies), local variable names and temporaries
(moving a value through the stack or a variable is not observable), super-instructions,
the call forms of CPython (``f(*args)`` of a built tuple, the >30-argument form,
method calls), cell creation, and line numbers.

What it assumes: CPython semantics of the built-in operations it treats as pure (tuples,
lists, dicts and sets the code built itself, ``is``, ``not``, bool constants,
``type(e)`` of an exception), and that nothing outside the function changes its local
variables. When a code object does something the model does not cover, the verdict is
*unknown* (not proven), never a guess.
"""
import inspect
from types import CodeType

from ..bytecode import raw, versions as V
from . import ops_blocks, ops_build, ops_calls, ops_data, ops_flow, ops_items
from .codeinfo import CodeInfo
from .compare import Pairing
from .frame import Frame, StackUnderflow
from .layout import layout_equal
from .machine import Machine, ModelLimit, generator_start_stack
from .merge import ProductState
from .normalize import normalize
from .product import Difference, Explorer
from .terms import Registry, const

TABLE = {}
for _module in (ops_data, ops_build, ops_calls, ops_flow, ops_items, ops_blocks):
    TABLE.update(_module.TABLE)

_KIND_FLAGS = (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR
               | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
               | inspect.CO_ITERABLE_COROUTINE)


class Verdict:
    """The answer of ``equivalent``: truthy when the two code objects were proven to do
    the same. ``reason`` names the first difference (with both instructions and their
    source lines) or why nothing could be proven; ``different`` says a difference was
    found (a path on which the two behave differently), ``unknown`` that the check
    could not decide."""

    __slots__ = ("proven", "reason", "how", "original", "candidate", "different")

    def __init__(self, proven, reason, how=None, original=None, candidate=None, different=False):
        self.proven = proven
        self.reason = reason
        self.how = how
        self.original = original
        self.candidate = candidate
        self.different = different

    @property
    def unknown(self):
        return not self.proven and not self.different

    def __bool__(self):
        return self.proven

    def __repr__(self):
        if self.proven:
            return "<Verdict: equivalent (%s)>" % self.how
        return "<Verdict: %s: %s>" % ("different" if self.different else "unknown", self.reason)


def equivalent(original, candidate, *, bindings=None, name_map=None, fixed_globals=(),
               compare_name=True, compare_docstring=True, budget=None, shortcut=True,
               assume=()):
    """Whether ``candidate`` (a code object or function) does what ``original`` does.

    ``bindings``: names the candidate loads as globals that stand for constants of the
    original (the decompiler's ``__depyf_const_<n>``: name -> object).
    ``name_map``: globals of the original compared under another name (Dynamo's
    ``__compiled_fn_1_<uuid>`` -> ``__compiled_fn_1``).
    ``fixed_globals``: names of the original's globals that are bound before the code
    runs and that nothing it calls rebinds (Dynamo's ``__compiled_fn_*``, ``__resume_*``
    and ``__import_*``): reading one is not an event and gives the same value wherever
    it happens, so the two may read it at different moments. An assumption the caller
    vouches for; by default every global read is an event in order.
    ``compare_name``/``compare_docstring``: compare the top-level ``co_name`` and
    docstring too (nested functions always are).
    ``shortcut``: accept equal normalized bytecode without running the two (False runs
    the check on every pair; for testing the checker itself).
    ``assume``: pairs of nested code objects (original's, candidate's) taken as
    equivalent without a check: to ask whether a code object differs by itself, apart
    from what it nests (a verdict that is then no proof of the whole).
    """
    original, candidate = _code(original), _code(candidate)
    with raw.remembered():
        return _equivalent(original, candidate, bindings, name_map, fixed_globals, compare_name,
                           compare_docstring, budget, shortcut, assume)


def _equivalent(original, candidate, bindings, name_map, fixed_globals, compare_name,
                compare_docstring, budget, shortcut, assume):
    if shortcut and not bindings and not name_map and not fixed_globals and not assume and \
            _same_code(original, candidate) and \
            frame_difference(original, candidate, compare_name, compare_docstring) is None:
        return Verdict(True, None, "bytecode-equal")  # what the check below would answer
    check = _Check(bindings or {}, name_map or {}, budget, shortcut, fixed_globals)
    for a, b in assume:
        check.memo[(id(a), id(b))] = None
    try:
        why = check.codes(original, candidate, compare_name, compare_docstring)
    except RecursionError:
        return Verdict(False, "nesting too deep to check")
    if why is None:
        return Verdict(True, None, check.how)
    return why


def _code(obj):
    code = getattr(obj, "__code__", obj)
    if not hasattr(code, "co_code"):
        raise TypeError("equivalent() expects code objects or functions, got %s"
                        % type(obj).__name__)
    return code


class _Check:
    def __init__(self, bindings, name_map, budget, shortcut=True, fixed_globals=()):
        self.shortcut = shortcut
        self.name_map = name_map
        # as compared (the candidate's names): a pure term each
        self.fixed = {name_map.get(n, n): ("s", ("fixed global", name_map.get(n, n)))
                      for n in fixed_globals}
        self.registry = Registry()
        self.bindings = {name: const(value, self.registry) for name, value in bindings.items()}
        self.budget = budget
        self.memo = {}
        self.how = "bytecode-equal"

    def codes(self, a, b, compare_name=True, compare_docstring=True):
        """None when ``a`` and ``b`` are proven equivalent, else a failed Verdict."""
        key = (id(a), id(b))
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # assume so while comparing (recursive code)
        verdict = self._codes(a, b, compare_name, compare_docstring)
        self.memo[key] = verdict
        return verdict

    def _codes(self, a, b, compare_name, compare_docstring):
        why = frame_difference(a, b, compare_name, compare_docstring)
        if why is not None:
            return Verdict(False, why, different=True)
        if self.shortcut and not self.bindings and not self.name_map and not self.fixed:
            how = _cheap_proof(a, b)
            if how is not None:
                if how != self.how and self.how == "bytecode-equal":
                    self.how = how
                return None
        self.how = "checked"
        ia, ib = CodeInfo(a), CodeInfo(b)
        start = ProductState(self._frame("A", ia), self._frame("B", ib), Pairing(), {})
        budget = self.budget or 5000 + 50 * (len(ia.instrs) + len(ib.instrs))
        verdict = self._explore(a, b, start, budget, prune=True)
        if verdict is not None:  # said as the unpruned exploration says it (``_explore``)
            start = ProductState(self._frame("A", ia), self._frame("B", ib), Pairing(), {})
            verdict = self._explore(a, b, start, budget, prune=False)
        return verdict

    def _explore(self, a, b, start, budget, prune):
        """None when the exploration from ``start`` finds no difference, else a failed
        Verdict. ``prune``: the states a join supersedes are not explored further
        (``product.Lineage``): the joined state covers them. What is not proven is
        explored again without that, so that the reason given is the one the first path
        to a difference shows (with the values it had there rather than the unknowns of
        a joined state), as before that pruning."""
        explorer = Explorer(self._machine("A"), self._machine("B", self._code_aliases(a, b)),
                            self.registry, self._nested, budget, prune)
        try:
            explorer.run(start)
        except Difference as d:
            return Verdict(False, "%s: %s" % (a.co_name, d.reason), original=d.what_a,
                           candidate=d.what_b, different=True)
        except (ModelLimit, StackUnderflow) as e:
            return Verdict(False, "%s: not proven: %s" % (a.co_name, e))
        finally:
            explorer.release()
        return None

    def _nested(self, a, b):
        verdict = self.codes(a, b)
        return None if verdict is None else verdict.reason

    def _frame(self, side, info):
        locals_ = {name: ("s", ("arg", k)) for k, name in enumerate(info.params)}
        f = Frame(side, info, locals_, ("s", ("caller exception",)))
        f.stack = generator_start_stack(info, V.GENERATOR_STARTS_WITH_VALUE)
        return f

    def _machine(self, side, aliases=None):
        if side == "A":
            return Machine(side, TABLE, V, self.registry,
                           lambda name: self.fixed.get(self.name_map.get(name, name)),
                           lambda name: self.name_map.get(name, name))
        m = Machine(side, TABLE, V, self.registry,
                    lambda name: self.bindings.get(name) or self.fixed.get(name), lambda name: name)
        m.aliases = aliases or {}
        return m

    def _code_aliases(self, a, b):
        """The candidate's nested code objects proven equivalent to one of the
        original's (same name; the one at the same place among those of that name, else
        the first): they get the original's term, so
        that the two sides' functions made from them are the same value everywhere,
        also where paths join."""
        originals = {}
        for c in a.co_consts:
            if hasattr(c, "co_code"):
                originals.setdefault(c.co_name, []).append(c)
        aliases = {}
        seen = {}
        for c in b.co_consts:
            if not hasattr(c, "co_code"):
                continue
            same_name = originals.get(c.co_name, [])
            k = seen[c.co_name] = seen.get(c.co_name, -1) + 1
            # the one at the same place among those of its name first: two identical
            # bodies (`def onexc(*args): raise` in two branches) stay two values
            for candidate in same_name[k:k + 1] + same_name:
                if self.codes(candidate, c) is None:
                    aliases[id(c)] = const(candidate, self.registry)
                    break
        return aliases


def frame_difference(a, b, compare_name=True, compare_docstring=True):
    """What differs in the signature and kind of two code objects, or None."""
    for attr in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount"):
        if getattr(a, attr, 0) != getattr(b, attr, 0):
            return "%s: %s is %s in the original, %s in the candidate" % (
                a.co_name, attr, getattr(a, attr, 0), getattr(b, attr, 0))
    if (a.co_flags & _KIND_FLAGS) != (b.co_flags & _KIND_FLAGS):
        return "%s: the kind of function differs (flags %#x vs %#x)" % (
            a.co_name, a.co_flags & _KIND_FLAGS, b.co_flags & _KIND_FLAGS)
    n = CodeInfo.count_params(a)
    if a.co_varnames[:n] != b.co_varnames[:n]:
        return "%s: parameter names differ: %s vs %s" % (a.co_name, a.co_varnames[:n], b.co_varnames[:n])
    if a.co_freevars != b.co_freevars:
        return "%s: free variables differ: %s vs %s" % (a.co_name, a.co_freevars, b.co_freevars)
    if set(a.co_cellvars) != set(b.co_cellvars):
        return "%s: cell variables differ: %s vs %s" % (a.co_name, sorted(a.co_cellvars),
                                                        sorted(b.co_cellvars))
    if compare_name and a.co_name != b.co_name:
        return "names differ: %s vs %s" % (a.co_name, b.co_name)
    if compare_docstring and _docstring(a) != _docstring(b):
        return "%s: docstrings differ" % a.co_name
    return None


def _docstring(code):
    """``co_consts[0]`` when it is a string; on 3.14 only with ``CO_HAS_DOCSTRING`` set
    (there the first constant is a docstring only if the flag says so)."""
    consts = code.co_consts
    if V.DOCSTRING_FLAG and not code.co_flags & V.DOCSTRING_FLAG:
        return None
    return consts[0] if consts and isinstance(consts[0], str) else None


def _same_code(a, b):
    """Whether ``b`` is ``a`` but for where it came from (name, file, lines, whether it
    was nested in a function: ``CO_NESTED``, which normalized bytecode leaves out too;
    for nested code objects file, lines and qualified name, not their names): CPython's
    own code equality then holds (instructions, constants, names, variables, flags,
    exception table), and that is bytecode equality without disassembling either. Most
    proofs end here."""
    try:
        return _relocated(a, b, a.co_name) == a
    except (TypeError, ValueError):
        return False


def _relocated(a, b, name=None):
    """``b`` moved to ``a``'s place (file, first line, line table, qualified name; and
    renamed ``name`` if given), the code objects among its constants moved likewise to
    the place of ``a``'s at the same index. One code equality on the result then
    compares everything else, nested code included."""
    where = dict(co_firstlineno=a.co_firstlineno, co_filename=a.co_filename,
                 co_flags=b.co_flags & ~inspect.CO_NESTED | a.co_flags & inspect.CO_NESTED)
    if name is not None:
        where["co_name"] = name
    for attr in V.CODE_LOCATION_FIELDS:
        where[attr] = getattr(a, attr)
    consts_a, consts_b = a.co_consts, b.co_consts
    if len(consts_a) == len(consts_b) and any(isinstance(y, CodeType) for y in consts_b):
        where["co_consts"] = tuple(
            _relocated(x, y) if isinstance(x, CodeType) and isinstance(y, CodeType) else y
            for x, y in zip(consts_a, consts_b))
    return b.replace(**where)


def _cheap_proof(a, b):
    """"bytecode-equal" or "layout-equal" (``layout``) when one of those settles
    it, else None (the product machine must run)."""
    if _same_code(a, b):
        return "bytecode-equal"
    na, nb = normalize(a), normalize(b)
    if na == nb:
        return "bytecode-equal"
    return "layout-equal" if layout_equal(na, nb) else None
