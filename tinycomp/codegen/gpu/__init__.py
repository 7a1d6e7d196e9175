"""GPU code generation: PTX and AMDGPU code from gpu-level IR, in-process through LLVM.

The same LLVM emitter as for the CPU (``tinycomp.codegen.llvm``), with a GPU target's
hooks and the emitters of the gpu-level ops. The pieces, in reading order:

* ``gpu_hooks``, ``nvptx_hooks``, ``amdgpu_hooks``: the targets: triples, data layouts,
  address spaces (global 1, shared 3, private 0 on NVPTX and 5 on AMDGPU), the kernel
  keyword, convergent calls, and the intrinsics of thread ids, barriers and shuffles;
* ``device_function``, ``device_module``: ``gpu.func`` as an LLVM kernel (the ABI,
  shared buffers as address-space-3 globals, private buffers as allocas) and
  ``emit_device_llvm``, the driver;
* ``emit_gpu``, ``emit_nvvm``, ``emit_atomic``: one file per group of ops (ids,
  barrier, shuffles; NVIDIA's warp ops; atomics); float4 accesses are the shared
  ``vector.load``/``vector.store`` emitters, aligned by ``GPUHooks.vector_alignment``;
* ``machine_code``: ``ptx``, ``amdgpu_assembly``, ``amdgpu_object`` through llvmlite;
* ``ptxas``: ``ptxas_report``, what NVIDIA's assembler says about registers and spills.

>>> from tinycomp.ir import parse
>>> text = ptx(parse('''gpu.module @m {
...   gpu.func @sync() kernel {
...     gpu.barrier
...     gpu.return
...   }
... }'''))
>>> [line.strip() for line in text.splitlines() if "bar.sync" in line]
['bar.sync \\t0;']
"""

from tinycomp.codegen.gpu import (  # noqa: F401  (importing registers the emitters)
    emit_atomic,
    emit_gpu,
    emit_nvvm,
)
from tinycomp.codegen.gpu.amdgpu_hooks import AMDGPU_ARCHES, AMDGPUHooks
from tinycomp.codegen.gpu.device_module import emit_device_llvm
from tinycomp.codegen.gpu.gpu_hooks import GPUHooks
from tinycomp.codegen.gpu.machine_code import (
    amdgpu_assembly,
    amdgpu_object,
    gpu_target_machine,
    optimized_module,
    ptx,
)
from tinycomp.codegen.gpu.nvptx_hooks import NVPTX_ARCHES, NVPTXHooks
from tinycomp.codegen.gpu.ptxas import (
    KernelResources,
    PtxasReport,
    ptxas_report,
    ptxas_unavailable,
)

__all__ = [
    "AMDGPU_ARCHES",
    "AMDGPUHooks",
    "GPUHooks",
    "KernelResources",
    "NVPTX_ARCHES",
    "NVPTXHooks",
    "PtxasReport",
    "amdgpu_assembly",
    "amdgpu_object",
    "emit_device_llvm",
    "gpu_target_machine",
    "optimized_module",
    "ptx",
    "ptxas_report",
    "ptxas_unavailable",
]
