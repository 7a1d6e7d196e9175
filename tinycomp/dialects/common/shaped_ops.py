"""Ops that memref and tensor both have, in the same form: ``dim`` and ``cast``.

``memref.dim %A, %c0 : memref<?x8xf32>`` and ``tensor.dim %t, %c0 : tensor<?x8xf32>``
ask for the size of one dimension (MLIR's ``ShapedDimOpInterface``); ``memref.cast``
and ``tensor.cast`` trade static information for dynamic or back, ``tensor<4xf32>`` to
``tensor<?xf32>`` (MLIR's ``CastOpInterface``, whose ``areCastCompatible`` each dialect
defines). The base classes here hold the operands, the syntax and the common checks;
the subclasses say which kind of type they work on (``container_type``) and, for
casts, which pairs of types are compatible.

>>> from tinycomp.dialects.memref import CastOp as MemRefCastOp
>>> from tinycomp.dialects.tensor import DimOp as TensorDimOp
>>> issubclass(MemRefCastOp, ShapedCastOp), issubclass(TensorDimOp, ShapedDimOp)
(True, True)
"""

from __future__ import annotations

from typing import ClassVar

from tinycomp.dialects.common.syntax import parse_type_pair, print_type_pair
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import ShapedType, Type, index
from tinycomp.ir.values import Value


class _ShapedOp(Operation):
    """What both bases share: the kind of type they work on, and its check."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    container_type: ClassVar[type[ShapedType]] = ShapedType
    """``MemRefType`` or ``RankedTensorType``."""
    container_name: ClassVar[str] = "a shaped type"
    """How messages name ``container_type``: ``"a memref"``."""

    @property
    def source(self) -> Value:
        """The memref or tensor."""
        return self.operands[0]

    def check_container(self, value_type: Type, what: str) -> ShapedType:
        """``value_type`` as a ``container_type``, or a verify error naming ``what``."""
        if not isinstance(value_type, self.container_type):
            raise self.error(f"expected {what} to be {self.container_name}, got {value_type}")
        return value_type


class ShapedDimOp(_ShapedOp):
    """Base of ``memref.dim`` and ``tensor.dim``: ``%n = <dialect>.dim %x, %c0 : type``."""

    num_operands = 2

    @classmethod
    def build(cls, source: Value, dimension: Value) -> ShapedDimOp:
        """The size of dimension ``dimension`` (an ``index`` value) of ``source``."""
        return cls([source, dimension], [index])

    @property
    def dimension(self) -> Value:
        """Which dimension (an ``index`` value)."""
        return self.operands[1]

    def asm_result_names(self) -> list[str]:
        """``%dim``, as MLIR names it."""
        return ["dim"]

    def verify_op(self) -> None:
        self.check_container(self.source.type, "the source")
        if self.dimension.type != index or self.result.type != index:
            raise self.error(
                f"expected an index dimension and result, got {self.dimension.type} "
                f"and {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.print_attr_dict(self.attributes)
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.write(" : ")
        printer.print_type(self.source.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        source = parser.parse_operand()
        parser.parse_punct(",")
        dimension = parser.parse_operand()
        source_type = parser.parse_colon_type()
        operands = parser.resolve_operands([source, dimension], [source_type, index])
        return cls(operands, [index], attributes)


class ShapedCastOp(_ShapedOp):
    """Base of ``memref.cast`` and ``tensor.cast``:
    ``%c = <dialect>.cast %x : <from> to <to>``, the types cast-compatible."""

    num_operands = 1

    @classmethod
    def build(cls, source: Value, result_type: Type) -> ShapedCastOp:
        """``source`` seen as type ``result_type``."""
        return cls([source], [result_type])

    def asm_result_names(self) -> list[str]:
        """``%cast``, as MLIR names it."""
        return ["cast"]

    def are_cast_compatible(self, source: ShapedType, result: ShapedType) -> bool:
        """Whether this cast may go from ``source`` to ``result`` (the dialect's rule)."""
        raise NotImplementedError(f"'{self.name}' does not define its cast rule")

    def verify_op(self) -> None:
        source = self.check_container(self.source.type, "the source")
        result = self.check_container(self.result.type, "the result")
        if not self.are_cast_compatible(source, result):
            raise self.error(f"expected cast-compatible types, got {source} and {result}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.print_attr_dict(self.attributes)
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        source_type, result_type = parse_type_pair(parser)
        return cls([parser.resolve_operand(source, source_type)], [result_type], attributes)


__all__ = ["ShapedCastOp", "ShapedDimOp"]
