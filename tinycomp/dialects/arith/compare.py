"""arith: comparisons and selection.

``arith.cmpi`` / ``arith.cmpf`` compare elementwise and produce ``i1`` (or a vector/tensor
of ``i1``). The predicate is stored as MLIR stores it, an ``i64`` integer attribute
holding the enum value, and printed as its keyword::

    %lt = arith.cmpf olt, %a, %b : f32          // predicate = 4 : i64
    %r  = arith.select %lt, %a, %b : f32        // %lt ? %a : %b

Float predicates starting with ``o`` (ordered) are false when an operand is NaN; those
starting with ``u`` (unordered) are true.

>>> from tinycomp.ir import Block, i32
>>> a, b = Block([i32, i32]).arguments
>>> cmp = CmpIOp.build("slt", a, b)
>>> cmp.predicate, cmp.attributes["predicate"], cmp.result.type
('slt', IntegerAttr(value=2, type=IntegerType(width=64)), IntegerType(width=1))
"""

from __future__ import annotations

from typing import ClassVar

from tinycomp.dialects.arith.base import (
    FASTMATH,
    bool_like,
    flags_dict,
    is_float_like,
    is_int_like,
    none_flag,
    parse_optional_flag,
    print_flag,
)
from tinycomp.ir.attributes import Attribute, IntegerAttr
from tinycomp.ir.dialect import check_same_types
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import i1, i64
from tinycomp.ir.values import Value

CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""``arith.cmpi`` predicates; the position is the stored enum value."""
CMPF_PREDICATES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)  # fmt: skip
"""``arith.cmpf`` predicates; the position is the stored enum value."""


class CompareOp(Operation):
    """Base of ``cmpi``/``cmpf``: ``%r = arith.cmp<x> <predicate>, %a, %b : type``."""

    num_operands = 2
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    predicates: ClassVar[tuple[str, ...]] = ()
    """The predicate keywords, indexed by enum value."""
    flag_attribute: ClassVar[str] = ""

    @classmethod
    def build(cls, predicate: str, lhs: Value, rhs: Value, fastmath: str | None = None):
        """Compare ``lhs`` and ``rhs`` with ``predicate`` (a keyword such as ``"slt"``)."""
        if predicate not in cls.predicates:
            raise ValueError(f"expected one of {', '.join(cls.predicates)}, got '{predicate}'")
        attributes: dict[str, Attribute] = {
            "predicate": IntegerAttr(cls.predicates.index(predicate), i64)
        }
        if fastmath is not None:
            if not cls.flag_attribute:
                raise ValueError(f"'{cls.name}' takes no fastmath flags")
            attributes.update(flags_dict(FASTMATH, fastmath))
        return cls([lhs, rhs], [bool_like(lhs.type)], attributes)

    @property
    def predicate(self) -> str:
        """The predicate keyword, e.g. ``"olt"``."""
        attr = self.attributes.get("predicate")
        if isinstance(attr, IntegerAttr) and 0 <= attr.value < len(self.predicates):
            return self.predicates[attr.value]
        raise ValueError(f"'{self.name}' has no valid predicate attribute")

    @property
    def lhs(self) -> Value:
        """The left operand."""
        return self.operands[0]

    @property
    def rhs(self) -> Value:
        """The right operand."""
        return self.operands[1]

    def check_operand_kind(self, operand_type) -> bool:
        """Whether ``operand_type`` is comparable by this op."""
        raise NotImplementedError

    def verify_op(self) -> None:
        attr = self.attributes.get("predicate")
        if not (isinstance(attr, IntegerAttr) and 0 <= attr.value < len(self.predicates)):
            raise self.error(
                f"expected a 'predicate' integer attribute in 0..{len(self.predicates) - 1}, "
                f"got {attr}"
            )
        operand_type = check_same_types(self, self.operands, "operand")
        if not self.check_operand_kind(operand_type):
            raise self.error(f"expected {self.operand_description}, got {operand_type}")
        expected = bool_like(operand_type)
        if self.result.type != expected:
            raise self.error(f"expected result type {expected}, got {self.result.type}")

    operand_description: ClassVar[str] = ""

    def print_custom(self, printer: Printer) -> None:
        printer.write(f" {self.predicate}, ")
        printer.print_operands(self.operands)
        if self.flag_attribute:
            print_flag(printer, self, self.flag_attribute)
        printer.print_attr_dict(self.attributes, elided=["predicate", self.flag_attribute])
        printer.write(" : ")
        printer.print_type(self.lhs.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        token = parser.token
        keyword = parser.parse_identifier("a comparison predicate")
        if keyword not in cls.predicates:
            raise parser.error(
                f"expected one of {', '.join(cls.predicates)}, found '{keyword}'", token
            )
        parser.parse_punct(",")
        lhs = parser.parse_operand()
        parser.parse_punct(",")
        rhs = parser.parse_operand()
        attributes: dict[str, Attribute] = {}
        if cls.flag_attribute:
            attributes.update(parse_optional_flag(parser, cls.flag_attribute))
        attributes.update(parser.parse_optional_attr_dict())
        attributes["predicate"] = IntegerAttr(cls.predicates.index(keyword), i64)
        operand_type = parser.parse_colon_type()
        operands = parser.resolve_operands([lhs, rhs], [operand_type, operand_type])
        return cls(operands, [bool_like(operand_type)], attributes)


class CmpIOp(CompareOp):
    """Integer comparison (``s``: signed, ``u``: unsigned):
    ``%r = arith.cmpi slt, %a, %b : i32``."""

    name = "arith.cmpi"
    predicates = CMPI_PREDICATES
    inherent_attributes = ("predicate",)
    operand_description = "integer, index or vector/tensor of them"

    def check_operand_kind(self, operand_type) -> bool:
        return is_int_like(operand_type)


class CmpFOp(CompareOp):
    """Float comparison: ``%r = arith.cmpf olt, %a, %b : f32``."""

    name = "arith.cmpf"
    predicates = CMPF_PREDICATES
    flag_attribute = FASTMATH
    inherent_attributes = (FASTMATH, "predicate")
    default_attributes = {FASTMATH: none_flag(FASTMATH)}
    operand_description = "float or vector/tensor of floats"

    def check_operand_kind(self, operand_type) -> bool:
        return is_float_like(operand_type)


class SelectOp(Operation):
    """Choose between two values: ``%r = arith.select %cond, %a, %b : f32``.

    The condition is ``i1`` (choosing whole values) or an ``i1`` vector/tensor of the same
    shape (choosing per element; then both types are printed:
    ``arith.select %c, %a, %b : vector<4xi1>, vector<4xf32>``).
    """

    name = "arith.select"
    num_operands = 3
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, condition: Value, true_value: Value, false_value: Value) -> SelectOp:
        """``condition ? true_value : false_value``."""
        return cls([condition, true_value, false_value], [true_value.type])

    @property
    def condition(self) -> Value:
        """The ``i1`` condition."""
        return self.operands[0]

    @property
    def true_value(self) -> Value:
        """Chosen where the condition is true."""
        return self.operands[1]

    @property
    def false_value(self) -> Value:
        """Chosen where the condition is false."""
        return self.operands[2]

    def verify_op(self) -> None:
        value_type = check_same_types(
            self, [self.true_value, self.false_value, self.result], "value and result"
        )
        allowed = list(dict.fromkeys([i1, bool_like(value_type)]))  # one entry for scalars
        if self.condition.type not in allowed:
            expected = " or ".join(str(t) for t in allowed)
            raise self.error(f"expected condition type {expected}, got {self.condition.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        printer.write(" : ")
        if self.condition.type != i1:
            printer.print_type(self.condition.type)
            printer.write(", ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands = parser.parse_operand_list()
        if len(operands) != 3:
            raise parser.expected("3 operands")
        attributes = parser.parse_optional_attr_dict()
        condition_type, value_type = i1, parser.parse_colon_type()
        if parser.parse_optional_punct(","):
            condition_type, value_type = value_type, parser.parse_type()
        values = parser.resolve_operands(operands, [condition_type, value_type, value_type])
        return cls(values, [value_type], attributes)


COMPARE_OPS: tuple[type[Operation], ...] = (CmpIOp, CmpFOp, SelectOp)
"""The ops of this module, for the arith ``Dialect``."""
