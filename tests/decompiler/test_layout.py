"""The shape of the package, checked: the rules that code review forgets.

- the import graph of ``depyf/`` (top-level and function-level imports) has no cycle,
  and its layers import only downwards (``LAYERS``);
- no module of the decompiler is over 400 lines, no function over 80 (except where
  ``LONG`` says why);
- stages pass facts about nodes through ``depyf.decompiler.facts``, never as private
  attributes read with ``getattr(node, "_...")``.
"""
import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "depyf")
DECOMPILER = os.path.join(PACKAGE, "decompiler")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
# module or "module:function" -> why it may be longer (none today)
LONG = {}


def _modules(top, root=ROOT):
    """``{dotted name: (path, is_package)}`` for every .py file under ``top``."""
    found = {}
    for folder, _, files in os.walk(top):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                is_package = name.endswith(".__init__")
                found[name[:-9] if is_package else name] = (path, is_package)
    return found


def _tree(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def import_graph(modules):
    """Edges from each module to the depyf modules it imports anywhere in its body
    (``from . import x`` inside package p is an edge to p.x, not to p)."""
    edges = {m: set() for m in modules}
    for name, (path, is_package) in modules.items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                for alias in node.names:
                    sub = "%s.%s" % (target, alias.name)
                    if sub in modules:
                        edges[name].add(sub)
                    elif target in modules:
                        edges[name].add(target)
            elif isinstance(node, ast.Import):
                edges[name].update(a.name for a in node.names if a.name in modules)
    return edges


def find_cycle(edges):
    """One import cycle as a list of modules (first == last), or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start, [])
            if found:
                return found
    return None


def test_import_graph_has_no_cycle():
    cycle = find_cycle(import_graph(_modules(PACKAGE)))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# Each package of depyf and the packages it may import (besides itself and the
# modules at the top, ``depyf.errors``...): the proof sits under everything that proves.
LAYERS = {
    "depyf.bytecode": set(),
    "depyf.equivalence": {"depyf.bytecode"},
    "depyf.decompiler": {"depyf.bytecode", "depyf.equivalence"},
    "depyf.verify": {"depyf.bytecode", "depyf.equivalence", "depyf.decompiler"},
}


def _package_of(module):
    return next((p for p in LAYERS if module == p or module.startswith(p + ".")), None)


def layer_violations(edges):
    """``(importer, imported)`` pairs where a layer of ``LAYERS`` imports a package of
    depyf it may not."""
    bad = []
    for name, targets in sorted(edges.items()):
        own = _package_of(name)
        if own is None:
            continue
        for target in sorted(targets):
            other = target.split(".")[:2]
            other = ".".join(other) if len(other) == 2 and other[0] == "depyf" else None
            if other is None or other == own or other not in _subpackages(edges):
                continue
            if other not in LAYERS[own]:
                bad.append((name, target))
    return bad


def _subpackages(edges):
    return {".".join(m.split(".")[:2]) for m in edges if m.count(".") >= 2 or m in LAYERS}


def test_layers_import_downwards_only():
    bad = layer_violations(import_graph(_modules(PACKAGE)))
    assert not bad, "imports against the layers: " + ", ".join("%s -> %s" % b for b in bad)


def test_layer_check_finds_an_upward_import():
    edges = {"depyf.equivalence.machine": {"depyf.decompiler.api", "depyf.bytecode.raw"},
             "depyf.decompiler.api": {"depyf.equivalence"}, "depyf.bytecode.raw": set(),
             "depyf.equivalence": set()}
    assert layer_violations(edges) == [("depyf.equivalence.machine", "depyf.decompiler.api")]


def test_cycle_finder_finds_one():
    # the check itself: a graph with a cycle is caught, one without is not
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


# the graph builder itself, on a package written for it: file -> source, and the edges
# expected (importing a module of a package is an edge to that module, not to the
# package; importing a name from a package is an edge to the package; imports inside
# functions count)
TOY_PACKAGE = {
    "p/__init__.py": "from . import a\n",
    "p/a.py": "from .b import f\nfrom . import sub\nimport os\n",
    "p/b.py": "def f():\n    from p.sub import c\n    import p.a\n",
    "p/sub/__init__.py": "from .. import b\nfrom ..a import x\nname = 1\n",
    "p/sub/c.py": "from . import name\nfrom .. import nothing\nfrom os import path\n",
}
TOY_EDGES = {
    "p": {"p.a"},
    "p.a": {"p.b", "p.sub"},
    "p.b": {"p.sub.c", "p.a"},
    "p.sub": {"p.b", "p.a"},
    "p.sub.c": {"p.sub", "p"},
}


def test_import_graph_of_a_toy_package(tmp_path):
    for rel, source in TOY_PACKAGE.items():
        path = tmp_path.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    edges = import_graph(_modules(str(tmp_path / "p"), root=str(tmp_path)))
    assert edges == TOY_EDGES
    # p.a -> p.b at the top, p.b -> p.a inside a function: a cycle all the same
    assert find_cycle(edges) == ["p.a", "p.b", "p.a"]


def _decompiler_files():
    return sorted(path for path, _ in _modules(DECOMPILER).values())


def _short(path):
    return os.path.relpath(path, ROOT)


@pytest.mark.parametrize("path", _decompiler_files(), ids=_short)
def test_module_size(path):
    with open(path, encoding="utf-8") as f:
        count = sum(1 for _ in f)
    if _short(path) not in LONG:
        assert count <= MAX_MODULE_LINES, "%s has %d lines (at most %d)" % (
            _short(path), count, MAX_MODULE_LINES)


@pytest.mark.parametrize("path", _decompiler_files(), ids=_short)
def test_function_size(path):
    long = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            size = node.end_lineno - node.lineno + 1
            key = "%s:%s" % (_short(path), node.name)
            if size > MAX_FUNCTION_LINES and key not in LONG:
                long.append("%s (%d lines)" % (key, size))
    assert not long, "functions over %d lines: %s" % (MAX_FUNCTION_LINES, ", ".join(long))


@pytest.mark.parametrize("path", _decompiler_files(), ids=_short)
def test_no_private_node_attributes(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = [k + 1 for k, line in enumerate(text.splitlines()) if 'getattr(node, "_' in line]
    assert not lines, '%s: getattr(node, "_...") at lines %s' % (_short(path), lines)
    # the general form: getattr/hasattr of a private attribute on anything but self
    offenders = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2 and \
                isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) and \
                node.args[1].value.startswith("_") and not node.args[1].value.startswith("__") and \
                not (isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls")):
            offenders.append("line %d: %s(..., %r)" % (node.lineno, node.func.id, node.args[1].value))
    assert not offenders, "%s: private attributes read off objects: %s" % (
        _short(path), "; ".join(offenders))
