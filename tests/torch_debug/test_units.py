"""Unit tests of the pure helpers: noise folding, the replacement check, trace-text parsing."""
import pytest

from depyf.torch_debug.equivalence import differences
from depyf.torch_debug.full_code import readable_copy
from depyf.torch_debug.graphs import as_valid_python, assigned_names_in_readable, assigned_names_in_source
from depyf.torch_debug.overview import parse_graph_break
from depyf.torch_debug.transformed_code import name_part


def test_readable_copy_folds_dynamo_bookkeeping():
    src = (
        "def f(x):\n"
        "    tmp_1 = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter\n"
        "    tmp_2 = tmp_1()\n"
        "    (tmp_3 := __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit)(tmp_2)\n"
        "    graph_out_0 = __compiled_fn_1(x)\n"
        "    del tmp_1\n"
        "    del tmp_3\n"
        "    []\n"
        "    [[*[]]]\n"
        "    return graph_out_0[0]\n"
    )
    assert readable_copy(src) == "def f(x):\n    graph_out_0 = __compiled_fn_1(x)\n    return graph_out_0[0]\n"


def test_a_read_before_the_assignment_is_refused():
    def reference(a):
        tmp = 3
        y = tmp + 1
        return y

    def bad(a):
        y = tmp + 1  # noqa: F821 -- tmp is assigned below: a wrong statement order
        tmp = 3
        return y

    def good(a):
        tmp = 3
        return tmp + 1

    reasons = differences(bad.__code__, reference.__code__)
    assert reasons and "unbound local" in reasons[0]
    assert differences(good.__code__, reference.__code__) == []


def test_graph_source_and_printout_have_the_same_assignments():
    src = "\n\n\ndef forward(self, args_list):\n    args_iter = iter(args_list)\n    arg0_1 = next(args_iter)\n    args_list.clear()\n    abs_1 = torch.ops.aten.abs.default(arg0_1)\n    return (abs_1,)\n"
    printout = 'class <lambda>(torch.nn.Module):\n    def forward(self, arg0_1: "f32[3][1]cpu"):\n        abs_1: "f32[3][1]cpu" = torch.ops.aten.abs.default(arg0_1)\n        return (abs_1,)\n'
    assert assigned_names_in_source(src) == assigned_names_in_readable(printout) == ("abs_1",)
    fixed = as_valid_python(printout)
    compile(fixed, "x", "exec")
    assert "class _lambda_(" in fixed


def test_graph_break_text_is_parsed():
    text = (
        "Graph break in user code at /tmp/x.py:11\n"
        "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):\n\n"
        "Failed to trace builtin operator\n"
        "  Explanation: Dynamo does not know how to trace builtin operator `print`\n"
        " For more details about this graph break, please visit: https://x/gb/gb0059.html\n"
    )
    assert parse_graph_break(text) == (
        "GB0059", "/tmp/x.py", 11, "Failed to trace builtin operator",
        "Dynamo does not know how to trace builtin operator `print`",
    )


def test_lost_aliasing_is_refused():
    # what a decompiler produced for GPT-2's loss_function: Dynamo's shared stack lists
    # rebuilt as fresh displays (the program then crashed calling the resume function)
    wrong = (
        "def f(self):\n"
        "    [[*[]]][0][0:0] = [logger.warning_once('x')]\n"
        "    [[[*[]]][0]][0][1:] = []\n"
        "    del [[[*[]]][0]][-1]\n"
        "    return g(*[[], [[[*[]]][0]]])\n"
    )
    right = (
        "def f(self):\n"
        "    __temp_1 = []\n"
        "    __temp_1[0:0] = [logger.warning_once('x')]\n"
        "    __temp_1[1:] = []\n"
        "    del __temp_1[-1]\n"
        "    return g(*[[], __temp_1])\n"
    )
    reasons = differences(_code(wrong), _code(right))
    assert reasons and "not proven equivalent" in reasons[0]
    assert differences(_code(right), _code(right)) == []


def _code(src, name="f"):
    ns = {}
    exec(compile(src, "<test>", "exec"), ns)
    return ns[name].__code__


def test_proxy_run_sees_lost_aliasing_and_reordering():
    from depyf.torch_debug.proxy_run import compare

    reference = _code(
        "def f(x):\n"
        "    shared = []\n"
        "    shared.append(log(x))\n"
        "    if x.sum() < 0:\n"
        "        return resume_a(shared, shared)\n"
        "    return resume_b(x, shared)\n"
    )
    same = _code(
        "def f(x):\n"
        "    s = []\n"
        "    s.append(log(x))\n"
        "    return resume_a(s, s) if x.sum() < 0 else resume_b(x, s)\n"
    )
    unshared = _code(
        "def f(x):\n"
        "    s = []\n"
        "    s.append(log(x))\n"
        "    if x.sum() < 0:\n"
        "        return resume_a(s, list(s))\n"
        "    return resume_b(x, s)\n"
    )
    reordered = _code(
        "def f(x):\n"
        "    c = x.sum() < 0\n"
        "    s = [log(x)]\n"
        "    return resume_a(s, s) if c else resume_b(x, s)\n"
    )
    assert compare(same, reference, {}, {}) is None
    assert "behaves differently" in compare(unshared, reference, {}, {})
    assert "behaves differently" in compare(reordered, reference, {}, {})


def test_proxy_run_matches_bound_constants_and_renamed_graphs():
    from depyf.torch_debug.proxy_run import compare

    device = object()
    reference = _code("def f(x):\n    return __compiled_fn_3_abc(x, 'PLACEHOLDER')\n")
    reference = reference.replace(  # Dynamo loads such an object as a constant
        co_consts=tuple(device if c == "PLACEHOLDER" else c for c in reference.co_consts))
    candidate = _code("def f(x):\n    return __compiled_fn_3(x, __bound_device)\n")
    name_map = {"__compiled_fn_3_abc": "__compiled_fn_3"}
    assert compare(candidate, reference, name_map, {"__bound_device": device}) is None
    other = _code("def f(x):\n    return __compiled_fn_3(__bound_device, x)\n")
    assert compare(other, reference, name_map, {"__bound_device": device}) is not None


def test_proxy_run_ends_a_loop_that_never_touches_a_proxy():
    from depyf.torch_debug.proxy_run import compare

    reference = _code("def f(x):\n    return g(x)\n")
    spinning = _code("def f(x):\n    while True:\n        pass\n    return g(x)\n")
    assert "budget" in compare(spinning, reference, {}, {})


def test_proxy_run_ends_a_loop_in_a_function_the_code_defines():
    """The line budget counts the lines of the functions the code defines and calls, and
    straight code that defines a looping one gets the budget: else the proxy run (and the
    user's compile with it) would never end. Run in a thread, so that a run that does not
    end fails the test instead of hanging it."""
    import threading

    from depyf.torch_debug.proxy_run import compare, needs_budget

    reference = _code("def f(x):\n    return g(x)\n")
    spinning = _code("def f(x):\n    def spin():\n        while True:\n            pass\n"
                     "    spin()\n    return g(x)\n")
    assert needs_budget(spinning) and not needs_budget(reference)
    assert not needs_budget(_code("def f(x):\n    def h():\n        return x\n    return h()\n"))
    answer = []
    worker = threading.Thread(target=lambda: answer.append(compare(spinning, reference, {}, {})), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the proxy run of a looping nested function did not end"
    assert "budget" in answer[0]


def test_proxy_runs_count_lines_only_for_code_with_a_loop(monkeypatch):
    """Straight code runs on proxies without the line budget (its trace function costs a
    Python call per line) and without the tracer the program had set (a debugger's: the
    proxy run is not the user's code); code with a loop keeps the budget."""
    import sys

    from depyf.torch_debug import proxy_run

    budgets, seen = [], []
    real = proxy_run._LineBudget

    def budget(code):
        budgets.append(code.co_name)
        return real(code)

    def debugger(frame, event, arg):
        seen.append(frame.f_code.co_name)
        return None

    monkeypatch.setattr(proxy_run, "_LineBudget", budget)
    reference = _code("def f(x):\n    return g(x) if x else h(x)\n")
    straight = _code("def f(x):\n    if x:\n        return g(x)\n    return h(x)\n")
    looping = _code("def f(x):\n    for y in (1,):\n        pass\n    return g(x) if x else h(x)\n")
    sys.settrace(debugger)
    try:
        assert proxy_run.compare(straight, reference, {}, {}) is None
        assert sys.gettrace() is debugger
        assert budgets == [] and "f" not in seen
        assert proxy_run.compare(looping, reference, {}, {}) is None
    finally:
        sys.settrace(None)
    assert budgets and set(budgets) == {"f"} and "f" not in seen


def test_proxy_run_tells_a_cell_from_its_value():
    """Dynamo passes closure CELLS to resume-function makers (LOAD_CLOSURE); passing the
    value instead is the 'expected cell' crash of the issue."""
    from depyf.torch_debug.proxy_run import compare

    def outer():
        scale = 1

        def passes_cell():
            return make(((lambda: scale).__closure__[0],))  # noqa: F821

        def passes_value():
            return make((scale,))  # noqa: F821

        return passes_cell.__code__, passes_value.__code__

    cell, value = outer()
    assert compare(cell, cell, {}, {}) is None
    assert "behaves differently" in compare(value, cell, {}, {})


def test_file_and_def_names_of_lambdas_and_comprehensions_are_identifiers():
    assert name_part("<lambda>") == "lambda"
    assert name_part("torch_dynamo_resume_in_<lambda>_at_331") == "torch_dynamo_resume_in_lambda_at_331"
    assert name_part("<dictcomp>") == "dictcomp"
    assert name_part("forward") == "forward"
    assert ("__transformed_code_0_for_%s" % name_part("<lambda>")).isidentifier()


def test_input_specs_read_from_the_def_line_are_the_parsed_ones():
    """``graph_runner.input_specs`` reads the ``def forward`` line alone when it holds the
    whole signature; the answer is the one of parsing the whole printout (the forward
    ``ast.walk`` meets first), also with nested classes and a signature over several lines."""
    import ast

    from depyf.torch_debug import graph_runner

    printouts = [
        'class GraphModule(torch.nn.Module):\n'
        '    def forward(self, L_x_: "f32[10][1]cpu", s0: "Sym(s0)"):\n'
        '        l_x_ = L_x_\n        return (l_x_,)\n'
        '    class submod(torch.nn.Module):\n'
        '        def forward(self, a: "f32[2][1]cpu"):\n            return (a,)\n',
        'class GraphModule(torch.nn.Module):\n'
        '    class inner(torch.nn.Module):\n'
        '        def forward(self, a: "f32[2][1]cpu"):\n            return (a,)\n'
        '    def forward(self, b: "i64[3][1]cpu", c):\n        return (b,)\n',
        'class GraphModule(torch.nn.Module):\n'
        '    def forward(self, b: "i64[3][1]cpu",\n                c: "f32[1][1]cpu"):\n'
        '        return (b,)\n',
        'def forward(self, x: "f32[1][1]cpu"): return (x,)\n',
        'class GraphModule(torch.nn.Module):\n    def other(self, x):\n        return x\n',
        # AOTAutograd's printouts: one input a line, each with a comment
        'class GraphModule(torch.nn.Module):\n    def forward(\n'
        '        self,\n        primals_1: "f32[4][1]cpu",  # PlainAOTInput(idx=0)\n'
        '        primals_2: "i64[2, 8][8, 1]cpu",  # PlainAOTInput(idx=1)\n    ):\n'
        '        # File: m.py:3 in forward, code: y = f(x)\n        return (primals_1,)\n'
        '    class inner(torch.nn.Module):\n        def forward(self, a):\n            return (a,)\n',
        'class joint_helper(torch.nn.Module):\n    def forward(\n        self, primals, tangents\n'
        '    ) -> "tuple":\n        return (primals,)\n',
        # no line closes the signature at its indent: the whole printout is parsed
        'class GraphModule(torch.nn.Module):\n    def forward(self,\n        a: "f32[1][1]cpu"):\n'
        '        return (a,)\n',
    ]
    for text in printouts:
        assert graph_runner.input_specs(text) == graph_runner._forward_specs(ast.parse(text)), text
    for text in printouts[5:7]:  # read from the signature's lines alone
        assert graph_runner.header_specs(text) == graph_runner._forward_specs(ast.parse(text)), text
    assert graph_runner.header_specs(printouts[5]) == [
        ("primals_1", "f32[4][1]cpu"), ("primals_2", "i64[2, 8][8, 1]cpu")]
    assert graph_runner.input_specs(printouts[0]) == [("L_x_", "f32[10][1]cpu"), ("s0", "Sym(s0)")]
    assert graph_runner.input_specs(printouts[2]) == [("b", "i64[3][1]cpu"), ("c", "f32[1][1]cpu")]
    assert graph_runner.input_specs(printouts[4]) is None


def test_a_torch_without_the_structured_trace_is_warned_about(monkeypatch):
    """torch 2.2 has no torch._logging.trace_structured: no graph files, said once."""
    import warnings

    from depyf.torch_debug import adapter

    real = adapter._resolve
    monkeypatch.setattr(adapter, "_resolve", lambda dotted: None if dotted == "torch._logging.trace_structured" else real(dotted))
    monkeypatch.setattr(adapter, "_warned", set())
    subscription = adapter.TraceSubscription(lambda *args: None, ["dynamo_output_graph"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        subscription.attach()
    subscription.detach()
    assert any("no structured trace" in str(w.message) for w in caught)


def test_body_start_read_from_the_text_is_the_parsed_one():
    """``shape_source`` finds where the body of the def starts (after its declarations)
    from the printed lines; where it answers, the parse agrees, and where the text is not
    as the printer writes it (comments, a one-line body, two defs of the name), it leaves
    the answer to the parse."""
    from depyf.torch_debug.transformed_code import body_start, body_start_parsed

    read = {
        "def f(a):\n    return a\n": (1, "    "),
        "import x\n\ndef f(a, b) -> int:\n    global g\n    nonlocal_ = 1\n    return g\n": (4, "    "),
        "def f():\n    global g, h\n    global k\n    '''doc'''\n    return g\n": (3, "    "),
        "def f():\n    @dec\n    def inner():\n        pass\n    return inner\n": (1, "    "),
        "async def f():\n    global g\n    await g\n": (2, "    "),
        "def g():\n    pass\n\ndef f():\n    x = 1\n": (4, "    "),
    }
    for source, expected in read.items():
        assert body_start(source.splitlines(), "f") == expected, source
        assert body_start_parsed(source, "f") == expected, source
    parsed = {
        "def f():\n    # a comment\n    return 1\n": (2, "    "),
        "def f():\n\n    return 1\n": (2, "    "),
        "def f():\n    global g\n": (1, "    "),
        "def f(): return 1\n": (0, " " * 9),
        "def f():\n    return 1\ndef f():\n    return 2\n": (1, "    "),
    }
    for source, expected in parsed.items():
        assert body_start(source.splitlines(), "f") is None, source
        assert body_start_parsed(source, "f") == expected, source
    with pytest.raises(ValueError):
        body_start_parsed("def g():\n    pass\n", "f")


def _run_def(text, name):
    """The function ``name`` a module of ``text`` defines, called out of its closure
    wrapper where there is one."""
    namespace = {}
    exec(compile(text, "<test>", "exec"), namespace)
    wrapper = namespace.get("__closure_for_%s" % name)
    return wrapper() if wrapper is not None else namespace[name]


def test_a_closure_wrapped_keeps_its_strings_and_declarations():
    """``closure_wrapped`` nests a closure's def in a function binding its free variables:
    it compiles (``nonlocal`` alone at module level does not), the names are free variables
    of the inner function, and a docstring's later lines (a string spanning lines) keep
    their value: only code lines are indented."""
    from depyf.torch_debug.closure_text import closure_wrapped, indented

    source = (
        "def step(x):\n"
        "    '''Adds x.\n"
        "second line'''\n"
        "    nonlocal total\n"
        "    total = x + len('a\\\n"
        "b')\n"
        "    return total\n"
    )
    with pytest.raises(SyntaxError):
        compile(source, "<test>", "exec")
    fn = _run_def("\n".join(closure_wrapped(source.splitlines(), "step", ("total", "unused"))), "step")
    assert fn.__doc__ == "Adds x.\nsecond line"
    assert fn.__code__.co_freevars == ("total",)
    assert fn(1) == 3
    # not Python: every line that is not blank gets the prefix
    assert indented(["x = '''", "", "y"], "  ") == ["  x = '''", "", "  y"]
    assert indented(["'''a", "b'''", "c"], "  ") == ["  '''a", "b'''", "  c"]


def test_the_full_code_shows_a_closure_as_python():
    """The full-code file holds a transformed code object that declares ``nonlocal`` (or
    a method's ``__class__``) inside a function that binds it, and the original source of
    a closure that declares ``nonlocal`` likewise; a closure that compiles alone, and text
    with no def of the name, stay as they are."""
    from depyf.torch_debug.full_code import original_source
    from depyf.torch_debug.closure_text import as_module_text

    def make():
        count = 0

        def bump(x):
            nonlocal count
            count += x
            return count

        def read():
            return count
        return bump, read

    bump, read = make()
    text = original_source(bump.__code__)
    assert text.startswith("def __closure_for_bump():  # gives bump its closure cells: count\n")
    assert _run_def(text, "bump").__code__.co_code == bump.__code__.co_code
    assert original_source(read.__code__).startswith("def read():")
    transformed = "def __t(x):\n    nonlocal __class__\n    return x\n"
    wrapped = as_module_text(transformed, "__t", ("__class__",))
    assert _run_def(wrapped, "__t")(5) == 5
    comment = "# __t could not be decompiled\n"
    assert as_module_text(comment, "__t", ("__class__",)) == comment
    assert as_module_text(transformed, "__t", ()) == transformed


def test_a_full_code_text_that_does_not_compile_is_said_to_be_depyfs(monkeypatch, tmp_path):
    """Where depyf's own full-code text is not valid Python, the file holds it as comments
    under a note that names depyf (not torch) and the error, and depyf warns."""
    import warnings

    from depyf.torch_debug import full_code
    from depyf.torch_debug.session import DumpSession

    session = DumpSession(str(tmp_path), "")
    session.note_original(_run_def.__code__)
    monkeypatch.setattr(full_code, "full_code_text", lambda *args: "def f(:\n    pass\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        full_code.write_all(session)
    written = (tmp_path / "full_code_for__run_def_0.py").read_text()
    assert written.startswith("# (depyf's text (invalid syntax, line 1) is not valid Python; shown as comments)\n")
    compile(written, "<test>", "exec")
    assert any("full_code_for__run_def_0.py is not valid Python" in str(w.message) for w in caught)


def test_graph_break_hints_are_listed_once():
    """Torch's graph-break text holds the message, hints included, twice (its account of
    the break, then the traceback ending in the same exception): each hint is listed
    once, in order."""
    from depyf.torch_debug.overview import parse_hints

    message = ("Failed to trace builtin operator\n"
               "  Hint: Avoid calling builtin `print`.\n"
               "  Hint: Please report an issue to PyTorch.\n"
               "  For more details see https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html\n")
    payload = message + "\nTraceback (most recent call last):\n  File \"x.py\", line 1, in f\nUnsupported: " + message
    assert parse_hints(payload) == (
        ["Avoid calling builtin `print`.", "Please report an issue to PyTorch."],
        "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html")
