"""vector: reading and replacing single lanes, ``vector.extract`` and ``vector.insert``.

A position is one index per leading dimension, each an integer or an ``index`` value
(a *mixed* list, as in ``memref.subview``). Giving all dimensions names one lane (a
scalar); giving fewer names a sub-vector::

    %x   = vector.extract %v[3] : f32 from vector<8xf32>
    %row = vector.extract %m[%i] : vector<8xf32> from vector<4x8xf32>
    %w   = vector.insert %x, %v [0] : f32 into vector<8xf32>

Stored as MLIR stores them: ``static_position = array<i64: ...>`` with
``-9223372036854775808`` where a value stands, and the values as operands
(``[vector, *dynamic_position]`` for extract, ``[value, dest, *dynamic_position]`` for
insert). tinycomp checks that an inserted sub-vector has the shape of the position
(MLIR 22's verifier compares only ranks). A micro-kernel uses them to pick one lane of
A to broadcast, or to assemble a result lane by lane; the vectorizer needs neither.

>>> from tinycomp.ir import Block, f32
>>> from tinycomp.ir.types import VectorType
>>> (m,) = Block([VectorType((4, 8), f32)]).arguments
>>> print(ExtractOp.build(m, [1]).result.type, ExtractOp.build(m, [1, 2]).result.type)
vector<8xf32> f32
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.dialects.common.mixed_indices import (
    MixedIndex,
    check_index_list,
    join_mixed,
    parse_mixed,
    print_mixed,
    resolve_mixed,
    split_mixed,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import Type, VectorType
from tinycomp.ir.values import Value

__all__ = ["ExtractOp", "InsertOp", "extracted_type"]


def extracted_type(vector_type: VectorType, depth: int) -> Type:
    """The type at a position of ``depth`` indices: the element type when ``depth`` is
    the rank, else the vector of the remaining dimensions.

    >>> from tinycomp.ir import f32
    >>> print(extracted_type(VectorType((4, 8), f32), 1))
    vector<8xf32>
    """
    if depth == vector_type.rank:
        return vector_type.element_type
    return VectorType(vector_type.shape[depth:], vector_type.element_type)


class _PositionOp(Operation):
    """Base of extract and insert: a vector operand and a mixed position list."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("static_position",)
    vector_position: ClassVar[int] = 0
    """Where the vector is among the operands (the dynamic positions follow it)."""

    @property
    def vector(self) -> Value:
        """The vector read (extract) or updated (insert)."""
        return self.operands[self.vector_position]

    @property
    def position(self) -> list[MixedIndex]:
        """The position: ints and ``index`` values, outermost dimension first."""
        dynamic = self.operands[self.vector_position + 1 :]
        return join_mixed(self.attributes["static_position"], dynamic)

    def _verify_position(self) -> Type:
        """Check the position against the vector; return the type found there."""
        vector_type = self.vector.type
        if not isinstance(vector_type, VectorType):
            raise self.error(f"expected a vector operand, got {vector_type}")
        dynamic = self.operands[self.vector_position + 1 :]
        static = check_index_list(
            self, self.attributes.get("static_position"), dynamic, "position", None,
            "static_position",
        )  # fmt: skip
        if len(static) > vector_type.rank:
            raise self.error(
                f"expected at most {vector_type.rank} position indices for {vector_type}, "
                f"got {len(static)}"
            )
        for dimension, entry in enumerate(self.position):
            if isinstance(entry, int) and not 0 <= entry < vector_type.shape[dimension]:
                raise self.error(
                    f"expected position {dimension} in [0, {vector_type.shape[dimension]}), "
                    f"got {entry}"
                )
        return extracted_type(vector_type, len(static))

    @staticmethod
    def _operands_and_attributes(vector_and_more: list[Value], position) -> tuple[list, dict]:
        static, dynamic = split_mixed(position)
        return [*vector_and_more, *dynamic], {"static_position": static}


class ExtractOp(_PositionOp):
    """One lane (or sub-vector): ``%x = vector.extract %v[3] : f32 from vector<8xf32>``."""

    name = "vector.extract"

    @classmethod
    def build(cls, vector: Value, position: Sequence[MixedIndex]) -> ExtractOp:
        """Read ``vector[position]``."""
        operands, attributes = cls._operands_and_attributes([vector], position)
        return cls(operands, [extracted_type(vector.type, len(position))], attributes)

    def verify_op(self) -> None:
        expected = self._verify_position()
        if self.result.type != expected:
            raise self.error(f"expected result type {expected}, got {self.result.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.vector)
        print_mixed(printer, self.position)
        printer.print_attr_dict(self.attributes, elided=["static_position"])
        printer.write(" : ")
        printer.print_type(self.result.type)
        printer.write(" from ")
        printer.print_type(self.vector.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        vector = parser.parse_operand()
        entries = parse_mixed(parser)
        attributes = parser.parse_optional_attr_dict()
        result_type = parser.parse_colon_type()
        parser.parse_keyword("from")
        vector_type = parser.parse_type()
        resolved = parser.resolve_operand(vector, vector_type)
        operands, own = cls._operands_and_attributes([resolved], resolve_mixed(parser, entries))
        return cls(operands, [result_type], {**attributes, **own})


class InsertOp(_PositionOp):
    """Replace one lane (or sub-vector):
    ``%w = vector.insert %x, %v [0] : f32 into vector<8xf32>``."""

    name = "vector.insert"
    vector_position = 1

    @classmethod
    def build(cls, value: Value, dest: Value, position: Sequence[MixedIndex]) -> InsertOp:
        """``dest`` with ``dest[position]`` replaced by ``value``."""
        operands, attributes = cls._operands_and_attributes([value, dest], position)
        return cls(operands, [dest.type], attributes)

    @property
    def value(self) -> Value:
        """The scalar (or sub-vector) written."""
        return self.operands[0]

    def verify_op(self) -> None:
        expected = self._verify_position()
        if self.value.type != expected:
            raise self.error(f"expected a value of type {expected}, got {self.value.type}")
        if self.result.type != self.vector.type:
            raise self.error(f"expected result type {self.vector.type}, got {self.result.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.value)
        printer.write(", ")
        printer.print_operand(self.vector)
        printer.write(" ")  # MLIR writes a space before the position of insert
        print_mixed(printer, self.position)
        printer.print_attr_dict(self.attributes, elided=["static_position"])
        printer.write(" : ")
        printer.print_type(self.value.type)
        printer.write(" into ")
        printer.print_type(self.vector.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value = parser.parse_operand()
        parser.parse_punct(",")
        dest = parser.parse_operand()
        entries = parse_mixed(parser)
        attributes = parser.parse_optional_attr_dict()
        value_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        vector_type = parser.parse_type()
        resolved = [
            parser.resolve_operand(value, value_type),
            parser.resolve_operand(dest, vector_type),
        ]
        operands, own = cls._operands_and_attributes(resolved, resolve_mixed(parser, entries))
        return cls(operands, [vector_type], {**attributes, **own})
