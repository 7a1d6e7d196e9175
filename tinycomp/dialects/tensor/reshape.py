"""``tensor.collapse_shape`` and ``tensor.expand_shape``: reshapes that merge or split
neighbouring dimensions, never move data.

::

    %flat = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    %back = tensor.expand_shape %flat [[0, 1], [2]] output_shape [2, 3, 4]
        : tensor<6x4xf32> into tensor<2x3x4xf32>

The *reassociation* lists, for each dimension of the smaller-rank tensor, the
contiguous group of dimensions of the larger-rank one it stands for; its size is their
product. ``expand_shape`` also names the expanded sizes (``output_shape``), with values
for dynamic ones, since a product does not say how to split it. Syntax and shape rules
are those of memref's reshapes (``ReassociativeReshapeOp`` in ``reassociation.py``);
tensors have no layout to check.

>>> from tinycomp.ir import Block, RankedTensorType, f32
>>> t = Block([RankedTensorType((2, 3, 4), f32)]).arguments[0]
>>> print(CollapseShapeOp.build(t, [[0, 1], [2]]).result.type)
tensor<6x4xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.mixed_indices import (
    MixedIndex,
    join_mixed,
    split_mixed,
    static_shape,
)
from tinycomp.dialects.common.reassociation import (
    Reassociation,
    ReassociativeReshapeOp,
    collapsed_shape,
    reassociation_attr,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import RankedTensorType
from tinycomp.ir.values import Value


class ReshapeOp(ReassociativeReshapeOp):
    """Base of both tensor reshapes: ranked tensors, and MLIR's tensor-only rule that
    no group is empty."""

    def _check_types(self) -> tuple[RankedTensorType, RankedTensorType]:
        source, result = self.source.type, self.result.type
        if not isinstance(source, RankedTensorType) or not isinstance(result, RankedTensorType):
            raise self.error(f"expected ranked tensors, got {source} and {result}")
        if not all(self.reassociation):
            raise self.error("reassociation indices must not be empty")
        return source, result


class CollapseShapeOp(ReshapeOp):
    """Merge groups of dimensions: ``tensor.collapse_shape %t [[0, 1]] : tensor<8x16xf32>
    into tensor<128xf32>``."""

    name = "tensor.collapse_shape"
    num_operands = 1
    inherent_attributes = ("reassociation",)

    @classmethod
    def build(cls, source: Value, reassociation: Sequence[Sequence[int]]) -> CollapseShapeOp:
        """``source`` with each group of dimensions merged into one."""
        groups = [list(g) for g in reassociation]
        result = RankedTensorType(
            collapsed_shape(source.type.shape, groups), source.type.element_type
        )
        return cls([source], [result], {"reassociation": reassociation_attr(groups)})

    def asm_result_names(self) -> list[str]:
        return ["collapsed"]

    def verify_op(self) -> None:
        source, result = self._check_types()
        self.verify_reshape(collapsed=result, expanded=source)


class ExpandShapeOp(ReshapeOp):
    """Split dimensions into groups: ``tensor.expand_shape %t [[0, 1]] output_shape
    [8, 16] : tensor<128xf32> into tensor<8x16xf32>``."""

    name = "tensor.expand_shape"
    inherent_attributes = ("reassociation", "static_output_shape")
    has_output_shape = True

    @classmethod
    def build(
        cls,
        source: Value,
        reassociation: Sequence[Sequence[int]],
        output_shape: Sequence[MixedIndex],
    ) -> ExpandShapeOp:
        """``source`` with each dimension split into a group of ``output_shape``."""
        static, dynamic = split_mixed(output_shape)
        result = RankedTensorType(static_shape(output_shape), source.type.element_type)
        attributes = {
            "reassociation": reassociation_attr(reassociation),
            "static_output_shape": static,
        }
        return cls([source, *dynamic], [result], attributes)

    @property
    def output_shape(self) -> list[MixedIndex]:
        """The expanded sizes: ints, and values for the dynamic ones."""
        return join_mixed(self.attributes["static_output_shape"], self.operands[1:])

    def asm_result_names(self) -> list[str]:
        return ["expanded"]

    def verify_op(self) -> None:
        source, result = self._check_types()
        self.verify_output_shape(result)
        self.verify_reshape(collapsed=source, expanded=result)


RESHAPE_OPS: tuple[type[Operation], ...] = (CollapseShapeOp, ExpandShapeOp)
"""The ops of this module, for the tensor ``Dialect``."""

__all__ = [
    "RESHAPE_OPS", "CollapseShapeOp", "ExpandShapeOp", "Reassociation", "ReshapeOp",
    "collapsed_shape", "reassociation_attr",
]  # fmt: skip
