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

from tinycomp.ir.attributes import BoolAttr
from tinycomp.ir.dialects.memref_alloc import check_memref
from tinycomp.ir.dialects.scf_syntax import constant_int
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType, index
from tinycomp.ir.values import Value

_ACCESS_ATTRIBUTES = ("alignment", "nontemporal")
_NOT_NONTEMPORAL = {"nontemporal": BoolAttr(False)}


def check_indices(op: Operation, memref_type: MemRefType, indices: Sequence[Value]) -> None:
    """One ``index`` value per dimension of ``memref_type``."""
    if len(indices) != memref_type.rank:
        raise op.error(
            f"expected {memref_type.rank} indices (the rank of {memref_type}), got {len(indices)}"
        )
    for position, value in enumerate(indices):
        if value.type != index:
            raise op.error(f"expected index #{position} to be an index, got {value.type}")


def print_access_attributes(printer, op: Operation) -> None:
    """The attribute dictionary, leaving out ``nontemporal = false`` (the default)."""
    elided = ["nontemporal"] if op.attributes.get("nontemporal") == BoolAttr(False) else []
    printer.print_attr_dict(op.attributes, elided=elided)


class LoadOp(Operation):
    """Read one element: ``%x = memref.load %A[%i, %j] : memref<?x8xf32>``."""

    name = "memref.load"
    num_results = 1
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = _ACCESS_ATTRIBUTES
    default_attributes = _NOT_NONTEMPORAL

    @classmethod
    def build(cls, memref: Value, indices: Sequence[Value]) -> LoadOp:
        """Read ``memref[indices]``."""
        if not isinstance(memref.type, MemRefType):
            raise ValueError(f"expected a memref to load from, got {memref.type}")
        return cls([memref, *indices], [memref.type.element_type])

    @property
    def memref(self) -> Value:
        """The buffer read."""
        return self.operands[0]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[1:]

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

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.memref)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        print_access_attributes(printer, self)
        printer.write(" : ")
        printer.print_type(self.memref.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        memref = parser.parse_operand()
        parser.parse_punct("[")
        indices = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        type_token = parser.token
        memref_type = parser.parse_colon_type()
        if not isinstance(memref_type, MemRefType):
            raise parser.error(f"expected a memref type, got {memref_type}", type_token)
        operands = [parser.resolve_operand(memref, memref_type)]
        operands += parser.resolve_operands(indices, [index] * len(indices))
        return cls(operands, [memref_type.element_type], attributes)


class StoreOp(Operation):
    """Write one element: ``memref.store %x, %A[%i, %j] : memref<?x8xf32>``."""

    name = "memref.store"
    num_results = 0
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = _ACCESS_ATTRIBUTES
    default_attributes = _NOT_NONTEMPORAL

    @classmethod
    def build(cls, value: Value, memref: Value, indices: Sequence[Value]) -> StoreOp:
        """Write ``value`` to ``memref[indices]``."""
        return cls([value, memref, *indices])

    @property
    def value(self) -> Value:
        """The value written."""
        return self.operands[0]

    @property
    def memref(self) -> Value:
        """The buffer written."""
        return self.operands[1]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[2:]

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

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.value)
        printer.write(", ")
        printer.print_operand(self.memref)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        print_access_attributes(printer, self)
        printer.write(" : ")
        printer.print_type(self.memref.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        value = parser.parse_operand()
        parser.parse_punct(",")
        memref = parser.parse_operand()
        parser.parse_punct("[")
        indices = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        type_token = parser.token
        memref_type = parser.parse_colon_type()
        if not isinstance(memref_type, MemRefType):
            raise parser.error(f"expected a memref type, got {memref_type}", type_token)
        operands = [
            parser.resolve_operand(value, memref_type.element_type),
            parser.resolve_operand(memref, memref_type),
        ]
        operands += parser.resolve_operands(indices, [index] * len(indices))
        return cls(operands, [], attributes)


class CopyOp(Operation):
    """Copy every element of one buffer into another of the same shape:
    ``memref.copy %src, %dst : memref<?xf32> to memref<?xf32>``."""

    name = "memref.copy"
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
        compatible = source.rank == target.rank and all(
            a is None or b is None or a == b
            for a, b in zip(source.shape, target.shape, strict=True)
        )
        if not compatible:
            raise self.error(f"expected compatible shapes, got {source} and {target}")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        printer.write(" : ")
        printer.print_type(self.source.type)
        printer.write(" to ")
        printer.print_type(self.target.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_punct(",")
        target = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        source_type = parser.parse_colon_type()
        parser.parse_keyword("to")
        target_type = parser.parse_type()
        operands = parser.resolve_operands([source, target], [source_type, target_type])
        return cls(operands, [], attributes)


class DimOp(Operation):
    """The size of one dimension: ``%n = memref.dim %A, %c0 : memref<?x8xf32>``."""

    name = "memref.dim"
    num_operands = 2
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, source: Value, dimension: Value) -> DimOp:
        """The size of dimension ``dimension`` (an index value) of ``source``."""
        return cls([source, dimension], [index])

    @property
    def source(self) -> Value:
        """The memref asked about."""
        return self.operands[0]

    @property
    def dimension(self) -> Value:
        """Which dimension (an ``index``)."""
        return self.operands[1]

    def asm_result_names(self) -> list[str]:
        """``%dim``, as MLIR names it."""
        return ["dim"]

    def verify_op(self) -> None:
        memref_type = check_memref(self, self.source.type, "the source")
        if self.dimension.type != index or self.result.type != index:
            raise self.error(
                f"expected an index dimension and result, got {self.dimension.type} "
                f"and {self.result.type}"
            )
        position = constant_int(self.dimension)
        if position is not None and not 0 <= position < memref_type.rank:
            raise self.error(
                f"expected a dimension in [0, {memref_type.rank}) for {memref_type}, got {position}"
            )

    def print_custom(self, printer) -> None:
        printer.print_attr_dict(self.attributes)
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.write(" : ")
        printer.print_type(self.source.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        source = parser.parse_operand()
        parser.parse_punct(",")
        dimension = parser.parse_operand()
        source_type = parser.parse_colon_type()
        operands = parser.resolve_operands([source, dimension], [source_type, index])
        return cls(operands, [index], attributes)


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

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.operands[0])
        printer.print_attr_dict(self.attributes)
        printer.write(" : ")
        printer.print_type(self.operands[0].type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        operand = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        operand_type = parser.parse_colon_type()
        return cls([parser.resolve_operand(operand, operand_type)], [index], attributes)


__all__ = [
    "CopyOp",
    "DimOp",
    "LoadOp",
    "RankOp",
    "StoreOp",
    "check_indices",
]
