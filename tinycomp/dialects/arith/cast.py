"""arith: conversions between types, ``%r = arith.<cast> %a : <from> to <to>``.

Casts work elementwise too (``vector<4xi32> to vector<4xf32>``); operand and result
must have the same shape. Each cast declares what it accepts as plain class attributes
(the kind of element on each side, and how the widths must compare), and
``CastOp.verify_op`` checks them:

==================  =======================  ========================================
op                  from -> to               rule
==================  =======================  ========================================
extf / truncf       float -> float           result wider / narrower
extsi, extui        int -> int               result wider (sign- / zero-extend)
trunci              int -> int               result narrower
sitofp, uitofp      int -> float             signed / unsigned source
fptosi, fptoui      float -> int             rounds toward zero
index_cast(ui)      int <-> index            sign- (zero-) extends or truncates
bitcast             int/float -> int/float   same width, bits unchanged
==================  =======================  ========================================

>>> from tinycomp.ir import Block, i32, f32
>>> x = Block([i32]).arguments[0]
>>> print(SIToFPOp.build(x, f32).result.type)
f32
"""

from __future__ import annotations

from typing import ClassVar

from tinycomp.dialects.arith.base import (
    OVERFLOW,
    none_flag,
    parse_optional_flag,
    print_flag,
    same_shape,
)
from tinycomp.dialects.common.syntax import parse_type_pair, print_type_pair
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import bitwidth, element_type, with_element_type
from tinycomp.ir.types import FloatType, IndexType, IntegerType, Type
from tinycomp.ir.values import Value

_KINDS = {
    "float": (FloatType,),
    "integer": (IntegerType,),
    "integer or index": (IntegerType, IndexType),
    "integer or float": (IntegerType, FloatType),
}


class CastOp(Operation):
    """Base of the casts: one operand, one result, ``: <from> to <to>`` syntax."""

    num_operands = 1
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    source_kind: ClassVar[str] = "float"
    """Key of ``_KINDS``: what the operand's elements may be."""
    result_kind: ClassVar[str] = "float"
    """Key of ``_KINDS``: what the result's elements may be."""
    width_rule: ClassVar[str] = ""
    """``"wider"``, ``"narrower"``, ``"same"`` (result vs. operand width) or ``""``."""
    flag_attribute: ClassVar[str] = ""

    @classmethod
    def build(cls, value: Value, to: Type) -> CastOp:
        """Cast ``value`` to ``to``: give the element type, or the whole result type.

        ``ExtFOp.build(v, f32)`` on a ``vector<4xf16>`` gives a ``vector<4xf32>``.
        """
        result_type = with_element_type(value.type, to) if element_type(to) is to else to
        return cls([value], [result_type])

    @property
    def source(self) -> Value:
        """The value being converted."""
        return self.operands[0]

    def verify_op(self) -> None:
        source_type, result_type = self.source.type, self.result.type
        if not same_shape(source_type, result_type):
            raise self.error(
                "expected operand and result of the same shape, "
                f"got {source_type} and {result_type}"
            )
        source, result = element_type(source_type), element_type(result_type)
        if not isinstance(source, _KINDS[self.source_kind]):
            raise self.error(f"expected {self.source_kind} operand elements, got {source_type}")
        if not isinstance(result, _KINDS[self.result_kind]):
            raise self.error(f"expected {self.result_kind} result elements, got {result_type}")
        rule = self.width_rule
        if rule == "wider" and not bitwidth(result) > bitwidth(source):
            raise self.error(f"expected a result type wider than {source}, got {result}")
        if rule == "narrower" and not bitwidth(result) < bitwidth(source):
            raise self.error(f"expected a result type narrower than {source}, got {result}")
        if rule == "same" and bitwidth(result) != bitwidth(source):
            raise self.error(f"expected a result type of {bitwidth(source)} bits, got {result}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        if self.flag_attribute:
            print_flag(printer, self, self.flag_attribute)
        printer.print_attr_dict(self.attributes, elided=[self.flag_attribute])
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operand = parser.parse_operand()
        attributes = parse_optional_flag(parser, cls.flag_attribute) if cls.flag_attribute else {}
        attributes.update(parser.parse_optional_attr_dict())
        source_type, result_type = parse_type_pair(parser)
        return cls([parser.resolve_operand(operand, source_type)], [result_type], attributes)


class ExtFOp(CastOp):
    """Widen a float: ``%r = arith.extf %a : f16 to f32``."""

    name = "arith.extf"
    width_rule = "wider"


class TruncFOp(CastOp):
    """Narrow a float (round to nearest even): ``%r = arith.truncf %a : f32 to bf16``."""

    name = "arith.truncf"
    width_rule = "narrower"


class ExtSIOp(CastOp):
    """Sign-extend an integer: ``%r = arith.extsi %a : i32 to i64``."""

    name = "arith.extsi"
    source_kind = result_kind = "integer"
    width_rule = "wider"


class ExtUIOp(CastOp):
    """Zero-extend an integer: ``%r = arith.extui %a : i1 to i32``."""

    name = "arith.extui"
    source_kind = result_kind = "integer"
    width_rule = "wider"


class TruncIOp(CastOp):
    """Drop the high bits of an integer: ``%r = arith.trunci %a : i64 to i32``."""

    name = "arith.trunci"
    source_kind = result_kind = "integer"
    width_rule = "narrower"
    flag_attribute = OVERFLOW
    inherent_attributes = (OVERFLOW,)
    default_attributes = {OVERFLOW: none_flag(OVERFLOW)}


class SIToFPOp(CastOp):
    """Signed integer to float: ``%r = arith.sitofp %a : i32 to f32``."""

    name = "arith.sitofp"
    source_kind = "integer"


class UIToFPOp(CastOp):
    """Unsigned integer to float: ``%r = arith.uitofp %a : i32 to f32``."""

    name = "arith.uitofp"
    source_kind = "integer"


class FPToSIOp(CastOp):
    """Float to signed integer, rounding toward zero: ``%r = arith.fptosi %a : f32 to i32``."""

    name = "arith.fptosi"
    result_kind = "integer"


class FPToUIOp(CastOp):
    """Float to unsigned integer, rounding toward zero: ``%r = arith.fptoui %a : f32 to i32``."""

    name = "arith.fptoui"
    result_kind = "integer"


class IndexCastOp(CastOp):
    """Between ``index`` and an integer, sign-extending or truncating:
    ``%r = arith.index_cast %a : i32 to index``."""

    name = "arith.index_cast"
    source_kind = result_kind = "integer or index"

    def verify_op(self) -> None:
        super().verify_op()
        source, result = element_type(self.source.type), element_type(self.result.type)
        if isinstance(source, IndexType) == isinstance(result, IndexType):
            raise self.error(f"expected exactly one side to be index, got {source} and {result}")


class IndexCastUIOp(IndexCastOp):
    """Like ``index_cast`` but zero-extending: ``%r = arith.index_castui %a : i32 to index``."""

    name = "arith.index_castui"


class BitcastOp(CastOp):
    """Reinterpret the bits as another type of the same width:
    ``%r = arith.bitcast %a : f32 to i32``."""

    name = "arith.bitcast"
    source_kind = result_kind = "integer or float"
    width_rule = "same"


CAST_OPS: tuple[type[Operation], ...] = (
    ExtFOp, TruncFOp, ExtSIOp, ExtUIOp, TruncIOp, SIToFPOp, UIToFPOp, FPToSIOp, FPToUIOp,
    IndexCastOp, IndexCastUIOp, BitcastOp,
)  # fmt: skip
"""The ops of this module, for the arith ``Dialect``."""
