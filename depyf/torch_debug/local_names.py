"""Local variables whose names no source can spell.

pytest's assertion rewriting names the temporaries of a rewritten ``assert`` ``@py_assert1``,
``@py_format3``...: real locals of the compiled test function, so Dynamo's transformed and
resume code has them too (in ``co_varnames``, as resume-function arguments when one is live
across a graph break), and the frame-shape padding must name them. Written into source they
are a SyntaxError. So the decompiled file spells each with a stand-in identifier
(``_py_assert1``), and the compiled code object gets the real names back in its
``co_varnames`` (and cell/free variables) before the checker compares it with Dynamo's code:
renaming a local changes no instruction, and what is proven and run is the renamed object.
The file's header says which stand-in is which name.
"""
import keyword
import re
import textwrap
import types


def spellable(name):
    return name.isidentifier() and not keyword.iskeyword(name)


def _local_names(code):
    return code.co_varnames + code.co_cellvars + code.co_freevars


def _all_names(code, out):
    out.update(_local_names(code))
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _all_names(const, out)
    return out


def _unspellable(code, out):
    out.extend(n for n in _local_names(code) if not spellable(n) and n not in out)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _unspellable(const, out)
    return out


def stand_ins(*codes):
    """``{real name: stand-in identifier}`` for every local, cell or free variable of
    ``codes`` (and their nested code) that is no identifier; {} when there is none. Each
    stand-in is the name with its other characters made ``_`` (``@py_assert1`` ->
    ``_py_assert1``), unique among every name the code objects use."""
    unspellable = []
    for code in codes:
        _unspellable(code, unspellable)
    if not unspellable:
        return {}
    taken = set()
    for code in codes:
        _all_names(code, taken)
    mapping = {}
    for name in unspellable:
        candidate = re.sub(r"\W", "_", name)
        if not candidate or candidate[0].isdigit() or keyword.iskeyword(candidate):
            candidate = "_" + candidate
        while candidate in taken:
            candidate += "_"
        taken.add(candidate)
        mapping[name] = candidate
    return mapping


def rename_locals(code, mapping):
    """``code`` with its local, cell and free variable names (and those of its nested code)
    renamed by ``mapping``; the instructions are unchanged."""
    if not mapping:
        return code

    def sub(names):
        return tuple(mapping.get(n, n) for n in names)

    consts = tuple(rename_locals(c, mapping) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_varnames=sub(code.co_varnames), co_cellvars=sub(code.co_cellvars),
                        co_freevars=sub(code.co_freevars), co_consts=consts)


def inverse(mapping):
    return {v: k for k, v in mapping.items()}


def header_lines(mapping):
    """Comment lines naming the real variable behind each stand-in."""
    if not mapping:
        return []
    pairs = ", ".join("%s is %s" % (stand_in, real) for real, stand_in in mapping.items())
    return (["# Locals no source can spell (pytest's assertion rewriting makes them) are written",
             "# here with stand-ins; the running code has the real names:"]
            + ["#   " + line for line in textwrap.wrap(pairs, 88)])
