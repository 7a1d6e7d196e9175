"""tile: the memory edges of a tile program, ``tile.load`` (a gather) and ``tile.store``
(a masked scatter), as Triton's ``tt.load`` and ``tt.store``.

A buffer is a flat ``memref<?xT>``; a tile of *element offsets* (a tensor of integers)
says which elements each lane of the tile touches. An optional ``i1`` mask of the same
shape switches lanes off: a masked-off lane neither reads nor writes, and a load gives
``other`` there. Both ops print in MLIR's generic form::

    %t = "tile.load"(%x, %offsets, %mask, %other)
        : (memref<?xf32>, tensor<128xi32>, tensor<128xi1>, f32) -> tensor<128xf32>
    "tile.store"(%out, %offsets, %t, %mask)
        : (memref<?xf32>, tensor<128xi32>, tensor<128xf32>, tensor<128xi1>) -> ()

Operands: load ``[buffer, offsets]`` or ``[buffer, offsets, mask, other]`` (``other``
a scalar of the element type, or a tensor shaped like the result); store ``[buffer,
offsets, value]`` or ``[buffer, offsets, value, mask]``. Which form an op has is told by
its operand count.

>>> from tinycomp.ir import DYNAMIC, Block, MemRefType, RankedTensorType, f32, i32
>>> x, offsets = Block([MemRefType((DYNAMIC,), f32), RankedTensorType((4,), i32)]).arguments
>>> load = LoadOp.build(x, offsets)
>>> print(load.result.type, load.mask)
tensor<4xf32> None
"""

from __future__ import annotations

from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import is_integer
from tinycomp.ir.types import IndexType, MemRefType, RankedTensorType, Type, i1
from tinycomp.ir.values import Value

__all__ = ["LoadOp", "StoreOp"]


def _check_buffer(op: Operation) -> MemRefType:
    """The flat buffer operand's type; an error unless it is a 1-D memref."""
    buffer_type = op.operands[0].type
    if not isinstance(buffer_type, MemRefType) or len(buffer_type.shape) != 1:
        raise op.error(f"expected a 1-D memref as the buffer (operand #0), got {buffer_type}")
    return buffer_type


def _check_offsets(op: Operation) -> RankedTensorType:
    """The offsets operand's type; an error unless it is a tensor of integers."""
    offsets_type = op.operands[1].type
    ok = isinstance(offsets_type, RankedTensorType) and (
        is_integer(offsets_type.element_type) or isinstance(offsets_type.element_type, IndexType)
    )
    if not ok:
        raise op.error(f"expected a tensor of integer offsets (operand #1), got {offsets_type}")
    return offsets_type


def _check_mask(op: Operation, mask: Value, shape: tuple[int, ...]) -> None:
    """An error unless ``mask`` is an ``i1`` tensor of ``shape``."""
    expected = RankedTensorType(shape, i1)
    if mask.type != expected:
        raise op.error(f"expected the mask to be {expected} (the offsets' shape), got {mask.type}")


class LoadOp(Operation):
    """Gather a tile: ``%t = "tile.load"(%buffer, %offsets[, %mask, %other])``;
    ``t[i] = buffer[offsets[i]]`` where the mask is on, ``other`` where it is off."""

    name = "tile.load"
    num_operands = None
    num_results = 1
    num_regions = 0
    num_successors = 0
    effects = (reads(0),)

    @classmethod
    def build(
        cls, buffer: Value, offsets: Value, mask: Value | None = None, other: Value | None = None
    ) -> LoadOp:
        """Load ``buffer[offsets]``; with ``mask``, ``other`` is required."""
        if (mask is None) != (other is None):
            raise ValueError("tile.load: give both mask and other, or neither")
        element = buffer.type.element_type
        result = RankedTensorType(tuple(offsets.type.shape), element)
        operands = [buffer, offsets] if mask is None else [buffer, offsets, mask, other]
        return cls(operands, [result])

    @property
    def buffer(self) -> Value:
        """The flat ``memref<?xT>`` read."""
        return self.operands[0]

    @property
    def offsets(self) -> Value:
        """The element offset of each lane."""
        return self.operands[1]

    @property
    def mask(self) -> Value | None:
        """Which lanes read (``None``: all)."""
        return self.operands[2] if len(self.operands) == 4 else None

    @property
    def other(self) -> Value | None:
        """What a masked-off lane gives."""
        return self.operands[3] if len(self.operands) == 4 else None

    def verify_op(self) -> None:
        if len(self.operands) not in (2, 4):
            raise self.error(
                "expected operands (buffer, offsets) or (buffer, offsets, mask, other), "
                f"got {len(self.operands)} operands"
            )
        buffer_type = _check_buffer(self)
        offsets_type = _check_offsets(self)
        expected = RankedTensorType(tuple(offsets_type.shape), buffer_type.element_type)
        if self.result.type != expected:
            raise self.error(
                f"expected the result to be {expected} (the offsets' shape, the buffer's "
                f"element type), got {self.result.type}"
            )
        if self.mask is None:
            return
        _check_mask(self, self.mask, tuple(offsets_type.shape))
        other_type: Type = self.other.type
        if other_type not in (buffer_type.element_type, expected):
            raise self.error(
                f"expected 'other' to be {buffer_type.element_type} or {expected}, got {other_type}"
            )


class StoreOp(Operation):
    """Scatter a tile: ``"tile.store"(%buffer, %offsets, %value[, %mask])``;
    ``buffer[offsets[i]] = value[i]`` where the mask is on."""

    name = "tile.store"
    num_operands = None
    num_results = 0
    num_regions = 0
    num_successors = 0
    effects = (writes(0),)

    @classmethod
    def build(
        cls, buffer: Value, offsets: Value, value: Value, mask: Value | None = None
    ) -> StoreOp:
        """Store ``value`` to ``buffer[offsets]`` (where ``mask`` is on)."""
        operands = [buffer, offsets, value] + ([mask] if mask is not None else [])
        return cls(operands, [])

    @property
    def buffer(self) -> Value:
        """The flat ``memref<?xT>`` written."""
        return self.operands[0]

    @property
    def offsets(self) -> Value:
        """The element offset of each lane."""
        return self.operands[1]

    @property
    def value(self) -> Value:
        """The tile written."""
        return self.operands[2]

    @property
    def mask(self) -> Value | None:
        """Which lanes write (``None``: all)."""
        return self.operands[3] if len(self.operands) == 4 else None

    def verify_op(self) -> None:
        if len(self.operands) not in (3, 4):
            raise self.error(
                "expected operands (buffer, offsets, value) or (buffer, offsets, value, "
                f"mask), got {len(self.operands)} operands"
            )
        buffer_type = _check_buffer(self)
        offsets_type = _check_offsets(self)
        expected = RankedTensorType(tuple(offsets_type.shape), buffer_type.element_type)
        if self.value.type != expected:
            raise self.error(
                f"expected the value to be {expected} (the offsets' shape, the buffer's "
                f"element type), got {self.value.type}"
            )
        if self.mask is not None:
            _check_mask(self, self.mask, tuple(offsets_type.shape))
