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
    # main()
    # surround the code you want to run inside `with depyf.prepare_debug`
    import logging
    import depyf
    # depyf logs where the dump is and how to open the report (INFO, logger "depyf")
    logging.basicConfig(format="%(message)s")
    logging.getLogger("depyf").setLevel(logging.INFO)
    with depyf.prepare_debug("./dump_src_dir"):
        main()
