"""The layout of a ``dot``'s accumulator: each thread a block of the result, so that one
step along ``k`` costs a few shared-memory reads for many multiply-adds.

A thread that holds ``rows x columns`` elements of ``C`` in one block needs, per step
of ``k``, ``rows`` elements of ``A`` and ``columns`` of ``B``: ``rows * columns`` fused
multiply-adds for ``rows + columns`` reads, which is the register tiling of chapter
09's staircase (``blocktile_2d``, ``warptile``). ``dot_layout`` gives each thread up to
8 rows and 4 columns, the lanes of a warp 4 x 8 of such blocks (a warp tile of 32 x 32
when the tile is big enough), the warps spread along ``M`` first. Where the tile is too
small for that, the sizes shrink; where no such layout covers it, ``default_layout``.

>>> print(dot_layout((64, 64), 4))
#blocked<{sizePerThread = [8, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
>>> dot_layout((128, 128), 8).registers((128, 128))
64
"""

from __future__ import annotations

from tinycomp.frontend.tile.layout import WARP_SIZE, BlockedLayout, LayoutError, default_layout

__all__ = ["dot_layout"]

LANES = (4, 8)
"""Lanes of a warp along ``M`` and ``N``."""


def dot_layout(shape: tuple[int, ...], num_warps: int) -> BlockedLayout:
    """A blocked layout of the ``M x N`` accumulator ``shape`` (module docstring)."""
    m, n = shape
    per_thread = max(1, m * n // (WARP_SIZE * num_warps))
    columns = max(1, min(4, n // LANES[1], per_thread))
    rows = max(1, min(8, m // LANES[0], per_thread // columns))
    along_m = max(1, min(num_warps, m // (LANES[0] * rows)))
    layout = BlockedLayout((rows, columns), LANES, (along_m, num_warps // along_m), (1, 0))
    try:
        layout.check_covers(tuple(shape))
    except LayoutError:
        return default_layout(tuple(shape), num_warps)
    return layout
