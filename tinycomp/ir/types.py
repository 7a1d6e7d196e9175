"""Types: the static type of every SSA value, printed exactly as MLIR prints them.

Every type is a frozen dataclass, so types compare by value and can be dict keys:
``IntegerType(32) == i32``. ``str(t)`` is MLIR's syntax for the type.

Shaped types (vectors, tensors, memrefs) have a ``shape``: a tuple of dimension sizes.
A dimension whose size is only known at run time is *dynamic*; MLIR writes it ``?``
and tinycomp stores it as ``DYNAMIC``, which is ``None`` (not ``-1``), so that
arithmetic on an unknown size fails loudly instead of computing nonsense.

>>> RankedTensorType((4, DYNAMIC), f32)
RankedTensorType(shape=(4, None), element_type=FloatType(name='f32'))
>>> print(RankedTensorType((4, DYNAMIC), f32), VectorType([8], i1), FunctionType([index], [f32]))
tensor<4x?xf32> vector<8xi1> (index) -> f32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinycomp.ir.attributes import Attribute

DYNAMIC = None
"""The size of a dimension (or a stride, or an offset) that is unknown until run time."""

Dim = int | None
"""One dimension size: an ``int`` >= 0, or ``DYNAMIC``."""

Shape = tuple[Dim, ...]
"""A shape: one ``Dim`` per dimension; ``()`` is rank 0."""


class Type:
    """Base class of all types (for ``isinstance`` checks)."""


@dataclass(frozen=True)
class IndexType(Type):
    """``index``: the target's pointer-sized integer, used for sizes and loop indices."""

    def __str__(self) -> str:
        return "index"


@dataclass(frozen=True)
class IntegerType(Type):
    """A signless integer ``iN`` (``i1`` is the boolean type).

    >>> print(IntegerType(8))
    i8
    """

    width: int
    """Number of bits, at least 1."""

    def __post_init__(self) -> None:
        if not isinstance(self.width, int) or self.width < 1:
            raise ValueError(f"expected a positive integer width, got {self.width!r}")

    def __str__(self) -> str:
        return f"i{self.width}"


FLOAT_WIDTHS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
"""The float types tinycomp knows, with their widths in bits."""


@dataclass(frozen=True)
class FloatType(Type):
    """An IEEE-style float: ``f16``, ``bf16``, ``f32`` or ``f64``.

    >>> FloatType("bf16").width
    16
    """

    name: str
    """The MLIR spelling, one of ``FLOAT_WIDTHS``."""

    def __post_init__(self) -> None:
        if self.name not in FLOAT_WIDTHS:
            raise ValueError(f"expected one of {', '.join(FLOAT_WIDTHS)}, got {self.name!r}")

    @property
    def width(self) -> int:
        """Number of bits."""
        return FLOAT_WIDTHS[self.name]

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class NoneType(Type):
    """``none``: the unit type, for values that carry no data."""

    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True)
class OpaqueType(Type):
    """A dialect type tinycomp does not model, kept verbatim (``!llvm.ptr``).

    >>> print(OpaqueType("!gpu.async.token"))
    !gpu.async.token
    """

    text: str
    """The full spelling, starting with ``!``."""

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class FunctionType(Type):
    """``(inputs) -> results``: the type of a function or of a generic op.

    >>> print(FunctionType([i32, f32], []), FunctionType([], [f32, f32]))
    (i32, f32) -> () () -> (f32, f32)
    """

    inputs: tuple[Type, ...]
    """Argument types."""
    results: tuple[Type, ...]
    """Result types."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "results", tuple(self.results))

    def __str__(self) -> str:
        inputs = ", ".join(str(t) for t in self.inputs)
        return f"({inputs}) -> {format_result_types(self.results)}"


def format_result_types(results: Sequence[Type]) -> str:
    """Print a result type list as MLIR does: bare when it is one non-function type.

    >>> format_result_types([f32]), format_result_types([]), format_result_types([i1, i1])
    ('f32', '()', '(i1, i1)')
    """
    if len(results) == 1 and not isinstance(results[0], FunctionType):
        return str(results[0])
    return "(" + ", ".join(str(t) for t in results) + ")"


class ShapedType(Type):
    """Base class of the types with a shape and an element type."""

    shape: Shape
    element_type: Type

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def has_static_shape(self) -> bool:
        """True when no dimension is ``DYNAMIC``."""
        return DYNAMIC not in self.shape

    @property
    def num_elements(self) -> int:
        """Product of the dimensions (the shape must be static).

        >>> RankedTensorType((2, 3), f32).num_elements
        6
        """
        if not self.has_static_shape:
            raise ValueError(f"expected a static shape, got {self}")
        count = 1
        for size in self.shape:
            count *= size
        return count

    def _check_shape(self, allow_dynamic: bool) -> None:
        object.__setattr__(self, "shape", tuple(self.shape))
        for size in self.shape:
            if size is DYNAMIC and allow_dynamic:
                continue
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise ValueError(f"expected dimension sizes >= 0, got {self.shape}")
        if not isinstance(self.element_type, Type):
            raise ValueError(f"expected an element type, got {self.element_type!r}")


def format_shape(shape: Shape) -> str:
    """``(4, None)`` -> ``"4x?x"``: the dimension prefix of a shaped type."""
    return "".join("?x" if size is DYNAMIC else f"{size}x" for size in shape)


@dataclass(frozen=True)
class VectorType(ShapedType):
    """``vector<4x8xf32>``: a fixed-size SIMD value (static shape only)."""

    shape: Shape
    """Dimension sizes, all static and positive."""
    element_type: Type
    """The scalar type of each lane."""

    def __post_init__(self) -> None:
        self._check_shape(allow_dynamic=False)
        if 0 in self.shape:
            raise ValueError(f"expected vector dimensions > 0, got {self.shape}")

    def __str__(self) -> str:
        return f"vector<{format_shape(self.shape)}{self.element_type}>"


@dataclass(frozen=True)
class RankedTensorType(ShapedType):
    """``tensor<4x?xf32>``: an immutable n-d array value."""

    shape: Shape
    """Dimension sizes; ``DYNAMIC`` (``None``) for ``?``."""
    element_type: Type
    """The type of each element."""

    def __post_init__(self) -> None:
        self._check_shape(allow_dynamic=True)

    def __str__(self) -> str:
        return f"tensor<{format_shape(self.shape)}{self.element_type}>"


@dataclass(frozen=True)
class MemRefType(ShapedType):
    """``memref<4x8xf32, strided<[8, 1]>, 1>``: a reference to a buffer in memory.

    ``layout`` maps indices to memory positions: ``None`` is the row-major identity,
    otherwise a ``StridedLayoutAttr`` or an ``AffineMapAttr``. ``memory_space`` is
    ``None`` (the default space), an ``IntegerAttr`` (printed as a bare number) or any
    attribute such as ``OpaqueAttr("#gpu.address_space<workgroup>")``. As in MLIR, an
    identity affine-map layout and memory space 0 are normalized to ``None``.

    >>> print(MemRefType((4, DYNAMIC), f32))
    memref<4x?xf32>
    """

    shape: Shape
    """Dimension sizes; ``DYNAMIC`` (``None``) for ``?``."""
    element_type: Type
    """The type of each element."""
    layout: Attribute | None = None
    """``None`` (identity), a ``StridedLayoutAttr`` or an ``AffineMapAttr``."""
    memory_space: Attribute | None = None
    """``None`` (default memory) or an attribute naming the memory space."""

    def __post_init__(self) -> None:
        from tinycomp.ir.attributes import AffineMapAttr, IntegerAttr

        self._check_shape(allow_dynamic=True)
        if isinstance(self.layout, AffineMapAttr) and self.layout.is_identity():
            object.__setattr__(self, "layout", None)
        if isinstance(self.memory_space, IntegerAttr) and self.memory_space.value == 0:
            object.__setattr__(self, "memory_space", None)

    def __str__(self) -> str:
        from tinycomp.ir.attributes import IntegerAttr

        text = f"memref<{format_shape(self.shape)}{self.element_type}"
        if self.layout is not None:
            text += f", {self.layout}"
        if isinstance(self.memory_space, IntegerAttr) and self.memory_space.type == i64:
            text += f", {self.memory_space.value}"
        elif self.memory_space is not None:
            text += f", {self.memory_space}"
        return text + ">"


# -- the common types, as module-level singletons -------------------------------------
index = IndexType()
i1 = IntegerType(1)
i8 = IntegerType(8)
i16 = IntegerType(16)
i32 = IntegerType(32)
i64 = IntegerType(64)
f16 = FloatType("f16")
bf16 = FloatType("bf16")
f32 = FloatType("f32")
f64 = FloatType("f64")
