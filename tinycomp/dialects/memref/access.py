"""memref: reading, writing and asking about buffers: ``load``, ``store``, ``copy``,
``dim``, ``rank``.

``memref.load`` and ``memref.store`` take one ``index`` per dimension, written in
brackets after the buffer; the element type comes from the memref type::

    %x = memref.load %A[%i, %j] : memref<?x8xf32>
    memref.store %x, %B[%j] : memref<8xf32>

Operands: load ``[memref, *indices]``; store ``[value, memref, *indices]``. Both may
carry ``nontemporal`` (a bool, default ``false``: a hint not to keep the line in cache)
and ``alignment`` (an ``i64``).

>>> from tinycomp.ir import Block, MemRefType, f32, index
>>> A, i = Block([MemRefType((4,), f32), index]).arguments
>>> load = LoadOp.build(A, [i])
>>> load.result.type, load.indices == (i,)
(FloatType(name='f32'), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.dialects.common.region_syntax import constant_int
from tinycomp.dialects.common.shaped_ops import ShapedDimOp
from tinycomp.dialects.common.syntax import (
    check_indices,
    parse_indexed_access,
    parse_type_pair,
    parse_typed_operand,
    print_indexed_access,
    print_type_pair,
    print_typed_operand,
)
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.ir.attributes import BoolAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import shapes_compatible
from tinycomp.ir.types import MemRefType, index
from tinycomp.ir.values import Value

_ACCESS_ATTRIBUTES = ("alignment", "nontemporal")
_NOT_NONTEMPORAL = {"nontemporal": BoolAttr(False)}


class _AccessOp(Operation):
    """Base of load and store: a memref with one index per dimension after it, written
    ``%A[%i, %j] {attrs} : memref<...>``, and the access hints."""

    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = _ACCESS_ATTRIBUTES
    default_attributes = _NOT_NONTEMPORAL
    memref_position: ClassVar[int] = 0
    """Where the memref is among the operands (the indices follow it)."""

    @property
    def memref(self) -> Value:
        """The buffer accessed."""
        return self.operands[self.memref_position]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[self.memref_position + 1 :]

    def _print_access(self, printer: Printer) -> None:
        """``%A[%i] {attrs} : type``, leaving out ``nontemporal = false`` (the default)."""
        default = self.attributes.get("nontemporal") == BoolAttr(False)
        elided = ["nontemporal"] if default else []
        print_indexed_access(printer, self.memref, self.indices, self.attributes, elided)


class LoadOp(_AccessOp):
    """Read one element: ``%x = memref.load %A[%i, %j] : memref<?x8xf32>``."""

    name = "memref.load"
    effects = (reads(0),)
    num_results = 1

    @classmethod
    def build(cls, memref: Value, indices: Sequence[Value]) -> LoadOp:
        """Read ``memref[indices]``."""
        if not isinstance(memref.type, MemRefType):
            raise ValueError(f"expected a memref to load from, got {memref.type}")
        return cls([memref, *indices], [memref.type.element_type])

    def verify_op(self) -> None:
        if not self.operands:
            raise self.error("expected a memref operand")
        memref_type = check_memref(self, self.memref.type, "the first operand")
        check_indices(self, memref_type, self.indices)
        if self.result.type != memref_type.element_type:
            raise self.error(
                f"expected result type {memref_type.element_type} (the element type), "
                f"got {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        self._print_access(printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands, memref_type, attributes = parse_indexed_access(parser, MemRefType, "a memref")
        return cls(operands, [memref_type.element_type], attributes)


class StoreOp(_AccessOp):
    """Write one element: ``memref.store %x, %A[%i, %j] : memref<?x8xf32>``."""

    name = "memref.store"
    effects = (writes(1),)
    num_results = 0
    memref_position = 1

    @classmethod
    def build(cls, value: Value, memref: Value, indices: Sequence[Value]) -> StoreOp:
        """Write ``value`` to ``memref[indices]``."""
        return cls([value, memref, *indices])

    @property
    def value(self) -> Value:
        """The value written."""
        return self.operands[0]

    def verify_op(self) -> None:
        if len(self.operands) < 2:
            raise self.error(f"expected a value and a memref, got {len(self.operands)} operands")
        memref_type = check_memref(self, self.memref.type, "the second operand")
        check_indices(self, memref_type, self.indices)
        if self.value.type != memref_type.element_type:
            raise self.error(
                f"expected a value of type {memref_type.element_type} (the element type), "
                f"got {self.value.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.value)
        printer.write(", ")
        self._print_access(printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value = parser.parse_operand()
        parser.parse_punct(",")
        operands, memref_type, attributes = parse_indexed_access(parser, MemRefType, "a memref")
        stored = parser.resolve_operand(value, memref_type.element_type)
        return cls([stored, *operands], [], attributes)


class CopyOp(Operation):
    """Copy every element of one buffer into another of the same shape:
    ``memref.copy %src, %dst : memref<?xf32> to memref<?xf32>``."""

    name = "memref.copy"
    effects = (reads(0), writes(1))
    num_operands = 2
    num_results = 0
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True

    @classmethod
    def build(cls, source: Value, target: Value) -> CopyOp:
        """Copy ``source`` into ``target``."""
        return cls([source, target])

    @property
    def source(self) -> Value:
        """The buffer read."""
        return self.operands[0]

    @property
    def target(self) -> Value:
        """The buffer written."""
        return self.operands[1]

    def verify_op(self) -> None:
        source = check_memref(self, self.source.type, "the source")
        target = check_memref(self, self.target.type, "the target")
        if source.element_type != target.element_type:
            raise self.error(
                f"expected one element type, got {source.element_type} and {target.element_type}"
            )
        if not shapes_compatible(source.shape, target.shape):
            raise self.error(f"expected compatible shapes, got {source} and {target}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        print_type_pair(printer, self.source.type, self.target.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_punct(",")
        target = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        source_type, target_type = parse_type_pair(parser)
        operands = parser.resolve_operands([source, target], [source_type, target_type])
        return cls(operands, [], attributes)


class DimOp(ShapedDimOp):
    """The size of one dimension: ``%n = memref.dim %A, %c0 : memref<?x8xf32>``."""

    name = "memref.dim"
    container_type = MemRefType
    container_name = "a memref"

    def verify_op(self) -> None:
        super().verify_op()
        memref_type = self.source.type
        position = constant_int(self.dimension)
        if position is not None and not 0 <= position < memref_type.rank:
            raise self.error(
                f"expected a dimension in [0, {memref_type.rank}) for {memref_type}, got {position}"
            )


class RankOp(Operation):
    """The number of dimensions: ``%r = memref.rank %A : memref<?x8xf32>``."""

    name = "memref.rank"
    num_operands = 1
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, source: Value) -> RankOp:
        """The rank of ``source``."""
        return cls([source], [index])

    def verify_op(self) -> None:
        check_memref(self, self.operands[0].type, "the operand")
        if self.result.type != index:
            raise self.error(f"expected an index result, got {self.result.type}")

    def print_custom(self, printer: Printer) -> None:
        print_typed_operand(printer, self, self.operands[0])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value, attributes = parse_typed_operand(parser)
        return cls([value], [index], attributes)


__all__ = [
    "CopyOp",
    "DimOp",
    "LoadOp",
    "RankOp",
    "StoreOp",
    "check_indices",
]
