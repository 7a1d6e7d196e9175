"""The compiler driver: ``tinycomp.compile`` runs the whole pipeline.

* ``options``: ``CompileOptions``, every choice the pipeline makes, explicit;
* ``stages``: the named stages and the passes each one runs;
* ``targets``: the table of targets (``register_target``), each with its strategies and
  backend; ``builtin_targets``: ``interp`` and ``cpu``; ``gpu_targets``: ``gpu-sim``;
* ``compile``: the driver; ``program``: ``CompiledProgram``, what it returns;
* ``errors``: ``CompileError``.
"""

from tinycomp.compiler import builtin_targets as builtin_targets
from tinycomp.compiler import gpu_targets as gpu_targets
from tinycomp.compiler.compile import compile
from tinycomp.compiler.errors import CompileError
from tinycomp.compiler.options import CompileOptions
from tinycomp.compiler.program import CompiledProgram
from tinycomp.compiler.stages import STAGES
from tinycomp.compiler.targets import TARGETS, Strategy, Target, register_target

__all__ = [
    "STAGES",
    "TARGETS",
    "CompileError",
    "CompileOptions",
    "CompiledProgram",
    "Strategy",
    "Target",
    "compile",
    "register_target",
]
