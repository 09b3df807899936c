"""The decompiler: a code object back to source text that is proven to do the same.

The folders are the stages, in the order data flows through them::

    depyf/bytecode/   versions   every per-version fact and opcode table (shared with the
                                 verifier and the torch layer)
                      exctable   the one exception-table parser (3.11+)
                      raw        co_code read directly; one disassembly per code object
                                 (linear on 3.8-3.10, whose dis is quadratic)
    flow/             instructions  normalize(code): one ``Instr`` per instruction (a table
                                    of per-family expanders), jump targets resolved,
                                    exception entries (``ranges``: one table for every
                                    version; ``opsets``: which opcodes jump, test, end)
                      cfg           basic blocks, jump and exception edges
                      exits         the compiler's copied exit blocks joined
                      owners        whose handler code a block is part of (for exits)
                      dominance     dominators; postdominator trees (where branches meet),
                                    built once per CFG and question kind
    structure/        emitter    the driver: ``function_body`` -> ``seq`` walks blocks from
                                 an entry to a stop block, runs each block's instructions on
                                 the executor, and at a block's end hands the jump to the
                                 family that builds its statement:
                      conditions tests, and/or, chained comparisons, value branches
                      branches   if statements (where the arms meet, which arm is the body)
                      waiting    if statements run while values wait on the stack
                      loops      for / async for / while (and the compiled forms of while)
                      withs      with / async with
                      trys       try/except/finally, except* (what a handler's code shows)
                      matches    match statements, found on the instructions by ``patterns``
                      analysis   loop bodies, handler kinds, regions: questions about the CFG
                      context    what ends a sequence, what break/continue mean
    symbolic/         markers    values and pseudo statements that are not yet source
                                 (a function not yet made, a with's exit call): leaf module
                      exprs      the ast builders every stage shares: leaf module
                      numbers    float and complex constants as expressions the compiler
                                 folds back to the same bits (signed zeros, inf, nan)
                      executor   the stack machine: run loop, constants, temporaries;
                                 ``op_<OPNAME>`` handlers in mixins by family:
                                 loads_stores, operators, calls, flow_ops; stackops: every
                                 take from the stack (too few values: a Mismatch)
                      generics   PEP 695 type parameters (3.12+); type_params: the executor
                                 of the hidden type-params function (run by the session)
    rewrite/          rules      ``fix``: the ordered local clean-ups of every statement list
                      copies     finally-body and with-exit copies stripped
                      clauses    handler code read back as except clauses (``build_try``)
                      idioms     asserts, while forms, trailing continue, joined returns
                      bodies     ``finish_body``: implicit returns, tails into else
                      tree       small shared questions on statement lists
                      comprehensions, mangling, signature, bookkeeping (what the compiler
                                 adds to class and module bodies; global/nonlocal, bare
                                 annotations, the yield of a generator that lost them all)
    output/           printer    ast -> text
                      prove      recompile the text in the original's scope and ask the
                                 equivalence checker (``depyf.equivalence``)

Around the stages::

    api          decompile(obj), Decompiler(code).decompile()/to_ast(): the public entries
    session      DecompileSession: one decompilation and every code object nested in it
    standalone   comprehension, lambda and class-body code decompiled on its own
    modules      decompile_module, decompile_pyc
    facts        what one stage learned about an ast node and a later one needs (``Fact``)
    mismatch     ``Mismatch``: "this reading does not fit", internal only

The calls for ``decompile(f)``::

    api.Decompiler.decompile             with public_errors: the only way out is a
     |                                   DecompilationError (errors.py)
     +-- for reading in READINGS:        default, copied tails flipped, temporaries
          +-- session.make_def(FuncMarker(code))     (standalone.*_form for nested kinds)
          |    +-- body_of(code)
          |         +-- flow.normalize -> instrs, exception entries
          |         +-- _statements: the ladder (tails joined one way, the other, temps)
          |         |    +-- structure.Emitter(code, instrs, entries, symbolic.Executor)
          |         |         +-- flow.CFG, flow.dominance
          |         |         +-- seq: per block executor.run(instrs, stack, out)
          |         |         |    +-- nested code: session.make_def / make_lambda /
          |         |         |        make_comprehension / make_class / lazy_expression
          |         |         |        (back into body_of, same bindings and temp names)
          |         |         +-- families build if/for/while/with/try/match statements
          |         |              (rewrite.clauses for except clauses and try bodies)
          |         +-- rewrite.bodies.finish_body, rewrite.bookkeeping (declarations)
          +-- output.printer.unparse -> text
          +-- output.prove.prove(code, text) -> Verdict: proven text is returned;
              none proven: UnprovenError (or, asked for, the text marked unproven)

How stages talk: through return values (statements, stacks) and, for what the tree cannot
say, ``facts`` (``Fact.IMPLICIT`` on a return the compiler added, ``Fact.CLASS_DEF`` on a
``__build_class__`` call, ``Fact.OWN_LINE`` for the printer ...): one declared dict per
node, never private attributes. ``Mismatch`` is raised where a reading does not fit
(executor, structure, rewrite, printer, prove's recompile) and caught where another
reading can be tried: a family tries a value branch then a statement branch, the
session's ladder, ``Decompiler``'s ``READINGS``; what gets past all of them reaches
``api.public_errors`` and becomes ``UnsupportedInstruction`` (no handler) or
``UnsupportedShape`` (the readings tried); any other exception out of a stage is an
``InternalError``.
"""
from ..errors import DecompilationError
from .api import Decompiler, decompile

__all__ = ["Decompiler", "decompile", "DecompilationError"]
