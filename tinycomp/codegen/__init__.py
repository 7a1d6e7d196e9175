"""Code generation: tinycomp IR to native code through LLVM.

* ``llvm``: the LLVM IR emitter, target-agnostic (``emit_llvm``, ``register_emitter``);
* ``cpu``: the host CPU: parse, verify, optimize and JIT with llvmlite (``jit``), call
  on numpy arrays, show the assembly and count its hot loop; ``compile_for_cpu``, the
  CPU target's backend in ``tinycomp.compile``;
* ``errors``: ``CodegenError``, the one exception of this layer.

>>> import numpy as np
>>> module = jit('''func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
...   %ax = arith.mulf %a, %x : f32
...   %r = arith.addf %ax, %y : f32
...   return %r : f32
... }''')
>>> float(module["axpy"](2.0, 3.0, 1.0))
7.0
"""

from tinycomp.codegen.cpu import CpuModule, jit
from tinycomp.codegen.cpu.program import CpuProgram, compile_for_cpu
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm import emit_llvm, register_emitter

__all__ = [
    "CodegenError",
    "CpuModule",
    "CpuProgram",
    "compile_for_cpu",
    "emit_llvm",
    "jit",
    "register_emitter",
]
