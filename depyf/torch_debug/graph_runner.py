"""Graph files that stand alone: ``python __compiled_fn_1.Captured_Graph.0.py`` runs the
graph on random inputs of the recorded shapes, dtypes and strides and prints the shapes it
produced (the minimal repro to attach to a bug report).

A graph file gets the imports FX's own generated code relies on (``import torch``,
``from torch import device``, ...: ``prologue``) and, at its end, a ``__main__`` block
(``epilogue``) that calls ``run_standalone`` with the inputs as torch printed them
(``"f32[10][1]cpu"``; a symbolic size ``s0`` is given the value ``SYMBOL_VALUE``).
"""
import ast
import re

SYMBOL_VALUE = 8
_SPEC = re.compile(r"^(\w+)\[(.*?)\]\[(.*?)\](\S*)$")


def prologue(fx_imports):
    return "\n".join(fx_imports) + "\n" if fx_imports else ""


_FORWARD = re.compile(r"^([ \t]*)def forward\(.*$", re.M)


def input_specs(printout):
    """[(name, annotation text)] of the inputs of the top-level ``forward`` in a
    ``print_readable`` printout (None when it has no such forward). ``printout``: text that
    compiles (``graphs.as_valid_python``'s); its ``def forward`` line is read alone when it
    holds the whole signature (torch prints it so), since parsing a deep model's whole
    graph costs as much as printing it."""
    specs = header_specs(printout)
    if specs is not None:
        return specs
    try:
        tree = ast.parse(printout)
    except SyntaxError:
        return None
    return _forward_specs(tree)


def _forward_specs(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "forward":
            args = node.args.args[1:]
            return [(a.arg, a.annotation.value if isinstance(a.annotation, ast.Constant) else "")
                    for a in args]
    return None


def header_specs(printout):
    """The specs of the least indented ``def forward(`` line (the first of them: the one
    ``ast.walk`` meets first) when that line, or the lines up to the one that closes the
    signature at the same indent (AOTAutograd prints one input a line), parse as a whole
    ``def`` header; else None."""
    best = None
    for m in _FORWARD.finditer(printout):
        if best is None or len(m.group(1)) < len(best.group(1)):
            best = m
    if best is None or "\t" in best.group(1):
        return None
    header = best.group(0).strip()
    if not header.endswith(":"):
        close = printout.find("\n" + best.group(1) + ")", best.end())
        end = printout.find("\n", close + 1) if close >= 0 else -1
        if end < 0:
            return None
        header = "\n".join(line[len(best.group(1)):] if line.startswith(best.group(1)) else line
                           for line in printout[best.start():end].splitlines())
    try:
        tree = ast.parse(header + "\n    pass\n")
    except SyntaxError:
        return None
    return _forward_specs(tree)


def epilogue(specs):
    """The ``__main__`` block; none when an input has no printed shape (the joint graph takes
    pytrees ``primals, tangents``)."""
    if specs is None or not all(spec for _, spec in specs):
        return ""
    return (
        "\n\nif __name__ == \"__main__\":  # run this graph alone on random inputs of the "
        "recorded shapes\n"
        "    from depyf.torch_debug.graph_runner import run_standalone\n"
        "    run_standalone(globals(), %r)\n" % (specs,)
    )


def _size(text, symbols):
    text = text.strip()
    if not text:
        return ()
    return tuple(int(eval(part, {"__builtins__": {}}, symbols))  # sizes like 2*s0 + 1
                 for part in text.split(","))


def make_input(spec):
    """A tensor (or int for ``Sym(...)``) matching torch's annotation text."""
    import torch

    from . import adapter

    if spec.startswith("Sym("):
        return SYMBOL_VALUE
    m = _SPEC.match(spec)
    if m is None:
        raise ValueError("cannot make an input for %r" % spec)
    abbr, sizes, strides, dev = m.groups()
    symbols = _Symbols()
    size, stride = _size(sizes, symbols), _size(strides, symbols)
    dtype = adapter.dtype_from_abbr(abbr)
    storage = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    if dtype.is_floating_point or dtype.is_complex:
        base = torch.randn(storage, dtype=dtype, device=dev or "cpu")
    elif dtype == torch.bool:
        base = torch.randint(0, 2, (storage,), device=dev or "cpu").bool()
    else:
        base = torch.randint(0, 8, (storage,), dtype=dtype, device=dev or "cpu")
    return base.as_strided(size, stride)


class _Symbols(dict):
    def __missing__(self, key):
        return SYMBOL_VALUE


def run_standalone(namespace, specs):
    """Call the file's ``forward`` on inputs made from ``specs`` and print output shapes."""
    import torch

    forward = namespace.get("forward")
    owner = None
    if forward is None:  # a print_readable printout: a module class with a forward method
        for value in list(namespace.values()):
            if isinstance(value, type) and issubclass(value, torch.nn.Module) and "forward" in vars(value):
                owner = value()
                forward = owner.forward
                break
    else:
        owner = torch.nn.Module()
        forward = forward.__get__(owner)
    inputs = [make_input(spec) for _, spec in specs]
    params = forward.__code__.co_varnames[1:forward.__code__.co_argcount]
    boxed = len(params) == 1 and specs and params[0] != specs[0][0]  # forward(self, args_list)
    try:
        with torch.no_grad():
            outputs = forward(inputs) if boxed else forward(*inputs)
    except AttributeError as exc:  # (nn.Module's own message: no exc.obj to compare)
        m = re.match(r"^'(\w+)' object has no attribute '(\w+)'$", str(exc))
        if m is None or m.group(1) != type(owner).__name__:
            raise
        # torch before 2.5 keeps the program's nn.Module calls and parameters in the
        # captured graph (self.L__self___fc1): state this file does not hold
        print("not run alone: the graph reads self.%s, a module or tensor of the program "
              "that this file does not hold" % m.group(2))
        return
    flat = outputs if isinstance(outputs, (tuple, list)) else [outputs]
    for i, out in enumerate(flat):
        what = "%s %s" % (tuple(out.shape), str(out.dtype).replace("torch.", "")) if isinstance(
            out, torch.Tensor) else repr(out)
        print("output %d: %s" % (i, what))
