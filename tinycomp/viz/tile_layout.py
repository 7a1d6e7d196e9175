"""A blocked layout drawn over its tile: which thread holds which element.

``tile_layout_picture(layout, shape)`` draws a 1-D or 2-D tile as a grid of cells, one
per element, each labelled with the thread that holds it (its first copy, when the
tile is smaller than the layout and threads hold replicas) and filled with the colour
of that thread's warp. Consecutive cells with one label are the elements one thread
holds side by side (``size_per_thread``): what one vector access reads.

The text twin is the layout, the shape, and the same grid as numbers:

>>> from tinycomp.frontend.tile.layout import BlockedLayout
>>> layout = BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0))
>>> print(tile_layout_picture(layout, (4, 16)).text)
tile 4x16 over 2 warps (64 threads), 4 registers per thread
#blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [1, 0]}>
 0  0  1  1  2  2  3  3 32 32 33 33 34 34 35 35
 0  0  1  1  2  2  3  3 32 32 33 33 34 34 35 35
 4  4  5  5  6  6  7  7 36 36 37 37 38 38 39 39
 4  4  5  5  6  6  7  7 36 36 37 37 38 38 39 39
each element is held by 4 threads; the first is shown
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from tinycomp.frontend.tile.layout import WARP_SIZE, BlockedLayout
from tinycomp.viz.palette import ink_for, swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import figure_to_picture, house_style

__all__ = ["tile_layout_picture", "tile_layout_text"]

CELL = 0.42
"""Inches per drawn element."""


def _grid(shape: tuple[int, ...]) -> tuple[int, int]:
    return (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])


def tile_layout_text(layout: BlockedLayout, shape: tuple[int, ...]) -> str:
    """The text twin of ``tile_layout_picture`` (module docstring)."""
    shape = tuple(shape)
    threads = layout.num_warps * WARP_SIZE
    warps = "warp" if layout.num_warps == 1 else "warps"
    registers = layout.registers(shape)
    lines = [
        f"tile {'x'.join(map(str, shape))} over {layout.num_warps} {warps} ({threads} "
        f"threads), {registers} register{'' if registers == 1 else 's'} per thread",
        str(layout),
        layout.table(shape),
    ]
    copies = layout.replication(shape)
    if copies > 1:
        lines.append(f"each element is held by {copies} threads; the first is shown")
    return "\n".join(lines)


def tile_layout_picture(layout: BlockedLayout, shape: tuple[int, ...]) -> Picture:
    """The tile as a grid coloured by warp, each cell labelled with its thread (module
    docstring).

    >>> from tinycomp.frontend.tile.layout import default_layout
    >>> picture = tile_layout_picture(default_layout((8,), 1), (8,))
    >>> picture.text.splitlines()[0]
    'tile 8 over 1 warp (32 threads), 1 register per thread'
    """
    shape = tuple(shape)
    text = tile_layout_text(layout, shape)
    holders = layout.thread_map(shape)
    rows, columns = _grid(shape)
    colors = [swatch.color for swatch in swatches(layout.num_warps)]
    width, height = 1.2 + columns * CELL, 1.6 + rows * CELL
    with house_style():
        fig = Figure(figsize=(max(width, 4.0), height))
        ax = fig.add_axes((0.6 / max(width, 4.0), 0.6 / height, columns * CELL / max(width, 4.0),
                           rows * CELL / height))  # fmt: skip
        for row in range(rows):
            for column in range(columns):
                index = (row, column) if len(shape) == 2 else (column,)
                thread = holders[index][0]
                fill = colors[thread // WARP_SIZE]
                ax.add_patch(Rectangle((column, row), 1, 1, facecolor=fill, edgecolor="white"))
                ax.text(column + 0.5, row + 0.5, str(thread), ha="center", va="center",
                        fontsize=7, color=ink_for(fill))  # fmt: skip
        ax.set_xlim(0, columns)
        ax.set_ylim(rows, 0)
        ax.set_aspect("equal")
        ax.grid(False)
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        fig.text(0.5, 1 - 0.15 / height, text.splitlines()[0], ha="center", va="top",
                 fontsize=11)  # fmt: skip
        fig.text(0.5, 1 - 0.45 / height, text.splitlines()[1], ha="center", va="top",
                 fontsize=8, color="#444444")  # fmt: skip
        handles = [Patch(facecolor=c, label=f"warp {w}") for w, c in enumerate(colors)]
        fig.legend(handles=handles, loc="lower center", ncols=min(8, len(handles)), fontsize=8)
    return figure_to_picture(fig, text)
