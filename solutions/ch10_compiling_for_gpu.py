"""Chapter 10: compiling for the GPU, graded on what the warps did.

Each task plugs into the real pipeline. The grader builds the student's layout or kernel,
runs it on random inputs (the SIMT simulator with its sanitizer and counters, or the
layout's own thread map), compares with numpy, and holds the counters to a budget:
global sectors, vector widths, shared memory, bank conflicts, barriers, shuffles. Wall
time is never graded. Four tasks:

1. ``coalesced_layout``: a blocked layout whose every global access is one 16-byte
   vector per thread and whose warps touch the fewest 32-byte sectors.
2. ``row_softmax_kernel``: a softmax of 32-element rows, one warp per row, reduced with
   warp shuffles only (no shared memory, at most 10 shuffles per warp).
3. ``tiled_matmul_kernel``: a block-tiled matmul that stages 32 x 32 tiles of A and B in
   shared memory: each element read from global memory once per block that needs it,
   no bank conflicts, at most 2 barriers per k-step, no race.
4. ``shfl_xor_f64_ir``: the LLVM IR of a 64-bit warp butterfly shuffle as two 32-bit
   ``llvm.nvvm.shfl.sync.bfly.i32`` calls, in a function marked ``convergent``.

Fill in each TODO, then run ``tinycomp grade ch10``. ``chapters/10_compiling_for_gpu.ipynb``
shows the layouts, the shuffles and the counters these tasks are about.
"""

from __future__ import annotations

import math

from tinycomp import gpu
from tinycomp.frontend.tile.layout import WARP_SIZE, BlockedLayout
from tinycomp.gpu import Kernel

__all__ = [
    "FULL_MASK",
    "MATMUL_BLOCK",
    "MATMUL_TILE",
    "ROWS_PER_BLOCK",
    "SHUFFLE_FUNCTION",
    "coalesced_layout",
    "row_softmax_kernel",
    "shfl_xor_f64_ir",
    "tiled_matmul_kernel",
]

ROWS_PER_BLOCK = 8
"""Rows (one warp each) per 256-thread block in task 2."""
FULL_MASK = 0xFFFFFFFF
"""Every lane of a warp, the mask of a warp-wide shuffle."""
MATMUL_TILE = 32
"""The edge of task 3's tiles: a block computes a 32 x 32 tile of C, 32 columns of A and
rows of B per k-step."""
MATMUL_BLOCK = (32, 8)
"""Task 3's block: 32 x 8 = 256 threads, each computing 4 elements of the C tile."""
SHUFFLE_FUNCTION = "shfl_xor_f64"
"""The name of the LLVM function task 4 defines."""


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


# -- Task 10.3 ---------------------------------------------------------------------------
def tiled_matmul_kernel() -> Kernel:
    """A kernel ``tiled_matmul(A, B, C, M, N, K)``: ``C = A @ B`` through shared-memory tiles.

    **Input.** ``A``: float32 ``(M, K)``, ``B``: float32 ``(K, N)``, both row-major;
    ``C``: float32 ``(M, N)``, holding garbage; ``M``, ``N``, ``K``: int32, each a multiple
    of 32. **Launch:** ``grid=(N // 32, M // 32)``, ``block=(32, 8)`` (256 threads): block
    ``(bx, by)`` owns the tile ``C[32*by : 32*by+32, 32*bx : 32*bx+32]``, 4 elements per
    thread.

    **Output.** ``C = A @ B`` (every element written, none added to).

    **Budget, per block:** global load sectors at most what the block's data needs once:
    its 32 rows of ``A`` and 32 columns of ``B``, ``2 * 32 * K * 4 / 32`` sectors (a value
    used by 8 warps is read from global memory once, not 8 times); no bank conflicts on
    shared loads or stores (one wavefront per request); at most 2 barriers per k-step
    (``2 * K / 32``); and no race: the sanitizer is on.

    **Example.** ``M, N, K = 64, 96, 32``: a grid of 3 x 2 blocks, one k-step each;
    ``C[0, 0] = A[0, :] @ B[:, 0]``.
    """

    @gpu.kernel
    def tiled_matmul(A, B, C, M, N, K):
        tx = gpu.thread_idx.x
        ty = gpu.thread_idx.y
        row0 = gpu.block_idx.y * 32
        col = gpu.block_idx.x * 32 + tx
        As = gpu.shared.array((32, 32), gpu.float32)
        Bs = gpu.shared.array((32, 32), gpu.float32)
        acc0 = 0.0
        acc1 = 0.0
        acc2 = 0.0
        acc3 = 0.0
        for k0 in range(0, K, 32):
            for r in range(ty, 32, 8):  # a warp stores one row of each tile: no conflicts
                As[r, tx] = A[row0 + r, k0 + tx]
                Bs[r, tx] = B[k0 + r, col]
            gpu.syncthreads()  # the tiles are complete before anyone reads them
            for k in range(32):
                b = Bs[k, tx]  # 32 consecutive words: 32 banks
                acc0 += As[ty, k] * b  # one word for the whole warp: a broadcast
                acc1 += As[ty + 8, k] * b
                acc2 += As[ty + 16, k] * b
                acc3 += As[ty + 24, k] * b
            gpu.syncthreads()  # every warp is done reading before the next step stores
        C[row0 + ty, col] = acc0
        C[row0 + ty + 8, col] = acc1
        C[row0 + ty + 16, col] = acc2
        C[row0 + ty + 24, col] = acc3

    return tiled_matmul


# -- Task 10.4 ---------------------------------------------------------------------------
def shfl_xor_f64_ir() -> str:
    """The LLVM IR (text) of a module defining a 64-bit warp butterfly shuffle.

    **Output.** A module (``target triple = "nvptx64-nvidia-cuda"``) that defines, with
    external linkage::

        define double @shfl_xor_f64(double %value, i32 %lane_mask) convergent

    On each of the 32 lanes of a warp (all of them calling it together) it returns the
    ``%value`` that lane ``laneid ^ lane_mask`` passed, bit for bit (``0 <= lane_mask <
    32``). PTX's ``shfl.sync`` moves 32 bits, and the function may call
    ``i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 membermask, i32 value, i32 lane_mask,
    i32 clamp)`` exactly twice (the PTX ISA's ``shfl.sync`` says what membermask and
    clamp must be for one warp of 32 lanes); no other shuffle. The function must be
    ``convergent``: it communicates with the other lanes, so no optimization may move a
    call to it into, out of or across a condition. An ``llvmlite.ir.Module`` (its
    ``str``) is accepted too.

    **What is checked.** The IR parses and verifies; the PTX that LLVM's NVPTX backend
    makes for ``sm_80`` holds exactly two ``shfl.sync.bfly.b32`` (and ``ptxas`` accepts
    it, where it is installed); run on the host with the intrinsic answered across 32
    lanes, it returns numpy's butterfly ``x[np.arange(32) ^ lane_mask]`` on random
    doubles.

    **Example.** With ``lane_mask = 1``, lanes 0 and 1 swap their values, as do 2 and 3.
    """
    shuffle = "call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 {half}, i32 %lane_mask, i32 31)"
    return f"""\
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)

define double @{SHUFFLE_FUNCTION}(double %value, i32 %lane_mask) convergent {{
entry:
  %bits = bitcast double %value to i64
  %lo = trunc i64 %bits to i32
  %hi.shifted = lshr i64 %bits, 32
  %hi = trunc i64 %hi.shifted to i32
  %lo.moved = {shuffle.format(half="%lo")}
  %hi.moved = {shuffle.format(half="%hi")}
  %lo.wide = zext i32 %lo.moved to i64
  %hi.wide = zext i32 %hi.moved to i64
  %hi.up = shl i64 %hi.wide, 32
  %joined = or i64 %hi.up, %lo.wide
  %result = bitcast i64 %joined to double
  ret double %result
}}
"""
