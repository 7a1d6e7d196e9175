"""A tile program's ``scf.for`` in the kernel: each carried tile as its registers.

A loop that carries tiles (FlashAttention's accumulator, its running max and sum;
a matmul's accumulator) carries, in the kernel, every register of every tile it
carries, in order: a tile of shape ``S`` is ``registers(S)`` loop values per thread.

1. The bounds are the program's scalars; the initial values are flattened (``flat``).
2. Inside, the iteration arguments are unflattened back into tiles (``unflatten``) and
   the body is lowered op by op; what was computed where read before the loop is
   memoised in an inner scope, so a value built inside the body is never reused
   outside it.
3. The ``scf.yield`` carries the flattened registers; the loop's results are
   unflattened into the tiles the program sees after it.

>>> import numpy as np
>>> from tinycomp import tile
>>> from tinycomp.frontend.tile.to_gpu import lower_to_gpu
>>> @tile.kernel
... def total(x, out, n, BLOCK: tile.constexpr):
...     acc = tile.zeros([BLOCK], dtype=tile.float32)
...     for start in range(0, n, BLOCK):
...         acc += tile.load(x + start + tile.arange(0, BLOCK))
...     tile.store(out + tile.arange(0, BLOCK), acc)
>>> module = total.specialize(np.zeros(128, np.float32), np.zeros(64, np.float32), 128, BLOCK=64)
>>> loop = next(op for op in lower_to_gpu(module, 1).walk() if op.name == "scf.for")
>>> len(loop.init_args)                     # 64 elements over 32 threads
2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinycomp.dialects.scf import ForOp, YieldOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["flat", "lower_loop", "unflatten"]


def flat(lowering: TileLowering, values: Sequence[Value]) -> list[Value]:
    """Scalars and tiles' registers, in order (what an ``scf.for`` carries)."""
    found = []
    for value in values:
        is_tile = lowering.shape(value) is not None
        found += lowering.held(value) if is_tile else [lowering.scalar(value)]
    return found


def unflatten(
    lowering: TileLowering, old_values: Sequence[Value], new_values: Sequence[Value]
) -> None:
    """The inverse of ``flat``: map ``old_values`` to their part of ``new_values``."""
    position = 0
    for old in old_values:
        shape = lowering.shape(old)
        count = 1 if shape is None else lowering.registers(shape)
        taken = list(new_values[position : position + count])
        if shape is None:
            lowering.values[old] = taken[0]
        else:
            lowering.tiles[old] = taken
        position += count


def lower_loop(lowering: TileLowering, op: ForOp) -> None:
    """Steps 1-3 of the module docstring."""
    bounds = [lowering.scalar(v) for v in (op.lower_bound, op.upper_bound, op.step)]
    new = lowering.insert(ForOp.build(*bounds, flat(lowering, op.init_args)))
    lowering.values[op.induction_var] = new.induction_var
    unflatten(lowering, op.region_iter_args, new.region_iter_args)
    body = new.body
    inside = Builder.before(body.terminator) if body.terminator else Builder.at_end(body)
    saved, lowering.memo = lowering.memo, lowering.memo.new_child()
    with lowering.building_at(inside):
        for inner in op.body.ops:
            if inner is not op.body.terminator:
                lowering.lower_op(inner)
            elif op.init_args:
                lowering.insert(YieldOp.build(flat(lowering, inner.operands)))
    lowering.memo = saved
    unflatten(lowering, op.results, new.results)
