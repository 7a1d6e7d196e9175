"""Where a thread's registers are in a tile, as values in the kernel and as numbers.

A tile of shape ``S`` is spread over a block by its blocked layout: thread ``t``'s
register ``r`` holds element ``layout.index_of(t, r, S)``. The lowering names such an
element by a **point**: one coordinate per dimension of the tile being read, each
either ``Along(S, r, d)`` ("dimension ``d`` of the element that register ``r`` holds in
a tile of shape ``S``") or ``ZERO`` (a dimension of size one, read by a broadcast). A
point means the same thing in every thread, so it can be

1. **built** as ``index`` values from ``gpu.thread_id`` (``Coordinates.value``), once
   per shape and register, in the kernel's entry block;
2. **projected** through an indexing map or a reshape, without code (``project``,
   ``through_reshape``): ``x[:, None]`` read at ``(i, j)`` is ``x`` read at ``(i,)``;
3. **evaluated** for every thread as numbers (``Coordinates.table``), which says at
   compile time whether the thread holding one element also holds another: the test
   that decides between reusing a register and going through shared memory.

>>> from tinycomp.frontend.tile.layout import BlockedLayout
>>> layout = BlockedLayout((1, 2), (4, 8), (4, 1), (1, 0))
>>> point = full_point((16, 16), 3)
>>> [str(c) for c in point], Coordinates.numbers(layout, (16, 16), point, thread=9)
(['(16, 16)[r3].d0', '(16, 16)[r3].d1'], (1, 3))
>>> from tinycomp.affine import AffineMap, const, dim
>>> [str(c) for c in project(point, AffineMap(2, 0, (dim(0), const(0))))]
['(16, 16)[r3].d0', '0']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tinycomp.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from tinycomp.frontend.tile.layout import BlockedLayout, _position

__all__ = [
    "ZERO", "Along", "Coordinates", "Point", "full_point", "lane_strides", "project",
    "register_slots", "through_reshape", "warp_strides",
]  # fmt: skip

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Along:
    """Dimension ``dim`` of the element a thread's ``register`` holds in a tile of
    ``shape`` (module docstring)."""

    shape: Shape
    register: int
    dim: int

    def __str__(self) -> str:
        return f"{self.shape}[r{self.register}].d{self.dim}"


class _Zero:
    """The coordinate 0 (a dimension of size one)."""

    def __str__(self) -> str:
        return "0"

    def __repr__(self) -> str:
        return "ZERO"


ZERO = _Zero()
Coordinate = Along | _Zero
Point = tuple[Coordinate, ...]


def full_point(shape: Shape, register: int) -> Point:
    """The element that ``register`` holds in a tile of ``shape``.

    >>> [str(c) for c in full_point((4,), 1)]
    ['(4,)[r1].d0']
    """
    return tuple(Along(tuple(shape), register, d) for d in range(len(shape)))


def project(point: Point, map_: AffineMap) -> Point:
    """The point an operand read through ``map_`` is read at (results: dimensions, or
    the constant 0 of a broadcast).

    >>> from tinycomp.affine import AffineMap, dim
    >>> [str(c) for c in project(full_point((2, 4), 0), AffineMap(2, 0, (dim(1),)))]
    ['(2, 4)[r0].d1']
    """
    found: list[Coordinate] = []
    for expr in map_.results:
        if isinstance(expr, AffineDimExpr):
            found.append(point[expr.position])
        elif isinstance(expr, AffineConstantExpr) and expr.value == 0:
            found.append(ZERO)
        else:
            raise ValueError(f"an operand read through {map_}: expected dims and zeros")
    return tuple(found)


def through_reshape(point: Point, groups: Sequence[Sequence[int]], expanded: Shape) -> Point | None:
    """The source point of an expanded tile's ``point`` (``tensor.expand_shape`` with
    ``groups``): each group has at most one dimension bigger than one, whose coordinate
    is the source's; None when a group really splits a dimension.

    >>> [str(c) for c in through_reshape(full_point((1, 8), 2), [[0, 1]], (1, 8))]
    ['(1, 8)[r2].d1']
    """
    found: list[Coordinate] = []
    for group in groups:
        big = [d for d in group if expanded[d] != 1]
        if len(big) > 1:
            return None
        found.append(point[big[0]] if big else ZERO)
    return tuple(found)


class Coordinates:
    """The coordinates of every shape's registers: as values (built once, by ``emit``)
    and as numbers for every thread (``table``)."""

    def __init__(
        self,
        layout_of: Callable[[Shape], BlockedLayout],
        num_threads: int,
        emit: Callable[[Shape, int, int], object],
    ) -> None:
        self.layout_of = layout_of
        self.num_threads = num_threads
        self.emit = emit
        self._values: dict[Along, object] = {}
        self._tables: dict[Shape, np.ndarray] = {}

    def value(self, coordinate: Along) -> object:
        """``coordinate`` as an ``index`` value of the kernel."""
        if coordinate not in self._values:
            self._values[coordinate] = self.emit(
                coordinate.shape, coordinate.register, coordinate.dim
            )
        return self._values[coordinate]

    def table(self, shape: Shape) -> np.ndarray:
        """``[thread, register, dim]``: the element each thread's register holds."""
        if shape not in self._tables:
            layout = self.layout_of(shape)
            self._tables[shape] = np.array(
                [layout.elements_of(t, shape) for t in range(self.num_threads)], dtype=np.int64
            ).reshape(self.num_threads, layout.registers(shape), len(shape))
        return self._tables[shape]

    def point_numbers(self, point: Point) -> np.ndarray:
        """``[thread, dim]``: where ``point`` is in every thread."""
        columns = [
            np.zeros(self.num_threads, np.int64)
            if c is ZERO
            else self.table(c.shape)[:, c.register, c.dim]
            for c in point
        ]
        return np.stack(columns, axis=1) if columns else np.zeros((self.num_threads, 0), np.int64)

    def register_holding(self, shape: Shape, point: Point) -> int | None:
        """The register that holds ``point`` of a tile of ``shape`` in every thread at
        once, or None when no one register does."""
        wanted = self.point_numbers(point)
        held = self.table(shape)
        same = (held == wanted[:, None, :]).all(axis=2).all(axis=0)
        found = np.flatnonzero(same)
        return int(found[0]) if found.size else None

    def groups_along(self, shape: Shape, dim: int) -> list[list[int]]:
        """The registers of a tile of ``shape`` grouped by their coordinate along
        ``dim`` (the same in every thread), in register order."""
        column = self.table(shape)[:, :, dim]
        groups: dict[tuple[int, ...], list[int]] = {}
        for register in range(column.shape[1]):
            groups.setdefault(tuple(column[:, register]), []).append(register)
        return list(groups.values())

    @staticmethod
    def numbers(layout: BlockedLayout, shape: Shape, point: Point, thread: int) -> tuple:
        """``point`` in one ``thread`` (module docstring), from ``layout`` alone."""
        return tuple(
            0 if c is ZERO else layout.index_of(thread, c.register, shape)[c.dim] for c in point
        )


def lane_strides(layout: BlockedLayout) -> list[int]:
    """How far apart, in lane numbers, neighbouring lanes along each dimension are.

    >>> lane_strides(BlockedLayout((1, 2), (4, 8), (4, 1), (1, 0)))
    [8, 1]
    """
    strides, step = [0] * layout.rank, 1
    for dim in layout.order:
        strides[dim] = step
        step *= layout.threads_per_warp[dim]
    return strides


def warp_strides(layout: BlockedLayout) -> list[int]:
    """How far apart, in warp numbers, neighbouring warps along each dimension are.

    >>> warp_strides(BlockedLayout((1, 2), (4, 8), (4, 1), (1, 0)))
    [1, 1]
    """
    strides, step = [0] * layout.rank, 1
    for dim in layout.order:
        strides[dim] = step
        step *= layout.warps_per_block[dim]
    return strides


def register_slots(layout: BlockedLayout, shape: Shape, register: int) -> list[int]:
    """The register's slot along each dimension (``registers_per_dim`` of them).

    >>> register_slots(BlockedLayout((1, 2), (4, 8), (4, 1), (1, 0)), (32, 16), 3)
    [1, 1]
    """
    return _position(register, layout.registers_per_dim(shape), layout.order)
