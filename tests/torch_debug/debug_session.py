"""A script run under a debugger by the debug() tests: prepare_debug, then debug()."""
import sys

import torch

import depyf
from workloads import toy_example


def main(f):
    torch.manual_seed(0)
    outs = [f(torch.randn(10), torch.randn(10)) for _ in range(4)]
    return torch.stack(outs)


def main_grad(f):
    """With a backward pass (AOTAutograd then makes Forward and Backward graphs)."""
    torch.manual_seed(0)
    grads = []
    for _ in range(4):
        a = torch.randn(10, requires_grad=True)
        f(a, torch.randn(10)).sum().backward()
        grads.append(a.grad)
    return torch.stack(grads)


if __name__ == "__main__":
    dump, backend = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "stand-in":
        # the hand-written decompilation of toy_example's frame (test_replacement.py), so
        # that breaking in a transformed-code file is tested before the decompiler lands
        from depyf.torch_debug import transformed_code
        from test_replacement import TOY_MAIN, TOY_RESUME, stand_in_decompiler

        transformed_code.Decompiler = stand_in_decompiler(TOY_MAIN, only="toy_example", resume_template=TOY_RESUME)
    run = main_grad if "grad" in sys.argv[3:] else main
    f = torch.compile(toy_example, backend=backend)
    with depyf.prepare_debug(dump):
        first = run(f)
    with depyf.debug():
        second = run(f)
    print("DEBUG-SESSION-DONE", torch.equal(first, second), flush=True)
