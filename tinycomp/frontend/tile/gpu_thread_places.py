"""Where a thread's registers sit in a tile, as ``index`` values of the kernel.

A held tile of shape ``S`` in a blocked layout gives thread ``t`` the elements
``layout.elements_of(t, S)``; register ``r``'s coordinate along dimension ``d`` is

    (warp_place * threads_per_warp[d] + lane_place) * size_per_thread[d]
        + repeat * layout_tile[d] + within

where ``lane_place`` and ``warp_place`` are the lane's and the warp's positions along
``d`` (``gpu_points.lane_strides`` / ``warp_strides``) and ``(repeat, within)`` is where
the register falls among the thread's elements along ``d``. A tile smaller than the
layout's tile along ``d`` wraps (``% S[d]``): several threads hold the same element, and
the *first copy* is the one whose unwrapped coordinate is still inside the tile.

1. The thread's place along ``d`` is built once per shape and dimension.
2. A register's coordinate adds a constant to it (and wraps it when the tile is small).
3. "Is this the first copy?" is one ``arith.cmpi ult`` per register and dimension.

Everything is built in the kernel's prologue (after ``gpu.thread_id``), so a coordinate
used inside a loop or an ``scf.if`` is computed once.

>>> from tinycomp.dialects.gpu import GPUFuncOp, ThreadIdOp
>>> from tinycomp.ir.builder import Builder
>>> from tinycomp.ir.types import FunctionType
>>> from tinycomp.frontend.tile.layout import default_layout
>>> kernel = GPUFuncOp.build("k", FunctionType([], []), kernel=True)
>>> tid = Builder.at_end(kernel.entry_block).insert(ThreadIdOp.build("x")).result
>>> places = ThreadPlaces(Builder.at_end(kernel.entry_block), tid, lambda s: default_layout(s, 1))
>>> print(places.coordinate((64,), 1, 0).type)
index
>>> places.first_copy((64,), 0, 0) is None          # 32 lanes x 2 registers: no copies
True
"""

from __future__ import annotations

from collections.abc import Callable

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AddIOp, DivUIOp, MulIOp, RemUIOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.frontend.tile.gpu_points import lane_strides, register_slots, warp_strides
from tinycomp.frontend.tile.layout import WARP_SIZE, BlockedLayout
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import index
from tinycomp.ir.values import Value

__all__ = ["ThreadPlaces"]

Shape = tuple[int, ...]


class ThreadPlaces:
    """The coordinates of the thread's registers, built at ``prologue`` from ``tid``."""

    def __init__(
        self, prologue: Builder, tid: Value, layout_of: Callable[[Shape], BlockedLayout]
    ) -> None:
        self.prologue = prologue
        self.tid = tid
        self.layout_of = layout_of
        self._bases: dict[tuple[Shape, int], Value] = {}
        self._firsts: dict[tuple[Shape, int, int], Value | None] = {}

    def _build(self, op: Operation) -> Value:
        return self.prologue.insert(op).results[0]

    def _constant(self, value: int) -> Value:
        return self._build(ConstantOp.build(value, index))

    def place(self, shape: Shape, dim: int) -> Value:
        """Step 1: where the thread's first element along ``dim`` is, before repeats."""
        if (shape, dim) not in self._bases:
            layout, build = self.layout_of(shape), self._build
            lane = build(RemUIOp.build(self.tid, self._constant(WARP_SIZE)))
            warp = build(DivUIOp.build(self.tid, self._constant(WARP_SIZE)))
            parts = []
            for who, strides, counts in (
                (lane, lane_strides(layout), layout.threads_per_warp),
                (warp, warp_strides(layout), layout.warps_per_block),
            ):
                shifted = build(DivUIOp.build(who, self._constant(strides[dim])))
                parts.append(build(RemUIOp.build(shifted, self._constant(counts[dim]))))
            threads = self._constant(layout.threads_per_warp[dim])
            place = build(AddIOp.build(build(MulIOp.build(parts[1], threads)), parts[0]))
            spt = self._constant(layout.size_per_thread[dim])
            self._bases[(shape, dim)] = build(MulIOp.build(place, spt))
        return self._bases[(shape, dim)]

    def _unwrapped(self, shape: Shape, register: int, dim: int) -> Value:
        layout = self.layout_of(shape)
        slot = register_slots(layout, shape, register)[dim]
        repeat, within = divmod(slot, layout.size_per_thread[dim])
        offset = repeat * layout.layout_tile[dim] + within
        return self._build(AddIOp.build(self.place(shape, dim), self._constant(offset)))

    def coordinate(self, shape: Shape, register: int, dim: int) -> Value:
        """Step 2: register ``register``'s coordinate along ``dim`` in a tile of
        ``shape``."""
        unwrapped = self._unwrapped(shape, register, dim)
        if shape[dim] >= self.layout_of(shape).layout_tile[dim]:
            return unwrapped
        return self._build(RemUIOp.build(unwrapped, self._constant(shape[dim])))

    def first_copy(self, shape: Shape, register: int, dim: int) -> Value | None:
        """Step 3: an ``i1``, whether the thread holds the first copy of the register's
        element along ``dim``; None when the tile does not wrap along ``dim``."""
        key = (shape, register, dim)
        if key not in self._firsts:
            first = None
            if shape[dim] < self.layout_of(shape).layout_tile[dim]:
                unwrapped = self._unwrapped(shape, register, dim)
                size = self._constant(shape[dim])
                first = self._build(CmpIOp.build("ult", unwrapped, size))
            self._firsts[key] = first
        return self._firsts[key]
