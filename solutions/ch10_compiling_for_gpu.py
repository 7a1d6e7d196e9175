"""Chapter 10: compiling for the GPU, graded on what the warps did.

Each task plugs into the real pipeline. The grader builds the student's layout or kernel,
runs it on random inputs (the SIMT simulator with its sanitizer and counters, or the
layout's own thread map), compares with numpy, and holds the counters to a budget:
global sectors, vector widths, shared memory, shuffles. Wall time is never graded. Two
tasks:

1. ``coalesced_layout``: a blocked layout whose every global access is one 16-byte
   vector per thread and whose warps touch the fewest 32-byte sectors.
2. ``row_softmax_kernel``: a softmax of 32-element rows, one warp per row, reduced with
   warp shuffles only (no shared memory, at most 10 shuffles per warp).

Fill in each TODO, then run ``tinycomp grade ch10``. ``chapters/10_compiling_for_gpu.ipynb``
shows the layouts, the shuffles and the counters these tasks are about.
"""

from __future__ import annotations

import math

from tinycomp import gpu
from tinycomp.frontend.tile.layout import WARP_SIZE, BlockedLayout
from tinycomp.gpu import Kernel

__all__ = ["FULL_MASK", "ROWS_PER_BLOCK", "coalesced_layout", "row_softmax_kernel"]

ROWS_PER_BLOCK = 8
"""Rows (one warp each) per 256-thread block in task 2."""
FULL_MASK = 0xFFFFFFFF
"""Every lane of a warp, the mask of a warp-wide shuffle."""


# -- Task 10.1 ---------------------------------------------------------------------------
def coalesced_layout(shape: tuple[int, ...], element_bytes: int, num_warps: int) -> BlockedLayout:
    """A ``BlockedLayout`` for loading a row-major tile with coalesced 128-bit accesses.

    **Input.** ``shape``: the tile, 1-D or 2-D, every size a power of two, the last
    dimension contiguous in memory; ``element_bytes``: 2 (f16) or 4 (f32);
    ``num_warps``: a power of two, the warps of the program.

    **Output.** A layout of ``num_warps`` warps, fastest dimension last (``order`` starts
    with the last dimension), such that: it covers the tile (every element has an owner);
    whenever the tile holds at least ``16 / element_bytes`` elements per thread, each
    thread's elements come in runs of exactly 16 contiguous bytes (one 128-bit vector
    access each); and each such warp access touches the fewest 32-byte sectors its bytes
    need (the 32 lanes' vectors are adjacent in memory).

    **Example.** ``coalesced_layout((64, 64), 2, 4)``: ``sizePerThread = [1, 8]``
    (8 f16 are 16 bytes), ``threadsPerWarp = [4, 8]``, ``warpsPerCTA = [4, 1]``,
    ``order = [1, 0]``; a warp's access reads 4 rows of 128 contiguous bytes: 16 sectors.
    """
    rank = len(shape)
    order = tuple(reversed(range(rank)))
    fastest = order[0]
    per_thread = max(1, math.prod(shape) // (WARP_SIZE * num_warps))
    sizes = [1] * rank
    sizes[fastest] = min(16 // element_bytes, per_thread, shape[fastest])
    threads, warps = [1] * rank, [1] * rank
    lanes_left, warps_left = WARP_SIZE, num_warps
    for position, dim in enumerate(order):
        room = max(1, shape[dim] // sizes[dim])
        threads[dim] = lanes_left if position == rank - 1 else max(1, min(lanes_left, room))
        lanes_left //= threads[dim]
    for position, dim in enumerate(order):
        room = max(1, shape[dim] // (sizes[dim] * threads[dim]))
        warps[dim] = warps_left if position == rank - 1 else max(1, min(warps_left, room))
        warps_left //= warps[dim]
    return BlockedLayout(tuple(sizes), tuple(threads), tuple(warps), order)


# -- Task 10.2 ---------------------------------------------------------------------------
def row_softmax_kernel() -> Kernel:
    """A kernel ``row_softmax(x, out, rows)``: the softmax of each 32-element row.

    **Input.** ``x``: float32 ``(rows, 32)``, row-major; ``out``: float32 ``(rows, 32)``,
    holding garbage; ``rows``: int32, any count (not only a multiple of 8). **Launch:**
    ``grid=ceil(rows / 8)``, ``block=256``: warp ``w`` of block ``b`` owns row
    ``8 * b + w``, lane ``l`` its element ``l``.

    **Output.** ``out[r] = exp(x[r] - x[r].max()) / exp(x[r] - x[r].max()).sum()`` for
    every ``r < rows`` (numerically stable: subtract the row's maximum).

    **Budget:** no shared memory at all (the row never leaves the warp's registers); at
    most 10 shuffle instructions per warp (log2(32) for the maximum, 5 for the sum); no
    warp-reduction intrinsics (``reduce_*_sync``); one global load and one global store
    request per warp.

    **Example.** A row of 32 zeros: every ``out`` element is ``1/32``.
    """
    FULL = FULL_MASK

    @gpu.kernel
    def row_softmax(x, out, rows):
        row = gpu.block_idx.x * 8 + gpu.thread_idx.x // 32
        lane = gpu.lane_id()
        value = x[row, lane] if row < rows else 0.0
        biggest = value
        delta = 16
        while delta > 0:
            biggest = max(biggest, gpu.shfl_xor_sync(FULL, biggest, delta))
            delta //= 2
        e = math.exp(value - biggest)
        total = e
        delta = 16
        while delta > 0:
            total += gpu.shfl_xor_sync(FULL, total, delta)
            delta //= 2
        if row < rows:
            out[row, lane] = e / total

    return row_softmax
