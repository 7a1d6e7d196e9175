"""A compiled tensor program's kernels as PTX (and AMDGPU code): what ``nvcc`` would make
of the ``gpu.func``s that ``tinycomp.compile(..., target="gpu-sim")`` wrote.

``gpu.to_ptx`` compiles one kernel of the DSL; a compiled program holds several (a
softmax row kernel, a GEMM, its epilogue...) beside a host function that launches them.
``compiled_ptx(program, arch)`` takes them all the same way:

1. Take the final module (``program.ir()``), or a module given as it is.
2. Prepare it once as ``to_ptx`` does (``prepared_for_ptx``): the ``nvcc -O3`` clean-up,
   multiply-adds contractible (``--fmad=true``), small constant loops unrolled, and
   ``exp``/``log``/``tanh``/``erf`` as polynomials (LLVM's GPU backends have no lowering
   of their own for them). The host function is not device code: it is left out.
3. For each kernel (``gpu.func ... kernel``) in order, a module holding it alone (with any
   device functions beside it), through LLVM to PTX for ``arch`` (``sm_80``, ``sm_86``,
   ``sm_90``) and, where ``ptxas`` is on PATH, assembled: a ``PtxKernel`` with its PTX
   and ptxas's report (registers, spills, shared memory, stack).

``compiled_amdgpu(program, arch)`` is steps 1-2 and then AMDGPU assembly (``gfx90a``,
``gfx942``) of every kernel at once.

>>> import numpy as np, tinycomp
>>> x = np.random.default_rng(0).standard_normal((4, 32)).astype(np.float32)
>>> program = tinycomp.compile(lambda x: x * 2.0 + 1.0, x, target="gpu-sim")
>>> kernels = compiled_ptx(program, "sm_90")
>>> list(kernels), kernels["main_kernel"].arch
(['main_kernel'], 'sm_90')
>>> [line.split()[0] for line in kernels["main_kernel"].lines("fma.rn")]
['fma.rn.f32']
"""

from __future__ import annotations

from typing import Any, Protocol

from tinycomp.codegen.gpu import NVPTX_ARCHES, amdgpu_assembly
from tinycomp.dialects.gpu import GPUFuncOp
from tinycomp.gpu.ptx import PtxKernel, prepared_for_ptx, ptx_kernel
from tinycomp.ir import Operation

__all__ = ["GpuProgram", "compiled_amdgpu", "compiled_ptx", "device_module_of", "kernel_names"]


class GpuProgram(Protocol):
    """What this module reads of a ``CompiledProgram``: its target and final module."""

    target: str

    def ir(self, stage: str | None = None) -> Operation: ...


def device_module_of(program: GpuProgram | Operation) -> Operation:
    """Step 1: the module of a ``gpu-sim`` program (or ``program`` itself, a module).

    >>> import numpy as np, tinycomp
    >>> x = np.ones((2, 2), np.float32)
    >>> device_module_of(tinycomp.compile(lambda x: x + x, x)).name
    Traceback (most recent call last):
    ...
    ValueError: expected a program compiled for target="gpu-sim", got one for target="interp"
    """
    if isinstance(program, Operation):
        return program
    target = getattr(program, "target", None)
    if target is None or not callable(getattr(program, "ir", None)):
        raise TypeError(
            "expected a CompiledProgram of target gpu-sim or a module, "
            f"got {type(program).__name__}"
        )
    if target != "gpu-sim":
        raise ValueError(
            f'expected a program compiled for target="gpu-sim", got one for target="{target}"'
        )
    return program.ir()


def kernel_names(module: Operation) -> list[str]:
    """The kernels (``gpu.func ... kernel``) of ``module``, in order.

    >>> from tinycomp.ir import parse
    >>> kernel_names(parse('''gpu.module @kernels {
    ...   gpu.func @a() kernel { gpu.return }
    ...   gpu.func @b() kernel { gpu.return } }'''))
    ['a', 'b']
    """
    return [op.sym_name for op in module.walk() if isinstance(op, GPUFuncOp) and op.is_kernel]


def _alone(module: Operation, name: str) -> Operation:
    """Step 3: a copy of ``module`` without the kernels other than ``@name`` (device
    functions that are not kernels stay, a kernel may call them)."""
    copy = module.clone()
    others = [
        op
        for op in copy.walk()
        if isinstance(op, GPUFuncOp) and op.is_kernel and op.sym_name != name
    ]
    for op in others:
        op.drop_all_references()
        op.detach()
    return copy


def compiled_ptx(
    program: GpuProgram | Operation,
    arch: str = "sm_80",
    *,
    opt_level: int = 3,
    assemble: bool = True,
    fmad: bool = True,
    unroll: bool = True,
) -> dict[str, PtxKernel]:
    """Every kernel of ``program`` as PTX for ``arch``, by name (steps 1-3); assembled by
    ``ptxas`` when ``assemble`` and ptxas is on PATH (``PtxKernel.note`` says why not)."""
    if arch not in NVPTX_ARCHES:
        raise ValueError(
            f"expected an NVPTX architecture ({', '.join(NVPTX_ARCHES)}), got {arch!r}"
        )
    module = device_module_of(program)
    names = kernel_names(module)
    if not names:
        raise ValueError(
            f"expected a module with gpu.func kernels, found none in the {module.name}"
        )
    prepared = prepared_for_ptx(module, fmad=fmad, unroll=unroll)
    return {
        name: ptx_kernel(_alone(prepared, name), name, arch, opt_level=opt_level, assemble=assemble)
        for name in names
    }


def compiled_amdgpu(
    program: GpuProgram | Operation, arch: str = "gfx90a", *, opt_level: int = 3, **prepare: Any
) -> str:
    """AMDGPU assembly for ``arch`` of every kernel of ``program`` (steps 1-2, then LLVM's
    AMDGPU backend); ``prepare`` goes to ``prepared_for_ptx`` (``fmad``, ``unroll``).

    >>> import numpy as np, tinycomp
    >>> x = np.ones((4, 32), np.float32)
    >>> text = compiled_amdgpu(tinycomp.compile(lambda x: x * 3.0, x, target="gpu-sim"))
    >>> ".amdhsa_kernel main_kernel" in text
    True
    """
    prepared = prepared_for_ptx(device_module_of(program), **prepare)
    return amdgpu_assembly(prepared, arch, opt_level)
