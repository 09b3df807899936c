"""Facts about CPython bytecode shared by every part of depyf (decompiler, equivalence
checker, stdlib round trip, torch layer): the exception table parser and the per-version
opcode facts live here, once."""
