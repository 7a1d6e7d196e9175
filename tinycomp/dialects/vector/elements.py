"""vector: a vector from its lanes, ``vector.from_elements``.

One scalar per lane, in row-major order; the result type names the shape and the
element type (a 0-d ``vector<f32>`` takes one scalar)::

    %v = vector.from_elements %a, %b, %c, %d : vector<4xf32>

A kernel that stores four floats at once (CUDA's ``float4``) builds the vector this way
before its ``vector.store``.

>>> from tinycomp.ir import Block, f32
>>> a, b = Block([f32, f32]).arguments
>>> print(FromElementsOp.build([a, b]).result.type)
vector<2xf32>
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import VectorType
from tinycomp.ir.values import Value

__all__ = ["FromElementsOp"]


class FromElementsOp(Operation):
    """A vector of the given lanes: ``%v = vector.from_elements %a, %b : vector<2xf32>``."""

    name = "vector.from_elements"
    num_operands = None
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(
        cls, elements: Sequence[Value], result_type: VectorType | None = None
    ) -> FromElementsOp:
        """The vector of ``elements`` (a 1-d vector of their type unless ``result_type``
        gives another shape)."""
        if not elements:
            raise ValueError("expected at least one element")
        if result_type is None:
            result_type = VectorType((len(elements),), elements[0].type)
        return cls(list(elements), [result_type], {}, [])

    @property
    def elements(self) -> tuple[Value, ...]:
        """The lanes, in row-major order."""
        return self.operands

    def verify_op(self) -> None:
        result_type = self.result.type
        if not isinstance(result_type, VectorType):
            raise self.error(f"expected a vector result, got {result_type}")
        lanes = math.prod(result_type.shape)
        if len(self.operands) != lanes:
            raise self.error(
                f"expected {lanes} elements (one per lane of {result_type}), "
                f"got {len(self.operands)}"
            )
        for position, element in enumerate(self.operands):
            if element.type != result_type.element_type:
                raise self.error(
                    f"expected element #{position} to be {result_type.element_type}, "
                    f"got {element.type}"
                )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        names = parser.parse_operand_list()
        attributes = parser.parse_optional_attr_dict()
        token = parser.token
        result_type = parser.parse_colon_type()
        if not isinstance(result_type, VectorType):
            raise parser.error(f"expected a vector type, got {result_type}", token)
        values = parser.resolve_operands(names, [result_type.element_type] * len(names))
        return cls(values, [result_type], attributes, [])
