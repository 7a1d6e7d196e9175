"""``emit_device_llvm``: the device code of a module as LLVM IR for one GPU target.

1. Take the module (parse it if it is text): a ``builtin.module`` holding
   ``gpu.module``s (what ``kernel.specialize(...)`` returns), or one ``gpu.module``.
   Host functions beside the ``gpu.module`` are not device code and are left out.
2. Start an LLVM module for the target (``NVPTXHooks``, ``AMDGPUHooks``: triple, data
   layout, address spaces, the kernel keyword, convergent calls).
3. Emit each ``gpu.func`` (``device_function.py``); its ops go through the emitter
   registry, with the gpu, nvvm and atomic emitters of this package registered.
4. Render the text, with the map from LLVM lines back to tinycomp ops.
5. As ``emit_llvm`` does: when emission fails on ops that have no source line (built by
   a pass), print and re-parse the module and emit again, so the error names a line.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.gpu import NVPTXHooks
>>> llvm = emit_device_llvm(parse('''gpu.module @m {
...   gpu.func @nothing() kernel {
...     gpu.return
...   }
... }'''), NVPTXHooks())
>>> print(llvm.text)  # doctest: +ELLIPSIS
target datalayout = "e-p6:32:32-..."
target triple = "nvptx64-nvidia-cuda"
<BLANKLINE>
define ptx_kernel void @nothing() {
entry:
  ret void
}
"""

from __future__ import annotations

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu.device_function import emit_gpu_func
from tinycomp.codegen.gpu.gpu_hooks import GPUHooks
from tinycomp.codegen.llvm.module import has_locations, with_locations
from tinycomp.codegen.llvm.registry import describe_op
from tinycomp.codegen.llvm.renderer import LLVMModule, ModuleText
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import parse

__all__ = ["device_functions", "emit_device_llvm"]


def device_functions(module: Operation) -> list[Operation]:
    """Step 1: the ``gpu.func``s of ``module``, in order.

    >>> from tinycomp.ir import parse
    >>> module = parse("gpu.module @m {\\n  gpu.func @k() kernel {\\n    gpu.return\\n  }\\n}")
    >>> [f.sym_name for f in device_functions(module)]
    ['k']
    """
    if module.name == "gpu.module":
        gpu_modules = [module]
    else:
        gpu_modules = [op for op in module.regions[0].blocks[0].ops if op.name == "gpu.module"]
    functions = []
    for gpu_module in gpu_modules:
        for op in gpu_module.regions[0].blocks[0].ops:
            if op.name != "gpu.func":
                raise CodegenError(f"{describe_op(op)}: expected only gpu.func in a gpu.module", op)
            functions.append(op)
    if not functions:
        raise CodegenError(
            f"expected a gpu.module with at least one gpu.func in the {module.name}, found none "
            "(kernel.specialize(...) makes one)"
        )
    return functions


def emit_device_llvm(module: Operation | str, hooks: GPUHooks) -> LLVMModule:
    """The LLVM IR of every ``gpu.func`` of ``module`` for ``hooks``' target (steps 1-5)."""
    if not isinstance(hooks, GPUHooks):
        raise CodegenError(f"expected GPU target hooks (NVPTXHooks, AMDGPUHooks), got {hooks!r}")
    if isinstance(module, str):
        module = parse(module)
    try:
        return _emit(module, hooks, "")
    except CodegenError:
        if has_locations(module):
            raise
        reparsed, source = with_locations(module)
        _emit(reparsed, hooks, source)  # the same error, now with source lines
        raise


def _emit(module: Operation, hooks: GPUHooks, source: str) -> LLVMModule:
    """Steps 2-4."""
    text = ModuleText(hooks)
    for func in device_functions(module):
        emit_gpu_func(text, func)
    result = text.render(source)
    result.module = module
    return result
