"""``TilingResult``: what one tiling did to one op (MLIR's ``SCFTilingResult``).

Every tiling entry point (``tile_linalg_op``, ``tile_reduction_with_partials``,
``tile_and_fuse``) returns one, whether it tiled the op or not. When it did, the result
holds the loop nest (outermost first), the tiled op inside it, the values that replaced
the original op's results and the numbers a report shows: how many tiles each loop
walks, and the shape of each operand's tile footprint. When it did not, ``reason``
says why and the IR is exactly as it was.

>>> result = TilingResult("'linalg.matmul' %mm", tile_sizes=(4, 8, 0), loop_sizes=(10, 16, 8),
...                       iterator_types=("parallel", "parallel", "reduction"))
>>> result.tile_counts, result.total_tiles      # ceil(10 / 4) * ceil(16 / 8) * 1
((3, 2, 1), 6)
>>> result.tiled, result.loop_kinds
(True, ['parallel', 'parallel'])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value

__all__ = ["TilingResult"]


@dataclass
class TilingResult:
    """The outcome of tiling one op (see the module docstring)."""

    op: str
    """The op that was to be tiled, as ``'linalg.matmul' %mm``."""
    tile_sizes: tuple[int, ...] = ()
    """One tile size per loop of the op (0: that loop is not tiled)."""
    loop_sizes: tuple[int | None, ...] = ()
    """The op's trip count per loop (``None`` when only known at run time)."""
    iterator_types: tuple[str, ...] = ()
    """``"parallel"`` or ``"reduction"`` per loop of the op."""
    reason: str | None = None
    """Why the op was left untiled (``None`` when it was tiled)."""
    loops: list[Operation] = field(default_factory=list)
    """The ``scf.for`` loops created, outermost first (one per tiled loop of the op)."""
    tiled_ops: list[Operation] = field(default_factory=list)
    """The op computing one tile (first), then the producers fused into the nest."""
    replacements: list[Value] = field(default_factory=list)
    """The values that now stand for the original op's results."""
    footprints: dict[str, tuple[int | None, ...]] = field(default_factory=dict)
    """Per operand (``ins0 %a``, ``outs0 %c``): the shape of a full tile's footprint."""
    notes: list[str] = field(default_factory=list)
    """Remarks: producers left outside (and why), bindings refused, sizes dropped."""
    bindings: dict[int, str] = field(default_factory=dict)
    """Loop position in ``loops`` -> hardware unit it was bound to."""
    merge_op: Operation | None = None
    """Partial reduction only: the ``linalg.generic`` that combines the partials."""

    @property
    def tiled(self) -> bool:
        """Whether the op was tiled."""
        return self.reason is None

    @property
    def tiled_loop_positions(self) -> list[int]:
        """The op's loops that have a tile loop, in nest order (outermost first)."""
        return [position for position, size in enumerate(self.tile_sizes) if size > 0]

    @property
    def loop_kinds(self) -> list[str]:
        """``"parallel"``/``"reduction"`` for each created loop, outermost first."""
        return [self.iterator_types[p] for p in self.tiled_loop_positions]

    @property
    def tile_counts(self) -> tuple[int | None, ...]:
        """Tiles along each loop of the op: ``ceil(size / tile)``, 1 when untiled."""
        counts: list[int | None] = []
        for size, tile in zip(self.loop_sizes, self.tile_sizes, strict=True):
            if tile == 0:
                counts.append(1)
            else:
                counts.append(None if size is None else -(-size // tile))
        return tuple(counts)

    @property
    def total_tiles(self) -> int | None:
        """How many times the innermost body runs (``None`` with dynamic sizes)."""
        counts = self.tile_counts
        if any(count is None for count in counts):
            return None
        return math.prod(count for count in counts if count is not None)
