"""What a tile kernel computes with while it is being translated.

A tile kernel's Python variables hold one of four kinds of thing:

1. a Python number or bool: a *compile-time* value (a ``constexpr`` block size, a
   literal), folded by Python itself: ``BLOCK * 2`` is just ``256``;
2. a scalar SSA ``Value`` (``i32``, ``f32``, ...): a scalar argument, a program id, a
   loop counter, or arithmetic on them;
3. a ``Tile``: a tensor of static shape, the value of one whole block of data;
4. a ``Pointer``: a flat buffer (a ``memref<?xT>`` argument) plus element offsets
   into it, a scalar or a tile of them (``x + offs`` in Triton's model);
5. ``Undefined``: a name with no value at this point (assigned only inside a loop).

``TileContext`` is where new ops go (the builder) and at which Python line (the
``location`` the generator sets before each statement). ``TileError`` is what the
builtins raise; the generator adds the kernel's file and line.

>>> from tinycomp.ir import Block, MemRefType, DYNAMIC, f32
>>> x = Block([MemRefType((DYNAMIC,), f32)]).arguments[0]
>>> Pointer(x, None).element_type
FloatType(name='f32')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tinycomp.frontend.tensor import Tensor, TraceContext
from tinycomp.ir import Block, Builder, Location, Operation
from tinycomp.ir.types import MemRefType, Type
from tinycomp.ir.values import Value

__all__ = ["Pointer", "Tile", "TileContext", "TileError", "Undefined", "constexpr", "kind_of"]


class TileError(Exception):
    """A mistake in a tile kernel found by a builtin (wrong shapes, a bad dtype); the
    message names the builtin, what was expected and what was found."""


class constexpr:  # noqa: N801 (named as Triton's ``tl.constexpr``)
    """Marks a kernel parameter as a compile-time constant: ``BLOCK: tile.constexpr``.

    Its value (a Python int, float or bool) is given as a keyword argument at launch;
    each distinct value specialises the kernel anew.
    """


@dataclass
class TileContext(TraceContext):
    """Where new ops go: the builder, and the Python line they come from."""

    location: Location | None = None
    """The location of the statement being translated."""
    program_ids: dict[str, Value] = field(default_factory=dict)
    """``"program_id_x"`` -> the function's ``index`` argument of that name."""

    @classmethod
    def scratch(cls) -> TileContext:
        """A context that inserts into a fresh block of its own (for examples and tests).

        >>> from tinycomp.dialects.arith import ConstantOp
        >>> from tinycomp.ir.types import f32
        >>> context = TileContext.scratch()
        >>> print(context.insert(ConstantOp.build(1.0, f32)).result.type)
        f32
        """
        return cls(Builder.at_end(Block()))

    def insert(self, op: Operation) -> Operation:
        """Insert ``op`` at the builder's point, located at the current line."""
        self.builder.location = self.location
        return self.builder.insert(op)

    def wrap(self, value: Value, name_hint: str | None = None) -> Tile:
        """A ``Tile`` for the tensor ``value``.

        >>> from tinycomp.ir.types import RankedTensorType, f32
        >>> TileContext.scratch().wrap(Block([RankedTensorType((4,), f32)]).arguments[0])
        Tile(tensor<4xf32>)
        """
        if name_hint is not None and value.name_hint is None:
            value.name_hint = name_hint
        return Tile(value, self)


class Tile(Tensor):
    """A block of data: an SSA value of a static ``tensor<...>`` type.

    The kernel's operators on tiles are translated by the generator (``arithmetic.py``),
    not by Python's operators, so a ``Tile`` only carries its value, shape and dtype.
    """

    def __repr__(self) -> str:
        return f"Tile({self.type})"


@dataclass(frozen=True)
class Undefined:
    """A variable with no value here (assigned only inside a loop or in one branch)."""

    reason: str
    """Why, for the message: ``"is assigned only inside the loop at line 7"``."""


@dataclass(frozen=True)
class Pointer:
    """A flat buffer and element offsets into it: ``x + offs``."""

    buffer: Value
    """The ``memref<?xT>`` argument."""
    offsets: Tile | Value | None
    """A tile of offsets, a scalar offset, or ``None`` for the first element."""

    @property
    def element_type(self) -> Type:
        """The buffer's element type."""
        buffer_type = self.buffer.type
        assert isinstance(buffer_type, MemRefType)
        return buffer_type.element_type

    def describe(self) -> str:
        """How messages name the pointer.

        >>> from tinycomp.ir import Block, DYNAMIC, MemRefType, f32
        >>> x = Block([MemRefType((DYNAMIC,), f32)]).arguments[0]
        >>> x.name_hint = "x"
        >>> Pointer(x, None).describe()
        'pointer to %x'
        """
        name = f"%{self.buffer.name_hint}" if self.buffer.name_hint else "a buffer"
        if self.offsets is None:
            return f"pointer to {name}"
        offsets_type = self.offsets.type
        return f"pointer into {name} (offsets {offsets_type})"


def kind_of(value: object) -> str:
    """How messages name a value's kind: ``tile tensor<4xf32>``, ``scalar i32``, ...

    >>> kind_of(3), kind_of(2.5)
    ('Python int 3', 'Python float 2.5')
    """
    if isinstance(value, Tile):
        return f"tile {value.type}"
    if isinstance(value, Pointer):
        return value.describe()
    if isinstance(value, Value):
        return f"scalar {value.type}"
    if isinstance(value, (bool, int, float)):
        return f"Python {type(value).__name__} {value!r}"
    return type(value).__name__
