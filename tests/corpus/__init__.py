"""The semantic round-trip corpus: small functions with example inputs.

Each ``*.py`` file here (except ``_harness.py``) is one topic; ``tests/test_semantic_roundtrip.py``
decompiles every ``@case`` function, executes the output and compares its behaviour with
the original. A file whose syntax needs a newer Python declares ``# min-python: 3.X`` in
its first lines; the runner reads that line without compiling the file.
"""
