"""tinycomp: a teaching kit for GPU/NPU compiler engineering.

The entry points a chapter starts from:

>>> import tinycomp
>>> module = tinycomp.parse('''
... func.func @double(%x: f32) -> f32 {
...   %y = arith.addf %x, %x : f32
...   return %y : f32
... }''')
>>> module.verify()
>>> print(module)
module {
  func.func @double(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
}
>>> float(tinycomp.interpret(module, 1.5, entry="double"))
3.0

``tinycomp.gpu`` holds the CUDA-style kernel DSL and ``launch``, which runs a kernel on
the simulated GPU; ``tinycomp.tile`` the Triton-style tile DSL (``@tile.kernel``, launched
over a grid of programs); ``tinycomp.npu`` the Ascend-C-style kernel DSL and ``launch`` on
the simulated Da Vinci NPU.
"""

import tinycomp.dialects  # registers every dialect with the parser  # noqa: F401
from tinycomp import gpu, npu, tile
from tinycomp.compiler import CompileError, CompileOptions, compile
from tinycomp.frontend import TensorSpec, TraceError, trace
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import parse
from tinycomp.passes import PassManager
from tinycomp.rewrite import RewritePattern, apply_patterns_greedily

__version__ = "0.1.0"

__all__ = [
    "CompileError",
    "CompileOptions",
    "InterpreterError",
    "PassManager",
    "RewritePattern",
    "TensorSpec",
    "TraceError",
    "__version__",
    "apply_patterns_greedily",
    "compile",
    "gpu",
    "interpret",
    "npu",
    "parse",
    "tile",
    "trace",
]
