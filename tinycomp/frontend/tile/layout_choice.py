"""Which blocked layout a tile of the program gets on the GPU: ``default_layout`` unless
the caller passes its own choice, ``layout_for(shape, num_warps)``.

The choice is made for the tiles the program loads and stores (the *anchors*: the layout
of an access decides whether it is coalesced); every other tile of that shape follows
it, so elementwise operands still line up register by register. A chosen layout is
checked before anything is lowered with it:

1. it is a ``BlockedLayout``;
2. its rank is the tile's;
3. its warps are the block's (``num_warps``);
4. it covers the tile: along each dimension the tile and one layout tile divide one
   another (``BlockedLayout.check_covers``).

Each failure is a ``LayoutError`` naming the tile's shape and the layout.

>>> from tinycomp.frontend.tile.layout import BlockedLayout
>>> def two_per_thread(shape, num_warps):
...     return BlockedLayout((2,), (32,), (num_warps,), (0,))
>>> print(choose_layout((256,), 2, two_per_thread))
#blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
>>> choose_layout((256,), 2, None).size_per_thread   # the default: 128-bit accesses
(4,)
"""

from __future__ import annotations

from collections.abc import Callable

from tinycomp.frontend.tile.layout import BlockedLayout, LayoutError, default_layout

__all__ = ["LayoutFor", "choose_layout"]

Shape = tuple[int, ...]

LayoutFor = Callable[[Shape, int], BlockedLayout]
"""A caller's choice of layout: ``layout_for(shape, num_warps)``."""


def choose_layout(shape: Shape, num_warps: int, layout_for: LayoutFor | None) -> BlockedLayout:
    """The layout of the tiles of ``shape``: ``layout_for``'s, checked (module
    docstring), or ``default_layout``'s when it is None.

    >>> from tinycomp.frontend.tile.layout import BlockedLayout
    >>> try:
    ...     choose_layout((96,), 4, lambda s, w: BlockedLayout((4,), (32,), (4,), (0,)))
    ... except LayoutError as error:
    ...     print(str(error)[:58])
    layout_for((96,), 4): a tile of shape (96,) cannot be laid
    """
    if layout_for is None:
        return default_layout(shape, num_warps)
    chosen = layout_for(tuple(shape), num_warps)
    where = f"layout_for({tuple(shape)}, {num_warps})"
    if not isinstance(chosen, BlockedLayout):
        raise LayoutError(f"{where}: expected a BlockedLayout, got {chosen!r}")
    if chosen.rank != len(shape):
        raise LayoutError(
            f"{where}: a tile of shape {tuple(shape)} needs a layout of rank {len(shape)}, "
            f"got {chosen} of rank {chosen.rank}"
        )
    if chosen.num_warps != num_warps:
        raise LayoutError(
            f"{where}: a tile of shape {tuple(shape)} is held by {num_warps} warps, "
            f"got {chosen} for {chosen.num_warps}"
        )
    try:
        chosen.check_covers(tuple(shape))
    except LayoutError as error:
        raise LayoutError(f"{where}: {error}") from None
    return chosen
