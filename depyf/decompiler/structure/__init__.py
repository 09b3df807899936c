"""Stage 3: structuring the control-flow graph into statements.

``Emitter.seq`` (``emitter.py``) walks blocks from an entry to a stop block, executing each
block symbolically (``symbolic.Executor``) and turning branches, loops and protected
regions into ``ast`` statements:

* a conditional jump becomes ``if``/``else`` whose arms end at the branches' nearest
  common postdominator (or a value-producing conditional expression when the arms only
  leave values on the stack: ``and``/``or``/ternaries/chained comparisons);
* a block targeted by a backward jump heads a loop (``for`` over FOR_ITER, else ``while``);
  jumps to the loop head or to its exit inside the body are ``continue``/``break``;
* a block covered by an exception handler starts a ``try`` (or ``with``) region; the
  handler's code is structured like any other code and then read back as except clauses.

Idioms the compiler leaves behind (with-exit calls and finally bodies copied onto every
exit path, exception-name cleanup) are emitted as pseudo statements and removed by
``rewrite``. ``patterns.py`` reads match statements from the instructions before the CFG
is built (its values and their patterns in ``match_nodes``, the symbolic run of one
case's pattern code in ``match_runner``).

Modules, one construct family each::

    emitter     Emitter: __init__, function_body, seq (the block driver), block ends
     |            (return/raise/send), the rest of a block after a with's exit call
     +-- analysis    loop latches and bodies, handler kinds, regions, CFG leaders,
     |               path questions (only raises? only jumps on?)
     +-- conditions  tests, short-circuit folding, chained comparisons, value branches
     +-- branches    if statements: where arms meet, which arm is the body, `else:` hints
     +-- waiting     if statements run while values wait on the stack below them (a
     |               finally body's copy under `return x`; Dynamo's profiler hooks)
     +-- matches     match statements placed in the block structure
     +-- loops       loop dispatch, where a loop ends, for / async for
     +-- whiles      the compiled forms of while
     +-- withs       with statements
     +-- trys        try regions (dispatch try/with), try, 3.8 try/finally
     +-- try_star    try/except*
     +-- handlers    what a handler's code shows (where clauses go on, finally or not)
    context     Ctx (what ends a sequence, what break/continue mean), Loop
    helpers     small stateless utilities; values: merging the values of two arms

Calls between families (all through ``self``): the driver calls conditions, loops,
matches and trys at a block's end; every family calls back into ``seq`` for the code
it contains; conditions -> branches (if statements) and waiting (if statements under
waiting values) -> branches; loops <-> whiles; trys -> withs; branches, loops and trys
ask handlers; everyone asks analysis.

Why mixins, not functions taking an explicit emitter: the families are one mutually
recursive algorithm (``seq`` -> ``emit_branch`` -> ``seq`` -> ``emit_loop`` -> ...). As
module functions each family would import the driver and the driver each family, an
import cycle; as mixin classes (``class Emitter(Analysis, Conditions, ...)``) the family
modules import only leaves (``context``, ``helpers``, ``values``, symbolic, bytecode) and
``emitter.py`` imports them all once, so the graph stays acyclic. The risk of mixins,
state passed implicitly through ``self`` (once ``self._enter``), is closed by declaring
every attribute in ``Emitter.__init__`` and passing per-call values as arguments.
"""
