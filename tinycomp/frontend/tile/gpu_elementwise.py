"""Elementwise tile math in one thread: a ``linalg.generic``'s payload, once per element.

An elementwise ``linalg.generic`` on tiles becomes, in the kernel, its payload copied
once per element the thread needs, each operand read at the element its indexing map
names (``TileLowering.value_at``: a register, a read through shared memory, or a value
computed there and then):

1. A generic whose operands are all index tiles (``arange``, offsets, masks) is not
   built at all: it is *computed where read*, at the element the reader asks for.
2. Otherwise its results are *held*: for every register of the result's layout the
   operands are read at that register's point (``operands_at``) and the payload is
   copied on them (``payload``); ``linalg.index`` becomes the register's coordinate.

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel, constexpr
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> from tinycomp.frontend.tile.to_gpu import lower_to_gpu
>>> @kernel
... def scale(x, n, BLOCK: constexpr):
...     offs = tl.arange(0, BLOCK)
...     tm.store(x + offs, tm.load(x + offs) * 3.0 + 1.0)
>>> module = scale.specialize(np.zeros(64, np.float32), 64, BLOCK=64)
>>> names = [op.name for op in lower_to_gpu(module, 1).walk()]
>>> names.count("arith.mulf"), names.count("arith.addf")      # two registers a thread
(2, 2)
"""

from __future__ import annotations

from collections import ChainMap
from typing import TYPE_CHECKING

from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.frontend.tile.gpu_points import Point, full_point, project
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["lower_elementwise", "operands_at", "payload"]


def operands_at(lowering: TileLowering, op: GenericOp, point: Point) -> list[Value]:
    """``op``'s inputs at ``point`` of its iteration space."""
    found = []
    for value, map_ in zip(op.inputs, op.indexing_maps(), strict=False):
        if lowering.shape(value) is None:
            found.append(lowering.scalar(value))
        else:
            found.append(lowering.value_at(value, project(point, map_)))
    return found


def payload(
    lowering: TileLowering, op: GenericOp, arguments: list[Value], point: Point
) -> list[Value]:
    """``op``'s payload copied on one element's ``arguments`` at ``point``; the yielded
    values."""
    local: dict[Value, Value] = dict(zip(op.body.arguments, arguments, strict=False))
    mapping = ChainMap(local, lowering.values)
    for inner in op.body.ops:
        if isinstance(inner, IndexOp):
            if not point:
                raise lowering.error(op, "linalg.index in a rank-0 generic")
            local[inner.results[0]] = lowering.coordinate(point[inner.dim])
        elif inner.name == "linalg.yield":
            return [mapping[v] if v in mapping else v for v in inner.operands]
        else:
            lowering.insert(inner.clone(mapping))
    raise lowering.error(op, "a payload without linalg.yield")


def lower_elementwise(lowering: TileLowering, op: GenericOp) -> None:
    """Step 1 or step 2 of the module docstring."""
    if all(lowering.is_index_only(v) for v in op.inputs):
        for result in op.results:
            lowering.computed[result] = op
            lowering.index_only.add(result)
        return
    shape = lowering.shape(op.results[0])
    results: list[list[Value]] = [[] for _ in op.results]
    for register in range(lowering.registers(shape)):
        point = full_point(shape, register) if shape else ()
        for i, value in enumerate(payload(lowering, op, operands_at(lowering, op, point), point)):
            results[i].append(value)
    for old, registers in zip(op.results, results, strict=True):
        lowering.tiles[old] = registers
