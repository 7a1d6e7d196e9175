"""vector: making vectors from scalars and fusing arithmetic, ``vector.broadcast`` and
``vector.fma``.

Everything else a vectorized loop computes is the ordinary ``arith`` and ``math`` ops
applied to vector types: ``arith.addf %a, %b : vector<8xf32>`` adds lane by lane. Two
operations need the vector dialect itself:

* ``vector.broadcast`` copies a scalar into every lane (or a smaller vector along new
  leading dimensions): a loop-invariant value such as softmax's row maximum becomes a
  vector once, before the loop. (MLIR also had ``vector.splat`` for the scalar case;
  it was removed in favour of ``broadcast`` and ``mlir-opt-22`` rejects it.)
* ``vector.fma`` is ``a * b + c`` lane by lane with one rounding: the multiply-add
  instruction (``vfmadd231ps``) every GEMM micro-kernel is built from.

::

    %b = vector.broadcast %max : f32 to vector<8xf32>
    %r = vector.fma %a, %x, %acc : vector<8xf32>

>>> from tinycomp.ir import Block, f32
>>> (s,) = Block([f32]).arguments
>>> splat = BroadcastOp.build(s, VectorType((8,), f32))
>>> print(splat.result.type)
vector<8xf32>
"""

from __future__ import annotations

from tinycomp.dialects.arith.base import is_float_like
from tinycomp.ir.dialect import check_same_types
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import ShapedType, Type, VectorType
from tinycomp.ir.values import Value

__all__ = ["BroadcastOp", "FMAOp", "broadcast_problem"]


def broadcast_problem(source: Type, result: VectorType) -> str | None:
    """Why ``source`` cannot be broadcast to ``result`` (``None`` if it can): a scalar
    of the element type always can; a vector if its shape matches the trailing
    dimensions of ``result``, a 1 stretching to any size.

    >>> from tinycomp.ir import f32
    >>> broadcast_problem(VectorType((1, 8), f32), VectorType((4, 8), f32)) is None
    True
    >>> broadcast_problem(VectorType((4,), f32), VectorType((8,), f32))
    'dimension 0 of vector<4xf32> is 4, expected 1 or 8'
    """
    if element_type(source) != result.element_type:
        return f"expected the element type {result.element_type}, got {source}"
    if not isinstance(source, ShapedType):
        return None
    if not isinstance(source, VectorType):
        return f"expected a scalar or a vector, got {source}"
    if source.rank > result.rank:
        return f"expected a source of rank <= {result.rank}, got {source}"
    trailing = result.shape[result.rank - source.rank :]
    for position, (size, target) in enumerate(zip(source.shape, trailing, strict=True)):
        if size not in (1, target):
            return f"dimension {position} of {source} is {size}, expected 1 or {target}"
    return None


class BroadcastOp(Operation):
    """Copy a scalar into every lane: ``%v = vector.broadcast %s : f32 to vector<8xf32>``."""

    name = "vector.broadcast"
    num_operands = 1
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, source: Value, result_type: VectorType) -> BroadcastOp:
        """Broadcast ``source`` (a scalar or a smaller vector) to ``result_type``."""
        return cls([source], [result_type])

    @property
    def source(self) -> Value:
        """The scalar (or vector) copied."""
        return self.operands[0]

    def verify_op(self) -> None:
        result_type = self.results[0].type
        if not isinstance(result_type, VectorType):
            raise self.error(f"expected a vector result, got {result_type}")
        problem = broadcast_problem(self.source.type, result_type)
        if problem is not None:
            raise self.error(f"cannot broadcast to {result_type}: {problem}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.print_attr_dict(self.attributes)
        printer.write(" : ")
        printer.print_type(self.source.type)
        printer.write(" to ")
        printer.print_type(self.results[0].type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        source_type = parser.parse_colon_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        return cls([parser.resolve_operand(source, source_type)], [result_type], attributes)


class FMAOp(Operation):
    """Fused multiply-add per lane, one rounding:
    ``%r = vector.fma %a, %b, %c : vector<8xf32>`` is ``a * b + c``."""

    name = "vector.fma"
    num_operands = 3
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, lhs: Value, rhs: Value, acc: Value) -> FMAOp:
        """``lhs * rhs + acc``."""
        return cls([lhs, rhs, acc], [lhs.type])

    def verify_op(self) -> None:
        value_type = check_same_types(self, [*self.operands, self.results[0]], "operand and result")
        if not isinstance(value_type, VectorType) or not is_float_like(value_type):
            raise self.error(f"expected a vector of floats, got {value_type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        printer.write(" : ")
        printer.print_type(self.results[0].type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands = parser.parse_operand_list()
        if len(operands) != 3:
            raise parser.expected("3 operands (lhs, rhs, acc)")
        attributes = parser.parse_optional_attr_dict()
        value_type = parser.parse_colon_type()
        values = parser.resolve_operands(operands, [value_type] * 3)
        return cls(values, [value_type], attributes)
