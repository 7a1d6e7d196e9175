"""vector: folding the lanes of a vector into one scalar, ``vector.reduction``.

``%s = vector.reduction <add>, %v : vector<8xf32> into f32`` is
``v[0] + v[1] + ... + v[7]``. With an accumulator, ``vector.reduction <add>, %v, %acc``
starts from it: ``acc + v[0] + ... + v[7]``, in that order (LLVM's
``@llvm.vector.reduce.fadd(acc, v)`` without ``reassoc`` is exactly this *ordered*
sum; with ``fastmath<reassoc>`` the lanes may be added in any tree order).

A vectorized sum loop ends with one of these: the loop keeps eight partial sums in a
vector accumulator, and the reduction after the loop adds them up.

The *combining kind* names the operation, as ``#vector.kind<...>``; each is the
``arith`` op that combines two lanes, and has an identity (the value that changes
nothing, which a vector accumulator starts from):

=========  =================  =================  ==============================
kind       floats             integers           identity
=========  =================  =================  ==============================
add        ``arith.addf``     ``arith.addi``     ``-0.0`` / ``0``
mul        ``arith.mulf``     ``arith.muli``     ``1``
maximumf   ``arith.maximumf``                    ``-inf``
minimumf   ``arith.minimumf``                    ``+inf``
maxnumf    ``arith.maxnumf``                     NaN (``maxnum`` ignores it)
minnumf    ``arith.minnumf``                     NaN
maxsi                         ``arith.maxsi``    the smallest signed value
minsi                         ``arith.minsi``    the largest signed value
maxui                         ``arith.maxui``    ``0``
minui                         ``arith.minui``    all ones
and                           ``arith.andi``     all ones
or / xor                      ``arith.ori`` ...  ``0``
=========  =================  =================  ==============================

(The float identity of ``add`` is ``-0.0``, not ``0.0``: ``-0.0 + x`` is ``x`` for every
``x``, while ``0.0 + -0.0`` is ``+0.0``.) MLIR's verifier accepts only 1-D vectors.

>>> from tinycomp.ir import Block, f32
>>> from tinycomp.ir.types import VectorType
>>> v, acc = Block([VectorType((8,), f32), f32]).arguments
>>> op = ReductionOp.build("add", v, acc)
>>> op.kind, op.result.type, op.acc is acc
('add', FloatType(name='f32'), True)
"""

from __future__ import annotations

import math

from tinycomp.dialects.arith.base import (
    FASTMATH,
    flags_dict,
    none_flag,
    parse_optional_flag,
    print_flag,
)
from tinycomp.ir.attributes import Attribute, OpaqueAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import bitwidth
from tinycomp.ir.types import FloatType, IndexType, IntegerType, Type, VectorType
from tinycomp.ir.values import Value

__all__ = [
    "COMBINING_KINDS",
    "ReductionOp",
    "combiner_op",
    "kind_attr",
    "kind_of_combiner",
    "reduction_identity",
]

COMBINING_KINDS: dict[str, tuple[str | None, str | None]] = {
    "add": ("arith.addf", "arith.addi"),
    "mul": ("arith.mulf", "arith.muli"),
    "maximumf": ("arith.maximumf", None),
    "minimumf": ("arith.minimumf", None),
    "maxnumf": ("arith.maxnumf", None),
    "minnumf": ("arith.minnumf", None),
    "maxsi": (None, "arith.maxsi"),
    "minsi": (None, "arith.minsi"),
    "maxui": (None, "arith.maxui"),
    "minui": (None, "arith.minui"),
    "and": (None, "arith.andi"),
    "or": (None, "arith.ori"),
    "xor": (None, "arith.xori"),
}
"""Kind -> (the arith op combining two float lanes, the one for integer lanes)."""


def combiner_op(kind: str, element: Type) -> str | None:
    """The arith op that combines two lanes of ``element`` type for ``kind`` (``None``
    when the kind does not apply to that type).

    >>> from tinycomp.ir import f32, i32
    >>> combiner_op("add", f32), combiner_op("add", i32), combiner_op("maxsi", f32)
    ('arith.addf', 'arith.addi', None)
    """
    float_op, int_op = COMBINING_KINDS.get(kind, (None, None))
    if isinstance(element, FloatType):
        return float_op
    if isinstance(element, (IntegerType, IndexType)):
        return int_op
    return None


def kind_of_combiner(op_name: str) -> str | None:
    """The combining kind whose lanes ``op_name`` combines (``None`` if none does).

    >>> kind_of_combiner("arith.maximumf"), kind_of_combiner("arith.subf")
    ('maximumf', None)
    """
    for kind, ops in COMBINING_KINDS.items():
        if op_name in ops:
            return kind
    return None


def reduction_identity(kind: str, element: Type) -> float | int:
    """The value of ``element`` type that ``kind`` leaves unchanged (see the table).

    >>> from tinycomp.ir import f32, i8
    >>> reduction_identity("add", f32), reduction_identity("maxsi", i8)
    (-0.0, -128)
    """
    if isinstance(element, FloatType):
        floats = {"add": -0.0, "mul": 1.0, "maximumf": -math.inf, "minimumf": math.inf}
        return floats.get(kind, math.nan)  # maxnumf/minnumf ignore a NaN operand
    width = bitwidth(element)
    all_ones = -1 if width > 1 else 1
    integers = {
        "add": 0, "mul": 1, "maxsi": -(1 << (width - 1)) if width > 1 else 1,
        "minsi": (1 << (width - 1)) - 1 if width > 1 else 0, "maxui": 0, "minui": all_ones,
        "and": all_ones, "or": 0, "xor": 0,
    }  # fmt: skip
    return integers[kind]


def kind_attr(kind: str) -> OpaqueAttr:
    """``#vector.kind<add>``, how the kind is stored."""
    return OpaqueAttr(f"#vector.kind<{kind}>")


class ReductionOp(Operation):
    """Combine all lanes into one scalar:
    ``%s = vector.reduction <add>, %v, %acc : vector<8xf32> into f32``."""

    name = "vector.reduction"
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("kind", FASTMATH)
    default_attributes = {FASTMATH: none_flag(FASTMATH)}

    @classmethod
    def build(
        cls, kind: str, vector: Value, acc: Value | None = None, fastmath: str | None = None
    ) -> ReductionOp:
        """Reduce ``vector`` with ``kind``, starting from ``acc`` if given."""
        if not isinstance(vector.type, VectorType):
            raise ValueError(f"expected a vector to reduce, got {vector.type}")
        operands = [vector] if acc is None else [vector, acc]
        attributes = {"kind": kind_attr(kind), **flags_dict(FASTMATH, fastmath)}
        return cls(operands, [vector.type.element_type], attributes)

    @property
    def kind(self) -> str:
        """The combining kind, ``"add"`` for ``#vector.kind<add>``."""
        text = str(self.attributes.get("kind", ""))
        return text.removeprefix("#vector.kind<").removesuffix(">")

    @property
    def vector(self) -> Value:
        """The vector whose lanes are combined."""
        return self.operands[0]

    @property
    def acc(self) -> Value | None:
        """The starting value, or ``None``."""
        return self.operands[1] if len(self.operands) > 1 else None

    def verify_op(self) -> None:
        if len(self.operands) not in (1, 2):
            raise self.error(f"expected a vector and an optional acc, got {len(self.operands)}")
        vector_type = self.vector.type
        if not isinstance(vector_type, VectorType) or vector_type.rank != 1:
            raise self.error(f"expected a 1-D vector to reduce, got {vector_type}")
        element = vector_type.element_type
        if self.result.type != element:
            raise self.error(f"expected result type {element}, got {self.result.type}")
        if self.acc is not None and self.acc.type != element:
            raise self.error(f"expected an acc of type {element}, got {self.acc.type}")
        if self.kind not in COMBINING_KINDS:
            known = ", ".join(COMBINING_KINDS)
            raise self.error(f"expected a kind among {known}, got {self.attributes.get('kind')}")
        if combiner_op(self.kind, element) is None:
            raise self.error(f"unsupported reduction type '{element}' for kind '{self.kind}'")

    def print_custom(self, printer: Printer) -> None:
        printer.write(f" <{self.kind}>, ")
        printer.print_operands(self.operands)
        print_flag(printer, self, FASTMATH)
        printer.print_attr_dict(self.attributes, elided=["kind", FASTMATH])
        printer.write(" : ")
        printer.print_type(self.vector.type)
        printer.write(" into ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        parser.parse_punct("<")
        kind = parser.parse_identifier("a combining kind")
        parser.parse_punct(">")
        parser.parse_punct(",")
        operands = parser.parse_operand_list()
        if len(operands) not in (1, 2):
            raise parser.expected("a vector and an optional accumulator")
        attributes: dict[str, Attribute] = {"kind": kind_attr(kind)}
        attributes.update(parse_optional_flag(parser, FASTMATH))
        attributes.update(parser.parse_optional_attr_dict())
        vector_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        values = parser.resolve_operands(operands, [vector_type, result_type][: len(operands)])
        return cls(values, [result_type], attributes)
