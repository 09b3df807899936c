"""install()/uninstall() logging, the guard-skipping dispatcher, and the import surface."""
import os
import re
import textwrap

import pytest
import torch

import depyf
from support import REPO, run_python


LOG_SCRIPT = textwrap.dedent('''
    import torch, depyf

    def f(x):
        return torch.sin(x) + 1

    def toy_example(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    depyf.install()
    torch.compile(f, backend="eager")(torch.randn(3))
    torch.compile(toy_example, backend="eager")(torch.randn(10), torch.randn(10))
    depyf.uninstall()
    torch._dynamo.reset()
    torch.compile(f, backend="eager")(torch.randn(4))
''')


def _logged_block(stderr, header):
    """The lines torch's logger printed for one depyf record (its prefix stripped)."""
    out, inside = [], False
    for line in stderr.splitlines():
        m = re.match(r"^V\d+ [\d:.]+ \d+ (\S+):\d+\] \[[^]]*\] \[__bytecode\] ?(.*)$", line)
        if inside and (m is None or not m.group(1).endswith("logging_hook.py")):
            break
        if inside and m.group(2).strip():
            out.append(m.group(2))
        inside = inside or (m is not None and m.group(2) == header)
    return out


def test_install_logs_decompiled_code_through_torch_logging(tmp_path):
    script = tmp_path / "log_script.py"
    script.write_text(LOG_SCRIPT)
    proc = run_python([str(script)], env={"TORCH_LOGS": "+bytecode"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.count("depyf: decompiled transformed code of f:") == 1, proc.stderr[-3000:]
    quiet = run_python([str(script)])
    assert "depyf: decompiled" not in quiet.stderr
    # the readable text of the dump, not the raw decompilation (48 lines, 32 __temp names)
    toy = _logged_block(proc.stderr, "depyf: decompiled transformed code of toy_example:")
    text = "\n".join(toy)
    assert toy and toy[0] == "def toy_example(a, b):", proc.stderr[-3000:]
    assert len(toy) <= 10, text
    assert len(set(re.findall(r"__temp_\d+", text))) <= 2, text
    assert re.search(r"graph_out_0 = __compiled_fn_\d+\(a, b\)\n", text), text  # no uuid suffix
    assert "record_pregraph_bytecode" not in text
    compile(text, "<logged>", "exec")


LOG_SESSION_SCRIPT = textwrap.dedent('''
    import sys, torch, depyf

    def f(x):
        return torch.sin(x) + 1

    with depyf.prepare_debug(sys.argv[1], log_bytecode=True):
        torch.compile(f, backend="eager")(torch.randn(3))
''')


def test_prepare_debug_log_bytecode(tmp_path):
    script = tmp_path / "log_session.py"
    script.write_text(LOG_SESSION_SCRIPT)
    proc = run_python([str(script), str(tmp_path / "dump")], env={"TORCH_LOGS": "+bytecode"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "depyf: decompiled __transformed_code_0_for_f (__transformed_code_0_for_f.py)" in proc.stderr, proc.stderr[-3000:]


class Doubler(depyf.optimization.TorchCompileWrapperWithCustomDispatcher):
    def __init__(self):
        super().__init__(backend="eager")

    def forward(self, x):
        return x * 2 + 1


def test_dispatcher_records_swaps_and_restores():
    torch._dynamo.reset()
    m = Doubler()
    try:
        x = torch.randn(3)
        assert torch.equal(m(x), x * 2 + 1)
        assert len(m.compiled_codes) == 1
        original = Doubler.forward.__code__
        with m.dispatch_to_code(0):
            assert Doubler.forward.__code__ is m.compiled_codes[0]
            assert torch.equal(m.forward(x), x * 2 + 1)
        assert Doubler.forward.__code__ is original
        with pytest.raises(RuntimeError):
            with m.dispatch_to_code(0):
                raise RuntimeError("boom")
        assert Doubler.forward.__code__ is original  # restored even on an exception
    finally:
        m.remove_hook()
    torch._dynamo.reset()
    m2_codes = len(m.compiled_codes)
    torch.compile(Doubler.forward, backend="eager")(m, torch.randn(5))
    assert len(m.compiled_codes) == m2_codes  # the removed hook records nothing more
    m.remove_hook()  # idempotent


def test_import_without_torch_gives_clear_error(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
    code = (
        "import depyf, depyf.optimization as o\n"
        "for make in (lambda: depyf.prepare_debug('x'), lambda: type('M', (o.TorchCompileWrapperWithCustomDispatcher,), {})()):\n"
        "    try:\n"
        "        make()\n"
        "    except ImportError as e:\n"
        "        print('ERR', type(e).__name__, e)\n"
    )
    proc = run_python(["-c", code],
                      env={"PYTHONPATH": str(tmp_path) + os.pathsep + REPO})
    assert proc.stdout.count("ERR TorchNotAvailableError") == 2, proc.stdout + proc.stderr
