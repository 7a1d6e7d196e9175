"""What every GPU target tells the LLVM emitter: memories, kernels, and the SIMT intrinsics.

A GPU target is a ``TargetHooks`` (``codegen/llvm/hooks.py``) that answers a few more
questions. The gpu-level emitters (``emit_gpu.py``) ask them, so the same ``gpu.thread_id``
becomes ``llvm.nvvm.read.ptx.sreg.tid.x`` on NVIDIA and ``llvm.amdgcn.workitem.id.x`` on AMD:

1. Address spaces: a memref without a memory space is a kernel argument in *global*
   memory (1 on both targets); ``#gpu.address_space<workgroup>`` is shared memory / LDS
   (3 on both); ``#gpu.address_space<private>`` is the target's ``private_space``, the
   address space its ``alloca`` must use (0 on NVPTX, whose data layout has no ``A``
   entry, 5 on AMDGPU, whose data layout says ``A5``).
2. Kernels: ``define <kernel_prefix> void @k(...)`` for a ``gpu.func ... kernel``; device
   functions get no prefix.
3. Convergent calls: every callee whose name starts with one of ``convergent_prefixes``
   (barriers, shuffles, votes, reductions, elections) is called ``convergent``.
4. The SIMT intrinsics, one method each, implemented by the subclass: the position of a
   thread (``thread_position``), its lane (``lane_id``), the block barrier
   (``emit_barrier``) and one 32-bit shuffle (``shuffle32``).

>>> hooks = GPUHooks()
>>> hooks.address_space(None), hooks.is_convergent("llvm.nvvm.barrier0")
(1, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.hooks import TargetHooks
from tinycomp.codegen.llvm.types import element_size
from tinycomp.dialects.gpu.address_space import address_space as space_attribute
from tinycomp.ir.attributes import IntegerAttr

if TYPE_CHECKING:
    from tinycomp.codegen.llvm.registry import FunctionEmitter
    from tinycomp.ir.attributes import Attribute
    from tinycomp.ir.operation import Operation
    from tinycomp.ir.types import Type

__all__ = ["GLOBAL_SPACE", "WORKGROUP_SPACE", "GPUHooks", "POSITIONS"]

GLOBAL_SPACE = 1
"""LLVM's address space of device (global) memory on NVPTX and AMDGPU."""
WORKGROUP_SPACE = 3
"""LLVM's address space of a block's shared memory (NVPTX) / LDS (AMDGPU)."""
POSITIONS = ("thread_id", "block_id", "block_dim", "grid_dim")
"""What ``thread_position`` reads: CUDA's threadIdx, blockIdx, blockDim and gridDim."""


class GPUHooks(TargetHooks):
    """The GPU part shared by NVPTX and AMDGPU (steps 1-3); step 4 is the subclass's."""

    name = "gpu"
    """The target's name in messages (``nvptx``, ``amdgpu``)."""
    kernel_prefix = ""
    """What ``define`` is followed by for a kernel (step 2)."""
    private_space = 0
    """The address space of ``alloca`` and of ``#gpu.address_space<private>`` (step 1)."""
    convergent_prefixes: tuple[str, ...] = ()
    """Callee name prefixes that are convergent (step 3)."""
    warp_size = 32
    """Lanes per warp (NVIDIA) or wavefront (64 on AMD's CDNA GPUs)."""

    def address_space(self, memory_space: Attribute | None) -> int:
        """Step 1: the LLVM address space of a memref's memory space.

        >>> GPUHooks().address_space(space_attribute("workgroup"))
        3
        """
        spaces = {"global": GLOBAL_SPACE, "workgroup": WORKGROUP_SPACE}
        spaces["private"] = self.private_space
        if memory_space is None:
            return GLOBAL_SPACE
        for where, number in spaces.items():
            if memory_space == space_attribute(where):
                return number
        raise CodegenError(
            f"memory space {memory_space}: expected none (global memory) or "
            "#gpu.address_space<global|workgroup|private> on a GPU target"
        )

    def function_prefix(self, func_op: Operation) -> str:
        """Step 2: the kernel keyword for a kernel, nothing for a device function."""
        return f"{self.kernel_prefix} " if "gpu.kernel" in func_op.attributes else ""

    def is_convergent(self, callee: str) -> bool:
        """Step 3: whether a call of ``callee`` is convergent.

        >>> class Toy(GPUHooks):
        ...     convergent_prefixes = ("llvm.toy.barrier",)
        >>> Toy().is_convergent("llvm.toy.barrier"), Toy().is_convergent("llvm.fma.f32")
        (True, False)
        """
        return callee.startswith(self.convergent_prefixes)

    def vector_alignment(self, op: Operation, vector_type: Type) -> int:
        """The op's ``alignment``, else the whole vector's size: CUDA's ``float4``
        contract (``reinterpret_cast<float4*>(&a[i])`` needs ``&a[i]`` a multiple of 16;
        a misaligned vector access faults). LLVM's NVPTX backend emits one
        ``ld.global.v4`` only for a 16-byte aligned ``<4 x float>`` (LLVM 22 writes it
        ``ld.global.v4.b32``); aligned to 4 bytes it splits it into four scalar loads.

        >>> from tinycomp.ir import f16
        >>> from tinycomp.ir.types import VectorType
        >>> GPUHooks().vector_alignment(None, VectorType((8,), f16))
        16
        """
        attribute = op.attributes.get("alignment") if op is not None else None
        if isinstance(attribute, IntegerAttr):
            return attribute.value
        return element_size(vector_type)

    # -- step 4: the SIMT intrinsics ------------------------------------------------------
    def thread_position(self, em: FunctionEmitter, what: str, dimension: str) -> str:
        """An ``i32`` operand: ``what`` (one of ``POSITIONS``) in ``dimension`` x/y/z."""
        raise CodegenError(f"{self.name}: no {what} on this target")

    def lane_id(self, em: FunctionEmitter) -> str:
        """An ``i32`` operand: the lane of this thread in its warp or wavefront."""
        raise CodegenError(f"{self.name}: no lane id on this target")

    def emit_barrier(self, em: FunctionEmitter) -> None:
        """Wait for every thread of the block, with shared memory ordered across."""
        raise CodegenError(f"{self.name}: no block barrier on this target")

    def shuffle32(
        self, em: FunctionEmitter, mode: str, value: str, type_: str, offset: str, width: str
    ) -> tuple[str, str]:
        """``gpu.shuffle`` of one 32-bit ``value`` (``type_`` ``i32`` or ``float``) in
        ``mode`` (xor, up, down, idx) within segments of ``width`` lanes: the ``(value,
        valid)`` operands, ``valid`` an ``i1``."""
        raise CodegenError(f"{self.name}: no shuffles on this target")
