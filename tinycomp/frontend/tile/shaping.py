"""Making tiles of a shape: splats, broadcasts, ``arange``, expanded dimensions.

Each is one structured op on tensors:

* ``broadcast_to(context, value, shape, dtype)``: a ``linalg.generic`` reading a tile
  through a broadcasting indexing map (or capturing a scalar) into ``tensor<shape>``;
* ``arange(context, start, end)``: a ``linalg.generic`` with no inputs whose payload
  yields ``start + linalg.index 0`` as ``i32``;
* ``expand_dims(tile, index)``: ``x[:, None]`` as ``tensor.expand_shape``.

>>> print(normalize_shape((4, 8), "zeros"))
(4, 8)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap
from tinycomp.dialects.arith import AddIOp, ConstantOp
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.frontend.elementwise import broadcast_map, broadcast_shapes
from tinycomp.frontend.shapes import reshape
from tinycomp.frontend.tile.arithmetic import scalar_cast, to_value
from tinycomp.frontend.tile.values import Tile, TileContext, TileError, kind_of
from tinycomp.ir import Builder
from tinycomp.ir.types import Type, i32
from tinycomp.ir.values import Value

__all__ = ["arange", "broadcast_to", "expand_dims", "normalize_shape"]


def normalize_shape(shape: object, op_name: str) -> tuple[int, ...]:
    """A shape given as an int or a tuple/list of compile-time ints, as a tuple.

    >>> normalize_shape(8, "zeros")
    (8,)
    """
    sizes = (shape,) if isinstance(shape, int) else shape
    if not isinstance(sizes, (tuple, list)) or not all(
        isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes
    ):
        raise TileError(
            f"{op_name}: expected a shape of positive compile-time ints (constexprs), "
            f"got {kind_of(shape) if not isinstance(shape, (tuple, list)) else shape}"
        )
    return tuple(sizes)


def broadcast_to(
    context: TileContext, value: object, shape: tuple[int, ...], dtype: Type, op_name: str
) -> Tile:
    """``value`` (a tile, scalar or number) broadcast to ``shape`` and cast to ``dtype``.

    >>> from tinycomp.ir.types import f32
    >>> context = TileContext.scratch()
    >>> broadcast_to(context, arange(context, 0, 4), (2, 4), f32, "example")
    Tile(tensor<2x4xf32>)
    """
    if isinstance(value, Tile) and value.shape == shape and value.dtype == dtype:
        return value
    empty = context.insert(EmptyOp.build(shape, dtype)).result
    maps = [AffineMap.identity(len(shape))]
    inputs: list[Value] = []
    captured: Value | None = None
    if isinstance(value, Tile):
        if broadcast_shapes(value.shape, shape) != shape:
            raise TileError(
                f"{op_name}: expected a shape that broadcasts to {shape}, got {value.shape}"
            )
        inputs.append(value.value)
        maps.insert(0, broadcast_map(value.shape, shape))
    else:
        captured = to_value(context, value, dtype)

    def payload(builder: Builder, arguments: Sequence[Value]) -> list[Value]:
        element = arguments[0] if inputs else captured
        return [scalar_cast(builder, element, dtype)]

    generic = GenericOp.build(inputs, [empty], maps, ["parallel"] * len(shape), payload)
    return context.wrap(context.insert(generic).result, "broadcast")


def arange(context: TileContext, start: object, end: object) -> Tile:
    """``tile.arange(start, end)``: the ``i32`` tile ``[start, start + 1, ..., end - 1]``;
    ``start`` and ``end`` are compile-time ints and ``end - start`` a power of two.

    >>> arange(TileContext.scratch(), 8, 16)
    Tile(tensor<8xi32>)
    """
    for bound in (start, end):
        if not isinstance(bound, int) or isinstance(bound, bool):
            raise TileError(f"arange: expected compile-time int bounds, got {kind_of(bound)}")
    size = end - start
    if size <= 0 or size & (size - 1):
        raise TileError(
            f"arange: expected end - start to be a power of two, got {end} - {start} = {size}"
        )
    empty = context.insert(EmptyOp.build((size,), i32)).result

    def payload(builder: Builder, arguments: Sequence[Value]) -> list[Value]:
        position = builder.insert(IndexOp.build(0)).result
        number = scalar_cast(builder, position, i32)
        if start == 0:
            return [number]
        offset = builder.insert(ConstantOp.build(start, i32)).result
        return [builder.insert(AddIOp.build(number, offset)).result]

    generic = GenericOp.build([], [empty], [AffineMap.identity(1)], ["parallel"], payload)
    return context.wrap(context.insert(generic).result, "range")


def expand_dims(tile: Tile, index: Sequence[object]) -> Tile:
    """``tile[:, None]``: one ``:`` per dimension of ``tile``, ``None`` where a size-1
    dimension is inserted (``tensor.expand_shape``).

    >>> expand_dims(arange(TileContext.scratch(), 0, 4), [slice(None), None])
    Tile(tensor<4x1xi32>)
    """
    slices = [i for i in index if isinstance(i, slice)]
    if len(slices) != tile.ndim or any(
        not (i is None or (isinstance(i, slice) and i == slice(None))) for i in index
    ):
        raise TileError(
            f"indexing: expected one ':' per dimension of the {tile.ndim}-D tile and 'None' "
            f"for new dimensions (x[:, None]), got {len(index)} entries"
        )
    sizes = iter(tile.shape)
    shape = tuple(1 if i is None else next(sizes) for i in index)
    return reshape(tile, shape)
