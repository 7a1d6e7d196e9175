"""The tensor dialect: creating, reading, slicing and reshaping immutable tensors.

This module defines the element-level ops and registers the dialect; the others live
in files by role and are re-exported here (``from tinycomp.dialects.tensor import
ExtractSliceOp`` works):

* here: ``tensor.empty``, ``tensor.extract``, ``tensor.insert``, ``tensor.dim``,
  ``tensor.cast``;
* ``tensor_slice.py``: ``tensor.extract_slice``, ``tensor.insert_slice``
  (with ``mixed_indices.py``, the mixed static/dynamic lists ``[%i, 0]``);
* ``tensor_reshape.py``: ``tensor.collapse_shape``, ``tensor.expand_shape``;
* ``tensor_pad.py``: ``tensor.pad``, ``tensor.generate``, ``tensor.yield``;
* shared with memref: ``shaped_ops.py`` (the bases of dim and cast),
  ``offsets_sizes_strides.py`` (the slices' window), ``reassociation.py`` (the
  reshapes) and ``common_syntax.py`` (``%t[%i, %j]``).

Tensors are values: ``tensor.insert`` returns a new tensor and leaves its operand
alone. ``tensor.empty`` makes a tensor whose contents are unspecified, used only for
its shape (the ``outs`` of a linalg op that does not read them).

>>> from tinycomp.ir import Builder, FunctionType, f32, index
>>> from tinycomp.dialects.func import FuncOp, ReturnOp
>>> f = FuncOp.build("f", FunctionType([index], [index]))
>>> b = Builder.at_end(f.entry_block)
>>> empty = b.insert(EmptyOp.build((DYNAMIC, 8), f32, f.arguments))
>>> size = b.insert(DimOp.build(empty.result, f.arguments[0]))
>>> _ = b.insert(ReturnOp.build([size.result]))
>>> print(f)
func.func @f(%arg0: index) -> index {
  %0 = tensor.empty(%arg0) : tensor<?x8xf32>
  %dim = tensor.dim %0, %arg0 : tensor<?x8xf32>
  return %dim : index
}
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.mixed_indices import DYNAMIC_INDEX, MixedIndex
from tinycomp.dialects.common.shaped_ops import ShapedCastOp, ShapedDimOp
from tinycomp.dialects.common.syntax import (
    check_dynamic_sizes,
    check_indices,
    parse_indexed_access,
    print_indexed_access,
)
from tinycomp.dialects.tensor.indices import Mixed  # the old name of MixedIndex
from tinycomp.dialects.tensor.pad import PAD_OPS, GenerateOp, PadOp, YieldOp
from tinycomp.dialects.tensor.reshape import RESHAPE_OPS, CollapseShapeOp, ExpandShapeOp
from tinycomp.dialects.tensor.slices import SLICE_OPS, ExtractSliceOp, InsertSliceOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.type_helpers import shapes_compatible
from tinycomp.ir.types import DYNAMIC, RankedTensorType, Shape, Type, index
from tinycomp.ir.values import Value


def _expect_ranked_tensor(op: Operation, value_type: Type, what: str) -> RankedTensorType:
    if not isinstance(value_type, RankedTensorType):
        raise op.error(f"expected {what} to be a ranked tensor, got {value_type}")
    return value_type


class EmptyOp(Operation):
    """A tensor of unspecified contents: ``%0 = tensor.empty(%n) : tensor<?x8xf32>``,
    one ``index`` operand per dynamic dimension."""

    name = "tensor.empty"
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(
        cls, shape: Shape, element_type: Type, dynamic_sizes: Sequence[Value] = ()
    ) -> EmptyOp:
        """An empty tensor of ``shape`` (``DYNAMIC`` entries take ``dynamic_sizes``)."""
        return cls(list(dynamic_sizes), [RankedTensorType(shape, element_type)])

    @property
    def dynamic_sizes(self) -> tuple[Value, ...]:
        """The sizes of the dynamic dimensions, in order."""
        return self.operands

    def mixed_sizes(self) -> list[MixedIndex]:
        """Every dimension's size: an ``int``, or the ``Value`` of a dynamic one."""
        values = iter(self.operands)
        return [next(values) if s is DYNAMIC else s for s in self.result.type.shape]

    def verify_op(self) -> None:
        result_type = _expect_ranked_tensor(self, self.result.type, "the result")
        check_dynamic_sizes(self, result_type, self.operands)

    def print_custom(self, printer: Printer) -> None:
        printer.write("(")
        printer.print_operands(self.operands)
        printer.write(")")
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        parser.parse_punct("(")
        names = parser.parse_operand_list()
        parser.parse_punct(")")
        attributes = parser.parse_optional_attr_dict()
        result_type = parser.parse_colon_type()
        sizes = parser.resolve_operands(names, [index] * len(names))
        return cls(sizes, [result_type], attributes)


class ExtractOp(Operation):
    """Read one element: ``%x = tensor.extract %t[%i, %j] : tensor<4x8xf32>``."""

    name = "tensor.extract"
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, tensor: Value, indices: Sequence[Value]) -> ExtractOp:
        """Element ``indices`` of ``tensor``."""
        return cls([tensor, *indices], [tensor.type.element_type])

    @property
    def tensor(self) -> Value:
        """The tensor read."""
        return self.operands[0]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[1:]

    def asm_result_names(self) -> list[str]:
        return ["extracted"]

    def verify_op(self) -> None:
        tensor_type = _expect_ranked_tensor(self, self.tensor.type, "the operand")
        check_indices(self, tensor_type, self.indices)
        if self.result.type != tensor_type.element_type:
            raise self.error(
                f"expected the result type {tensor_type.element_type}, got {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        print_indexed_access(printer, self.tensor, self.indices, self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands, tensor_type, attributes = parse_indexed_access(
            parser, RankedTensorType, "a ranked tensor"
        )
        return cls(operands, [tensor_type.element_type], attributes)


class InsertOp(Operation):
    """A copy with one element replaced:
    ``%r = tensor.insert %x into %t[%i, %j] : tensor<4x8xf32>``."""

    name = "tensor.insert"
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, scalar: Value, dest: Value, indices: Sequence[Value]) -> InsertOp:
        """``dest`` with element ``indices`` set to ``scalar``."""
        return cls([scalar, dest, *indices], [dest.type])

    @property
    def scalar(self) -> Value:
        """The element written."""
        return self.operands[0]

    @property
    def dest(self) -> Value:
        """The tensor written into."""
        return self.operands[1]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[2:]

    def asm_result_names(self) -> list[str]:
        return ["inserted"]

    def verify_op(self) -> None:
        tensor_type = _expect_ranked_tensor(self, self.dest.type, "the destination")
        check_indices(self, tensor_type, self.indices)
        if self.scalar.type != tensor_type.element_type:
            raise self.error(
                f"expected a scalar of type {tensor_type.element_type}, got {self.scalar.type}"
            )
        if self.result.type != tensor_type:
            raise self.error(f"expected the result type {tensor_type}, got {self.result.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.scalar)
        printer.write(" into ")
        print_indexed_access(printer, self.dest, self.indices, self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        scalar = parser.parse_operand()
        parser.parse_keyword("into")
        operands, tensor_type, attributes = parse_indexed_access(
            parser, RankedTensorType, "a ranked tensor"
        )
        value = parser.resolve_operand(scalar, tensor_type.element_type)
        return cls([value, *operands], [tensor_type], attributes)


class DimOp(ShapedDimOp):
    """The size of one dimension: ``%d = tensor.dim %t, %c0 : tensor<?x8xf32>``."""

    name = "tensor.dim"
    container_type = RankedTensorType
    container_name = "a ranked tensor"


class CastOp(ShapedCastOp):
    """Change static information only: ``%c = tensor.cast %t : tensor<?x8xf32> to
    tensor<4x8xf32>``; the shapes must agree wherever both are static."""

    name = "tensor.cast"
    container_type = RankedTensorType
    container_name = "a ranked tensor"

    def are_cast_compatible(self, source: RankedTensorType, result: RankedTensorType) -> bool:
        """Same element type, and sizes equal wherever both are static."""
        same_elements = source.element_type == result.element_type
        return same_elements and shapes_compatible(source.shape, result.shape)


TENSOR = Dialect(
    "tensor",
    (EmptyOp, ExtractOp, InsertOp, DimOp, CastOp, *SLICE_OPS, *RESHAPE_OPS, *PAD_OPS),
)
"""The tensor dialect (registered on import)."""
register_dialect(TENSOR)

__all__ = [
    "DYNAMIC_INDEX", "TENSOR", "CastOp", "CollapseShapeOp", "DimOp", "EmptyOp",
    "ExpandShapeOp", "ExtractOp", "ExtractSliceOp", "GenerateOp", "InsertOp",
    "InsertSliceOp", "Mixed", "PadOp", "YieldOp",
]  # fmt: skip
