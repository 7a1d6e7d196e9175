"""Constants as LLVM operands: no instruction, just text where the value is used.

In LLVM IR a constant is written inline, in the operand position: ``fadd float %x,
0x3FF0000000000000``. So ``arith.constant`` emits nothing: its result is *bound* to
the constant's text, and every user writes that text (MLIR's translation to LLVM IR
does the same with ``llvm.mlir.constant``).

* integers: decimal (``i1`` is ``true``/``false``);
* floats: exact hexadecimal (``types.float_literal``);
* vectors: ``splat (float 0x...)`` when every lane is equal, else ``<float a, float b>``;
  n-D vectors are arrays of 1-D vectors: ``[<...>, <...>]``.

>>> from tinycomp.ir import BoolAttr, IntegerAttr, VectorType, f32, index
>>> from tinycomp.ir.dense import DenseElementsAttr
>>> constant_text(IntegerAttr(7, index)), constant_text(BoolAttr(True))
('7', 'true')
>>> constant_text(DenseElementsAttr(VectorType((4,), f32), 0.5))
'splat (float 0x3FE0000000000000)'
>>> constant_text(DenseElementsAttr(VectorType((2,), f32), [1.0, 2.0]))
'<float 0x3FF0000000000000, float 0x4000000000000000>'
"""

from __future__ import annotations

import numpy as np

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.types import float_literal, llvm_type
from tinycomp.ir.attributes import Attribute, BoolAttr, FloatAttr, IntegerAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.types import FloatType, IntegerType, Type, VectorType

__all__ = ["constant_text", "scalar_text", "splat"]


def scalar_text(value: object, t: Type) -> str:
    """The LLVM text of one scalar ``value`` of tinycomp type ``t``.

    >>> from tinycomp.ir import bf16, i32
    >>> scalar_text(-3, i32), scalar_text(2.0, bf16)
    ('-3', '0xR4000')
    """
    if isinstance(t, FloatType):
        return float_literal(float(value), t.name)
    if isinstance(t, IntegerType) and t.width == 1:
        return "true" if bool(value) else "false"
    return str(int(value))


def splat(type_text: str, scalar: str) -> str:
    """``scalar`` as a value of LLVM type ``type_text``: itself for a scalar type, a
    splat for a vector type (what a constant operand of a vector op must be).

    >>> splat("i64", "1"), splat("<4 x i32>", "0")
    ('1', 'splat (i32 0)')
    """
    if type_text.startswith("<"):
        element = type_text[1:-1].partition(" x ")[2]
        return f"splat ({element} {scalar})"
    return scalar


def constant_text(attr: Attribute) -> str:
    """The LLVM operand text of an ``arith.constant`` value attribute.

    >>> from tinycomp.ir import FloatAttr, f16
    >>> constant_text(FloatAttr(-2.0, f16))
    '0xHC000'
    """
    if isinstance(attr, BoolAttr):
        return "true" if attr.value else "false"
    if isinstance(attr, IntegerAttr):
        return scalar_text(attr.value, attr.type)
    if isinstance(attr, FloatAttr):
        return float_literal(attr.value, attr.type.name)
    if isinstance(attr, DenseElementsAttr) and isinstance(attr.type, VectorType):
        return _vector_text(attr.values, attr.type.element_type, attr.is_splat)
    raise CodegenError(
        f"expected a scalar or vector constant, got {attr} (tensor constants must be "
        "bufferized into memref.global or buffers before code generation)"
    )


def _vector_text(values: np.ndarray, element: Type, is_splat: bool) -> str:
    element_type = llvm_type(element)
    if values.ndim > 1:
        inner = f"<{values.shape[-1]} x {element_type}>"
        for size in reversed(values.shape[1:-1]):
            inner = f"[{size} x {inner}]"
        rows = ", ".join(f"{inner} {_vector_text(row, element, is_splat)}" for row in values)
        return f"[{rows}]"
    if is_splat:
        return f"splat ({element_type} {scalar_text(values.reshape(-1)[0], element)})"
    lanes = ", ".join(f"{element_type} {scalar_text(v, element)}" for v in values)
    return f"<{lanes}>"
