"""PTX and AMDGPU machine code from gpu-level IR, in-process through LLVM (llvmlite).

What ``nvcc`` does after its front end (and ``hipcc`` for AMD), with LLVM as a library:

1. Emit LLVM IR for the target (``emit_device_llvm`` with ``NVPTXHooks(arch)`` or
   ``AMDGPUHooks(arch)``).
2. Parse and verify it; errors name the LLVM line and the tinycomp op.
3. Optimize at ``opt_level`` with LLVM's standard pipeline for that target machine
   (SROA turns the private buffers with constant indices into registers, loops are
   unrolled, address arithmetic is strength-reduced).
4. Run the backend: ``TargetMachine.emit_assembly`` is PTX text for NVPTX (which
   ``ptxas`` or the CUDA driver assembles into SASS) and AMDGPU assembly for AMD;
   ``emit_object`` is an AMDGPU code object (an ELF file).

Every emission parses the IR afresh: LLVM's backend rewrites the module it is given,
and a second emission from the same parsed module aborts the whole process.

>>> from tinycomp.ir import parse
>>> text = ptx(parse('''gpu.module @m {
...   gpu.func @k(%x: memref<4xf32>) kernel {
...     %t = gpu.thread_id  x
...     %v = memref.load %x[%t] : memref<4xf32>
...     %w = arith.addf %v, %v : f32
...     memref.store %w, %x[%t] : memref<4xf32>
...     gpu.return
...   }
... }'''), arch="sm_90")
>>> ".version 8.0" in text, ".target sm_90" in text, ".entry k(" in text
(True, True, True)
"""

from __future__ import annotations

from functools import cache

import llvmlite.binding as llvm

from tinycomp.codegen.cpu.optimize import optimize, parse_and_verify
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu.amdgpu_hooks import AMDGPUHooks
from tinycomp.codegen.gpu.device_module import emit_device_llvm
from tinycomp.codegen.gpu.gpu_hooks import GPUHooks
from tinycomp.codegen.gpu.nvptx_hooks import NVPTXHooks
from tinycomp.ir.operation import Operation

__all__ = ["amdgpu_assembly", "amdgpu_object", "gpu_target_machine", "optimized_module", "ptx"]


@cache
def _initialize() -> None:
    """Register every target LLVM was built with (NVPTX and AMDGPU among them)."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def gpu_target_machine(hooks: GPUHooks, opt_level: int = 3) -> llvm.TargetMachine:
    """A target machine for ``hooks``' triple, architecture and features.

    >>> gpu_target_machine(NVPTXHooks("sm_80")).triple
    'nvptx64-nvidia-cuda'
    """
    if opt_level not in (0, 1, 2, 3):
        raise CodegenError(f"expected an optimization level 0, 1, 2 or 3, got {opt_level!r}")
    _initialize()
    target = llvm.Target.from_triple(hooks.triple)
    return target.create_target_machine(cpu=hooks.arch, features=hooks.features, opt=opt_level)


def optimized_module(
    module: Operation | str, hooks: GPUHooks, opt_level: int = 3
) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """Steps 1-3: a freshly parsed, verified and optimized LLVM module, and its machine.

    >>> parsed, _ = optimized_module("gpu.module @m {\\n  gpu.func @k() kernel {\\n"
    ...                              "    gpu.return\\n  }\\n}", AMDGPUHooks("gfx942"))
    >>> parsed.triple
    'amdgcn-amd-amdhsa'
    """
    emitted = emit_device_llvm(module, hooks)
    machine = gpu_target_machine(hooks, opt_level)
    parsed = parse_and_verify(emitted.text, emitted)
    optimize(parsed, machine, opt_level)
    return parsed, machine


def ptx(module: Operation | str, arch: str = "sm_80", opt_level: int = 3) -> str:
    """PTX text for NVIDIA ``arch`` (``sm_80``, ``sm_90``) of every kernel in ``module``."""
    parsed, machine = optimized_module(module, NVPTXHooks(arch), opt_level)
    return machine.emit_assembly(parsed)


def amdgpu_assembly(module: Operation | str, arch: str = "gfx90a", opt_level: int = 3) -> str:
    """AMDGPU assembly for ``arch`` (``gfx90a``, ``gfx942``) of every kernel in ``module``.

    >>> text = amdgpu_assembly("gpu.module @m {\\n  gpu.func @k() kernel {\\n"
    ...                        "    gpu.return\\n  }\\n}", "gfx942")
    >>> '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"' in text
    True
    """
    parsed, machine = optimized_module(module, AMDGPUHooks(arch), opt_level)
    return machine.emit_assembly(parsed)


def amdgpu_object(module: Operation | str, arch: str = "gfx90a", opt_level: int = 3) -> bytes:
    """An AMDGPU code object (ELF) for ``arch`` of every kernel in ``module``.

    >>> amdgpu_object("gpu.module @m {\\n  gpu.func @k() kernel {\\n"
    ...               "    gpu.return\\n  }\\n}")[:4]
    b'\\x7fELF'
    """
    parsed, machine = optimized_module(module, AMDGPUHooks(arch), opt_level)
    return machine.emit_object(parsed)
