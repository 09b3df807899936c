# The seed README's debugging example: dump with prepare_debug, then step through the
# dumped files with debug(). Run it under a debugger (or plainly: debug() pauses in pdb;
# set breakpoints, e.g. `b dump_src_dir/__transformed_code_0_for_toy_example.py:<line>`,
# then `c`). PYTHONBREAKPOINT=0 runs it without pausing.
import torch
from torch import _dynamo as torchdynamo
from typing import List

@torch.compile
def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b

def main():
    for _ in range(100):
        toy_example(torch.randn(10), torch.randn(10))

if __name__ == "__main__":
    import depyf
    with depyf.prepare_debug("./dump_src_dir"):
        main()
    # surround the code you want to debug inside `with depyf.debug()`
    with depyf.debug():
        main()
