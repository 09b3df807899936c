"""The opcode sets of normalized instructions (``instructions.normalize``): which jump,
which test, which end a block, and the marks of a folded jump back (leaf module)."""

JUMPS = {"JUMP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
         "POP_JUMP_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
         "FOR_ITER", "SEND", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH",
         "CALL_FINALLY", "SETUP_CLEANUP", "JUMP_IF_NOT_EXC_MATCH", "END_ASYNC_FOR_TARGET"}
COND_JUMPS = {"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
              "POP_JUMP_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"}
# instructions after which control never falls through to the next one
TERMINATORS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"}
# ``extra`` of a conditional jump back to a loop head that stands for falling off the end
# of the loop body (see ``instructions._fold_backward_cond_jumps``)
IMPLICIT_BACK = "implicit-back"
# ... and of one that stands for a `continue` statement of its own after the test
EXPLICIT_BACK = "explicit-back"
