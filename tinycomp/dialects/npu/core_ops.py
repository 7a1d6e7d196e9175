"""npu: buffers, where a core is, and the scalar unit's reads and writes of a buffer.

* ``npu.alloc``: a buffer at a fixed byte ``offset`` in an on-chip space, as Ascend C's
  ``TPipe::InitBuffer`` places queues and buffers in UB or L1. Two allocs may overlap
  (that is how memory is reused); the simulator checks the end against the preset's
  buffer size and the offset against the 32-byte alignment.
* ``npu.block_idx`` / ``npu.block_num``: which AI core (block) runs this and how many
  run the kernel (``GetBlockIdx``, ``GetBlockNum``); ``npu.sub_block_idx`` /
  ``npu.sub_block_num``: which vector core of its AI core, and how many per AI core
  (``GetSubBlockIdx``, ``GetTaskRatio``). All four are ``index`` and pure.
* ``npu.get_value`` / ``npu.set_value``: the scalar unit reads or writes one element of
  a buffer (``LocalTensor::GetValue`` / ``SetValue``), on pipe ``S``.

::

    %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<2048xf16, "ub">
    %b = "npu.block_idx"() : () -> index
    %v = "npu.get_value"(%ub, %i) : (memref<2048xf16, "ub">, index) -> f16

>>> from tinycomp.dialects.npu.spaces import space
>>> from tinycomp.ir import MemRefType, f16
>>> alloc = AllocOp.build(MemRefType((2048,), f16, memory_space=space("UB")), offset=4096)
>>> print(alloc)
%0 = "npu.alloc"() {offset = 4096 : i64} : () -> memref<2048xf16, "ub">
"""

from __future__ import annotations

from tinycomp.dialects.npu.base import NpuOp, check_index, check_space, int_attr
from tinycomp.dialects.npu.spaces import ON_CHIP_SPACES, space_of
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.type_helpers import byte_size
from tinycomp.ir.types import IndexType, MemRefType, Type, i64, index
from tinycomp.ir.values import Value

__all__ = [
    "AllocOp", "BlockIdxOp", "BlockNumOp", "GetValueOp", "SetValueOp", "SubBlockIdxOp",
    "SubBlockNumOp",
]  # fmt: skip


class AllocOp(NpuOp):
    """``%b = "npu.alloc"() {offset = N : i64} : () -> memref<LxT, "s">``."""

    name = "npu.alloc"
    num_operands = 0
    num_results = 1
    is_pure = True

    @classmethod
    def build(cls, type: MemRefType, offset: int) -> AllocOp:
        """A buffer of ``type`` at byte ``offset`` of its space."""
        return cls([], [type], {"offset": IntegerAttr(offset, i64)})

    @property
    def offset(self) -> int:
        """The first byte, from the start of the space."""
        return int_attr(self, "offset")

    @property
    def space(self) -> str:
        """``"UB"``, ``"L1"``... ."""
        return space_of(self.result.type) or "?"

    @property
    def nbytes(self) -> int:
        """The buffer's size in bytes."""
        memref = self.result.type
        return byte_size(memref) or 0

    def verify_op(self) -> None:
        memref = self.result.type
        where = space_of(memref)
        if where not in ON_CHIP_SPACES:
            raise self.error(f"expected a memref in an on-chip npu space, got {memref}")
        if len(memref.shape) != 1 or memref.shape[0] is None or memref.shape[0] < 1:
            raise self.error(f"expected a 1-D buffer of a static length, got {memref}")
        if self.offset < 0:
            raise self.error(f"expected an offset >= 0, got {self.offset}")


class _PositionOp(NpuOp):
    num_operands = 0
    num_results = 1
    is_pure = True

    @classmethod
    def build(cls) -> _PositionOp:
        """The op, giving an ``index``."""
        return cls([], [index])

    def verify_op(self) -> None:
        if not isinstance(self.result.type, IndexType):
            raise self.error(f"expected an index result, got {self.result.type}")


class BlockIdxOp(_PositionOp):
    """``%b = "npu.block_idx"() : () -> index``: this AI core's block, 0..block_num-1."""

    name = "npu.block_idx"


class BlockNumOp(_PositionOp):
    """``%n = "npu.block_num"() : () -> index``: the blocks of the launch."""

    name = "npu.block_num"


class SubBlockIdxOp(_PositionOp):
    """``%s = "npu.sub_block_idx"() : () -> index``: 0 or 1 on the two vector cores of
    a MIX 1:2 kernel, 0 everywhere else."""

    name = "npu.sub_block_idx"


class SubBlockNumOp(_PositionOp):
    """``%r = "npu.sub_block_num"() : () -> index``: 2 on a vector core of a MIX 1:2
    kernel, 1 everywhere else (Ascend C's ``GetTaskRatio``)."""

    name = "npu.sub_block_num"


class GetValueOp(NpuOp):
    """``%v = "npu.get_value"(%buffer, %i)``: the scalar unit reads ``buffer[i]``."""

    name = "npu.get_value"
    num_operands = 2
    num_results = 1
    effects = (reads(0),)

    @classmethod
    def build(cls, buffer: Value, position: Value) -> GetValueOp:
        """Read ``buffer[position]``."""
        return cls([buffer, position], [buffer.type.element_type])

    def verify_op(self) -> None:
        check_space(self, self.operands[0], "the buffer", ON_CHIP_SPACES)
        check_index(self, self.operands[1], "the position")
        element: Type = self.operands[0].type.element_type
        if self.result.type != element:
            raise self.error(f"expected the result to be {element}, got {self.result.type}")


class SetValueOp(NpuOp):
    """``"npu.set_value"(%buffer, %i, %v)``: the scalar unit writes ``buffer[i] = v``."""

    name = "npu.set_value"
    num_operands = 3
    num_results = 0
    effects = (writes(0),)

    @classmethod
    def build(cls, buffer: Value, position: Value, value: Value) -> SetValueOp:
        """Write ``value`` to ``buffer[position]``."""
        return cls([buffer, position, value], [])

    def verify_op(self) -> None:
        check_space(self, self.operands[0], "the buffer", ON_CHIP_SPACES)
        check_index(self, self.operands[1], "the position")
        element: Type = self.operands[0].type.element_type
        if self.operands[2].type != element:
            raise self.error(f"expected the value to be {element}, got {self.operands[2].type}")
