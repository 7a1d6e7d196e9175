"""The arith dialect: constants, arithmetic, comparisons and casts on scalars, vectors and
tensors. This module defines ``arith.constant``, registers the dialect, and re-exports
every arith op class, so ``from tinycomp.dialects.arith import AddFOp`` works.

The ops live in files by role: ``arith_binary.py`` (addf, muli, ...), ``arith_compare.py``
(cmpi, cmpf, select), ``arith_cast.py`` (extf, sitofp, index_cast, ...).

>>> from tinycomp.ir import Block, Builder, f32, index
>>> b = Builder.at_end(Block())
>>> zero = b.insert(ConstantOp.build(0, index)).result
>>> half = b.insert(ConstantOp.build(0.5, f32)).result
>>> print(zero.op)
%c0 = arith.constant 0 : index
>>> print(half.op)
%cst = arith.constant 5.000000e-01 : f32
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.dialects.arith.binary import (
    BINARY_OPS,
    AddFOp,
    AddIOp,
    AndIOp,
    CeilDivSIOp,
    CeilDivUIOp,
    DivFOp,
    DivSIOp,
    DivUIOp,
    ElementwiseOp,
    FloatBinaryOp,
    FloatUnaryOp,
    FloorDivSIOp,
    IntBinaryOp,
    MaximumFOp,
    MaxNumFOp,
    MaxSIOp,
    MaxUIOp,
    MinimumFOp,
    MinNumFOp,
    MinSIOp,
    MinUIOp,
    MulFOp,
    MulIOp,
    NegFOp,
    OrIOp,
    RemFOp,
    RemSIOp,
    RemUIOp,
    ShLIOp,
    ShRSIOp,
    ShRUIOp,
    SubFOp,
    SubIOp,
    XOrIOp,
)
from tinycomp.dialects.arith.cast import (
    CAST_OPS,
    BitcastOp,
    CastOp,
    ExtFOp,
    ExtSIOp,
    ExtUIOp,
    FPToSIOp,
    FPToUIOp,
    IndexCastOp,
    IndexCastUIOp,
    SIToFPOp,
    TruncFOp,
    TruncIOp,
    UIToFPOp,
)
from tinycomp.dialects.arith.compare import (
    CMPF_PREDICATES,
    CMPI_PREDICATES,
    COMPARE_OPS,
    CmpFOp,
    CmpIOp,
    CompareOp,
    SelectOp,
)
from tinycomp.ir.attributes import Attribute, BoolAttr, FloatAttr, IntegerAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.types import FloatType, IntegerType, RankedTensorType, Type, VectorType


class ConstantOp(Operation):
    """A constant: ``%c0 = arith.constant 0 : index``, ``%cst = arith.constant 1.000000e+00
    : f32``, ``%true = arith.constant true``, ``%cst = arith.constant dense<0.0> :
    tensor<4xf32>``. The result type is the type of the ``value`` attribute.
    """

    name = "arith.constant"
    is_constant_like = True
    num_operands = 0
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("value",)

    @classmethod
    def build(cls, value: Any, type: Type | None = None) -> ConstantOp:
        """A constant from an attribute, or from a Python/numpy value and its type:
        ``build(1.0, f32)``, ``build(True)``, ``build(np.zeros(4), tensor_type)``."""
        attr = constant_attr(value, type)
        return cls([], [_typed_attr_type(attr)], {"value": attr})

    @property
    def value(self) -> Attribute:
        """The constant, an ``IntegerAttr``, ``FloatAttr``, ``BoolAttr`` or dense attr."""
        return self.attributes["value"]

    def verify_op(self) -> None:
        value = self.attributes.get("value")
        if not isinstance(value, (IntegerAttr, FloatAttr, BoolAttr, DenseElementsAttr)):
            raise self.error(f"expected a typed 'value' attribute, got {value}")
        if value.type != self.result.type:
            raise self.error(
                f"expected result type {value.type} (the value's), got {self.result.type}"
            )

    def asm_result_names(self) -> list[str]:
        """MLIR's names: ``%c0`` (index), ``%c-1_i32``, ``%true``, else ``%cst``."""
        value = self.attributes.get("value")
        if isinstance(value, BoolAttr):
            return ["true" if value.value else "false"]
        if isinstance(value, IntegerAttr) and isinstance(value.type, IntegerType):
            return [f"c{value.value}_{value.type}"]
        if isinstance(value, IntegerAttr):
            return [f"c{value.value}"]
        return ["cst"]

    def print_custom(self, printer: Printer) -> None:
        printer.print_attr_dict(self.attributes, elided=["value"])
        printer.write(" ")
        printer.print_attribute(self.value)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        token = parser.token
        value = parser.parse_attribute()
        if not isinstance(value, (IntegerAttr, FloatAttr, BoolAttr, DenseElementsAttr)):
            raise parser.error(
                "expected a typed constant such as '0 : index' or '1.0 : f32'", token
            )
        attributes["value"] = value
        return cls([], [value.type], attributes)


def constant_attr(value: Any, type: Type | None = None) -> Attribute:
    """The attribute for a constant ``value`` of ``type`` (see ``ConstantOp.build``)."""
    if isinstance(value, Attribute):
        return value
    if isinstance(type, (RankedTensorType, VectorType)):
        return DenseElementsAttr(type, np.asarray(value))
    if isinstance(value, (bool, np.bool_)) and type in (None, IntegerType(1)):
        return BoolAttr(bool(value))
    if type is None:
        raise ValueError(f"expected a type for the constant {value!r}")
    if isinstance(type, FloatType):
        return FloatAttr(float(value), type)
    if type == IntegerType(1):
        return BoolAttr(bool(value))
    return IntegerAttr(int(value), type)


def _typed_attr_type(attr: Attribute) -> Type:
    if not isinstance(attr, (IntegerAttr, FloatAttr, BoolAttr, DenseElementsAttr)):
        raise ValueError(f"expected a typed constant attribute, got {attr}")
    return attr.type


ARITH = Dialect("arith", (ConstantOp, *BINARY_OPS, *COMPARE_OPS, *CAST_OPS))
"""The arith dialect (registered on import)."""
register_dialect(ARITH)

__all__ = [
    "ARITH", "CMPF_PREDICATES", "CMPI_PREDICATES", "AddFOp", "AddIOp", "AndIOp", "BitcastOp",
    "CastOp", "CeilDivSIOp", "CeilDivUIOp", "CmpFOp", "CmpIOp", "CompareOp", "ConstantOp",
    "DivFOp", "DivSIOp", "DivUIOp", "ElementwiseOp", "ExtFOp", "ExtSIOp", "ExtUIOp",
    "FPToSIOp", "FPToUIOp", "FloatBinaryOp", "FloatUnaryOp", "FloorDivSIOp", "IndexCastOp",
    "IndexCastUIOp", "IntBinaryOp", "MaxNumFOp", "MaxSIOp", "MaxUIOp", "MaximumFOp",
    "MinNumFOp", "MinSIOp", "MinUIOp", "MinimumFOp", "MulFOp", "MulIOp", "NegFOp", "OrIOp",
    "RemFOp", "RemSIOp", "RemUIOp", "SIToFPOp", "SelectOp", "ShLIOp", "ShRSIOp", "ShRUIOp",
    "SubFOp", "SubIOp", "TruncFOp", "TruncIOp", "UIToFPOp", "XOrIOp", "constant_attr",
]  # fmt: skip
