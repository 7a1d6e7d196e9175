"""LLVM IR from loop-level tinycomp IR: the emitter, target-agnostic.

tinycomp writes LLVM IR itself, as text, the way MLIR's ``-convert-to-llvm`` +
``mlir-translate --mlir-to-llvmir`` would; real LLVM then optimizes it and makes
machine code (``tinycomp.codegen.cpu`` for the host CPU; a GPU target reuses this
package through ``TargetHooks``). The pieces, in reading order:

* ``types``, ``constants``: tinycomp types and constants as LLVM writes them;
* ``descriptor``: a memref as LLVM values (MLIR's memref descriptor and its ABI);
* ``names``, ``index_math``: fresh SSA names; address arithmetic that folds constants;
* ``renderer``, ``hooks``: module text with a line map back to tinycomp ops; the
  target's say on triples, address spaces, kernel attributes, convergent calls;
* ``registry``: ``register_emitter`` and ``FunctionEmitter``, the API every op's
  emitter is written against;
* ``control_flow``: loops and conditionals as basic blocks and phis;
* ``emit_func``, ``emit_arith``, ``emit_arith_cast``, ``emit_math``, ``emit_memref``,
  ``emit_memref_alloc``, ``emit_scf``, ``emit_affine``, ``emit_cf``: one file per
  dialect (``emit_vector`` adds the vector dialect);
* ``module``: ``emit_llvm``, the driver; ``diagnostics``: LLVM's errors in tinycomp terms.

>>> from tinycomp.ir import parse
>>> print(emit_llvm(parse('''func.func @add(%a: f32, %b: f32) -> f32 {
...   %s = arith.addf %a, %b : f32
...   return %s : f32
... }''')).text)
define float @add(float %a, float %b) {
entry:
  %s = fadd float %a, %b
  ret float %s
}
"""

from tinycomp.codegen.llvm import (  # noqa: F401  (importing registers the emitters)
    emit_affine,
    emit_arith,
    emit_arith_cast,
    emit_cf,
    emit_func,
    emit_math,
    emit_memref,
    emit_memref_alloc,
    emit_scf,
    emit_vector,
)
from tinycomp.codegen.llvm.descriptor import MemRefDescriptor
from tinycomp.codegen.llvm.hooks import TargetHooks
from tinycomp.codegen.llvm.module import emit_llvm
from tinycomp.codegen.llvm.registry import (
    EMITTERS,
    FunctionEmitter,
    register_emitter,
    supported_ops,
)
from tinycomp.codegen.llvm.renderer import LLVMModule

__all__ = [
    "EMITTERS",
    "FunctionEmitter",
    "LLVMModule",
    "MemRefDescriptor",
    "TargetHooks",
    "emit_llvm",
    "register_emitter",
    "supported_ops",
]
