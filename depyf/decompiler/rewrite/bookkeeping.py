"""The compiler's own statements in a body, taken out or put back as source.

A class or module body is read like a function body, so it comes back with what the
compiler added to it: ``__module__ = __name__``, ``__qualname__ = ...``, the closing
``return``, ``__annotations__['x'] = T`` for ``x: T``. A function body lacks what only a
declaration says: ``global`` / ``nonlocal``, cells nothing captures, locals only a bare
annotation makes local, and the ``yield`` that makes a generator when the compiler dropped
every one as unreachable. The session (``decompiler/session.py``) uses these for the
bodies it reads, module decompilation (``decompiler/modules.py``) through the session.
"""
import __future__
import ast
import dis
import inspect

from ...bytecode import versions as V
from .mangling import unmangle_class_body
from .tree import recurse
from ..symbolic import exprs as E
from ..symbolic import markers as M


def class_body(code, body):
    """The source statements of the class body ``code`` read as ``body``: without the
    compiler's bookkeeping, with annotated assignments and private names as written.

    The compiler's stores are known by where they stand (``V.CLASS_PROLOGUE`` first, the
    docstring next, ``V.CLASS_TAIL_BOOKKEEPING`` and ``return __classcell__`` last): the
    body's own statements may store the same names (``__module__ = 'zoneinfo'``)."""
    cleaned = _without_prologue(code, body)
    annotated = any(isinstance(s, M.SetupAnnotations) for s in cleaned)
    cleaned = [s for s in cleaned if not isinstance(s, ast.Return) and  # `return __classcell__`
               not isinstance(s, M.SetupAnnotations)]
    _drop_copied_tail_bookkeeping(cleaned)
    if annotated:
        cleaned = annotated_assignments(cleaned, is_future_annotations(code))
    return unmangle_class_body(code.co_name, cleaned)


def _without_prologue(code, body):
    """``body`` (its declarations first) without the stores the compiler opens a class
    body with, its docstring (``__doc__ = '...'``, the first statement after them)
    written as one."""
    body, expected = list(body), list(V.CLASS_PROLOGUE)
    i = 0
    while i < len(body):
        s = body[i]
        if isinstance(s, (M.SetupAnnotations, ast.Global, ast.Nonlocal)):
            i += 1
        elif _is_class_scope_bookkeeping(s, code):
            del body[i]
        elif expected and _assigns_name(s) == expected[0] and _is_prologue_value(s):
            del body[i]
            expected.pop(0)
        else:
            break
    if i < len(body) and _assigns_name(body[i]) == "__doc__" and _is_str(body[i].value):
        body[i] = ast.Expr(value=body[i].value)
    return body


def _is_prologue_value(stmt):
    """The value the compiler stores in its opening ``__module__``/``__qualname__``/
    ``__firstlineno__``: ``__name__``, a string, a line number."""
    target, value = _assigns_name(stmt), stmt.value
    if target == "__module__":
        return isinstance(value, ast.Name) and value.id == "__name__"
    return isinstance(value, ast.Constant) and \
        type(value.value) is (str if target == "__qualname__" else int)


def _is_str(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def module_body(body, code=None):
    """The source statements of a module body read as ``body`` (its ``global``
    declarations first): without the closing ``return None`` and ``SETUP_ANNOTATIONS``
    (which comes before the docstring from 3.9), with its docstring and annotations.
    A module-level ``global X`` goes after the docstring and ``from __future__`` imports,
    where it may stand; the compiler declares a name global in the module by itself when
    a function or class nested in it does (a STORE_GLOBAL at the top level), so the
    names their text declares need none."""
    n = 0
    while n < len(body) and isinstance(body[n], ast.Global):
        n += 1
    decls, body = body[:n], body[n:]
    annotated = any(isinstance(s, M.SetupAnnotations) for s in body)
    body = [s for s in body if not isinstance(s, M.SetupAnnotations)]
    if body and isinstance(body[-1], ast.Return) and (
            body[-1].value is None or isinstance(body[-1].value, ast.Constant) and body[-1].value.value is None):
        body = body[:-1]
    if body and _assigns_name(body[0]) == "__doc__" and _is_str(body[0].value):
        body[0] = ast.Expr(value=body[0].value)
    if annotated:
        body = annotated_assignments(body, code is not None and is_future_annotations(code))
    nested = {name for s in body for node in ast.walk(s) if isinstance(node, ast.Global)
              for name in node.names}
    names = [name for d in decls for name in d.names if name not in nested]
    if names:
        at = 1 if body and isinstance(body[0], ast.Expr) and _is_str(body[0].value) else 0
        while at < len(body) and isinstance(body[at], ast.ImportFrom) and \
                body[at].module == "__future__":
            at += 1
        body.insert(at, ast.Global(names=names))
    return body


def _assigns_name(stmt):
    """The name ``stmt`` assigns to alone (``name = value``), or None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _drop_copied_tail_bookkeeping(stmts):
    """A class body's closing bookkeeping (``return None``, 3.13+'s
    ``__static_attributes__ = (...)``) is copied, like any tail, into the branches of an
    if/else, the handlers of a try or the else of a loop that ends the body: drop it
    there as at the top level (a class body has no return of its own). Edits ``stmts``
    in place."""
    while stmts and (isinstance(stmts[-1], ast.Return) or
                     _assigns_name(stmts[-1]) in V.CLASS_TAIL_BOOKKEEPING):
        stmts.pop()
    if not stmts:
        return
    last = stmts[-1]
    blocks = []
    if isinstance(last, ast.If) and last.orelse:
        blocks = [last.body, last.orelse]
    elif type(last).__name__ in ("Try", "TryStar"):
        blocks = [last.body, last.orelse] + [h.body for h in last.handlers]
    elif isinstance(last, (ast.For, ast.AsyncFor, ast.While)):
        blocks = [last.orelse]  # (3.13+: where the loop ends, the tail is copied too)
    for block in blocks:
        if block:
            _drop_copied_tail_bookkeeping(block)
            if not block:
                block.append(ast.Pass())
    if hasattr(last, "orelse") and len(last.orelse) == 1 and isinstance(last.orelse[0], ast.Pass):
        last.orelse = []


def _is_class_scope_bookkeeping(stmt, code):
    """3.12+ class bodies with type parameters or annotation scopes: the compiler's own
    ``__type_params__ = .type_params`` and ``__classdict__ = locals()`` (the cell through
    which bounds and alias values see class-level names)."""
    target, value = _assigns_name(stmt), getattr(stmt, "value", None)
    if target == "__type_params__":
        return isinstance(value, ast.Name) and value.id == ".type_params"
    if target == "__classdict__" and "__classdict__" in code.co_cellvars:
        return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and
                value.func.id == "locals" and not value.args and not value.keywords)
    return False


def annotated_assignments(stmts, future=False):
    """`__annotations__['x'] = T` (after an optional `x = v`) is `x: T = v` in a class or
    module body whose annotations the compiler set up (SETUP_ANNOTATIONS: the body has
    one somewhere, in a block too); ``future``: the body is compiled under ``from
    __future__ import annotations``, which stores each annotation as its text."""
    out = []
    for s in stmts:
        t = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                t.value.id == "__annotations__":
            key = t.slice.value if hasattr(t.slice, "value") and not isinstance(t.slice, ast.Constant) \
                else t.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
                name = key.value
                annotation = written_annotation(s.value) if future else s.value
                if annotation is None:  # a text no annotation compiles to
                    out.append(s)
                    continue
                value = None
                prev = out[-1] if out else None
                if _assigns_name(prev) == name:
                    value = out.pop().value
                out.append(ast.AnnAssign(target=ast.Name(id=name, ctx=ast.Store()),
                                         annotation=annotation, value=value, simple=1))
                continue
        if not future and _annotates_target(out[-1] if out else None, s):
            # `x.attr: T = v` stores v, then evaluates T and drops it
            out[-1] = ast.AnnAssign(target=out[-1].targets[0], annotation=s.value,
                                    value=out[-1].value, simple=0)
            continue
        recurse(s, lambda block: annotated_assignments(block, future))
        out.append(s)
    return out


def _annotates_target(prev, stmt):
    """Whether ``stmt``, an expression statement after the assignment ``prev`` to an
    attribute or an item, is the annotation of that target (evaluated after the store
    where annotations are set up, and not kept)."""
    return isinstance(prev, ast.Assign) and len(prev.targets) == 1 and \
        isinstance(prev.targets[0], (ast.Attribute, ast.Subscript)) and \
        isinstance(stmt, ast.Expr) and not isinstance(stmt.value, (ast.Yield, ast.YieldFrom, ast.Await)) \
        and not isinstance(stmt.value, ast.Constant)


def is_future_annotations(code):
    """Whether ``code`` was compiled under ``from __future__ import annotations``."""
    return bool(code.co_flags & __future__.annotations.compiler_flag)


def written_annotation(node):
    """The annotation ``from __future__ import annotations`` stored as the text ``node``
    holds, as the expression written (``'T'`` for the text ``"'T'"``); None where
    ``node`` is no text of an expression."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    try:
        return ast.parse(node.value, mode="eval").body
    except SyntaxError:
        return None


def declarations(code, instrs, outer_cells=(), live=None):
    """`global` / `nonlocal` statements: names this code rebinds outside its own scope.
    ``outer_cells``: free variables that are cells of an enclosing function; ``live``: the indexes
    of the instructions that can run (a free variable only dead code uses needs its `nonlocal`)."""
    stored_globals, stored_free = [], []
    free = set(code.co_freevars)
    stores = list(_stores(code, instrs))
    # stores of a free name an inlined comprehension's own cell shadows (`[lambda: T for T in T]`)
    shadowed = free & set(code.co_cellvars) & {n for op, n in stores if op == "LOAD_FAST_AND_CLEAR"}
    for opname, name in stores:
        if opname in ("STORE_GLOBAL", "DELETE_GLOBAL") and name not in stored_globals:
            stored_globals.append(name)
        if opname in ("STORE_DEREF", "DELETE_DEREF") and name in free - shadowed and \
                name not in stored_free:
            stored_free.append(name)
    # a free variable nothing here uses exists only through `nonlocal x` (`f.__closure__` sees it)
    if free:
        used = {ins.argval for ins in instrs if (live is None or ins.index in live) and (
            ins.opname.endswith(("DEREF", "CLOSURE"))
            or ins.opname.startswith("LOAD_FAST") and ins.argval in free)}  # 3.13 closures
        if any(ins.argval == "super" and ins.opname.startswith(("LOAD_FAST", "LOAD_GLOBAL",
               "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT")) for ins in instrs):
            used.add("__class__")  # the compiler makes it free wherever `super` is read
        stored_free += [n for n in code.co_freevars if n not in used and n in outer_cells
                        and n not in stored_free]
    out = []
    if stored_globals:
        out.append(ast.Global(names=stored_globals))
    if stored_free:
        out.append(ast.Nonlocal(names=stored_free))
    return out


_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                  ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def generator_marker(code, body):
    """A generator (or async generator) whose every ``yield`` the compiler dropped as
    unreachable (``return; yield``, ``if False: yield``, ``raise E; yield``) is one still:
    the flag comes from the source, not from the bytecode. ``body`` with ``if False:
    yield`` appended when it has no ``yield`` of its own (the compiler emits nothing for
    an ``if`` whose test is the constant False, but its symbol table sees the yield)."""
    if code.co_flags & inspect.CO_ASYNC_GENERATOR:
        _bare_returns(body)
    if not code.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR) or has_yield(body):
        return body
    dead = ast.If(test=E.const(False), body=[ast.Expr(value=ast.Yield(value=None))], orelse=[])
    return [s for s in body if not isinstance(s, ast.Pass)] + [dead]


def _bare_returns(body):
    """An async generator returns no value: its ``return None`` is written ``return``
    (the only form that compiles there). Edits the trees of ``body`` in place."""
    work = list(body)
    while work:  # (not in nested scopes)
        node = work.pop()
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and \
                node.value.value is None:
            node.value = None
        elif not isinstance(node, _NESTED_SCOPES):
            work.extend(ast.iter_child_nodes(node))


def generator_lambda_marker(code, expr):
    """The lambda twin of ``generator_marker``: ``(yield) if False else expr`` (3.10+
    drop the dead arm, and with it the only yield of ``lambda: (yield) if False else x``)."""
    if not code.co_flags & inspect.CO_GENERATOR or has_yield([expr]):
        return expr
    return ast.IfExp(test=E.const(False), body=ast.Yield(value=None), orelse=expr)


def has_yield(nodes):
    """Whether the trees ``nodes`` hold a ``yield`` (or ``yield from``) of their own scope."""
    work = list(nodes)
    while work:  # (not those of nested scopes)
        node = work.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, _NESTED_SCOPES):
            work.extend(ast.iter_child_nodes(node))
    return False


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def _stores(code, instrs):
    """``(opname, name)`` of each instruction of ``code`` and, in a function, of the
    comprehensions and generator expressions made in it (separate code objects up to
    3.11, generator expressions still after): a ``:=`` in a comprehension binds the name
    in the enclosing function, so a store of a global or a free variable there is one of
    the function's (it declared the name ``global`` / ``nonlocal``)."""
    found = [(ins.opname, ins.argval) for ins in instrs]
    if not code.co_flags & inspect.CO_OPTIMIZED:
        return found  # (module level: a comprehension's `:=` needs no declaration)
    work = list(code.co_consts)
    while work:
        nested = work.pop()
        if hasattr(nested, "co_code") and nested.co_name in _COMPREHENSIONS:
            found += [(ins.opname, ins.argval) for ins in dis.get_instructions(nested)
                      if ins.opname == "STORE_GLOBAL" or
                      ins.opname == "STORE_DEREF" and ins.argval in nested.co_freevars]
            work.extend(nested.co_consts)
    return found


_BINDS = frozenset(["STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF"])
_READS = frozenset(["LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE"])


def _own_stores(stores):
    """``stores`` but those of the names an inlined comprehension (3.12+) hides once it
    cleared them (LOAD_FAST_AND_CLEAR): its own loop variables and their restores bind
    nothing of the function (a later store of the name counts as none either: at worst
    a declaration too many, which compiles to nothing)."""
    hidden = set()
    for opname, name in stores:
        if opname == "LOAD_FAST_AND_CLEAR":
            hidden.add(name)
        elif not isinstance(name, str) or name not in hidden:
            yield opname, name  # (an operand that is no name: a constant, a dict one too)


def local_declarations(code, instrs):
    """``x: object`` for each local variable that is read but that nothing in the function
    binds: only a bare annotation (``x: int``, which compiles to nothing in a function)
    makes a name local without binding it, and reading it raises UnboundLocalError (or, in
    a nested function, NameError for a free variable), not a global's NameError. Which
    annotation it had is not in the bytecode (a function does not evaluate it)."""
    captured = set()
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            captured.update(const.co_freevars)
    stores = _stores(code, instrs)
    bound = {name for opname, name in _own_stores(stores) if opname in _BINDS}
    bound.update(code.co_varnames[:_param_count(code)])
    read = {ins.argval for ins in instrs if ins.opname in _READS} | captured
    # a name only an inlined comprehension binds is the function's own local only where
    # the function reads it, maybe unbound (LOAD_FAST_CHECK): else a global it hides
    hidden = {name for opname, name in stores if opname == "LOAD_FAST_AND_CLEAR"}
    if hidden:
        checked = {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_FAST_CHECK"}
        read -= hidden - checked
    # (a name Dynamo keeps both as a local and free, before torch 2.4: free, `nonlocal`)
    names = [n for n in code.co_varnames if n in read and n not in bound and n not in code.co_freevars]
    names += [n for n in code.co_cellvars if n in captured and n not in bound and n not in names
              and n not in code.co_freevars]  # (free, shadowed by a comprehension's cell)
    return [ast.AnnAssign(target=E.name(n, ast.Store()), annotation=E.name("object"), value=None,
                          simple=1) for n in names]


def cell_declarations(code, instrs):
    """Cells that no nested function made by ``code`` captures (Dynamo's code keeps the
    cells, and the unused constants, of the frame it replaces: a local that a lambda or a
    comprehension captured) stay cells through a lambda that reads them in a block that
    never runs (the compiler makes a name a cell from the scopes alone and emits nothing
    for ``if False:``); a cell nothing binds is bound there too, or it would be global."""
    captured, bound = set(), set(code.co_varnames[:_param_count(code)])
    for ins in instrs:
        if hasattr(ins.argval, "co_code"):
            captured.update(ins.argval.co_freevars)
        if ins.opname in ("STORE_DEREF", "DELETE_DEREF"):
            bound.add(ins.argval)
    lone = [n for n in code.co_cellvars if n not in captured]
    if not lone:
        return []
    body = [ast.Assign(targets=[E.name(n, ast.Store()) for n in lone if n not in bound],
                       value=E.const(None), type_comment=None)]
    if not body[0].targets:
        body = []
    read = E.name(lone[0]) if len(lone) == 1 else \
        ast.Tuple(elts=[E.name(n) for n in lone], ctx=ast.Load())
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    body.append(ast.Expr(value=ast.Lambda(args=args, body=read)))
    return [ast.If(test=E.const(False), body=body, orelse=[])]


def _param_count(code):
    return code.co_argcount + code.co_kwonlyargcount + \
        bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
