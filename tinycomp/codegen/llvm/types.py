"""tinycomp types as LLVM types, and constants as LLVM writes them.

LLVM has fewer types than MLIR, and no signedness: ``i32`` is ``i32`` whether an op
reads it as signed or not (the instruction says which: ``sdiv`` or ``udiv``). The
mapping, the one MLIR's ``LLVMTypeConverter`` uses on a 64-bit target:

==================  =====================  ===========================================
tinycomp / MLIR     LLVM                   note
==================  =====================  ===========================================
``index``           ``i64``                the target's pointer width
``i1``, ``i32``     ``i1``, ``i32``
``f16``             ``half``               IEEE binary16
``bf16``            ``bfloat``             brain float: f32's exponent, 8 bits of mantissa
``f32``, ``f64``    ``float``, ``double``
``vector<8xf32>``   ``<8 x float>``        SIMD registers
``vector<4x8xf32>`` ``[4 x <8 x float>]``  n-D vectors: arrays of 1-D vectors
``memref<...>``     ``ptr`` (+ integers)   see ``descriptor.py``: a memref is several values
==================  =====================  ===========================================

Float constants are written in hexadecimal so they are exact: LLVM reads a ``float``
constant as the *double* that holds the same value (``0x3FF0000000000000`` is 1.0), a
``half`` as ``0xH`` and its 16 bits, a ``bfloat`` as ``0xR`` and its 16 bits.

>>> from tinycomp.ir import VectorType, bf16, f32, index
>>> llvm_type(index), llvm_type(bf16), llvm_type(VectorType((8,), f32))
('i64', 'bfloat', '<8 x float>')
>>> float_literal(1.0, "f32"), float_literal(1.0, "f16"), float_literal(1.0, "bf16")
('0x3FF0000000000000', '0xH3C00', '0xR3F80')
"""

from __future__ import annotations

import struct

import numpy as np

from tinycomp.codegen.errors import CodegenError
from tinycomp.ir.float_format import float_to_bits
from tinycomp.ir.types import (
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    Type,
    VectorType,
)

__all__ = [
    "FLOAT_TYPES",
    "element_size",
    "float_literal",
    "intrinsic_suffix",
    "llvm_type",
    "pointer_type",
]

FLOAT_TYPES = {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double"}
"""tinycomp float type names and their LLVM names."""

_SUFFIXES = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}


def pointer_type(address_space: int = 0) -> str:
    """LLVM's opaque pointer, in an address space (GPU memories are address spaces).

    >>> pointer_type(), pointer_type(3)
    ('ptr', 'ptr addrspace(3)')
    """
    return "ptr" if address_space == 0 else f"ptr addrspace({address_space})"


def llvm_type(t: Type, address_space: int = 0) -> str:
    """The LLVM type of a tinycomp scalar or vector type (see the table above); for a
    memref, the type of its pointers (``address_space`` is the memref's memory space as
    the target numbers it).

    >>> from tinycomp.ir import MemRefType, VectorType, f16, i1
    >>> llvm_type(i1), llvm_type(VectorType((4, 8), f16)), llvm_type(MemRefType((4,), f16))
    ('i1', '[4 x <8 x half>]', 'ptr')
    """
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, IntegerType):
        return f"i{t.width}"
    if isinstance(t, FloatType):
        if t.name not in FLOAT_TYPES:
            raise CodegenError(f"expected a float type among {sorted(FLOAT_TYPES)}, got {t}")
        return FLOAT_TYPES[t.name]
    if isinstance(t, VectorType):
        if any(size is None for size in t.shape) or not t.shape:
            raise CodegenError(f"expected a vector type of static, non-empty shape, got {t}")
        text = f"<{t.shape[-1]} x {llvm_type(t.element_type)}>"
        for size in reversed(t.shape[:-1]):
            text = f"[{size} x {text}]"
        return text
    if isinstance(t, MemRefType):
        return pointer_type(address_space)
    raise CodegenError(
        f"expected index, an integer, a float, a vector or a memref type, got {t} "
        "(tensors must be bufferized before code generation)"
    )


def intrinsic_suffix(type_text: str) -> str:
    """The overload suffix LLVM appends to an intrinsic's name for a type:
    ``llvm.exp.f32``, ``llvm.fma.v8f32``, ``llvm.smin.i64``.

    >>> intrinsic_suffix("float"), intrinsic_suffix("<8 x half>"), intrinsic_suffix("i64")
    ('f32', 'v8f16', 'i64')
    """
    if type_text.startswith("<"):
        count, _, element = type_text[1:-1].partition(" x ")
        return f"v{count}{intrinsic_suffix(element)}"
    if type_text in _SUFFIXES:
        return _SUFFIXES[type_text]
    if type_text.startswith("i") and type_text[1:].isdigit():
        return type_text
    raise CodegenError(f"expected a scalar or 1-D vector LLVM type, got '{type_text}'")


def float_literal(value: float, type_name: str) -> str:
    """The exact LLVM constant of ``value`` in float type ``type_name`` (``"f32"``...).

    ``float`` and ``double`` constants are written as the bits of the double with the
    same value; ``half`` and ``bfloat`` as their own bits behind ``0xH`` / ``0xR``.

    >>> float_literal(0.5, "f32"), float_literal(float("-inf"), "f16")
    ('0x3FE0000000000000', '0xHFC00')
    """
    if type_name == "f16":
        return f"0xH{float_to_bits(value, 'f16'):04X}"
    if type_name == "bf16":
        return f"0xR{float_to_bits(value, 'bf16'):04X}"
    if type_name == "f32":
        value = float(np.float32(value))
    elif type_name != "f64":
        raise CodegenError(f"expected a float type among {sorted(FLOAT_TYPES)}, got {type_name}")
    (bits,) = struct.unpack(">Q", struct.pack(">d", value))
    return f"0x{bits:016X}"


def element_size(t: Type) -> int:
    """Bytes one element of type ``t`` takes in memory (``index`` is 8 bytes).

    >>> from tinycomp.ir import bf16, f32, index
    >>> element_size(f32), element_size(bf16), element_size(index)
    (4, 2, 8)
    """
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        return max(1, (t.width + 7) // 8)
    if isinstance(t, FloatType):
        return t.width // 8
    if isinstance(t, VectorType):
        count = 1
        for size in t.shape:
            count *= size
        return count * element_size(t.element_type)
    raise CodegenError(f"expected a scalar or vector element type, got {t}")
