"""arith: elementwise arithmetic, ``%r = arith.<op> %a, %b [flags] : type``.

``ElementwiseOp`` holds what all of them share: operands and result of one type, the
custom syntax, and the verifier. Three small bases add ``build``: ``FloatBinaryOp``
(with optional ``fastmath``), ``IntBinaryOp`` (``overflow`` flags for the four ops that
have them, which derive from ``IntBinaryWithOverflowOp``) and ``FloatUnaryOp``. Each op
is then a name and a docstring.

>>> from tinycomp.ir import Block, f32
>>> a, b = Block([f32, f32]).arguments
>>> op = MaximumFOp.build(a, b, fastmath="nnan")
>>> op.result.type, op.attributes["fastmath"]
(FloatType(name='f32'), OpaqueAttr(text='#arith.fastmath<nnan>'))
"""

from __future__ import annotations

from typing import ClassVar

from tinycomp.dialects.arith.base import (
    FASTMATH,
    OVERFLOW,
    flags_dict,
    is_float_like,
    is_int_like,
    none_flag,
    parse_optional_flag,
    print_flag,
)
from tinycomp.ir.attributes import Attribute
from tinycomp.ir.dialect import check_same_types
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.values import Value


class ElementwiseOp(Operation):
    """Base of the arith ops whose operands and result all have one type."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    element_kind: ClassVar[str] = "float"
    """``"float"`` (float-like types) or ``"integer"`` (integer-like, index included)."""
    flag_attribute: ClassVar[str] = ""
    """``FASTMATH``, ``OVERFLOW`` or ``""`` when the op takes no flags."""

    def verify_op(self) -> None:
        value_type = check_same_types(self, [*self.operands, self.result], "operand and result")
        if self.element_kind == "float" and not is_float_like(value_type):
            raise self.error(f"expected a float or a vector/tensor of floats, got {value_type}")
        if self.element_kind == "integer" and not is_int_like(value_type):
            raise self.error(
                f"expected an integer, index or a vector/tensor of them, got {value_type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operands(self.operands)
        if self.flag_attribute:
            print_flag(printer, self, self.flag_attribute)
        printer.print_attr_dict(self.attributes, elided=[self.flag_attribute])
        printer.write(" : ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands = parser.parse_operand_list()
        if len(operands) != cls.num_operands:
            raise parser.expected(f"{cls.num_operands} operands")
        attributes: dict[str, Attribute] = {}
        if cls.flag_attribute:
            attributes.update(parse_optional_flag(parser, cls.flag_attribute))
        attributes.update(parser.parse_optional_attr_dict())
        value_type = parser.parse_colon_type()
        values = parser.resolve_operands(operands, [value_type] * len(operands))
        return cls(values, [value_type], attributes)


class FloatBinaryOp(ElementwiseOp):
    """Base of ``lhs <op> rhs`` on floats, with optional fast-math flags."""

    num_operands = 2
    flag_attribute = FASTMATH
    inherent_attributes = (FASTMATH,)
    default_attributes = {FASTMATH: none_flag(FASTMATH)}

    @classmethod
    def build(cls, lhs: Value, rhs: Value, fastmath: str | None = None) -> FloatBinaryOp:
        """``lhs <op> rhs``; ``fastmath`` is e.g. ``"fast"`` or ``"nnan,ninf"``."""
        return cls([lhs, rhs], [lhs.type], flags_dict(FASTMATH, fastmath))

    @property
    def lhs(self) -> Value:
        """The left operand."""
        return self.operands[0]

    @property
    def rhs(self) -> Value:
        """The right operand."""
        return self.operands[1]


class FloatUnaryOp(ElementwiseOp):
    """Base of ``<op> operand`` on floats, with optional fast-math flags."""

    num_operands = 1
    flag_attribute = FASTMATH
    inherent_attributes = (FASTMATH,)
    default_attributes = {FASTMATH: none_flag(FASTMATH)}

    @classmethod
    def build(cls, operand: Value, fastmath: str | None = None) -> FloatUnaryOp:
        """``<op> operand``."""
        return cls([operand], [operand.type], flags_dict(FASTMATH, fastmath))

    @property
    def operand_value(self) -> Value:
        """The operand."""
        return self.operands[0]


class IntBinaryOp(ElementwiseOp):
    """Base of ``lhs <op> rhs`` on integers and index. Ops that accept ``overflow``
    flags (``nsw``: no signed wrap, ``nuw``: no unsigned wrap) set ``flag_attribute``."""

    num_operands = 2
    element_kind = "integer"

    @classmethod
    def build(cls, lhs: Value, rhs: Value, overflow: str | None = None) -> IntBinaryOp:
        """``lhs <op> rhs``; ``overflow`` is ``"nsw"``, ``"nuw"`` or ``"nsw, nuw"``."""
        if overflow is not None and not cls.flag_attribute:
            raise ValueError(f"'{cls.name}' takes no overflow flags")
        return cls([lhs, rhs], [lhs.type], flags_dict(OVERFLOW, overflow))

    @property
    def lhs(self) -> Value:
        """The left operand."""
        return self.operands[0]

    @property
    def rhs(self) -> Value:
        """The right operand."""
        return self.operands[1]


class IntBinaryWithOverflowOp(IntBinaryOp):
    """Base of the four integer ops that take ``overflow`` flags: ``addi``, ``subi``,
    ``muli`` and ``shli`` (``arith.addi %a, %b overflow<nsw> : i32``)."""

    flag_attribute = OVERFLOW
    inherent_attributes = (OVERFLOW,)
    default_attributes = {OVERFLOW: none_flag(OVERFLOW)}


# -- float ops ----------------------------------------------------------------------------
class AddFOp(FloatBinaryOp):
    """Float addition: ``%r = arith.addf %a, %b : f32``."""

    name = "arith.addf"
    is_commutative = True


class SubFOp(FloatBinaryOp):
    """Float subtraction: ``%r = arith.subf %a, %b : f32``."""

    name = "arith.subf"


class MulFOp(FloatBinaryOp):
    """Float multiplication: ``%r = arith.mulf %a, %b fastmath<contract> : vector<4xf32>``."""

    name = "arith.mulf"
    is_commutative = True


class DivFOp(FloatBinaryOp):
    """Float division: ``%r = arith.divf %a, %b : f32``."""

    name = "arith.divf"


class RemFOp(FloatBinaryOp):
    """Float remainder with the sign of ``a`` (C's ``fmod``): ``%r = arith.remf %a, %b : f32``."""

    name = "arith.remf"


class MaximumFOp(FloatBinaryOp):
    """Maximum, NaN if either is NaN (IEEE ``maximum``): ``%r = arith.maximumf %a, %b : f32``."""

    name = "arith.maximumf"
    is_commutative = True


class MinimumFOp(FloatBinaryOp):
    """Minimum, NaN if either is NaN (IEEE ``minimum``): ``%r = arith.minimumf %a, %b : f32``."""

    name = "arith.minimumf"
    is_commutative = True


class MaxNumFOp(FloatBinaryOp):
    """Maximum ignoring a NaN operand (IEEE ``maxNum``): ``%r = arith.maxnumf %a, %b : f32``."""

    name = "arith.maxnumf"
    is_commutative = True


class MinNumFOp(FloatBinaryOp):
    """Minimum ignoring a NaN operand (IEEE ``minNum``): ``%r = arith.minnumf %a, %b : f32``."""

    name = "arith.minnumf"
    is_commutative = True


class NegFOp(FloatUnaryOp):
    """Float negation: ``%r = arith.negf %a : f32``."""

    name = "arith.negf"


# -- integer ops ----------------------------------------------------------------------------
class AddIOp(IntBinaryWithOverflowOp):
    """Integer addition (wraps around): ``%r = arith.addi %a, %b overflow<nsw> : i32``."""

    name = "arith.addi"
    is_commutative = True


class SubIOp(IntBinaryWithOverflowOp):
    """Integer subtraction: ``%r = arith.subi %a, %b : index``."""

    name = "arith.subi"


class MulIOp(IntBinaryWithOverflowOp):
    """Integer multiplication: ``%r = arith.muli %a, %b : i64``."""

    name = "arith.muli"
    is_commutative = True


class ShLIOp(IntBinaryWithOverflowOp):
    """Shift left: ``%r = arith.shli %a, %b : i32``."""

    name = "arith.shli"


class DivSIOp(IntBinaryOp):
    """Signed division rounding toward zero: ``%r = arith.divsi %a, %b : i32``."""

    name = "arith.divsi"


class DivUIOp(IntBinaryOp):
    """Unsigned division: ``%r = arith.divui %a, %b : i32``."""

    name = "arith.divui"


class RemSIOp(IntBinaryOp):
    """Signed remainder with the sign of ``a``: ``%r = arith.remsi %a, %b : i32``."""

    name = "arith.remsi"


class RemUIOp(IntBinaryOp):
    """Unsigned remainder: ``%r = arith.remui %a, %b : i32``."""

    name = "arith.remui"


class FloorDivSIOp(IntBinaryOp):
    """Signed division rounding toward minus infinity: ``%r = arith.floordivsi %a, %b : index``."""

    name = "arith.floordivsi"


class CeilDivSIOp(IntBinaryOp):
    """Signed division rounding toward plus infinity: ``%r = arith.ceildivsi %a, %b : index``."""

    name = "arith.ceildivsi"


class CeilDivUIOp(IntBinaryOp):
    """Unsigned division rounding up: ``%r = arith.ceildivui %a, %b : index``."""

    name = "arith.ceildivui"


class MaxSIOp(IntBinaryOp):
    """Signed maximum: ``%r = arith.maxsi %a, %b : i32``."""

    name = "arith.maxsi"
    is_commutative = True


class MinSIOp(IntBinaryOp):
    """Signed minimum: ``%r = arith.minsi %a, %b : i32``."""

    name = "arith.minsi"
    is_commutative = True


class MaxUIOp(IntBinaryOp):
    """Unsigned maximum: ``%r = arith.maxui %a, %b : i32``."""

    name = "arith.maxui"
    is_commutative = True


class MinUIOp(IntBinaryOp):
    """Unsigned minimum: ``%r = arith.minui %a, %b : i32``."""

    name = "arith.minui"
    is_commutative = True


class AndIOp(IntBinaryOp):
    """Bitwise and: ``%r = arith.andi %a, %b : i1``."""

    name = "arith.andi"
    is_commutative = True


class OrIOp(IntBinaryOp):
    """Bitwise or: ``%r = arith.ori %a, %b : i1``."""

    name = "arith.ori"
    is_commutative = True


class XOrIOp(IntBinaryOp):
    """Bitwise exclusive or: ``%r = arith.xori %a, %b : i32``."""

    name = "arith.xori"
    is_commutative = True


class ShRSIOp(IntBinaryOp):
    """Arithmetic (sign-filling) shift right: ``%r = arith.shrsi %a, %b : i32``."""

    name = "arith.shrsi"


class ShRUIOp(IntBinaryOp):
    """Logical (zero-filling) shift right: ``%r = arith.shrui %a, %b : i32``."""

    name = "arith.shrui"


BINARY_OPS: tuple[type[Operation], ...] = (
    AddFOp, SubFOp, MulFOp, DivFOp, RemFOp, MaximumFOp, MinimumFOp, MaxNumFOp, MinNumFOp,
    NegFOp, AddIOp, SubIOp, MulIOp, ShLIOp, DivSIOp, DivUIOp, RemSIOp, RemUIOp,
    FloorDivSIOp, CeilDivSIOp, CeilDivUIOp, MaxSIOp, MinSIOp, MaxUIOp, MinUIOp,
    AndIOp, OrIOp, XOrIOp, ShRSIOp, ShRUIOp,
)  # fmt: skip
"""The ops of this module, for the arith ``Dialect``."""
