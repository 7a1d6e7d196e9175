"""memref: reshapes that keep the data in place: ``collapse_shape`` and ``expand_shape``.

Both take a *reassociation*: for each dimension of the lower-rank type, the group of
adjacent dimensions of the higher-rank type it stands for. ``[[0, 1], [2]]`` merges
dimensions 0 and 1 of a rank-3 memref into one::

    %flat = memref.collapse_shape %A [[0, 1]] : memref<4x8xf32> into memref<32xf32>
    %grid = memref.expand_shape %flat [[0, 1]] output_shape [4, 8]
        : memref<32xf32> into memref<4x8xf32>

Syntax, reassociation and shape rules are shared with ``tensor.collapse_shape`` /
``tensor.expand_shape`` (``ReassociativeReshapeOp`` in ``reassociation.py``). What is
memref's own is the layout: the merged dimensions must be contiguous in memory, and the
result's strides follow from the source's (``memref_layout.py``).

>>> from tinycomp.ir import Block, MemRefType, f32
>>> A = Block([MemRefType((4, 8), f32)]).arguments[0]
>>> print(CollapseShapeOp.build(A, [[0, 1]]).result.type)
memref<32xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.mixed_indices import MixedIndex, split_mixed, static_or_dynamic
from tinycomp.dialects.common.reassociation import (
    ReassociativeReshapeOp,
    collapsed_shape,
    reassociation_attr,
    reassociation_groups,
)
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.dialects.memref.layout import collapsed_type, expanded_type
from tinycomp.ir.types import MemRefType, Type
from tinycomp.ir.values import Value


class _ReshapeOp(ReassociativeReshapeOp):
    """Base of memref's collapse/expand: both types must be memrefs."""

    def asm_result_names(self) -> list[str]:
        """``%collapse_shape`` / ``%expand_shape``, as MLIR names them."""
        return [self.name.removeprefix("memref.")]

    def _check_types(self) -> tuple[MemRefType, MemRefType]:
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        return source, result


class CollapseShapeOp(_ReshapeOp):
    """Merge groups of adjacent dimensions:
    ``%c = memref.collapse_shape %A [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>``."""

    name = "memref.collapse_shape"
    view_source = 0
    num_operands = 1
    inherent_attributes = ("reassociation",)

    @classmethod
    def build(
        cls, source: Value, reassociation: Sequence[Sequence[int]], result_type: Type | None = None
    ) -> CollapseShapeOp:
        """Collapse ``source``; the result type is inferred unless given."""
        if result_type is None:
            if not isinstance(source.type, MemRefType):
                raise ValueError(f"expected a memref source, got {source.type}")
            shape = collapsed_shape(source.type.shape, reassociation)
            result_type = collapsed_type(source.type, shape, reassociation)
            if result_type is None:
                raise ValueError(f"cannot collapse non-contiguous dimensions of {source.type}")
        return cls([source], [result_type], {"reassociation": reassociation_attr(reassociation)})

    def verify_op(self) -> None:
        source, result = self._check_types()
        self.verify_reshape(collapsed=result, expanded=source)
        expected = collapsed_type(source, result.shape, self.reassociation)
        if expected is None:
            raise self.error(f"expected dimensions collapsed together to be contiguous in {source}")
        if expected != result:
            raise self.error(f"expected collapsed type {expected}, got {result}")


class ExpandShapeOp(_ReshapeOp):
    """Split dimensions into groups:
    ``%e = memref.expand_shape %A [[0, 1]] output_shape [%n, 4] : memref<?xf32> into
    memref<?x4xf32>``."""

    name = "memref.expand_shape"
    view_source = 0
    inherent_attributes = ("reassociation", "static_output_shape")
    has_output_shape = True

    @classmethod
    def build(
        cls,
        source: Value,
        reassociation: Sequence[Sequence[int]],
        output_shape: Sequence[MixedIndex],
        result_type: Type | None = None,
    ) -> ExpandShapeOp:
        """Expand ``source`` to ``output_shape`` (ints, or index values where dynamic);
        the result type is inferred unless given."""
        static, dynamic = split_mixed(output_shape)
        if result_type is None:
            if not isinstance(source.type, MemRefType):
                raise ValueError(f"expected a memref source, got {source.type}")
            result_type = expanded_type(source.type, static_or_dynamic(static), reassociation)
            if result_type is None:
                raise ValueError(f"expected a strided source layout, got {source.type}")
        attributes = {
            "reassociation": reassociation_attr(reassociation),
            "static_output_shape": static,
        }
        return cls([source, *dynamic], [result_type], attributes)

    @property
    def output_shape(self) -> tuple[Value, ...]:
        """The dynamic result sizes."""
        return self.operands[1:]

    def verify_op(self) -> None:
        if not self.operands:
            raise self.error("expected a source operand")
        source, result = self._check_types()
        self.verify_reshape(collapsed=source, expanded=result)
        expected = expanded_type(source, result.shape, self.reassociation)
        if expected is None:
            raise self.error(f"expected a source with a strided layout, got {source}")
        if expected != result:
            raise self.error(f"expected expanded type {expected}, got {result}")
        self.verify_output_shape(result)


__all__ = ["CollapseShapeOp", "ExpandShapeOp", "reassociation_attr", "reassociation_groups"]
