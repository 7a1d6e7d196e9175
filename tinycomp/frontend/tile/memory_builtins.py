"""The builtins that touch the outside of one program: ids, loads and stores.

* ``program_id(axis)`` and ``num_programs(axis)`` read the function's trailing
  ``index`` arguments (``%program_id_x``, ``%num_programs_x``, ...) and cast them to
  ``i32``, the type of the kernel's integer arithmetic;
* ``load(pointer, mask=None, other=None)`` is one ``tile.load``: the offsets and the
  mask broadcast to one shape (``mask=offs_k[None, :] < K`` with a 2-D pointer is
  fine); ``other`` defaults to zero when a mask is given. A scalar pointer loads a 0-D
  tile;
* ``store(pointer, value, mask=None)`` is one ``tile.store``; ``value`` is broadcast to
  the offsets' shape and converted to the buffer's element type, as Triton does.

>>> from tinycomp.frontend.tile.memory_builtins import AXES
>>> AXES
('x', 'y', 'z')
"""

from __future__ import annotations

from tinycomp.dialects.tile import LoadOp, StoreOp
from tinycomp.frontend.elementwise import broadcast_shapes
from tinycomp.frontend.tile.arithmetic import scalar_cast, to_value
from tinycomp.frontend.tile.builtin import Builtin
from tinycomp.frontend.tile.shaping import broadcast_to
from tinycomp.frontend.tile.values import Pointer, Tile, TileContext, TileError, kind_of
from tinycomp.ir.type_helpers import is_integer
from tinycomp.ir.types import Type, i1, i32
from tinycomp.ir.values import Value

__all__ = ["AXES", "load", "num_programs", "program_id", "store"]

AXES = ("x", "y", "z")
"""The grid's axes, as ``program_id(0)`` ... ``program_id(2)`` name them."""


def _grid_value(context: TileContext, prefix: str, axis: object) -> Value:
    if axis not in (0, 1, 2) or isinstance(axis, bool):
        raise TileError(f"{prefix}: expected axis 0, 1 or 2, got {kind_of(axis)}")
    argument = context.program_ids[f"{prefix}_{AXES[axis]}"]
    context.builder.location = context.location
    return scalar_cast(context.builder, argument, i32)


def _program_id(context: TileContext, axis: object) -> Value:
    """``tile.program_id(axis)``: this program's index along ``axis`` of the grid (i32)."""
    return _grid_value(context, "program_id", axis)


def _num_programs(context: TileContext, axis: object) -> Value:
    """``tile.num_programs(axis)``: the grid's size along ``axis`` (i32)."""
    return _grid_value(context, "num_programs", axis)


def _offsets_tile(context: TileContext, pointer: object, op_name: str) -> tuple[Pointer, Tile]:
    """The pointer and its offsets as a tile (a scalar offset as a 0-D tile)."""
    if not isinstance(pointer, Pointer):
        raise TileError(
            f"{op_name}: expected a pointer (an array argument plus offsets), "
            f"got {kind_of(pointer)}"
        )
    offsets = pointer.offsets if pointer.offsets is not None else 0
    if isinstance(offsets, Tile):
        return pointer, offsets
    return pointer, broadcast_to(context, offsets, (), i32, op_name)


def _mask_and_offsets(
    context: TileContext, offsets: Tile, mask: object, op_name: str
) -> tuple[Tile, Tile | None]:
    """Offsets and mask broadcast to one shape; the mask must be ``i1``."""
    if mask is None:
        return offsets, None
    if isinstance(mask, bool):
        mask_shape: tuple[int, ...] = ()
    elif isinstance(mask, (Tile, Value)):
        mask_type = mask.dtype if isinstance(mask, Tile) else mask.type
        if mask_type != i1:
            raise TileError(f"{op_name}: expected an i1 mask (a comparison), got {kind_of(mask)}")
        mask_shape = mask.shape if isinstance(mask, Tile) else ()
    else:
        raise TileError(f"{op_name}: expected an i1 mask, got {kind_of(mask)}")
    shape = broadcast_shapes(offsets.shape, mask_shape)
    if shape is None:
        raise TileError(
            f"{op_name}: expected a mask whose shape broadcasts with the pointer's "
            f"{offsets.shape}, got a mask of shape {mask_shape}"
        )
    offsets = broadcast_to(context, offsets, shape, offsets.dtype, op_name)
    return offsets, broadcast_to(context, mask, shape, i1, op_name)


def _check_offset_type(offsets: Tile, op_name: str) -> None:
    if not is_integer(offsets.dtype) or offsets.dtype == i1:
        raise TileError(f"{op_name}: expected integer offsets, got {offsets.type}")


def _load(context: TileContext, pointer: object, mask: object = None, other: object = None):
    """``tile.load(pointer, mask=None, other=None)``: gather the elements the pointer's
    offsets name; where ``mask`` is off, ``other`` (default 0)."""
    pointer, offsets = _offsets_tile(context, pointer, "load")
    _check_offset_type(offsets, "load")
    offsets, mask_tile = _mask_and_offsets(context, offsets, mask, "load")
    element: Type = pointer.element_type
    other_value = None
    if mask_tile is not None:
        filler = 0 if other is None else other
        if isinstance(filler, Tile):
            other_value = broadcast_to(context, filler, offsets.shape, element, "load").value
        elif isinstance(filler, (Value, int, float, bool)):
            other_value = to_value(context, filler, element)
        else:
            raise TileError(
                f"load: expected 'other' to be a number, scalar or tile, got {kind_of(filler)}"
            )
    elif other is not None:
        raise TileError("load: 'other' needs a 'mask' (it is what masked-off lanes give)")
    mask_value = mask_tile.value if mask_tile is not None else None
    op = LoadOp.build(pointer.buffer, offsets.value, mask_value, other_value)
    return context.wrap(context.insert(op).result, "loaded")


def _store(context: TileContext, pointer: object, value: object, mask: object = None) -> None:
    """``tile.store(pointer, value, mask=None)``: scatter ``value`` (converted to the
    buffer's element type) to the pointer's offsets, where ``mask`` is on."""
    pointer, offsets = _offsets_tile(context, pointer, "store")
    _check_offset_type(offsets, "store")
    offsets, mask_tile = _mask_and_offsets(context, offsets, mask, "store")
    if not isinstance(value, (Tile, Value, int, float, bool)):
        raise TileError(f"store: expected a tile, scalar or number to store, got {kind_of(value)}")
    if isinstance(value, Tile) and broadcast_shapes(value.shape, offsets.shape) != offsets.shape:
        raise TileError(
            f"store: expected a value whose shape broadcasts to the pointer's {offsets.shape}, "
            f"got {value.shape}"
        )
    tile = broadcast_to(context, value, offsets.shape, pointer.element_type, "store")
    mask_value = mask_tile.value if mask_tile is not None else None
    context.insert(StoreOp.build(pointer.buffer, offsets.value, tile.value, mask_value))


program_id = Builtin("program_id", _program_id)
num_programs = Builtin("num_programs", _num_programs)
load = Builtin("load", _load)
store = Builtin("store", _store)
