"""Private names in class bodies: ``__x`` inside ``class C`` is stored as ``_C__x``.

The compiler mangles every identifier of that form in a class body and in the functions,
lambdas and comprehensions nested in it (but not in nested classes, which mangle with
their own name). The bytecode therefore holds ``_C__x`` while the code objects keep their
own names unmangled (``def __x`` has ``co_name == "__x"``). Decompiled class bodies are
written back with ``__x``: compiled inside ``class C`` that is the very same name.
"""
import ast


def mangle(class_name, name):
    """What the compiler turns ``name`` into inside class ``class_name``."""
    owner = class_name.lstrip("_") if class_name else ""
    if not owner or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    return "_%s%s" % (owner, name)


def _unmangle(class_name, name):
    if not isinstance(name, str):
        return name
    prefix = "_%s__" % class_name.lstrip("_")
    if class_name.lstrip("_") and name.startswith(prefix) and len(name) > len(prefix):
        plain = name[len(prefix) - 2:]
        if mangle(class_name, plain) == name:
            return plain
    return name


# identifier fields the compiler mangles (import names are left as written)
_FIELDS = {ast.Name: ("id",), ast.Attribute: ("attr",), ast.arg: ("arg",),
           ast.keyword: ("arg",), ast.FunctionDef: ("name",), ast.AsyncFunctionDef: ("name",),
           ast.ClassDef: ("name",)}


def unmangle_class_body(class_name, stmts):
    """Spell the mangled private names in a class body (``stmts``) as written."""
    for stmt in stmts:
        _visit(class_name, stmt)
    return stmts


def unmangle_generic_header(class_def):
    """Spell the private names in a generic class's bases, keywords and type parameter
    bounds as written: 3.12+ evaluate them in the class's type parameter scope, which
    mangles with the class's own name (``class C[__T](Base[__T])`` reads ``_C__T``)."""
    for node in class_def.bases + class_def.keywords + class_def.type_params:
        _visit(class_def.name, node)


def _visit(class_name, node):
    for field in _FIELDS.get(type(node), ()):
        setattr(node, field, _unmangle(class_name, getattr(node, field)))
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        node.names = [_unmangle(class_name, n) for n in node.names]
    for field, value in ast.iter_fields(node):
        if isinstance(node, ast.ClassDef) and field == "body":
            continue  # a nested class mangles with its own name
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                _visit(class_name, child)
