"""The compiler driver: ``tinycomp.compile`` runs the whole pipeline.

* ``options``: ``CompileOptions``, every choice the pipeline makes, explicit;
* ``stages``: the named stages and the passes each one runs;
* ``compile``: the driver; ``program``: ``CompiledProgram``, what it returns;
* ``errors``: ``CompileError``.
"""

from tinycomp.compiler.compile import TARGETS, compile
from tinycomp.compiler.errors import CompileError
from tinycomp.compiler.options import CompileOptions
from tinycomp.compiler.program import CompiledProgram
from tinycomp.compiler.stages import STAGES

__all__ = ["STAGES", "TARGETS", "CompileError", "CompileOptions", "CompiledProgram", "compile"]
