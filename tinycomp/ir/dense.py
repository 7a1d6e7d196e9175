"""Dense constants: whole tensors (``dense<...>``) and small integer lists (``array<...>``).

``DenseElementsAttr`` holds the value of a tensor or vector constant as a read-only numpy
array. MLIR prints it as nested lists, as one value when all elements are equal (a
*splat*), and as a hex string of the raw little-endian bytes when it has more than 100
elements (``hex_bytes``); tinycomp prints the same and parses all three forms.

>>> from tinycomp.ir.types import RankedTensorType, f32, i32
>>> print(DenseElementsAttr(RankedTensorType((1, 2), f32), [[1.0, 2.0]]))
dense<[[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
>>> print(DenseElementsAttr(RankedTensorType((4,), i32), 0))
dense<0> : tensor<4xi32>

``DenseArrayAttr`` is the plain list of numbers that many upstream ops use for static
sizes and permutations: ``array<i64: 1, 0>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.float_format import format_float, round_to_type
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import FloatType, IntegerType, RankedTensorType, ShapedType, Type, VectorType

HEX_ELEMENT_LIMIT = 100
"""Above this many elements (and not a splat), MLIR prints dense data as hex."""


@dataclass(frozen=True, eq=False)
class DenseElementsAttr(Attribute):
    """The value of a tensor or vector constant.

    ``values`` may be anything numpy accepts with the type's shape, or one scalar for a
    splat; it is stored as a read-only array of ``to_numpy_dtype(type)``. Equality is by
    type and raw bytes.
    """

    type: ShapedType
    """A statically shaped ``RankedTensorType`` or ``VectorType``."""
    values: np.ndarray
    """The elements, shaped like ``type`` (read-only)."""

    def __post_init__(self) -> None:
        if not isinstance(self.type, (RankedTensorType, VectorType)):
            raise ValueError(f"expected a tensor or vector type, got {self.type}")
        if not self.type.has_static_shape:
            raise ValueError(f"expected a static shape, got {self.type}")
        dtype = to_numpy_dtype(self.type)
        raw = np.asarray(self.values)
        if raw.dtype.kind in "iubO" and dtype.kind in "iu":
            raw = raw.astype(np.int64)  # wrap out-of-range integers like MLIR's APInt
        array = raw.astype(dtype)
        if array.shape != self.type.shape:
            if array.size != 1:
                raise ValueError(f"expected values of shape {self.type.shape}, got {array.shape}")
            array = np.full(self.type.shape, array.reshape(()), dtype=dtype)
        array = np.array(array)  # own a contiguous copy
        array.flags.writeable = False
        object.__setattr__(self, "values", array)

    @property
    def is_splat(self) -> bool:
        """True when every element has the same bits (printed as one value)."""
        flat = self.values.reshape(-1)
        if flat.size == 0:
            return False
        rows = flat.view(np.uint8).reshape(flat.size, -1)
        return bool((rows == rows[0]).all())

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DenseElementsAttr)
            and self.type == other.type
            and self.values.tobytes() == other.values.tobytes()
        )

    def __hash__(self) -> int:
        return hash((self.type, self.values.tobytes()))

    def __str__(self) -> str:
        return f"dense<{self.format_body()}> : {self.type}"

    def format_body(self) -> str:
        """The text between ``dense<`` and ``>``."""
        flat = self.values.reshape(-1)
        if flat.size == 0:
            return ""
        if self.is_splat:
            return format_element(flat[0], self.type.element_type)
        if flat.size > HEX_ELEMENT_LIMIT:
            return '"0x' + hex_bytes(flat).hex().upper() + '"'
        items = [format_element(x, self.type.element_type) for x in flat]
        return _nest(items, self.type.shape)


def hex_bytes(flat: np.ndarray) -> bytes:
    """The raw data MLIR writes in hex: little-endian elements; ``i1`` packed 8 per byte,
    element ``k`` in bit ``k % 8`` of byte ``k // 8``."""
    if flat.dtype == np.bool_:
        return np.packbits(flat, bitorder="little").tobytes()
    return flat.astype(flat.dtype.newbyteorder("<")).tobytes()


def format_element(value: Any, element_type: Type) -> str:
    """One element of a dense literal: ``true``, ``-3`` or ``1.500000e+00``."""
    if isinstance(element_type, FloatType):
        return format_float(float(value), element_type.name)
    if isinstance(element_type, IntegerType) and element_type.width == 1:
        return "true" if value else "false"
    return str(int(value))


def _nest(items: list[str], shape: tuple) -> str:
    """Group a flat list of element texts into nested ``[...]`` following ``shape``."""
    if len(shape) == 0:
        return items[0]
    if len(shape) == 1:
        return "[" + ", ".join(items) + "]"
    chunk = len(items) // shape[0] if shape[0] else 0
    rows = [_nest(items[i * chunk : (i + 1) * chunk], shape[1:]) for i in range(shape[0])]
    return "[" + ", ".join(rows) + "]"


DENSE_ARRAY_TYPES = ("i1", "i8", "i16", "i32", "i64", "f32", "f64")
"""Element types a ``DenseArrayAttr`` may have."""


@dataclass(frozen=True)
class DenseArrayAttr(Attribute):
    """``array<i64: 1, 2>``: a list of plain numbers of one element type.

    >>> from tinycomp.ir.types import i64
    >>> print(DenseArrayAttr(i64, [1, 2]), DenseArrayAttr(i64, []))
    array<i64: 1, 2> array<i64>
    """

    element_type: Type
    """One of ``DENSE_ARRAY_TYPES``."""
    values: tuple
    """The numbers (``bool`` for i1, ``int`` for integers, ``float`` for floats)."""

    def __init__(self, element_type: Type, values: Sequence[Any]) -> None:
        if str(element_type) not in DENSE_ARRAY_TYPES:
            raise ValueError(f"expected one of {', '.join(DENSE_ARRAY_TYPES)}, got {element_type}")
        object.__setattr__(self, "element_type", element_type)
        object.__setattr__(self, "values", tuple(_normalize(v, element_type) for v in values))

    def __len__(self) -> int:
        return len(self.values)

    def __str__(self) -> str:
        if not self.values:
            return f"array<{self.element_type}>"
        items = ", ".join(format_element(v, self.element_type) for v in self.values)
        return f"array<{self.element_type}: {items}>"


def _normalize(value: Any, element_type: Type) -> Any:
    """Round a float to its type, wrap an integer into its signed range."""
    if isinstance(element_type, FloatType):
        return round_to_type(float(value), element_type.name)
    assert isinstance(element_type, IntegerType)
    if element_type.width == 1:
        return bool(value)
    width = element_type.width
    if not -(2 ** (width - 1)) <= int(value) < 2**width:
        raise ValueError(f"integer {value} is out of range for {element_type}")
    return (int(value) + 2 ** (width - 1)) % 2**width - 2 ** (width - 1)
