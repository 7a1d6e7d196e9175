"""Blocked layouts: which thread of a block holds which element of a tile (Triton's
``#ttg.blocked`` encoding, ``BlockedEncodingAttr``).

A block of ``32 * warps`` threads holds a tile of static shape between them. Per
dimension ``d`` of the tile a blocked layout says:

- ``size_per_thread[d]``: a thread holds that many *consecutive* elements along ``d``;
- ``threads_per_warp[d]``: the lanes of a warp are laid out as a grid of that shape
  (the product is 32);
- ``warps_per_block[d]``: the warps of the block as a grid of that shape;
- ``order``: the dimensions fastest first, for numbering lanes and warps (``(1, 0)``:
  row-major, the lanes go along a row first).

One *layout tile* is ``size * threads * warps`` elements along each dimension. A tile
larger than it is covered by repeating it (each thread then holds more registers, one
per element); a smaller one is *replicated*: several threads hold the same element (the
index is taken modulo the shape). Either way the sizes must divide one another.

The picture of Example 1 in the description of ``BlockedEncodingAttr`` (Triton's
``TritonGPUAttrDefs.td``): a 16x16 tile over two warps, two by two elements per thread
(``0``-``3`` on the first row are lanes of warp 0; ``32``.. those of warp 1):

>>> layout = BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0))
>>> print(layout.table((16, 16)).splitlines()[0])
 0  0  1  1  2  2  3  3 32 32 33 33 34 34 35 35
>>> layout.owner((2, 9))   # (warp, lane, register)
(1, 4, 1)
>>> layout.elements_of(36, (16, 16))[:2]
((2, 8), (2, 9))
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

__all__ = ["WARP_SIZE", "BlockedLayout", "LayoutError", "default_layout"]

WARP_SIZE = 32
"""Threads per warp (NVIDIA)."""

Shape = tuple[int, ...]
Index = tuple[int, ...]


class LayoutError(ValueError):
    """A layout that is malformed, or that cannot cover a tile's shape."""


def _position(linear: int, sizes: tuple[int, ...], order: tuple[int, ...]) -> list[int]:
    """``linear`` as a position in a grid of ``sizes``, ``order[0]`` fastest."""
    position = [0] * len(sizes)
    for dim in order:
        position[dim] = linear % sizes[dim]
        linear //= sizes[dim]
    return position


def _linear(position: list[int], sizes: tuple[int, ...], order: tuple[int, ...]) -> int:
    """The inverse of ``_position``."""
    linear = 0
    for dim in reversed(order):
        linear = linear * sizes[dim] + position[dim]
    return linear


@dataclass(frozen=True)
class BlockedLayout:
    """A blocked layout (module docstring): per-dimension sizes and the order."""

    size_per_thread: tuple[int, ...]
    """Consecutive elements a thread holds along each dimension."""
    threads_per_warp: tuple[int, ...]
    """The lanes of a warp as a grid (product 32)."""
    warps_per_block: tuple[int, ...]
    """The warps of a block as a grid."""
    order: tuple[int, ...]
    """The dimensions, fastest first."""

    def __post_init__(self) -> None:
        fields = (self.size_per_thread, self.threads_per_warp, self.warps_per_block, self.order)
        if len({len(f) for f in fields}) != 1:
            raise LayoutError(f"{self}: expected four tuples of one length (the rank)")
        if sorted(self.order) != list(range(self.rank)):
            raise LayoutError(f"{self}: expected order to be a permutation of 0..{self.rank - 1}")
        if any(s < 1 for s in (*self.size_per_thread, *self.threads_per_warp)):
            raise LayoutError(f"{self}: expected positive sizes")
        if any(w < 1 for w in self.warps_per_block):
            raise LayoutError(f"{self}: expected positive warps per block")
        if math.prod(self.threads_per_warp) != WARP_SIZE:
            raise LayoutError(
                f"{self}: expected threads_per_warp to multiply to {WARP_SIZE}, "
                f"got {math.prod(self.threads_per_warp)}"
            )

    def __str__(self) -> str:
        def text(values: tuple[int, ...]) -> str:
            return "[" + ", ".join(map(str, values)) + "]"

        return (
            f"#blocked<{{sizePerThread = {text(self.size_per_thread)}, threadsPerWarp = "
            f"{text(self.threads_per_warp)}, warpsPerCTA = {text(self.warps_per_block)}, "
            f"order = {text(self.order)}}}>"
        )

    @property
    def rank(self) -> int:
        """The tile rank this layout is for."""
        return len(self.order)

    @property
    def num_warps(self) -> int:
        """Warps in a block."""
        return math.prod(self.warps_per_block)

    @property
    def layout_tile(self) -> Shape:
        """Elements one repetition of the layout covers along each dimension.

        >>> BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0)).layout_tile
        (16, 16)
        """
        return tuple(
            s * t * w
            for s, t, w in zip(
                self.size_per_thread, self.threads_per_warp, self.warps_per_block, strict=True
            )
        )

    def check_covers(self, shape: Shape) -> None:
        """Raise a ``LayoutError`` naming ``shape`` and the layout unless every dimension
        of the tile and of the layout tile divide one another.

        >>> try:
        ...     BlockedLayout((4,), (32,), (4,), (0,)).check_covers((96,))
        ... except LayoutError as error:
        ...     print(error)  # doctest: +ELLIPSIS
        a tile of shape (96,) cannot be laid out by #blocked<...>: along dimension 0 the tile ...
        """
        if len(shape) != self.rank:
            raise LayoutError(
                f"a tile of shape {shape} cannot be laid out by {self}: "
                f"expected rank {self.rank}, got {len(shape)}"
            )
        for dim, (size, covered) in enumerate(zip(shape, self.layout_tile, strict=True)):
            if size % covered and covered % size:
                raise LayoutError(
                    f"a tile of shape {shape} cannot be laid out by {self}: along dimension "
                    f"{dim} the tile has {size} elements and one layout tile {covered}; "
                    "one must divide the other"
                )

    def repeats(self, shape: Shape) -> Shape:
        """How many times the layout tile repeats along each dimension (at least once).

        >>> BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0)).repeats((32, 8))
        (2, 1)
        """
        self.check_covers(shape)
        return tuple(max(1, s // c) for s, c in zip(shape, self.layout_tile, strict=True))

    def registers_per_dim(self, shape: Shape) -> Shape:
        """Registers a thread holds along each dimension.

        >>> BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0)).registers_per_dim((32, 8))
        (4, 2)
        """
        return tuple(r * s for r, s in zip(self.repeats(shape), self.size_per_thread, strict=True))

    def registers(self, shape: Shape) -> int:
        """Registers (elements) each thread holds.

        >>> BlockedLayout((4,), (32,), (4,), (0,)).registers((1024,))
        8
        """
        return math.prod(self.registers_per_dim(shape))

    def replication(self, shape: Shape) -> int:
        """How many (thread, register) pairs hold each element (1: none replicated).

        >>> BlockedLayout((1,), (32,), (4,), (0,)).replication((16,))
        8
        """
        self.check_covers(shape)
        return math.prod(max(1, c // s) for s, c in zip(shape, self.layout_tile, strict=True))

    def thread_position(self, thread: int) -> tuple[list[int], list[int]]:
        """The lane's position in the warp grid and the warp's in the block grid.

        >>> BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0)).thread_position(37)
        ([1, 1], [0, 1])
        """
        lane, warp = thread % WARP_SIZE, thread // WARP_SIZE
        lanes = _position(lane, self.threads_per_warp, self.order)
        warps = _position(warp, self.warps_per_block, self.order)
        return lanes, warps

    def unwrapped_index(self, thread: int, register: int, shape: Shape) -> Index:
        """Where ``thread``'s ``register`` falls before wrapping modulo ``shape`` (an
        index past the shape is a replica).

        >>> BlockedLayout((1,), (32,), (1,), (0,)).unwrapped_index(20, 0, (16,))
        (20,)
        """
        per_dim = self.registers_per_dim(shape)
        lanes, warps = self.thread_position(thread)
        slots = _position(register, per_dim, self.order)
        index = []
        for dim in range(self.rank):
            size = self.size_per_thread[dim]
            repeat, within = divmod(slots[dim], size)
            place = warps[dim] * self.threads_per_warp[dim] + lanes[dim]
            index.append(repeat * self.layout_tile[dim] + place * size + within)
        return tuple(index)

    def index_of(self, thread: int, register: int, shape: Shape) -> Index:
        """The element ``thread`` holds in ``register``.

        >>> BlockedLayout((1,), (32,), (1,), (0,)).index_of(20, 0, (16,))
        (4,)
        """
        unwrapped = self.unwrapped_index(thread, register, shape)
        return tuple(i % s for i, s in zip(unwrapped, shape, strict=True))

    def elements_of(self, thread: int, shape: Shape) -> tuple[Index, ...]:
        """The elements ``thread`` holds, in register order.

        >>> BlockedLayout((2,), (32,), (1,), (0,)).elements_of(1, (128,))
        ((2,), (3,), (66,), (67,))
        """
        return tuple(self.index_of(thread, r, shape) for r in range(self.registers(shape)))

    def owners(self, index: Index, shape: Shape) -> list[tuple[int, int, int]]:
        """Every ``(warp, lane, register)`` holding ``index`` (replicas included).

        >>> BlockedLayout((1,), (32,), (2,), (0,)).owners((4,), (16,))
        [(0, 4, 0), (0, 20, 0), (1, 4, 0), (1, 20, 0)]
        """
        found = []
        for thread in range(self.num_warps * WARP_SIZE):
            for register in range(self.registers(shape)):
                if self.index_of(thread, register, shape) == tuple(index):
                    found.append((thread // WARP_SIZE, thread % WARP_SIZE, register))
        return found

    def owner(self, index: Index, shape: Shape | None = None) -> tuple[int, int, int]:
        """The ``(warp, lane, register)`` of the first copy of ``index`` (the one whose
        unwrapped index is ``index``); ``shape`` defaults to one layout tile.

        >>> BlockedLayout((4,), (32,), (2,), (0,)).owner((133,))
        (1, 1, 1)
        """
        shape = self.layout_tile if shape is None else tuple(shape)
        self.check_covers(shape)
        if len(index) != self.rank or not all(
            0 <= i < s for i, s in zip(index, shape, strict=True)
        ):
            raise LayoutError(f"index {tuple(index)} is outside the tile of shape {shape}")
        per_dim = self.registers_per_dim(shape)
        lanes, warps, slots = [0] * self.rank, [0] * self.rank, [0] * self.rank
        for dim in range(self.rank):
            size, threads = self.size_per_thread[dim], self.threads_per_warp[dim]
            repeat, rest = divmod(index[dim], self.layout_tile[dim])
            place, within = divmod(rest, size)
            warps[dim], lanes[dim] = divmod(place, threads)
            slots[dim] = repeat * size + within
        lane = _linear(lanes, self.threads_per_warp, self.order)
        warp = _linear(warps, self.warps_per_block, self.order)
        return warp, lane, _linear(slots, per_dim, self.order)

    def thread_map(self, shape: Shape) -> dict[Index, list[int]]:
        """Every element's threads, the one holding its first copy first.

        >>> BlockedLayout((1,), (32,), (1,), (0,)).thread_map((16,))[(4,)]
        [4, 20]
        """
        holders: dict[Index, list[int]] = {i: [] for i in itertools.product(*map(range, shape))}
        for thread in range(self.num_warps * WARP_SIZE):
            for register in range(self.registers(shape)):
                unwrapped = self.unwrapped_index(thread, register, shape)
                index = tuple(i % s for i, s in zip(unwrapped, shape, strict=True))
                first = unwrapped == index
                if first:
                    holders[index].insert(0, thread)
                else:
                    holders[index].append(thread)
        return holders

    def table(self, shape: Shape) -> str:
        """A text grid of a 1-D or 2-D tile: each element labelled with the thread that
        holds its first copy.

        >>> print(BlockedLayout((2,), (32,), (1,), (0,)).table((8,)))
         0  0  1  1  2  2  3  3
        """
        if len(shape) not in (1, 2):
            raise LayoutError(f"a table shows a 1-D or 2-D tile, got shape {shape}")
        grid = shape if len(shape) == 2 else (1, shape[0])
        holders = self.thread_map(tuple(shape))
        width = len(str(self.num_warps * WARP_SIZE - 1))
        lines = []
        for row in range(grid[0]):
            cells = []
            for column in range(grid[1]):
                index = (row, column) if len(shape) == 2 else (column,)
                cells.append(str(holders[index][0]).rjust(width))
            lines.append(" ".join(cells))
        return "\n".join(lines)


def default_layout(shape: Shape, num_warps: int = 4, element_bits: int = 32) -> BlockedLayout:
    """A layout for coalesced accesses, as Triton's coalescing pass chooses for a tile
    read contiguously along its last dimension: that dimension fastest; along it, as
    many consecutive elements per thread as one 128-bit access holds (fewer when the
    tile has fewer per thread); lanes, then warps, along the fastest dimensions first,
    what is left over on the slowest.

    >>> print(default_layout((1024,), 4))
    #blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    >>> layout = default_layout((16, 16), 4)
    >>> layout.size_per_thread, layout.threads_per_warp, layout.warps_per_block, layout.order
    ((1, 2), (4, 8), (4, 1), (1, 0))
    """
    if num_warps < 1 or num_warps & (num_warps - 1):
        raise LayoutError(f"expected a power of two warps, got {num_warps}")
    if not shape or any(s < 1 or s & (s - 1) for s in shape):
        raise LayoutError(f"expected a tile shape of powers of two, got {tuple(shape)}")
    rank = len(shape)
    order = tuple(reversed(range(rank)))
    fastest = order[0]
    per_thread = max(1, math.prod(shape) // (WARP_SIZE * num_warps))
    sizes = [1] * rank
    sizes[fastest] = min(max(1, 128 // element_bits), per_thread, shape[fastest])
    threads, warps = [1] * rank, [1] * rank
    lanes_left, warps_left = WARP_SIZE, num_warps
    for position, dim in enumerate(order):
        room = max(1, shape[dim] // sizes[dim])
        last = position == rank - 1
        threads[dim] = lanes_left if last else max(1, min(lanes_left, room))
        lanes_left //= threads[dim]
    for position, dim in enumerate(order):
        room = max(1, shape[dim] // (sizes[dim] * threads[dim]))
        last = position == rank - 1
        warps[dim] = warps_left if last else max(1, min(warps_left, room))
        warps_left //= warps[dim]
    return BlockedLayout(tuple(sizes), tuple(threads), tuple(warps), order)
