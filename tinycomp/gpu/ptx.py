"""A kernel as a real NVIDIA toolchain sees it: LLVM IR, PTX, and what ``ptxas`` says.

``to_ptx(kernel, args, preset="a100")`` goes the way ``nvcc`` would, in-process:

1. specialise the kernel to the arguments and clean the IR up as ``launch`` does
   (``canonicalize, cse, loop-invariant-code-motion``); with ``fmad=True`` (nvcc's
   default, ``--fmad=true``) every float add, subtract and multiply may be contracted
   into a fused multiply-add (``fastmath<contract>``, LLVM's ``contract`` flag): PTX's
   ``fma.rn.f32``, the FFMA the simulator counts; with ``unroll=True`` every ``scf.for``
   with constant bounds and at most 64 iterations is fully unrolled
   (``scf-for-full-unroll``), as ``nvcc -O3`` unrolls such loops ("by default, the
   compiler unrolls small loops with a known trip count", the CUDA C++ Programming Guide
   on ``#pragma unroll``): a per-thread array indexed by their induction variables then
   has constant indices, and LLVM keeps it in registers instead of a stack frame in
   local memory (the simulator counts the code that way too: ``emitted_code.py``, rules
   2 and 4); ``math.exp``, ``log``, ``tanh`` and ``erf`` become their polynomials in arith
   ops (``math-polynomial-approximation``, at most 1.1 ulp): LLVM's NVPTX backend has no
   lowering of its own for ``llvm.exp``, ``llvm.log`` or ``llvm.tanh`` (it stops the whole
   process with "no libcall available for fexp") and leaves ``erff`` an external call
   ptxas cannot resolve; nvcc calls its own math library (libdevice's ``__nv_expf``)
   instead. ``prepared_for_ptx`` is this step;
2. emit LLVM IR for NVPTX (``tinycomp.codegen.gpu``: kernels as ``ptx_kernel``, shared
   memory in address space 3, barriers and shuffles as ``convergent`` intrinsic calls),
   let LLVM optimise it and print PTX for the preset's architecture (``sm_80`` for the
   A100, ``sm_86`` for the RTX A6000, ``sm_90`` for the H100);
3. where ``ptxas`` is on PATH, assemble the PTX: its report (registers per thread,
   spills, static shared memory, stack frame) is what the occupancy calculator should use
   in place of the register estimate (``launch(..., registers="ptxas")`` does).

On a machine without ``ptxas`` (most laptops; the ``nvidia-cuda-nvcc`` wheel provides one)
step 3 is skipped and ``PtxKernel.note`` says why.

>>> import numpy as np
>>> from tinycomp import gpu
>>> @gpu.kernel
... def double(x):
...     i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
...     x[i] = 2.0 * x[i]
>>> compiled = gpu.to_ptx(double, [np.zeros(64, np.float32)])
>>> compiled.arch, ".entry double(" in compiled.ptx
('sm_80', True)
>>> [line.split()[0] for line in compiled.lines("ld.global", "st.global")]
['ld.global.b32', 'st.global.b32']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tinycomp.codegen.gpu import (
    NVPTX_ARCHES,
    KernelResources,
    NVPTXHooks,
    emit_device_llvm,
    ptx,
    ptxas_report,
    ptxas_unavailable,
)
from tinycomp.frontend.simt import Kernel
from tinycomp.gpu.cleanup import cleaned_once, cleaned_up
from tinycomp.ir import OpaqueAttr, Operation
from tinycomp.passes.math_approximation import MathApproximationPass
from tinycomp.passes.unroll import FullUnrollPass
from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.targets.gpu_sim.simulator import find_kernel

__all__ = [
    "CONTRACTIBLE",
    "PtxKernel",
    "allow_contraction",
    "fully_unrolled",
    "prepared_for_ptx",
    "preset_arch",
    "ptx_kernel",
    "to_ptx",
]


@dataclass(frozen=True)
class PtxKernel:
    """One kernel compiled to PTX (see the module docstring)."""

    kernel: str
    arch: str
    llvm: str
    """The LLVM IR tinycomp wrote, before LLVM optimised it."""
    ptx: str
    resources: KernelResources | None
    """What ``ptxas -v`` reports for the kernel, or ``None`` (``note`` says why)."""
    note: str | None = None

    def lines(self, *needles: str) -> list[str]:
        """The PTX instructions that contain any of ``needles``, stripped."""
        return [
            line.strip()
            for line in self.ptx.splitlines()
            if any(needle in line for needle in needles) and not line.strip().startswith("//")
        ]

    def __str__(self) -> str:
        if self.resources is None:
            said = f"no ptxas report ({self.note})"
        else:
            r = self.resources
            said = (
                f"ptxas: {r.registers} registers, {r.spill_stores} bytes spill stores, "
                f"{r.shared_bytes} bytes shared, {r.stack_frame} bytes stack"
            )
        return f"@{self.kernel} for {self.arch}: {len(self.ptx.splitlines())} lines of PTX; {said}"


def preset_arch(preset: str | GpuPreset) -> str:
    """The PTX architecture of a preset's GPU (the closest tinycomp emits).

    >>> preset_arch("h100"), preset_arch("a6000"), preset_arch("classroom")
    ('sm_90', 'sm_86', 'sm_80')
    """
    major, minor = lookup_preset(preset).compute_capability
    arch = f"sm_{major}{minor}"
    if arch in NVPTX_ARCHES:
        return arch
    older = [a for a in NVPTX_ARCHES if int(a[3:]) <= major * 10 + minor]
    return max(older, key=lambda a: int(a[3:])) if older else "sm_80"


CONTRACTIBLE = frozenset(["arith.addf", "arith.subf", "arith.mulf"])
"""The float ops nvcc's ``--fmad=true`` lets the compiler fuse into a multiply-add."""


def allow_contraction(module: Operation) -> Operation:
    """A copy of ``module`` whose float adds, subtracts and multiplies carry
    ``fastmath<contract>`` (their other fast-math flags kept).

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%a: f32) -> f32 { %b = arith.mulf %a, %a : f32  return %b : f32 }")
    >>> print(allow_contraction(m).body.first_op.entry_block.ops[0])
    %b = arith.mulf %a, %a fastmath<contract> : f32
    """
    copy = module.clone()
    for op in copy.walk():
        if op.name not in CONTRACTIBLE:
            continue
        old = op.attributes.get("fastmath")
        words = str(old).partition("<")[2].rstrip(">").split(",") if old is not None else []
        flags = [w.strip() for w in words if w.strip() not in ("", "none", "contract")]
        op.attributes["fastmath"] = OpaqueAttr(f"#arith.fastmath<{','.join([*flags, 'contract'])}>")
    return copy


def fully_unrolled(module: Operation) -> Operation:
    """A copy of ``module`` after ``scf-for-full-unroll``: its loops with constant bounds
    and at most ``UNROLL_LIMIT`` (64) iterations written out, the copies folded.

    >>> from tinycomp.ir import parse
    >>> m = parse('''gpu.module @kernels { gpu.func @k(%o: memref<2xf32>) kernel {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %c2 = arith.constant 2 : index
    ...   %x = arith.constant 1.0 : f32
    ...   scf.for %i = %c0 to %c2 step %c1 {
    ...     memref.store %x, %o[%i] : memref<2xf32>
    ...   }
    ...   gpu.return } }''')
    >>> [str(op) for op in fully_unrolled(m).walk() if op.name == "memref.store"]
    ['memref.store %x, %o[%c0] : memref<2xf32>', 'memref.store %x, %o[%c1] : memref<2xf32>']
    """
    copy = module.clone()
    FullUnrollPass().run(copy)
    return copy


def prepared_for_ptx(
    module: Operation, *, clean: bool = True, fmad: bool = True, unroll: bool = True
) -> Operation:
    """Step 1 on gpu IR: a copy of ``module`` cleaned up (unless ``clean=False``), its
    float adds and multiplies contractible (``fmad``), its small constant loops unrolled
    (``unroll``) and its ``exp/log/tanh/erf`` expanded into arith ops.

    >>> from tinycomp.ir import parse
    >>> m = parse('''gpu.module @kernels { gpu.func @k(%x: memref<4xf32>) kernel {
    ...   %t = gpu.thread_id  x
    ...   %v = memref.load %x[%t] : memref<4xf32>
    ...   %e = math.exp %v : f32
    ...   memref.store %e, %x[%t] : memref<4xf32>
    ...   gpu.return } }''')
    >>> sorted({op.name for op in prepared_for_ptx(m).walk() if op.name.startswith("math.")})
    ['math.floor']
    """
    prepared = cleaned_up(module) if clean else module.clone()
    if fmad:
        prepared = allow_contraction(prepared)
    if unroll:
        prepared = fully_unrolled(prepared)
    MathApproximationPass().run(prepared)
    return prepared


def ptx_kernel(
    module: Operation, name: str, arch: str, *, opt_level: int = 3, assemble: bool = True
) -> PtxKernel:
    """Steps 2 and 3 for prepared gpu IR whose one kernel is ``@name``: its LLVM IR, its
    PTX for ``arch`` and, when ``assemble`` and ptxas is on PATH, ptxas's report.

    >>> from tinycomp.ir import parse
    >>> m = parse("gpu.module @kernels { gpu.func @k() kernel { gpu.return } }")
    >>> compiled = ptx_kernel(m, "k", "sm_90", assemble=False)
    >>> compiled.arch, compiled.note
    ('sm_90', 'not assembled (assemble=False)')
    """
    llvm_text = emit_device_llvm(module, NVPTXHooks(arch)).text
    text = ptx(module, arch=arch, opt_level=opt_level)
    note = ptxas_unavailable() if assemble else "not assembled (assemble=False)"
    resources = None
    if note is None:
        report = ptxas_report(text, arch)
        resources = report.kernels.get(name) if report is not None else None
        if resources is None:
            note = f"ptxas reported no kernel named {name}"
    return PtxKernel(name, arch, llvm_text, text, resources, note)


def to_ptx(
    kernel: Kernel | Operation,
    args: Sequence[Any],
    preset: str | GpuPreset = "a100",
    *,
    arch: str | None = None,
    opt_level: int = 3,
    assemble: bool = True,
    clean: bool = True,
    fmad: bool = True,
    unroll: bool = True,
) -> PtxKernel:
    """Compile ``kernel`` (specialised to ``args``) to PTX for ``arch`` (default: the
    preset's), and assemble it with ``ptxas`` when ``assemble`` and ptxas is on PATH.
    ``clean=False`` takes gpu IR as it is (``launch`` passes the copy it cleaned).
    ``unroll=True`` fully unrolls the small constant loops first, as ``nvcc -O3`` does
    (see the module docstring); ``unroll=False`` leaves that to LLVM, which unrolls less.
    Neither changes ``kernel`` or the IR it is given."""
    arch = arch or preset_arch(preset)
    if isinstance(kernel, Kernel):
        module = prepared_for_ptx(
            cleaned_once(kernel.specialize(*args)), clean=False, fmad=fmad, unroll=unroll
        )
    else:
        module = prepared_for_ptx(kernel, clean=clean, fmad=fmad, unroll=unroll)
    name = find_kernel(module).attributes["sym_name"].value
    return ptx_kernel(module, name, arch, opt_level=opt_level, assemble=assemble)
