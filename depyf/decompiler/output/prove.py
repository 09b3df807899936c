"""Last stage: recompile the output and prove it does what the bytecode does.

The text is compiled in a shape that gives it the original's scope (free variables stay
free, a ``__class__`` cell for ``super()``), and the recompiled code object is compared
with the original by the equivalence checker (``depyf.equivalence``): the same
observable operations, in the same order, under the same conditions and exception
handlers. Anything short of a proof is reported, never returned silently.
"""
import io
import tokenize
from collections import namedtuple

from ...bytecode import raw
from ...equivalence import equivalent
from ...bytecode import versions as V
from ..mismatch import Mismatch

_CO_NESTED = 0x10
_CO_OPTIMIZED = 0x1
OUTER = "__depyf_outer__"

# Where the counterpart of the original is in a standalone text (decompiler/standalone.py),
# for code no def compiles to. ``path``: names of nested code objects from the text's top
# level down to it (the last code object of that name at each step); ``scopes``: the
# classes and functions to rebuild around the text, outermost first, as ("class" |
# "function", name); ``binds_free``: the text itself binds the original's free variables
# (the type parameters of a generic class body), so no function around it does.
Place = namedtuple("Place", "path scopes binds_free", defaults=((), False))


def _indent(lines):
    """``lines`` (pairs of text and whether it continues a multi-line string) one level
    deeper; the text of a string is left as it is."""
    return [("    " + line if line.strip() and not inside else line, inside)
            for line, inside in lines]


def string_continuations(text):
    """Indexes (from 0) of the lines of ``text`` that continue a token begun on an
    earlier line: a multi-line string, whose leading spaces are the string's (indenting
    them would change it). Broken text gives what was read before the error (compiling
    it will say what is wrong)."""
    inside = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.end[0] > tok.start[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                inside.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return inside


def imported_names(code):
    """Names the original's module bound by ``import`` (as far as ``code`` and the code
    nested in it show). CPython 3.11+ compiles ``x.f(...)`` as a method call unless ``x``
    is a name the *module* imports (whatever ``x`` is in the function: global, local or
    cell); then ``f`` is read as a plain attribute and a NULL is pushed beside it
    (3.11/3.12: ``PUSH_NULL; LOAD_FAST x; LOAD_ATTR f`` or ``LOAD_GLOBAL NULL + x;
    LOAD_ATTR f``; 3.13+: ``LOAD_FAST x; LOAD_ATTR f; PUSH_NULL``). ``x.f(*args)`` looks
    the same for any ``x``, so a name that is also a method call's target somewhere
    (``LOAD_METHOD``, or ``LOAD_ATTR`` with its method bit) is not counted: it cannot be
    the module's import. Rebuilding the imports around the text lets the recompiled code
    take the same form (a bytecode-equal proof instead of the product machine's)."""
    found, methods = set(), set()
    if V.LOAD_GLOBAL_NULL_BIT:
        _plain_attribute_calls(code, found, methods)
    return found - methods


def _plain_attribute_calls(code, found, methods):
    before = load = None  # the two instructions before this one (EXTENDED_ARG skipped)
    pending = None  # 3.13+: a name whose attribute was just read plain; PUSH_NULL next: a call
    for ins in raw.instructions(code):
        op = ins.opname
        if op == "EXTENDED_ARG":
            continue
        if op == "PUSH_NULL" and pending is not None:
            found.add(pending)
        pending = None
        if (op == "LOAD_ATTR" or op == "LOAD_METHOD") and load is not None \
                and load.opname in V.NAME_LOADS:
            name = load.argval
            null_bit = load.opname == "LOAD_GLOBAL" and load.arg & 1
            if op == "LOAD_METHOD" or V.LOAD_ATTR_METHOD_BIT and ins.arg & 1:
                methods.add(name)
            elif V.NULL_AFTER_CALLABLE:
                if not null_bit:
                    pending = name
            elif null_bit or before is not None and before.opname == "PUSH_NULL":
                found.add(name)
        before, load = load, ins
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            _plain_attribute_calls(const, found, methods)


def qualname_scopes(qualname):
    """The enclosing scopes a qualified name names, outermost first, as
    ``("class" | "function", name)`` (a name before ``<locals>`` is a function's); empty
    when one of them has no name a statement can give."""
    parts = qualname.split(".")[:-1]
    scopes = []
    for i, part in enumerate(parts):
        if part == "<locals>":
            continue
        if not part.isidentifier():
            return ()
        is_function = i + 1 < len(parts) and parts[i + 1] == "<locals>"
        scopes.append(("function" if is_function else "class", part))
    return tuple(scopes)


def def_scopes(code):
    """Where the def of ``code`` was written, as ``qualname_scopes`` gives it, where its
    bytecode depends on it: a class it makes stores its qualified name (``__qualname__ =
    '<its qualname>.<locals>.C'``), before 3.11 so does each function it makes, and 3.14
    flags a def right inside a class (``METHOD_FLAG``). Only text compiled in the same
    classes and functions can then be bytecode-equal (elsewhere the checker proves the
    rest one instruction at a time, at a cost that grows with the function, and a
    class's name not at all). Empty elsewhere, and when nothing names the scopes."""
    if V.QUALNAME_ON_STACK:  # (no ``co_qualname`` yet: read where it is recorded)
        qualname = _recorded_qualname(code)
    elif code.co_flags & V.METHOD_FLAG or _makes_class(code):
        qualname = code.co_qualname
    else:
        qualname = None
    return qualname_scopes(qualname) if qualname else ()


def _recorded_qualname(code):
    """The qualified name of ``code`` as the code it makes records it: the constant
    ``<qualname>.<locals>.<name>`` a function is made with, or a class body stores."""
    for made in code.co_consts:
        if not hasattr(made, "co_code"):
            continue
        for const in code.co_consts if made.co_flags & _CO_OPTIMIZED else made.co_consts:
            if isinstance(const, str):
                qualname, sep, name = const.rpartition(".<locals>.")
                if sep and name == made.co_name and qualname.rpartition(".")[2] == code.co_name:
                    return qualname
    return None


def _makes_class(code):
    """Whether a class body is among the code objects nested in ``code``."""
    return any(hasattr(c, "co_code") and (not c.co_flags & _CO_OPTIMIZED or _makes_class(c))
               for c in code.co_consts)


def _wrap(source, code, scopes=(), binds_free=False, name=None):
    """``(text, names of the wrappers, outermost first)``: text that recompiles
    ``source`` inside ``scopes`` with ``code``'s free variables free.

    The innermost function binds them (and ``__class__``, which ``super()`` needs, unless
    the def is right inside a class of ``scopes``, whose cell it is), ``__depyf_outer__``
    when ``scopes`` has none and they or ``CO_NESTED`` need one: a class would do for
    ``__class__`` but would also mangle ``__names`` such as Dynamo's ``__compiled_fn_1``.
    ``__depyf_outer__`` declares the def's ``name`` global: the def would otherwise bind
    it there, and a call of a global of that name inside (a method ``getattr`` calling
    the builtin) would read that binding as a free variable."""
    free = list(code.co_freevars) if not binds_free else []
    if scopes and scopes[-1][0] == "class":
        free = [name for name in free if name != "__class__"]
    blocks = list(scopes)
    functions = [i for i, (kind, _) in enumerate(blocks) if kind == "function"]
    declare = []
    if not functions and (free or code.co_flags & _CO_NESTED and not binds_free):
        blocks.append(("function", OUTER))
        functions.append(len(blocks) - 1)
        if name is not None and name not in code.co_freevars:
            declare = [("global %s" % name, False)]
    lines = source.splitlines()
    if blocks:
        # (only triple-quoted strings span lines in printed code)
        strings = string_continuations(source) \
            if '"""' in source or "'''" in source else ()
        lines = [(line, k in strings) for k, line in enumerate(lines)]
        for i in reversed(range(len(blocks))):
            kind, name = blocks[i]
            bind = [("%s = None" % " = ".join(free), False)] if free and i == functions[-1] else []
            if blocks[i][1] == OUTER:
                bind = declare + bind
            header = "def %s():" % name if kind == "function" else "class %s:" % name
            lines = [(header, False)] + _indent(bind + lines)
        lines = [line for line, _ in lines]
    lines = ["import %s" % name for name in sorted(imported_names(code))] + lines
    return "\n".join(lines) + "\n", [name for _, name in blocks]


def _find(code, name):
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            if const.co_name == name and const.co_flags & _CO_OPTIMIZED:
                return const
            found = _find(const, name)
            if found is not None:
                return found
    return None


def _last_child(code, name):
    found = None
    for const in code.co_consts:
        if hasattr(const, "co_code") and const.co_name == name:
            found = const
    return found


def recompile(code, source, where, scopes=()):
    """The code object in ``source``, compiled in ``code``'s scope, that stands for
    ``code``: the def named ``where`` (compiled inside ``scopes``), or the one a ``Place``
    points to."""
    place = where if isinstance(where, Place) else Place((), scopes)
    text, wrappers = _wrap(source, code, place.scopes, place.binds_free,
                           None if isinstance(where, Place) else where)
    try:
        module = compile(text, "<depyf-check>", "exec", dont_inherit=True,
                         flags=code.co_flags & _FUTURE_FLAGS)
    except SyntaxError as exc:
        raise Mismatch("the decompiled source does not compile (%s)" % exc.msg,
                       function=code.co_name) from None
    if not isinstance(where, Place):
        recompiled = _find(module, where)
    else:
        recompiled = module
        for name in wrappers + list(where.path):
            recompiled = _last_child(recompiled, name) if recompiled is not None else None
        if recompiled is not None and \
                (recompiled.co_flags & _CO_OPTIMIZED) != (code.co_flags & _CO_OPTIMIZED):
            recompiled = None
    if recompiled is None:
        raise Mismatch("the decompiled source has no %s %r" % (
            "function" if not isinstance(where, Place) else "code object",
            where if not isinstance(where, Place) else code.co_name), function=code.co_name)
    return recompiled


def prove(code, source, where, bindings=None, fixed_globals=()):
    """The equivalence checker's ``Verdict`` on ``source`` (a def named ``where``, or a
    standalone text whose counterpart is at the ``Place`` ``where``) against ``code``.
    A def is compiled inside its own classes and functions first where its bytecode
    depends on them (``def_scopes``), at the top level if that is not proven.
    ``bindings``: names the source uses for constants without a source form;
    ``fixed_globals``: see ``equivalent``."""
    compare_name = isinstance(where, Place) or where == code.co_name
    scopes = def_scopes(code) if where == code.co_name else ()
    if scopes:
        try:
            verdict = equivalent(code, recompile(code, source, where, scopes), bindings=bindings,
                                 fixed_globals=fixed_globals, compare_name=compare_name)
        except Mismatch:
            verdict = None
        if verdict:
            return verdict
    recompiled = recompile(code, source, where)
    return equivalent(code, recompiled, bindings=bindings, fixed_globals=fixed_globals,
                      compare_name=compare_name)


def _future_flags():
    import __future__
    flags = 0
    for feature in __future__.all_feature_names:
        flags |= getattr(__future__, feature).compiler_flag
    return flags


_FUTURE_FLAGS = _future_flags()
