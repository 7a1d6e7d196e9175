"""Which 1-D tiles of offsets step by one from element to element (a small form of
Triton's ``AxisInfo`` analysis, whose *contiguity* lets a load of several consecutive
elements per thread become one vector access).

``unit_stride(value)`` follows a tile back through the elementwise ``linalg.generic``
ops that made it, reading each payload with three kinds of value:

- ``UNIFORM``: the same for every element (a scalar from outside, a rank-0 tile, a
  constant);
- ``INDEX``: the element's own index plus something uniform (``linalg.index``, its
  casts, ``INDEX + UNIFORM``);
- anything else is unknown: the analysis gives up (the answer is then ``False``, which is
  always safe).

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel, constexpr
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> @kernel
... def copy(x, y, BLOCK: constexpr):
...     offs = tm.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tm.store(y + offs, tm.load(x + offs * 2))
>>> func = copy.specialize(np.zeros(8, np.float32), np.zeros(8, np.float32), BLOCK=8).body.first_op
>>> [unit_stride(op.offsets) for op in func.walk() if op.name in ("tile.load", "tile.store")]
[False, True]
"""

from __future__ import annotations

from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.ir.types import RankedTensorType
from tinycomp.ir.values import Value

__all__ = ["INDEX", "UNIFORM", "unit_stride"]

UNIFORM = "uniform"
"""The same value for every element."""
INDEX = "index"
"""The element's index plus a uniform value."""

_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui")
_ADDS = ("arith.addi",)


def _tile_kind(value: Value) -> str | None:
    """The kind of every element of a tile (or a scalar outside the tiles)."""
    if not isinstance(value.type, RankedTensorType):
        return UNIFORM
    if not value.type.shape:
        return UNIFORM
    op = value.defining_op()
    if not isinstance(op, GenericOp) or "reduction" in op.iterator_types():
        return None
    if len(op.results) != 1 or len(value.type.shape) != 1:
        return None
    kinds: dict[Value, str | None] = {}
    for argument, operand, map_ in zip(
        op.body.arguments, op.inputs, op.indexing_maps(), strict=False
    ):
        kinds[argument] = UNIFORM if map_.num_results == 0 else _tile_kind(operand)
    for inner in op.body.ops:
        if inner.name == "linalg.yield":
            return kinds.get(inner.operands[0], UNIFORM)
        kinds[inner.results[0]] = _payload_kind(inner, kinds) if inner.results else None
    return None


def _payload_kind(op, kinds: dict[Value, str | None]) -> str | None:
    operands = [kinds.get(v, UNIFORM) for v in op.operands]  # from outside: uniform
    if isinstance(op, IndexOp):
        return INDEX
    if op.name == "arith.constant" or (operands and all(k == UNIFORM for k in operands)):
        return UNIFORM if not op.regions else None
    if op.name in _CASTS:
        return operands[0]
    if op.name in _ADDS and sorted(operands) == [INDEX, UNIFORM]:
        return INDEX
    return None


def unit_stride(value: Value) -> bool:
    """Whether the 1-D tile ``value`` is ``uniform + index``: element ``i + 1`` is element
    ``i`` plus one (module docstring)."""
    return _tile_kind(value) == INDEX
