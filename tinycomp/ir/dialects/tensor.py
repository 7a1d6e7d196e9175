"""The tensor dialect: creating, reading, slicing and reshaping immutable tensors.

This module defines the element-level ops and registers the dialect; the others live
in files by role and are re-exported here (``from tinycomp.ir.dialects.tensor import
ExtractSliceOp`` works):

* here: ``tensor.empty``, ``tensor.extract``, ``tensor.insert``, ``tensor.dim``,
  ``tensor.cast``;
* ``tensor_slice.py``: ``tensor.extract_slice``, ``tensor.insert_slice``
  (with ``tensor_indices.py``, the mixed static/dynamic lists ``[%i, 0]``);
* ``tensor_reshape.py``: ``tensor.collapse_shape``, ``tensor.expand_shape``;
* ``tensor_pad.py``: ``tensor.pad``, ``tensor.generate``, ``tensor.yield``.

Tensors are values: ``tensor.insert`` returns a new tensor and leaves its operand
alone. ``tensor.empty`` makes a tensor whose contents are unspecified, used only for
its shape (the ``outs`` of a linalg op that does not read them).

>>> from tinycomp.ir import Builder, FunctionType, f32, index
>>> from tinycomp.ir.dialects.func import FuncOp, ReturnOp
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

from tinycomp.ir.dialects.tensor_indices import DYNAMIC_INDEX, Mixed
from tinycomp.ir.dialects.tensor_pad import PAD_OPS, GenerateOp, PadOp, YieldOp
from tinycomp.ir.dialects.tensor_reshape import RESHAPE_OPS, CollapseShapeOp, ExpandShapeOp
from tinycomp.ir.dialects.tensor_slice import SLICE_OPS, ExtractSliceOp, InsertSliceOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.types import DYNAMIC, RankedTensorType, Shape, Type, index
from tinycomp.ir.values import Value


def _expect_ranked_tensor(op: Operation, value_type: Type, what: str) -> RankedTensorType:
    if not isinstance(value_type, RankedTensorType):
        raise op.error(f"expected {what} to be a ranked tensor, got {value_type}")
    return value_type


def _expect_indices(op: Operation, indices: Sequence[Value], tensor_type: RankedTensorType):
    if len(indices) != tensor_type.rank:
        raise op.error(
            f"expected {tensor_type.rank} indices (the rank of {tensor_type}), got {len(indices)}"
        )
    for value in indices:
        if value.type != index:
            raise op.error(f"expected index operands, got {value.type}")


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

    def mixed_sizes(self) -> list[Mixed]:
        """Every dimension's size: an ``int``, or the ``Value`` of a dynamic one."""
        values = iter(self.operands)
        return [next(values) if s is DYNAMIC else s for s in self.result.type.shape]

    def verify_op(self) -> None:
        result_type = _expect_ranked_tensor(self, self.result.type, "the result")
        dynamic = sum(1 for s in result_type.shape if s is DYNAMIC)
        if dynamic != len(self.operands):
            raise self.error(
                f"expected {dynamic} size operands (one per '?' of {result_type}), "
                f"got {len(self.operands)}"
            )
        for value in self.operands:
            if value.type != index:
                raise self.error(f"expected index sizes, got {value.type}")

    def print_custom(self, printer) -> None:
        printer.write("(")
        printer.print_operands(self.operands)
        printer.write(")")
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.result.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
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
        _expect_indices(self, self.indices, tensor_type)
        if self.result.type != tensor_type.element_type:
            raise self.error(
                f"expected the result type {tensor_type.element_type}, got {self.result.type}"
            )

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.tensor)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.tensor.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        tensor = parser.parse_operand()
        parser.parse_punct("[")
        names = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        tensor_type = parser.parse_colon_type()
        if not isinstance(tensor_type, RankedTensorType):
            raise parser.error(f"expected a ranked tensor type, got {tensor_type}")
        value = parser.resolve_operand(tensor, tensor_type)
        indices = parser.resolve_operands(names, [index] * len(names))
        return cls([value, *indices], [tensor_type.element_type], attributes)


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
        _expect_indices(self, self.indices, tensor_type)
        if self.scalar.type != tensor_type.element_type:
            raise self.error(
                f"expected a scalar of type {tensor_type.element_type}, got {self.scalar.type}"
            )
        if self.result.type != tensor_type:
            raise self.error(f"expected the result type {tensor_type}, got {self.result.type}")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.scalar)
        printer.write(" into ")
        printer.print_operand(self.dest)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.dest.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        scalar = parser.parse_operand()
        parser.parse_keyword("into")
        dest = parser.parse_operand()
        parser.parse_punct("[")
        names = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        tensor_type = parser.parse_colon_type()
        if not isinstance(tensor_type, RankedTensorType):
            raise parser.error(f"expected a ranked tensor type, got {tensor_type}")
        values = parser.resolve_operands([scalar, dest], [tensor_type.element_type, tensor_type])
        indices = parser.resolve_operands(names, [index] * len(names))
        return cls([*values, *indices], [tensor_type], attributes)


class DimOp(Operation):
    """The size of one dimension: ``%d = tensor.dim %t, %c0 : tensor<?x8xf32>``."""

    name = "tensor.dim"
    num_operands = 2
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, source: Value, dimension: Value) -> DimOp:
        """The size of dimension ``dimension`` (an ``index`` value) of ``source``."""
        return cls([source, dimension], [index])

    @property
    def source(self) -> Value:
        """The tensor measured."""
        return self.operands[0]

    @property
    def dimension(self) -> Value:
        """Which dimension (an ``index`` value)."""
        return self.operands[1]

    def asm_result_names(self) -> list[str]:
        return ["dim"]

    def verify_op(self) -> None:
        _expect_ranked_tensor(self, self.source.type, "the operand")
        if self.dimension.type != index or self.result.type != index:
            raise self.error(
                f"expected an index dimension and result, got {self.dimension.type} and "
                f"{self.result.type}"
            )

    def print_custom(self, printer) -> None:
        printer.print_attr_dict(self.attributes)
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.write(f" : {self.source.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        source = parser.parse_operand()
        parser.parse_punct(",")
        dimension = parser.parse_operand()
        source_type = parser.parse_colon_type()
        values = parser.resolve_operands([source, dimension], [source_type, index])
        return cls(values, [index], attributes)


class CastOp(Operation):
    """Change static information only: ``%c = tensor.cast %t : tensor<?x8xf32> to
    tensor<4x8xf32>``; the shapes must agree wherever both are static."""

    name = "tensor.cast"
    num_operands = 1
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, source: Value, to: RankedTensorType) -> CastOp:
        """``source`` seen as type ``to``."""
        return cls([source], [to])

    @property
    def source(self) -> Value:
        """The tensor cast."""
        return self.operands[0]

    def asm_result_names(self) -> list[str]:
        return ["cast"]

    def verify_op(self) -> None:
        source = _expect_ranked_tensor(self, self.source.type, "the operand")
        result = _expect_ranked_tensor(self, self.result.type, "the result")
        compatible = source.element_type == result.element_type and source.rank == result.rank
        compatible = compatible and all(
            a == b or DYNAMIC in (a, b) for a, b in zip(source.shape, result.shape, strict=True)
        )
        if not compatible:
            raise self.error(f"expected compatible types, got {source} and {result}")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.source.type} to {self.result.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        source_type = parser.parse_colon_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        return cls([parser.resolve_operand(source, source_type)], [result_type], attributes)


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
