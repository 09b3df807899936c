"""The decompiler pipeline, one module per stage:

bytecode -> ``instructions`` (one normalized record per instruction, per-version adapter in
``versions``) -> ``cfg`` (basic blocks, jump and exception edges) -> ``structure``
(if/loop/try/with regions) -> ``symbolic`` (stack execution into ``ast`` nodes) ->
``printer`` (ast -> source text). ``api`` ties the stages together.
"""
