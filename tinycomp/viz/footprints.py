"""Footprints: the elements of each operand that one iteration or one tile touches.

For one operand and one tile (a box of iterations; a single point is a tile of size 1):

1. the *footprint* is the box of operand indices the tile reaches:
   ``AffineMap.evaluate`` gives a point's one element, ``AffineMap.tile_footprint`` a
   tile's box;
2. the *touched* elements come from evaluating the map at every point of the tile
   (all at once: the map is evaluated on numpy arrays of indices). For most maps
   (every projected permutation) they fill the box; a strided convolution touches
   only every second row of its box, and the text twin then says so.

>>> from tinycomp.viz.indexing_maps import indexing_problem
>>> problem = indexing_problem("matmul")
>>> print(tile_footprints(problem, offsets=(4, 0, 0), sizes=(4, 4, 3)).text)
footprint of the tile m 4:8, n 0:4, k 0:3
  A  (m, n, k) -> (m, k)  A[4:8, 0:3]  (12 elements)
  B  (m, n, k) -> (k, n)  B[0:3, 0:4]  (12 elements)
  C  (m, n, k) -> (m, n)  C[4:8, 0:4]  (16 elements)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tinycomp.viz.indexing_maps import IndexingMapError, IndexingProblem

__all__ = ["Footprints", "OperandFootprint", "tile_footprints"]


@dataclass(frozen=True, eq=False)
class OperandFootprint:
    """What one point or tile touches of one operand."""

    name: str
    """The operand's name in the problem."""
    box: tuple[tuple[int, int], ...]
    """The footprint: one half-open range ``(lo, hi)`` per operand dimension."""
    touched: np.ndarray
    """A boolean mask of the operand's shape: True where the tile reads or writes."""

    @property
    def count(self) -> int:
        """How many elements are touched."""
        return int(self.touched.sum())

    @property
    def box_size(self) -> int:
        """How many elements the footprint box holds."""
        return int(np.prod([hi - lo for lo, hi in self.box], dtype=np.int64))


@dataclass(frozen=True)
class Footprints:
    """What one tile (or one point: a tile of size 1) touches of every operand."""

    problem: IndexingProblem
    offsets: tuple[int, ...]
    """The tile's first iteration, per loop."""
    sizes: tuple[int, ...]
    """The tile's size, per loop (all 1 for a single point)."""
    operands: tuple[OperandFootprint, ...]
    """One footprint per operand, in the problem's order."""

    @property
    def is_point(self) -> bool:
        """True for a single iteration point."""
        return all(size == 1 for size in self.sizes)

    @property
    def heading(self) -> str:
        """``the point m=1, n=2, k=0`` or ``the tile m 4:8, n 0:4, k 0:3``.

        >>> from tinycomp.viz.indexing_maps import indexing_problem
        >>> tile_footprints(indexing_problem("transpose"), (1, 2), (1, 1)).heading
        'the point i=1, j=2'
        """
        names = self.problem.loop_names
        if self.is_point:
            point = zip(names, self.offsets, strict=True)
            return "the point " + ", ".join(f"{n}={o}" for n, o in point)
        ranges = zip(names, self.offsets, self.sizes, strict=True)
        return "the tile " + ", ".join(f"{n} {o}:{o + s}" for n, o, s in ranges)

    @property
    def text(self) -> str:
        """The text twin: per operand its map, its footprint and how many elements it has."""
        name_width = max(len(f.name) for f in self.operands)
        maps = [self.problem.describe_map(f.name) for f in self.operands]
        map_width = max(len(text) for text in maps)
        lines = [f"footprint of {self.heading}"]
        for footprint, map_text in zip(self.operands, maps, strict=True):
            ranges = ", ".join(
                str(lo) if hi == lo + 1 else f"{lo}:{hi}" for lo, hi in footprint.box
            )
            count = _elements(footprint.count)
            if footprint.count != footprint.box_size:
                count = f"{count} of the {footprint.box_size} in the box"
            lines.append(
                f"  {footprint.name.ljust(name_width)}  {map_text.ljust(map_width)}"
                f"  {footprint.name}[{ranges}]  ({count})"
            )
        return "\n".join(lines)


def tile_footprints(
    problem: IndexingProblem, offsets: Sequence[int], sizes: Sequence[int]
) -> Footprints:
    """What the tile ``offsets[i] <= d_i < offsets[i] + sizes[i]`` touches, per operand.

    A tile of size 1 everywhere is a single iteration point: its footprint comes from
    ``AffineMap.evaluate``; other tiles' from ``AffineMap.tile_footprint``. The touched
    elements come from evaluating the map at every point of the tile.

    >>> from tinycomp.viz.indexing_maps import indexing_problem
    >>> problem = indexing_problem("transpose")
    >>> [f.box for f in tile_footprints(problem, offsets=(1, 2), sizes=(1, 1)).operands]
    [((1, 2), (2, 3)), ((2, 3), (1, 2))]
    """
    offsets, sizes = tuple(offsets), tuple(sizes)
    if len(offsets) != len(problem.loop_sizes) or len(sizes) != len(offsets):
        raise IndexingMapError(
            f"expected one offset and one size per loop ({len(problem.loop_sizes)}), "
            f"got offsets {list(offsets)} and sizes {list(sizes)}"
        )
    for name, offset, size, loop in zip(
        problem.loop_names, offsets, sizes, problem.loop_sizes, strict=True
    ):
        if size < 1 or offset < 0 or offset + size > loop:
            raise IndexingMapError(
                f"expected loop {name} to stay in 0..{loop - 1}, "
                f"got the range {offset}..{offset + size - 1}"
            )
    axes = [np.arange(offset, offset + size) for offset, size in zip(offsets, sizes, strict=True)]
    points = [grid.ravel() for grid in np.meshgrid(*axes, indexing="ij")]
    is_point = all(size == 1 for size in sizes)
    operands = []
    for name, indexing_map in problem.maps.items():
        if is_point:  # step 1 for a point: its one element
            box = tuple((index, index + 1) for index in indexing_map.evaluate(offsets))
        else:  # step 1 for a tile: the box of indices it reaches
            found = indexing_map.tile_footprint(offsets, sizes)
            box = tuple((o, o + s) for o, s in zip(found.offsets, found.sizes, strict=True))
        # Step 2: evaluate the map on every point of the tile at once (numpy arrays in).
        touched = np.zeros(problem.operand_shapes[name], dtype=bool)
        reached = indexing_map.evaluate(points)
        count = (math.prod(sizes),)  # constant results broadcast to one index per point
        touched[tuple(np.broadcast_to(index, count) for index in reached)] = True
        operands.append(OperandFootprint(name, box, touched))
    return Footprints(problem, offsets, sizes, tuple(operands))


def _elements(count: int) -> str:
    return f"{count} element" if count == 1 else f"{count} elements"
