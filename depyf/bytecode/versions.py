"""Per-Python-version facts, in one place.

Everything that differs between CPython 3.8 and 3.13 bytecode and that later stages need
is answered here, as tables or small functions keyed by the running version. The rest of
the decompiler works on the normalized opnames produced by ``instructions.normalize``.
"""
import sys

PY = sys.version_info[:2]

# Unconditional jumps, whatever their direction or encoding.
JUMP_ALIASES = {
    "JUMP_ABSOLUTE", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
    "JUMP", "JUMP_NO_INTERRUPT",
}

# 3.11 encodes the direction into conditional jumps; later stages only care about the test.
COND_JUMP_ALIASES = {
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
}

# Instructions that do nothing when they run (padding, caches, interpreter bookkeeping,
# 3.11's PRECALL). Every consumer (decompiler, bytecode comparison, equivalence checker)
# skips them.
NO_EFFECT = frozenset([
    "CACHE", "EXTENDED_ARG", "NOP", "RESUME", "RESUME_CHECK", "PRECALL", "ENTER_EXECUTOR",
    "NOT_TAKEN",
])

# 3.11+ frame set-up of closures: cells made and free variables copied at the start.
CELL_SETUP = frozenset(["MAKE_CELL", "COPY_FREE_VARS"])
# 3.11+ keep cells among the fast locals: LOAD_FAST of a cell or free variable pushes
# the cell itself (3.13 compiles LOAD_CLOSURE to it; Dynamo builds closures so).
LOAD_FAST_OF_A_CELL_IS_THE_CELL = PY >= (3, 11)

# Instructions with no effect on the decompiled program (the above, plus ones whose
# meaning the decompiler reads from their neighbours: GEN_START, TO_BOOL before a test,
# END_FOR after an exhausted loop).
DROPPED = NO_EFFECT | CELL_SETUP | {"GEN_START", "TO_BOOL", "END_FOR"}

# 3.13 super-instructions: two instructions fused when they share a line.
SUPER_INSTRUCTIONS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}

# 3.12+: FOR_ITER's target is END_FOR (3.13: END_FOR; POP_TOP, 3.14: END_FOR; POP_ITER),
# which an exhausted iterator skips. Normalized FOR_ITER jumps past them with the iterator
# popped, as before 3.12.
END_FOR_THEN_POP_TOP = PY >= (3, 13)
# 3.13+: TO_BOOL converts a value to bool (before a test or `not`: bookkeeping)
HAS_TO_BOOL = PY >= (3, 13)

# Up to 3.10 each binary/in-place operator has its own opcode; 3.11+ uses BINARY_OP(arg).
OLD_BINARY_OPS = {
    "ADD": "+", "SUBTRACT": "-", "MULTIPLY": "*", "MATRIX_MULTIPLY": "@",
    "TRUE_DIVIDE": "/", "FLOOR_DIVIDE": "//", "MODULO": "%", "POWER": "**",
    "LSHIFT": "<<", "RSHIFT": ">>", "AND": "&", "OR": "|", "XOR": "^",
}

UNARY_OPS = {"UNARY_NEGATIVE": "-", "UNARY_POSITIVE": "+", "UNARY_INVERT": "~", "UNARY_NOT": "not"}

# Jumps that leave their operand on the stack when taken (3.8-3.11 value-context and/or).
JUMP_OR_POP = {"JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"}

# 3.8: a try/finally whose finally body has return/break/continue first pushes a None
# (LOAD_CONST None right before SETUP_FINALLY) that keeps the stack balanced for them;
# normalization turns it into PUSH_FINALLY_PLACEHOLDER, which is no value of the source.
FINALLY_PLACEHOLDER = PY == (3, 8)

# 3.8 uses COMPARE_OP for these; 3.9+ has IS_OP / CONTAINS_OP.
COMPARE_SPECIAL = {"exception match"}

# Order in which a LOAD_GLOBAL/LOAD_ATTR with the "push NULL" bit pushes the NULL.
NULL_AFTER_CALLABLE = PY >= (3, 13)

# Where the "push NULL / method" flag lives in the oparg of LOAD_GLOBAL / LOAD_ATTR.
LOAD_GLOBAL_NULL_BIT = PY >= (3, 11)
LOAD_ATTR_METHOD_BIT = PY >= (3, 12)

# Reads of one variable by name, of any scope (those a version lacks never occur).
NAME_LOADS = frozenset(["LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_FAST_BORROW",
                        "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_CLASSDEREF",
                        "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_FROM_DICT_OR_DEREF"])

# Exception handling model: block stack (SETUP_*) up to 3.10, exception table from 3.11.
HAS_EXCEPTION_TABLE = PY >= (3, 11)

# 3.11+ covers the code of every handler with a cleanup entry of its own, so the handler
# covering a block tells which handler's code it is; up to 3.10 a finally body (both of
# its copies) runs uncovered, and only the control flow tells them apart.
HANDLER_CODE_COVERED = HAS_EXCEPTION_TABLE

# Up to 3.9 `while c:` tests c at the loop head and jumps back unconditionally; 3.10+
# compiles it as `if c: <do ... while c>` (a `while True:` head that tests and leaves is
# an `if c: break` there); 3.14 tests at the head again.
WHILE_TESTS_AT_HEAD = PY < (3, 10) or PY >= (3, 14)

# 3.12+ lay exception handlers out after all other code ("cold" blocks); 3.11 keeps them
# right after the try body (and its else clause), before the code after the statement.
HANDLERS_AT_END = PY >= (3, 12)

# 3.12+ compiles `return <constant>` as one RETURN_CONST. A LOAD_CONST + RETURN_VALUE pair
# there is a return the compiler pasted after the constant: it was an arm of a conditional
# expression (`return a if c else None`) whose shared exit block was copied into each arm.
RETURN_CONST_FUSED = (3, 12) <= PY < (3, 14)  # 3.14: no RETURN_CONST any more

# Up to 3.9 unreachable code stays in place: the peephole optimizer only drops what follows
# a `return` up to the next jump target. So the jump that ends an if body before its
# `else` survives a `raise` (and a `return` that a jump target follows); 3.10+ removes
# all unreachable code.
KEEPS_DEAD_JUMPS = PY < (3, 10)

# 3.8 raises a failed assert's AssertionError through LOAD_GLOBAL (3.9+: its own
# LOAD_ASSERTION_ERROR): `assert c` is then the same code as `if not c: raise AssertionError`.
ASSERT_LOADS_GLOBAL = PY < (3, 9)

# 3.10+ copies a small exit block (`return <constant>`, the implicit `return None` too)
# into the blocks that jump to it: each arm that falls off a function's end gets its own
# `return None`, and a copy can follow a try body's POP_BLOCK where the source returns
# after the try. Up to 3.9 a `return None` inside an arm was written.
EXIT_BLOCKS_COPIED = PY >= (3, 10)

# 3.10 also copies a whole block that starts with a POP_BLOCK (no line of its own) and
# runs straight into a return, to each of its predecessors: the exit call of a with (or a
# finally body) and the code after the statement, up to that return, follow each way
# the body falls out (both arms of an `if` that ends it, a try body and its clauses).
POP_BLOCK_EXITS_COPIED = PY == (3, 10)

# Up to 3.10 `return <constant>` pops the blocks of the try statements around it
# (POP_BLOCK) before it loads the constant, so the path leaves a try body to a block of its
# own, `LOAD_CONST; RETURN_VALUE`, as the body's end may do (3.11+: no POP_BLOCK).
CONST_RETURN_AFTER_POP_BLOCK = PY < (3, 11)

# 3.12 inlines list/set/dict comprehensions into the enclosing function.
INLINED_COMPREHENSIONS = PY >= (3, 12)

# 3.13 replaced MAKE_FUNCTION flags with SET_FUNCTION_ATTRIBUTE.
MAKE_FUNCTION_FLAGS = {0x01: "defaults", 0x02: "kwdefaults", 0x04: "annotations", 0x08: "closure"}

# Intrinsics of CALL_INTRINSIC_1 (3.12+) that map onto plain operations.
INTRINSIC_1 = {
    "INTRINSIC_PRINT": "print", "INTRINSIC_IMPORT_STAR": "import_star",
    "INTRINSIC_STOPITERATION_ERROR": "stopiteration_error",
    "INTRINSIC_ASYNC_GEN_WRAP": "async_gen_wrap", "INTRINSIC_UNARY_POSITIVE": "unary_positive",
    "INTRINSIC_LIST_TO_TUPLE": "list_to_tuple",
}


def compare_op_name(argval, argrepr):
    """COMPARE_OP's operator as source text (3.13 adds a 'bool(...)' wrapper in argrepr)."""
    text = argval if isinstance(argval, str) else argrepr
    if text.startswith("bool(") and text.endswith(")"):
        text = text[5:-1]
    return text

# Where SEND (3.11+ `await` / `yield from` loop) leaves the result: 3.12+ keeps the
# iterator below it for END_SEND to remove.
SEND_KEEPS_ITER = PY >= (3, 12)

# 3.12+ has no backward conditional jumps: `if not c: continue`-like code becomes
# POP_JUMP_IF_X over a JUMP_BACKWARD. Normalization folds the pair back into one
# backward conditional jump, as 3.11 writes it, so loops look alike on every version.
FOLD_BACKWARD_COND_JUMPS = PY >= (3, 12)

INVERSE_COND = {
    "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE", "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE",
}

# `match` statements exist from 3.10; there MATCH_CLASS / MATCH_KEYS also push a bool
# (3.11+ push the extracted values or None, tested with POP_JUMP_IF_NONE).
HAS_MATCH = PY >= (3, 10)
MATCH_PUSHES_BOOL = PY == (3, 10)

# Where a GET_AWAITABLE comes from: 3.11+ says so in its oparg (0: an `await` expression,
# 1: __aenter__, 2: __aexit__); up to 3.10 the instructions just before it tell.
_WITH_AWAIT_AFTER = (("BEFORE_ASYNC_WITH",), ("WITH_CLEANUP_START",), ("WITH_EXCEPT_START",),
                     ("DUP_TOP", "DUP_TOP", "CALL_FUNCTION"))


def is_await_expression(ins, prev_opnames):
    """Whether GET_AWAITABLE ``ins`` (raw ``dis`` instruction, after ``prev_opnames``)
    comes from an ``await`` (or async comprehension), not from an ``async with``."""
    if PY >= (3, 11):
        return ins.arg == 0
    return not any(tuple(prev_opnames[-len(p):]) == p for p in _WITH_AWAIT_AFTER)

# 3.9 and 3.10 copy a finally body onto every way out of its try (3.8 calls it with
# CALL_FINALLY; 3.11+ mark the copies through the exception table).
FINALLY_COPIED_PER_EXIT = (3, 9) <= PY < (3, 11)
# 3.9+ copy a finally body onto the way out of a `return` (3.8 calls the one body): the
# value waits on the stack through the copies of nested finally bodies and with exits.
RETURN_THROUGH_FINALLY_COPIES = PY >= (3, 9)

# -- how the interpreter runs the bytecode (the equivalence checker's machine model) ---
# 3.12+ plain LOAD_FAST only reads variables the compiler proved bound (LOAD_FAST_CHECK
# otherwise); up to 3.11 every LOAD_FAST checks.
LOAD_FAST_CHECKS = PY < (3, 12)

# An exhausted FOR_ITER jumps past its target: 3.12 skips END_FOR, 3.13 END_FOR and the
# POP_TOP after it (the iterator is popped by FOR_ITER itself); 3.14 skips END_FOR only
# and leaves the iterator to the POP_ITER after it (``EXHAUSTED_FOR_ITER_POPS``).
FOR_ITER_SKIPS = (1 if PY >= (3, 14) else 2 if PY >= (3, 13) else 1 if PY >= (3, 12)
                  else 0)
END_FOR_POPS_TWO = PY == (3, 12)

# 3.11+ calls go through a NULL slot beside the callable (PUSH_NULL, LOAD_GLOBAL's bit),
# CALL_FUNCTION_EX included.
CALL_PUSHES_NULL = PY >= (3, 11)

# Up to 3.10 MAKE_FUNCTION pops the qualified name; up to 3.12 its argument says which
# of defaults/kwdefaults/annotations/closure are on the stack (3.13:
# SET_FUNCTION_ATTRIBUTE sets them one by one).
QUALNAME_ON_STACK = PY < (3, 11)
MAKE_FUNCTION_TAKES_FLAGS = PY < (3, 13)

# SEND that finishes leaves the receiver below the result for END_SEND (3.12+).
SEND_KEEPS_RECEIVER = SEND_KEEPS_ITER

# 3.10 starts a generator frame with the first send()'s None on the stack (GEN_START).
GENERATOR_STARTS_WITH_VALUE = PY == (3, 10)

# -- printing (not bytecode, but a per-version fact all the same) ------------------------
# ``ast.unparse`` exists from 3.9 (3.8 prints through the ``astunparse`` backport); the
# torch layer's readable rewrites need it and are skipped without it.
HAS_AST_UNPARSE = PY >= (3, 9)
# ``ast.unparse``'s printer class and its precedence table: ``ast._Unparser`` and
# ``ast._Precedence`` on 3.9-3.13; 3.14 moved both into the private module
# ``_ast_unparse`` (as ``Unparser`` and ``_Precedence``). The printer subclasses it.
AST_UNPARSER = (None if PY < (3, 9) else ("ast", "_Unparser", "_Precedence") if PY < (3, 14)
                else ("_ast_unparse", "Unparser", "_Precedence"))
# 3.8's ast wraps a subscript's index in ``ast.Index`` (and slices in ``ast.ExtSlice``).
SUBSCRIPT_INDEX_WRAPPED = PY < (3, 9)

# -- structuring (decompiler/structure): opname groups over normalized instructions -----
# (The conditional jumps are ``flow.instructions.COND_JUMPS``, the block ends without a
# fall-through ``flow.instructions.TERMINATORS``.)

# Ends of a block that the emitter handles itself instead of running them symbolically.
BLOCK_CONTROL = frozenset(["JUMP", "FOR_ITER", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "SEND",
                           "YIELD_VALUE_JUMP"])

# Instructions that raise: a written `raise`, and the compiler's re-raise.
RAISES = frozenset(["RAISE_VARARGS", "RERAISE"])

# How a handler passes its exception on when nothing caught it (3.8: END_FINALLY).
HANDLER_RERAISES = frozenset(["RERAISE", "END_FINALLY"])

# What a way out of a loop may run when it only cleans up on its way to where the
# enclosing construct ends (drops values and blocks, then jumps).
CLEANUP_ONLY = frozenset(["POP_TOP", "POP_EXCEPT", "POP_BLOCK", "JUMP"])

# What a `return None` of its own may run first, unlike the implicit one after a statement.
NOT_BEFORE_IMPLICIT_RETURN = frozenset([
    "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP", "POP_EXCEPT", "DELETE_FAST",
    "DELETE_NAME", "DELETE_DEREF", "POP_BLOCK", "WITH_EXCEPT_START", "CALL_FINALLY",
    "END_FINALLY"])

# 3.8: block-stack set-ups whose END_FINALLY closes inside an enclosing finally body.
SETUPS_ENDING_IN_END_FINALLY = frozenset(["SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"])

# Up to 3.10: the clean-up handler of `except E as name` starts by binding None to the
# name and deleting it (then re-raises), one triple per kind of variable.
EXC_NAME_CLEANUPS = frozenset([("LOAD_CONST", "STORE_FAST", "DELETE_FAST"),
                               ("LOAD_CONST", "STORE_NAME", "DELETE_NAME"),
                               ("LOAD_CONST", "STORE_DEREF", "DELETE_DEREF")])

# -- reading co_code without dis (``bytecode/raw.py``) -----------------------------------
# 3.10 counts jump arguments in instructions (2 bytes), before that in bytes.
JUMP_ARG_UNIT = 2 if PY >= (3, 10) else 1
# Up to 3.9 an EXTENDED_ARG prefix survives an argument-less instruction (never emitted).
EXTENDED_ARG_SURVIVES_NO_ARG = PY < (3, 10)
# 3.10's dis resolves absolute jumps too (argval: the target, argrepr "to <offset>");
# 3.8/3.9's leave them the raw argument (already in bytes there) and no text.
ABSOLUTE_JUMP_ARGREPR = PY >= (3, 10)
# -- how ``dis`` resolves an argument (``bytecode/reader.py`` gives the same records) --
# 3.11+ has backward jumps (``JUMP_BACKWARD*``: the argument counts back).
HAS_BACKWARD_JUMPS = PY >= (3, 11)
# 3.12+ relative jumps count from after the instruction's inline caches.
JUMP_AFTER_CACHES = PY >= (3, 12)
# 3.13 writes a jump's argrepr as ``to L<n>`` (n: 1 + rank of the target among all
# jump targets), earlier ones as ``to <offset>``.
JUMP_REPR_LABELS = PY >= (3, 13)
# 3.11's ``dis`` resolves only LOAD_CONST's constant (KW_NAMES gets ``dis.UNKNOWN``).
DIS_RESOLVES_ONLY_LOAD_CONST = PY == (3, 11)
# 3.11+ names locals, cells and free variables through the code's own table
# (``_varname_from_oparg``); up to 3.10 by ``co_varnames`` and ``co_cellvars + co_freevars``.
VARNAME_FROM_OPARG = PY >= (3, 11)
# 3.11+ ``dis`` reads the argument as a signed 32-bit number.
SIGNED_ARG = PY >= (3, 11)
# How COMPARE_OP's argument holds the operator (3.12: arg >> 4; 3.13: arg >> 5, and the
# bit 16 asks for a bool result, shown as ``bool(<op>)``).
COMPARE_ARG_SHIFT = 5 if PY >= (3, 13) else 4 if PY >= (3, 12) else 0
COMPARE_BOOL_BIT = 16 if PY >= (3, 13) else 0
# LOAD_SUPER_ATTR (3.12+) keeps the name in arg >> 2.
LOAD_SUPER_ATTR_SHIFT = 2
# 3.13 writes the NULL of LOAD_GLOBAL / LOAD_ATTR after the name (``x + NULL``), earlier
# versions before it (``NULL + x``).
NULL_REPR_AFTER = PY >= (3, 13)
# 3.13: ``dis``'s ``starts_line`` is a flag and ``line_number`` the line (None where the
# instruction has no line); earlier ``starts_line`` is the line of an instruction that
# starts one, else None.
STARTS_LINE_IS_FLAG = PY >= (3, 13)
# Where a code object says it came from, besides its name, file and first line: 3.10 adds
# the line table (co_lnotab becomes derived from it) and 3.11 the qualified name.
CODE_LOCATION_FIELDS = (("co_qualname", "co_linetable") if PY >= (3, 11) else
                        ("co_linetable",) if PY >= (3, 10) else ("co_lnotab",))

# -- 3.14: reading its bytecode (bytecode/reader.py) -------------------------------------
# 3.14 adds a super-instruction of two borrowed local reads (LOAD_FAST_BORROW: a
# LOAD_FAST that skips the reference count, which the decompiler reads as LOAD_FAST).
if PY >= (3, 14):
    SUPER_INSTRUCTIONS["LOAD_FAST_BORROW_LOAD_FAST_BORROW"] = ("LOAD_FAST_BORROW",
                                                                "LOAD_FAST_BORROW")
# Jumps whose argument counts backward (3.11+); 3.14's END_ASYNC_FOR takes the offset of
# its SEND loop as a backward jump argument (``dis`` writes ``from L<n>``).
# (3.11's backward conditional jumps, POP_JUMP_BACKWARD_IF_*, count backward too.)
BACKWARD_JUMPS = frozenset(["JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"]
                           + [name for name in COND_JUMP_ALIASES if "_BACKWARD_" in name]
                           + (["END_ASYNC_FOR"] if PY >= (3, 14) else []))
JUMP_REPR_FROM = frozenset(["END_ASYNC_FOR"])
# 3.14's ``dis`` names the argument of these in argrepr: LOAD_COMMON_CONSTANT's object
# (a class by its name), LOAD_SPECIAL's method name, IS_OP's / CONTAINS_OP's operator.
DIS_NAMES_SPECIAL_ARGS = PY >= (3, 14)

# -- 3.14: the verifier (equivalence/normalize.py, the equivalence checker) -------------------
# 3.14 marks a docstring with the code flag CO_HAS_DOCSTRING (``inspect.CO_HAS_DOCSTRING``);
# without it ``co_consts[0]`` is just the first constant the compiler met (also one that
# folding or LOAD_SMALL_INT left unreferenced). Before 3.14 a function's ``co_consts[0]``
# is its docstring or None. 0: no such flag.
DOCSTRING_FLAG = 0x4000000 if PY >= (3, 14) else 0
# 3.14 flags a function defined right inside a class body (CO_METHOD): the same text
# compiled anywhere else differs in that bit. 0: no such flag.
METHOD_FLAG = 0x8000000 if PY >= (3, 14) else 0
# 3.14 loads the ints 0..255 with LOAD_SMALL_INT (the value is the argument), no constant.
SMALL_INT_LOADS = frozenset(["LOAD_SMALL_INT"] if PY >= (3, 14) else [])
# 3.14's borrowing local reads, as the plain reads they behave like (the compiler uses
# them where it proved the frame keeps the object alive: a reference count saved).
BORROWED_LOADS = ({"LOAD_FAST_BORROW": "LOAD_FAST",
                   "LOAD_FAST_BORROW_LOAD_FAST_BORROW": "LOAD_FAST_LOAD_FAST"}
                  if PY >= (3, 14) else {})
# An exhausted FOR_ITER pops the iterator itself (up to 3.13; 3.14: POP_ITER does).
EXHAUSTED_FOR_ITER_POPS = PY < (3, 14)
# 3.14 has no BINARY_SUBSCR: ``x[k]`` is BINARY_OP with this argument (``NB_SUBSCR``).
NB_SUBSCR = 26 if PY >= (3, 14) else None
# 3.14's LOAD_COMMON_CONSTANT pushes one of these builtins (by its argument; they are
# the objects themselves, whatever the globals say) and LOAD_SPECIAL looks up one of
# these special methods on the type of the top of the stack (pushing method and self):
# ``dis._common_constants`` / ``dis._special_method_names`` there.
COMMON_CONSTANTS = (("AssertionError", "NotImplementedError", "tuple", "all", "any")
                    if PY >= (3, 14) else ())
SPECIAL_METHODS = (("__enter__", "__exit__", "__aenter__", "__aexit__")
                   if PY >= (3, 14) else ())
# 3.14 calls a with-statement's ``__exit__`` as LOAD_SPECIAL left it: the method and its
# self (or NULL) sit below the exception-table protocol's values, 5 and 4 deep at
# WITH_EXCEPT_START (3.11-3.13: the bound ``__exit__`` alone, 4 deep).
WITH_EXIT_HAS_SELF = PY >= (3, 14)
# A `return` from a with's body puts its value below what the exit call needs: 3.14
# swaps it below the method and its self (SWAP 3; SWAP 2), earlier versions below the
# bound exit (SWAP 2; up to 3.10 ROT_TWO, normalized to it).
WITH_RETURN_SWAPS = (3, 2) if WITH_EXIT_HAS_SELF else (2,)
# 3.14's CALL_FUNCTION_EX takes no argument: the slot for ``**kwargs`` is always there
# (PUSH_NULL when the call has none); up to 3.13 the argument's bit 1 says.
CALL_FUNCTION_EX_KWARGS_SLOT = PY >= (3, 14)

# -- 3.14: the decompiler (flow/instructions.py, flow/spelled.py, structure) -------------
# What pops a for loop's iterator (after END_FOR, and on a `break`/`return` out of the
# loop): 3.14 has POP_ITER for it, earlier versions POP_TOP.
ITER_POP = "POP_ITER" if PY >= (3, 14) else "POP_TOP"
# 3.14 spells some older instructions differently; normalization
# (``decompiler/flow/instructions.py`` and ``flow/spelled.py``) restores the 3.13 form:
# LOAD_FAST_BORROW is a LOAD_FAST (BORROWED_LOADS), LOAD_SMALL_INT a LOAD_CONST of its
# argument, BINARY_OP NB_SUBSCR a BINARY_SUBSCR, POP_ITER a POP_TOP.
# LOAD_COMMON_CONSTANT's objects by argrepr: AssertionError is 3.13's LOAD_ASSERTION_ERROR
# (a failed `assert`); the others load the builtin of that name.
COMMON_CONSTANT_OPS = {"AssertionError": "LOAD_ASSERTION_ERROR"}
# 3.14 replaced BEFORE_WITH / BEFORE_ASYNC_WITH by LOAD_SPECIAL: the prologue
# COPY 1; LOAD_SPECIAL <exit>; SWAP 2; SWAP 3; LOAD_SPECIAL <enter>; CALL 0 leaves
# [__exit__, manager, __enter__()] (the exit is then called as a method, CALL 3).
WITH_PROLOGUE = PY >= (3, 14)
WITH_PROLOGUE_EXITS = {"__exit__": ("__enter__", "BEFORE_WITH"),
                       "__aexit__": ("__aenter__", "BEFORE_ASYNC_WITH")}
# 3.14 inlines `all(<genexpr>)`, `any(<genexpr>)` and `tuple(<genexpr>)`: LOAD_GLOBAL f;
# COPY 1; LOAD_COMMON_CONSTANT f; IS_OP 0; POP_JUMP_IF_FALSE <call>; POP_TOP; <the loop,
# inline>; <call>: PUSH_NULL; <genexpr>; CALL 1. The loop is the same program as the call.
INLINED_BUILTIN_CALLS = frozenset(["all", "any", "tuple"]) if PY >= (3, 14) else frozenset()
# 3.14 folds a subscript's constant slice (`a[1:2]`, `a[::2, 0]`) into a slice constant;
# the decompiler writes such a constant back as slice syntax.
SLICE_CONSTANTS = PY >= (3, 14)
# The bookkeeping assignments that close a class body (and are copied into the branches
# of an if/else or try that ends it): 3.12+ ``__classdictcell__`` (a body with annotation
# scopes; 3.14 makes it for more bodies), 3.13+ ``__static_attributes__`` (before it).
CLASS_TAIL_BOOKKEEPING = frozenset((["__classdictcell__"] if PY >= (3, 12) else [])
                                   + (["__static_attributes__"] if PY >= (3, 13) else []))
# The stores that open a class body, in order, before the docstring: ``__module__ =
# __name__``, ``__qualname__ = '<qualname>'``, 3.13+ ``__firstlineno__ = <line>``.
CLASS_PROLOGUE = ("__module__", "__qualname__") + (("__firstlineno__",) if PY >= (3, 13) else ())
# 3.14 has no RETURN_CONST: `return <constant>` and a conditional expression's constant
# arm (its copy of the shared return) are both LOAD_CONST + RETURN_VALUE. A statement
# starts a line of its own; the arm's copy has none (it stays on the line of the test).
RETURN_ARM_BY_LINE = PY >= (3, 14)
# Up to 3.13 `not (a in b)` (and `is`) compiles to `a not in b` everywhere; 3.14 folds it
# so only as a value: in a test it keeps the `in` and turns the jumps around.
NOT_FOLDS_INTO_COMPARE_TESTS = PY < (3, 14)
# 3.14 evaluates a type parameter's bound/constraints/default and a type alias's value
# through a function like an ``__annotate__``: one positional ``.format`` defaulting to
# (1,), starting with ``if .format > 2: raise NotImplementedError``.
LAZY_FORMAT_PARAM = ".format" if PY >= (3, 14) else None
# 3.14 threads the jump of a kept value's test (`b and c or d`) past a later test of the
# same value that must fail, straight to the POP_TOP after it (``flow/spelled.py``
# jumps to that test again, as 3.13 does).
VALUE_TESTS_THREADED = PY >= (3, 14)
# 3.14 (loops tested at the head, as up to 3.9, but with a NOP for the line of a
# `while True:`): a NOP that a loop jumps back to right before another loop's head is
# kept as the outer loop's head.
NOP_KEEPS_LOOP_HEAD = PY >= (3, 14)
# 3.14: a `while` tested at the head with a compound test (`while a or b:`) is read by
# folding the test first (up to 3.9, which tests at the head too, such a loop is still
# read as `while True:` with an if, as before).
WHILE_HEAD_COMPOUND = PY >= (3, 14)

# -- 3.14: language features (PEP 649/749 annotations, PEP 750 t-strings) ----------------
# 3.14 evaluates annotations lazily: a function's live in an ``__annotate__`` function,
# attached with SET_FUNCTION_ATTRIBUTE 0x10; a class body stores its own as
# ``__annotate_func__`` (3.14.0 betas: ``__annotate__``), a module as ``__annotate__``.
DEFERRED_ANNOTATIONS = PY >= (3, 14)
if DEFERRED_ANNOTATIONS:
    MAKE_FUNCTION_FLAGS = dict(MAKE_FUNCTION_FLAGS)
    MAKE_FUNCTION_FLAGS[0x10] = "annotate"
ANNOTATE_STORE_NAMES = frozenset(["__annotate__", "__annotate_func__"])
# the set of the annotations under if/try/... that ran (module and class bodies): the body
# adds an annotation's index to it, ``__annotate__`` tests the index
CONDITIONAL_ANNOTATIONS = "__conditional_annotations__"
# BUILD_INTERPOLATION's argument: the conversion in arg >> 2 (0: none, 1: !s, 2: !r,
# 3: !a), a format spec on the stack when arg & 1.
INTERPOLATION_CONVERSIONS = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}
# how the compiler's ``__annotate__`` loads the NotImplementedError of its format check
# (LOAD_COMMON_CONSTANT 1: ``opcode._common_constants[1]``); no source loads it so
LOAD_NOT_IMPLEMENTED = ("LOAD_COMMON_CONSTANT", 1)
