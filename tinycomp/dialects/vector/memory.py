"""vector: moving whole vectors between memory and registers, ``vector.load`` and
``vector.store``.

A vector load reads consecutive elements of the *last* (innermost) dimension of a
memref into one SIMD value; a store writes them back. The indices say where lane 0
is, one ``index`` per memref dimension, exactly like ``memref.load``::

    %v = vector.load %A[%i, %j] : memref<4x32xf32>, vector<8xf32>    // A[i, j .. j+7]
    vector.store %v, %B[%i, %j] : memref<4x32xf32>, vector<8xf32>

A vector of rank ``k`` covers the last ``k`` dimensions (``vector<2x8xf32>`` reads a
2x8 box). The lanes of one row must be neighbours in memory, so the memref's innermost
stride must be 1 (MLIR's verifier says "most minor memref dim must have unit stride"):
that is what makes a vector load one instruction (``vmovups``) instead of a gather.

Operands: load ``[base, *indices]``; store ``[value, base, *indices]``. Both may carry
``nontemporal`` (default ``false``) and ``alignment`` (bytes), as in MLIR.

What MLIR leaves open, tinycomp decides: MLIR says lanes that fall outside the memref
read unspecified values (target-specific); tinycomp's interpreter reports them as an
error, so a vectorizer that forgets its remainder loop is caught.

>>> from tinycomp.ir import Block, MemRefType, f32, index
>>> from tinycomp.ir.types import VectorType
>>> A, i = Block([MemRefType((4, 32), f32), index]).arguments
>>> load = LoadOp.build(A, [i, i], 8)
>>> print(load.result.type)
vector<8xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.dialects.common.syntax import check_indices
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.ir.attributes import BoolAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import MemRefType, VectorType, index
from tinycomp.ir.values import Value

__all__ = ["LoadOp", "StoreOp", "check_vector_access", "innermost_stride"]

_NOT_NONTEMPORAL = {"nontemporal": BoolAttr(False)}


def innermost_stride(memref_type: MemRefType) -> int | None:
    """The distance in elements between neighbours of the last dimension (``None``
    when it is dynamic or the layout is not strided).

    >>> from tinycomp.ir import f32
    >>> from tinycomp.ir.attributes import StridedLayoutAttr
    >>> innermost_stride(MemRefType((4, 8), f32)), innermost_stride(
    ...     MemRefType((4, 8), f32, StridedLayoutAttr((1, 4))))
    (1, 4)
    """
    if memref_type.rank == 0:
        return 1
    try:
        strides, _ = strides_and_offset(memref_type)
    except ValueError:
        return None
    return strides[-1]


def check_vector_access(op: Operation, memref_type: MemRefType, vector_type) -> None:
    """The checks load and store share: a vector of the memref's element type, of no
    higher rank than the memref, whose innermost dimension is contiguous."""
    if not isinstance(vector_type, VectorType):
        raise op.error(f"expected a vector type, got {vector_type}")
    if vector_type.element_type != memref_type.element_type:
        raise op.error(
            f"expected a vector of {memref_type.element_type} (the memref's element type), "
            f"got {vector_type}"
        )
    if vector_type.rank > memref_type.rank:
        raise op.error(
            f"expected a vector of rank <= {memref_type.rank} (the memref's rank), "
            f"got {vector_type}"
        )
    if innermost_stride(memref_type) != 1:
        raise op.error(f"most minor memref dim must have unit stride, got {memref_type}")


class _VectorAccessOp(Operation):
    """Base of load and store: ``%base[%i, %j] {attrs} : memref<...>, vector<...>``."""

    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("alignment", "nontemporal")
    default_attributes = _NOT_NONTEMPORAL
    base_position: ClassVar[int] = 0
    """Where the memref is among the operands (the indices follow it)."""

    @property
    def base(self) -> Value:
        """The memref accessed."""
        return self.operands[self.base_position]

    @property
    def memref(self) -> Value:
        """The same as ``base``: the name ``memref.load`` uses, so code that reads the
        buffer of an access (memory effects, aliasing) treats both alike."""
        return self.base

    @property
    def indices(self) -> tuple[Value, ...]:
        """Where lane 0 is: one index per memref dimension."""
        return self.operands[self.base_position + 1 :]

    @property
    def vector_type(self) -> VectorType:
        """The type of the vector moved."""
        raise NotImplementedError

    def _verify_access(self, what: str) -> None:
        memref_type = check_memref(self, self.base.type, what)
        check_indices(self, memref_type, self.indices)
        check_vector_access(self, memref_type, self.vector_type)

    def _print_access(self, printer: Printer) -> None:
        printer.print_operand(self.base)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        default = self.attributes.get("nontemporal") == BoolAttr(False)
        printer.print_attr_dict(self.attributes, elided=["nontemporal"] if default else [])
        printer.write(" : ")
        printer.print_type(self.base.type)
        printer.write(", ")
        printer.print_type(self.vector_type)

    @staticmethod
    def _parse_access(parser: Parser) -> tuple[list[Value], VectorType, dict]:
        """Read ``%base[%i, %j] {attrs} : memref<...>, vector<...>``."""
        base = parser.parse_operand()
        parser.parse_punct("[")
        indices = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        type_token = parser.token
        memref_type = parser.parse_colon_type()
        if not isinstance(memref_type, MemRefType):
            raise parser.error(f"expected a memref type, got {memref_type}", type_token)
        parser.parse_punct(",")
        vector_token = parser.token
        vector_type = parser.parse_type()
        if not isinstance(vector_type, VectorType):
            raise parser.error(f"expected a vector type, got {vector_type}", vector_token)
        values = [parser.resolve_operand(base, memref_type)]
        values += parser.resolve_operands(indices, [index] * len(indices))
        return values, vector_type, attributes


class LoadOp(_VectorAccessOp):
    """Read a vector of neighbouring elements:
    ``%v = vector.load %A[%i, %j] : memref<4x32xf32>, vector<8xf32>``."""

    name = "vector.load"
    effects = (reads(0),)
    num_results = 1

    @classmethod
    def build(cls, base: Value, indices: Sequence[Value], lanes: int | Sequence[int]) -> LoadOp:
        """Read ``lanes`` elements (an int, or a vector shape) starting at ``base[indices]``."""
        if not isinstance(base.type, MemRefType):
            raise ValueError(f"expected a memref to load from, got {base.type}")
        shape = (lanes,) if isinstance(lanes, int) else tuple(lanes)
        return cls([base, *indices], [VectorType(shape, base.type.element_type)])

    @property
    def vector_type(self) -> VectorType:
        return self.results[0].type

    def verify_op(self) -> None:
        if not self.operands:
            raise self.error("expected a memref operand")
        self._verify_access("the base")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        self._print_access(printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands, vector_type, attributes = cls._parse_access(parser)
        return cls(operands, [vector_type], attributes)


class StoreOp(_VectorAccessOp):
    """Write a vector to neighbouring elements:
    ``vector.store %v, %B[%i, %j] : memref<4x32xf32>, vector<8xf32>``."""

    name = "vector.store"
    effects = (writes(1),)
    num_results = 0
    base_position = 1

    @classmethod
    def build(cls, value: Value, base: Value, indices: Sequence[Value]) -> StoreOp:
        """Write the vector ``value`` at ``base[indices]``."""
        return cls([value, base, *indices])

    @property
    def value(self) -> Value:
        """The vector written."""
        return self.operands[0]

    @property
    def vector_type(self) -> VectorType:
        return self.value.type

    def verify_op(self) -> None:
        if len(self.operands) < 2:
            raise self.error(f"expected a vector and a memref, got {len(self.operands)} operands")
        self._verify_access("the base")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.value)
        printer.write(", ")
        self._print_access(printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value = parser.parse_operand()
        parser.parse_punct(",")
        operands, vector_type, attributes = cls._parse_access(parser)
        stored = parser.resolve_operand(value, vector_type)
        return cls([stored, *operands], [], attributes)
