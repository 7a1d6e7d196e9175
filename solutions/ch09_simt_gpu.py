"""Chapter 09: SIMT kernels on a simulated GPU, graded on what the warps did.

Every task is a kernel written in the ``tinycomp.gpu`` DSL. The grader launches it with
``gpu.launch`` (the real pipeline: DSL to gpu IR, the SIMT simulator with its sanitizer,
the counters) on random inputs, compares the arrays with numpy, then holds the counters
to a budget: barriers, bank conflicts, sectors, shuffles, atomics. Wall time is never
graded. Six tasks:

1. ``block_sum_kernel``: one sum per 256-thread block, with at most two barriers and no
   bank conflicts.
2. ``transpose_kernel``: a matrix transpose whose global traffic is within 10% of the
   fewest sectors, with no bank conflicts.
3. ``warp_scan_kernel``: an inclusive scan of every 32 elements, with shuffles only.
4. ``histogram_kernel``: a histogram whose global atomics are one warp instruction per
   32 bins per block.
5. ``stencil_fixed_kernel``: the race that the sanitizer finds in ``stencil_racy``,
   fixed with no more barriers than the algorithm needs.
6. ``full_occupancy_block_size``: the smallest block that fills an SM, for a kernel's
   registers and shared memory.

Fill in each TODO, then run ``tinycomp grade ch09``. ``chapters/09_simt_gpu.ipynb`` shows
the DSL, the simulator's counters and the pictures these tasks are about.
"""

from __future__ import annotations

import math

from tinycomp import gpu
from tinycomp.gpu import Kernel, lookup_preset

__all__ = [
    "BINS",
    "BLOCK",
    "FULL_MASK",
    "STENCIL_TILES",
    "TILE",
    "block_sum_kernel",
    "full_occupancy_block_size",
    "histogram_kernel",
    "stencil_fixed_kernel",
    "stencil_racy",
    "transpose_kernel",
    "warp_scan_kernel",
]

BLOCK = 256
"""Threads per block in tasks 1, 3, 4 and 5."""
TILE = 32
"""The transpose's tile edge (task 2)."""
BINS = 64
"""The histogram's bin count (task 4)."""
STENCIL_TILES = 4
"""Tiles of ``BLOCK`` elements each block of the stencil handles, one after another (task 5)."""
FULL_MASK = 0xFFFFFFFF
"""Every lane of a warp, the mask of a warp-wide shuffle."""


# -- Task 09.1 ---------------------------------------------------------------------------
def block_sum_kernel() -> Kernel:
    """A kernel ``block_sum(x, out, n)``: the sum of each block's 256 elements of ``x``.

    **Input.** ``x``: float32 ``(n,)``; ``out``: float32 ``(ceil(n / 256),)``, holding
    garbage; ``n``: int32. **Launch:** ``grid=ceil(n / 256)``, ``block=256``.

    **Output.** ``out[b] = x[256 * b : 256 * (b + 1)].sum()`` (the elements below ``n``),
    written (not added to) by block ``b``.

    **Budget, per block:** at most 2 barriers (``syncthreads``); no bank conflicts
    (shared wavefronts equal shared requests, loads and stores).

    **Example.** ``n = 300``: ``out[0]`` is the sum of ``x[:256]``, ``out[1]`` of
    ``x[256:300]``.
    """
    FULL = FULL_MASK
    WARPS = BLOCK // 32

    @gpu.kernel
    def block_sum(x, out, n):
        partial = gpu.shared.array(WARPS, gpu.float32)
        tid = gpu.thread_idx.x
        i = gpu.block_idx.x * BLOCK + tid
        value = x[i] if i < n else 0.0
        offset = 16
        while offset > 0:
            value += gpu.shfl_down_sync(FULL, value, offset)
            offset = offset // 2
        if gpu.lane_id() == 0:
            partial[tid // 32] = value
        gpu.syncthreads()
        if tid < 32:
            total = partial[tid] if tid < WARPS else 0.0
            offset = 16
            while offset > 0:
                total += gpu.shfl_down_sync(FULL, total, offset)
                offset = offset // 2
            if tid == 0:
                out[gpu.block_idx.x] = total

    return block_sum


# -- Task 09.2 ---------------------------------------------------------------------------
def transpose_kernel() -> Kernel:
    """A kernel ``transpose(src, dst)``: ``dst = src.T``.

    **Input.** ``src``: float32 ``(M, N)``; ``dst``: float32 ``(N, M)``, holding garbage.
    **Launch:** ``grid=(ceil(N / 32), ceil(M / 32))``, ``block=(32, 8)``: block
    ``(bx, by)`` owns the 32 x 32 tile ``src[32*by : 32*by+32, 32*bx : 32*bx+32]``.

    **Output.** ``dst[j, i] = src[i, j]`` for every element, edges included.

    **Budget** (when ``M`` and ``N`` are multiples of 8, so that rows start on a 32-byte
    sector): global load plus store sectors at most 1.1 times the ideal (the fewest
    sectors the bytes moved could occupy); no bank conflicts (shared wavefronts equal
    shared requests).

    **Example.** ``src`` of shape ``(64, 96)``: a grid of 3 x 2 blocks writes the
    ``(96, 64)`` matrix ``src.T``.
    """
    ROWS = 8

    @gpu.kernel
    def transpose(src, dst):
        tile = gpu.shared.array((TILE, TILE + 1), gpu.float32)
        tx = gpu.thread_idx.x
        ty = gpu.thread_idx.y
        col = gpu.block_idx.x * TILE + tx
        for r in range(ty, TILE, ROWS):
            row = gpu.block_idx.y * TILE + r
            if row < src.shape[0] and col < src.shape[1]:
                tile[r, tx] = src[row, col]
        gpu.syncthreads()
        out_col = gpu.block_idx.y * TILE + tx
        for r in range(ty, TILE, ROWS):
            out_row = gpu.block_idx.x * TILE + r
            if out_row < dst.shape[0] and out_col < dst.shape[1]:
                dst[out_row, out_col] = tile[tx, r]

    return transpose


# -- Task 09.3 ---------------------------------------------------------------------------
def warp_scan_kernel() -> Kernel:
    """A kernel ``warp_scan(x, out, n)``: the inclusive prefix sum of every 32 elements.

    **Input.** ``x``: float32 ``(n,)``; ``out``: float32 ``(n,)``, holding garbage;
    ``n``: int32, any size (not only a multiple of 32). **Launch:**
    ``grid=ceil(n / 256)``, ``block=256``; thread ``t`` of the grid owns element ``t``.

    **Output.** ``out[i] = x[32 * (i // 32) : i + 1].sum()`` for ``i < n``.

    **Budget:** no shared memory at all; at most 5 shuffle instructions per warp; each
    warp loads ``x`` and stores ``out`` once (one global load and one global store
    request per warp).

    **Example.** ``x = [1, 2, 3, ..., 40]``: ``out[:3] = [1, 3, 6]``, ``out[32] = 33``,
    ``out[33] = 33 + 34``.
    """
    FULL = FULL_MASK

    @gpu.kernel
    def warp_scan(x, out, n):
        i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
        lane = gpu.lane_id()
        value = x[i] if i < n else 0.0
        delta = 1
        while delta < 32:
            neighbour = gpu.shfl_up_sync(FULL, value, delta)
            if lane >= delta:
                value += neighbour
            delta *= 2
        if i < n:
            out[i] = value

    return warp_scan


# -- Task 09.4 ---------------------------------------------------------------------------
def histogram_kernel() -> Kernel:
    """A kernel ``histogram(values, bins, n)``: how often each of ``BINS`` values occurs.

    **Input.** ``values``: int32 ``(n,)``, each in ``[0, BINS)``; ``bins``: int32
    ``(BINS,)``, zero before the launch; ``n``: int32. **Launch:** ``grid=ceil(n / 256)``,
    ``block=256``.

    **Output.** ``bins[v]`` is the number of ``i < n`` with ``values[i] == v``
    (``np.bincount(values, minlength=BINS)``). Blocks run at the same time on a GPU, so
    ``bins`` is only ever updated with atomics (no plain store to it).

    **Budget, per block:** at most ``BINS / 32`` global atomic warp instructions; no more
    atomic conflicts (lanes of a warp hitting an address an earlier lane hit) than the
    values themselves force: one atomic per element has as many as the block's warps have
    repeated values.

    **Example.** ``values = [3, 1, 3]``, ``n = 3``: ``bins[1] == 1``, ``bins[3] == 2``,
    every other bin 0.
    """

    @gpu.kernel
    def histogram(values, bins, n):
        counts = gpu.shared.array(BINS, gpu.int32)
        tid = gpu.thread_idx.x
        if tid < BINS:
            counts[tid] = 0
        gpu.syncthreads()
        i = gpu.block_idx.x * BLOCK + tid
        if i < n:
            gpu.atomic.add(counts, values[i], 1)
        gpu.syncthreads()
        if tid < BINS:
            gpu.atomic.add(bins, tid, counts[tid])

    return histogram


# -- Task 09.5 ---------------------------------------------------------------------------
@gpu.kernel
def stencil_racy(x, y, n):
    tile = gpu.shared.array(BLOCK + 2, gpu.float32)
    tid = gpu.thread_idx.x
    for t in range(STENCIL_TILES):
        i = (gpu.block_idx.x * STENCIL_TILES + t) * BLOCK + tid
        tile[tid + 1] = x[i] if i < n else 0.0
        if tid == 0:
            tile[0] = x[i - 1] if 0 < i and i <= n else 0.0
        if tid == BLOCK - 1:
            tile[BLOCK + 1] = x[i + 1] if i + 1 < n else 0.0
        gpu.syncthreads()
        if i < n:
            y[i] = tile[tid] + tile[tid + 1] + tile[tid + 2]


def stencil_fixed_kernel() -> Kernel:
    """``stencil_racy`` with its race fixed: ``y[i] = x[i-1] + x[i] + x[i+1]``.

    **Input.** ``x``: float32 ``(n,)``; ``y``: float32 ``(n,)``, holding garbage; ``n``:
    int32. A missing neighbour (``x[-1]``, ``x[n]``) is 0. **Launch:**
    ``grid=ceil(n / (256 * STENCIL_TILES))``, ``block=256``: block ``b`` handles tiles
    ``STENCIL_TILES * b`` to ``STENCIL_TILES * b + STENCIL_TILES - 1`` of 256 elements, one
    after another, through one shared tile (with its two halo elements), as
    ``stencil_racy`` does.

    **What goes wrong.** ``gpu.launch(stencil_racy, 3, 256, (x, y, np.int32(3000)))``
    stops with the sanitizer's report (lines 224 and 231 are in ``stencil_racy`` above)::

        SanitizerError: kernel 'stencil_racy', 'memref.store' at ch09_simt_gpu.py:224,
        block (0, 0, 0), warp 0, lane 0 (thread (0, 0, 0)): Race on __shared__ tile[1]:
        this write and a read by block (0, 0, 0), warp 0, lane 1 (thread (1, 0, 0)) at
        line 231, with no barrier (gpu.barrier, or nvvm.bar.warp.sync within a warp)
        between them; no array was changed

    **What must hold.** No sanitizer error; ``y`` matches numpy; each element of ``x`` is
    still loaded from global memory once (at most 8 + 2 global load requests per tile
    per block: the tile and its halo); no more barriers than the algorithm needs: at
    most 2 per tile per block.

    **Example.** ``x = [1, 2, 3, 4]``, ``n = 4``: ``y = [3, 6, 9, 7]``.
    """

    @gpu.kernel
    def stencil_fixed(x, y, n):
        tile = gpu.shared.array(BLOCK + 2, gpu.float32)
        tid = gpu.thread_idx.x
        for t in range(STENCIL_TILES):
            i = (gpu.block_idx.x * STENCIL_TILES + t) * BLOCK + tid
            tile[tid + 1] = x[i] if i < n else 0.0
            if tid == 0:
                tile[0] = x[i - 1] if 0 < i and i <= n else 0.0
            if tid == BLOCK - 1:
                tile[BLOCK + 1] = x[i + 1] if i + 1 < n else 0.0
            gpu.syncthreads()
            if i < n:
                y[i] = tile[tid] + tile[tid + 1] + tile[tid + 2]
            gpu.syncthreads()

    return stencil_fixed


# -- Task 09.6 ---------------------------------------------------------------------------
def full_occupancy_block_size(
    preset: str, registers_per_thread: int, shared_bytes_per_block: int
) -> int | None:
    """The smallest block (a multiple of 32 threads) that reaches 100% occupancy.

    **Input.** A preset's name (``"a6000"``, ``"a100"``, ``"h100"``, ``"classroom"``: its
    figures are ``lookup_preset(preset)``), the registers each thread of the kernel uses
    and the static shared memory each block declares, in bytes (the same whatever the
    block size).

    **Output.** The fewest threads per block, a multiple of 32 and at most the preset's
    ``max_threads_per_block``, for which the SM holds ``max_warps_per_sm`` warps of the
    kernel at once, under the rules in the docstring of
    ``tinycomp.targets.gpu_sim.occupancy`` (registers per warp rounded up to the
    allocation unit and split over the schedulers, shared memory plus the per-block
    reserve rounded up to the granularity, the warp and block caps, the per-block
    register limit); None if no block size does.

    **Example.** On ``a6000`` (48 warps, at most 16 blocks per SM), a kernel of 32
    registers and no shared memory: 96 threads (16 blocks of 3 warps).
    """
    chip = lookup_preset(preset)
    if registers_per_thread > chip.max_registers_per_thread:
        return None
    if shared_bytes_per_block > chip.max_shared_per_block:
        return None
    per_warp = _round_up(registers_per_thread * chip.warp_size, chip.register_allocation_unit)
    per_partition = (chip.registers_per_sm // chip.schedulers_per_sm) // per_warp if per_warp else 0
    allocated = _round_up(
        shared_bytes_per_block + chip.shared_reserve_per_block, chip.shared_granularity
    )
    for threads in range(chip.warp_size, chip.max_threads_per_block + 1, chip.warp_size):
        warps = threads // chip.warp_size
        if chip.max_warps_per_sm % warps or per_warp * warps > chip.max_registers_per_block:
            continue
        blocks = min(chip.max_warps_per_sm // warps, chip.max_blocks_per_sm)
        if per_warp:
            blocks = min(blocks, chip.schedulers_per_sm * per_partition // warps)
        if allocated:
            blocks = min(blocks, chip.max_shared_per_sm // allocated)
        if blocks * warps == chip.max_warps_per_sm:
            return threads
    return None


def _round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple of ``multiple``."""
    return math.ceil(value / multiple) * multiple
