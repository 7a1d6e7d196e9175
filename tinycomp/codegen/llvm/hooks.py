"""Target hooks: the few places where LLVM IR for a CPU and for a GPU differ.

The emitter writes the same instructions for every target: a loop is a loop, an
``arith.addf`` is an ``fadd``. What changes from target to target is small and
sits at the edges, so the renderer asks a ``TargetHooks`` object about it:

1. the module header: ``target triple`` and ``target datalayout`` (``None`` leaves
   them out, and LLVM assumes its defaults);
2. address spaces: which LLVM address space a memref's memory space is (on a GPU,
   global memory is 1 and shared memory 3; on a CPU everything is 0);
3. function definitions: a calling convention or keyword in front of the name
   (``ptx_kernel`` marks an NVPTX kernel, ``amdgpu_kernel`` an AMDGPU one) and function
   attributes after the parameters (``nounwind``, ``"target-cpu"="znver5"``);
4. calls: whether a callee is ``convergent`` (barriers, shuffles and votes on a GPU:
   no transformation may make them depend on more or fewer conditions than they do);
5. the module footer: target metadata (``!nvvm.annotations`` on older NVPTX).
6. the alignment of vector loads and stores (one element on a CPU, the whole vector on
   a GPU, as CUDA's ``float4`` requires).

MLIR splits the same concerns between the LLVM dialect (``llvm.func`` with
``llvm.emit_c_interface``, ``nvvm.kernel``, address spaces on ``!llvm.ptr<3>``) and
the translation to LLVM IR; tinycomp folds them into one object per target.

A GPU target overrides a few methods, and the emitter is reused as it is:

>>> from tinycomp.ir import parse
>>> class NVPTXHooks(TargetHooks):
...     triple = "nvptx64-nvidia-cuda"
...     def address_space(self, memory_space):
...         return 3 if str(memory_space) == "#gpu.address_space<workgroup>" else 1
...     def function_prefix(self, func_op):
...         return "ptx_kernel " if "gpu.kernel" in func_op.attributes else ""
...     def is_convergent(self, callee):
...         return callee.startswith("llvm.nvvm.barrier")
>>> from tinycomp.codegen.llvm import emit_llvm
>>> module = parse('''func.func @k(%x: memref<4xf32>) attributes {gpu.kernel} {
...   return
... }''')
>>> print(emit_llvm(module, NVPTXHooks()).text.splitlines()[2])  # doctest: +NORMALIZE_WHITESPACE
define ptx_kernel void @k(ptr addrspace(1) %x.allocated, ptr addrspace(1) %x.aligned,
                          i64 %x.offset, i64 %x.size0, i64 %x.stride0) {
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.types import element_size

if TYPE_CHECKING:
    from tinycomp.ir.attributes import Attribute
    from tinycomp.ir.operation import Operation
    from tinycomp.ir.types import Type

__all__ = ["TargetHooks"]


class TargetHooks:
    """The target-agnostic defaults: no triple, address space 0, no attributes.

    >>> hooks = TargetHooks()
    >>> hooks.triple, hooks.is_convergent("llvm.nvvm.barrier0"), hooks.module_footer()
    (None, False, [])
    """

    triple: str | None = None
    """``target triple = "..."`` of the module, or ``None`` to leave it out."""
    datalayout: str | None = None
    """``target datalayout = "..."`` of the module, or ``None`` to leave it out."""

    def address_space(self, memory_space: Attribute | None) -> int:
        """The LLVM address space of a memref memory space (step 2). The default knows
        only the default memory space, 0.

        >>> TargetHooks().address_space(None)
        0
        """
        if memory_space is None:
            return 0
        raise CodegenError(
            f"memory space {memory_space}: this target has one address space; expected "
            "memrefs without a memory space"
        )

    def function_prefix(self, func_op: Operation) -> str:
        """Text between ``define`` and the return type: a calling convention or a
        kernel keyword, with a trailing space (step 3); empty by default."""
        return ""

    def function_attributes(self, func_op: Operation) -> list[str]:
        """Attributes written after a definition's parameters (step 3)."""
        return []

    def is_convergent(self, callee: str) -> bool:
        """Whether calls of ``callee`` must be marked ``convergent`` (step 4)."""
        return False

    def vector_alignment(self, op: Operation, vector_type: Type) -> int:
        """The ``align`` of a ``vector.load``/``vector.store``: one element by default
        (a CPU's unaligned ``vmovups`` is as fast as an aligned one).

        >>> from tinycomp.ir import f32
        >>> from tinycomp.ir.types import VectorType
        >>> TargetHooks().vector_alignment(None, VectorType((8,), f32))
        4
        """
        return element_size(vector_type.element_type)

    def module_footer(self) -> list[str]:
        """Lines at the end of the module: named metadata and the like (step 5)."""
        return []
