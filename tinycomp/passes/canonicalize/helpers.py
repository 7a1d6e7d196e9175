"""Helpers shared by the canonicalization patterns: building constants, reading flags.

>>> from tinycomp.ir import VectorType, i1, i32
>>> print(build_constant(0, i32))
%c0_i32 = arith.constant 0 : i32
>>> print(build_constant(True, VectorType((4,), i1)))
%cst = arith.constant dense<true> : vector<4xi1>
>>> from tinycomp.ir import DYNAMIC, RankedTensorType
>>> build_constant(0, RankedTensorType((DYNAMIC,), i32)) is None
True
"""

from __future__ import annotations

import numpy as np

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.base import FASTMATH
from tinycomp.ir.attributes import OpaqueAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import ShapedType, Type

__all__ = ["build_constant", "fastmath_flags"]


def build_constant(number: int | float | bool, value_type: Type) -> ConstantOp | None:
    """A detached ``arith.constant`` of ``value_type`` holding ``number`` (every element
    of it, for a vector or tensor type); ``None`` for a type no constant can have, such
    as ``tensor<?xi32>`` (a constant's shape is known)."""
    if isinstance(value_type, ShapedType):
        if not value_type.has_static_shape:
            return None
        dtype = to_numpy_dtype(value_type.element_type)
        return ConstantOp.build(np.full(value_type.shape, number, dtype=dtype), value_type)
    return ConstantOp.build(number, value_type)


def fastmath_flags(op: Operation) -> set[str]:
    """The fast-math flags of ``op`` as a set of words (``fast`` expanded).

    >>> from tinycomp.ir import Block, f32
    >>> from tinycomp.dialects.arith import MulFOp
    >>> a, b = Block([f32, f32]).arguments
    >>> sorted(fastmath_flags(MulFOp.build(a, b, fastmath="nnan,nsz")))
    ['nnan', 'nsz']
    """
    attr = op.attributes.get(FASTMATH)
    if not isinstance(attr, OpaqueAttr):
        return set()
    body = attr.text[attr.text.find("<") + 1 : attr.text.rfind(">")]
    words = {word.strip() for word in body.split(",")} - {"none", ""}
    if "fast" in words:
        words = {"reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"}
    return words
