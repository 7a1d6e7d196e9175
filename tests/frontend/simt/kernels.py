"""Kernels written in the SIMT DSL, with example launch arguments: the DSL's tests check
their IR, and the simulator's tests run them against numpy.

Each entry of ``KERNELS`` is a kernel and a function giving its launch arguments (random
inputs, never zeros) for a problem size.
"""

from __future__ import annotations

import math

import numpy as np

from tinycomp.frontend import simt as gpu

TILE = 16
"""The tile size of the tiled matmul (and the block size it is launched with)."""
TRANSPOSE_TILE = 32
"""The transpose's tile; its shared array is padded to TILE x (TILE + 1)."""
BINS = 64
"""The histogram's bin count."""
FULL_MASK = 0xFFFFFFFF


@gpu.kernel
def saxpy(a, x, y, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    if i < n:
        y[i] = a * x[i] + y[i]


@gpu.kernel
def matmul_naive(A, B, C):
    i = gpu.block_idx.y * gpu.block_dim.y + gpu.thread_idx.y
    j = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


@gpu.kernel
def matmul_tiled(A, B, C):
    a_tile = gpu.shared.array((TILE, TILE), gpu.float32)
    b_tile = gpu.shared.array((TILE, TILE), gpu.float32)
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row = gpu.block_idx.y * TILE + ty
    col = gpu.block_idx.x * TILE + tx
    n = A.shape[1]
    acc = 0.0
    for t in range(0, n, TILE):
        a_tile[ty, tx] = A[row, t + tx] if row < A.shape[0] and t + tx < n else 0.0
        b_tile[ty, tx] = B[t + ty, col] if t + ty < n and col < B.shape[1] else 0.0
        gpu.syncthreads()
        for k in range(TILE):
            acc += a_tile[ty, k] * b_tile[k, tx]
        gpu.syncthreads()
    if row < C.shape[0] and col < C.shape[1]:
        C[row, col] = acc


@gpu.kernel
def warp_reduce(x, out, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    value = x[i] if i < n else 0.0
    offset = 16
    while offset > 0:
        value += gpu.shfl_down_sync(FULL_MASK, value, offset)
        offset = offset // 2
    if gpu.lane_id() == 0:
        gpu.atomic.add(out, 0, value)


@gpu.kernel
def block_reduce(x, out, n):
    partial = gpu.shared.array(256, gpu.float32)
    tid = gpu.thread_idx.x
    i = gpu.block_idx.x * gpu.block_dim.x + tid
    partial[tid] = x[i] if i < n else 0.0
    gpu.syncthreads()
    stride = gpu.block_dim.x // 2
    while stride > 0:
        if tid < stride:
            partial[tid] += partial[tid + stride]
        gpu.syncthreads()
        stride = stride // 2
    if tid == 0:
        out[gpu.block_idx.x] = partial[0]


@gpu.kernel
def transpose(src, dst):
    # a block of 32 x block_dim.y threads moves a 32 x 32 tile: each thread a column of
    # 32 / block_dim.y elements (one with 32 x 32 blocks, four with the usual 32 x 8)
    tile = gpu.shared.array((TRANSPOSE_TILE, TRANSPOSE_TILE + 1), gpu.float32)
    x = gpu.block_idx.x * TRANSPOSE_TILE + gpu.thread_idx.x
    y0 = gpu.block_idx.y * TRANSPOSE_TILE
    for r in range(gpu.thread_idx.y, TRANSPOSE_TILE, gpu.block_dim.y):
        if y0 + r < src.shape[0] and x < src.shape[1]:
            tile[r, gpu.thread_idx.x] = src[y0 + r, x]
    gpu.syncthreads()
    tx = gpu.block_idx.y * TRANSPOSE_TILE + gpu.thread_idx.x
    ty0 = gpu.block_idx.x * TRANSPOSE_TILE
    for r in range(gpu.thread_idx.y, TRANSPOSE_TILE, gpu.block_dim.y):
        if ty0 + r < dst.shape[0] and tx < dst.shape[1]:
            dst[ty0 + r, tx] = tile[gpu.thread_idx.x, r]


@gpu.kernel
def histogram(values, bins, n):
    local_bins = gpu.shared.array(BINS, gpu.int32)
    tid = gpu.thread_idx.x
    for b in range(tid, BINS, gpu.block_dim.x):
        local_bins[b] = 0
    gpu.syncthreads()
    i = gpu.block_idx.x * gpu.block_dim.x + tid
    if i < n:
        gpu.atomic.add(local_bins, values[i] % BINS, 1)
    gpu.syncthreads()
    for b in range(tid, BINS, gpu.block_dim.x):
        gpu.atomic.add(bins, b, local_bins[b])


@gpu.kernel
def warp_inclusive_scan(x, out, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    lane = gpu.lane_id()
    value = x[i] if i < n else 0.0
    delta = 1
    while delta < gpu.warp_size:
        neighbour = gpu.shfl_up_sync(FULL_MASK, value, delta)
        if lane >= delta:
            value += neighbour
        delta *= 2
    if i < n:
        out[i] = value


@gpu.kernel
def ballot_count(x, counts, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    positive = i < n and x[i] > 0.0
    bits = gpu.ballot_sync(FULL_MASK, positive)
    count = 0
    for lane in range(gpu.warp_size):
        count += (bits >> lane) & 1
    if gpu.lane_id() == 0:
        counts[i // gpu.warp_size] = count


@gpu.kernel
def float4_copy(src, dst):
    row = gpu.block_idx.x
    col = gpu.thread_idx.x * 4
    if col < src.shape[1]:
        a, b, c, d = gpu.vload(src, (row, col), 4)
        gpu.vstore(dst, (row, col), (a, b, c, d))


@gpu.kernel
def relu_early_exit(x, y, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    if i >= n:
        return
    y[i] = max(x[i], 0.0)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def saxpy_args(n: int = 1000) -> tuple:
    rng = _rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    return np.float32(rng.uniform(0.5, 2.0)), x, y, np.int32(n)


def matmul_args(m: int = 37, k: int = 29, n: int = 41) -> tuple:
    rng = _rng(1)
    A = rng.standard_normal((m, k)).astype(np.float32)
    B = rng.standard_normal((k, n)).astype(np.float32)
    return A, B, np.zeros((m, n), np.float32)


def reduce_args(n: int = 1000) -> tuple:
    x = _rng(2).standard_normal(n).astype(np.float32)
    return x, np.zeros(max(1, math.ceil(n / 256)), np.float32), np.int32(n)


def transpose_args(m: int = 70, n: int = 45) -> tuple:
    src = _rng(3).standard_normal((m, n)).astype(np.float32)
    return src, np.zeros((n, m), np.float32)


def histogram_args(n: int = 2000) -> tuple:
    values = _rng(4).integers(0, 10_000, n).astype(np.int32)
    return values, np.zeros(BINS, np.int32), np.int32(n)


def scan_args(n: int = 100) -> tuple:
    x = _rng(5).standard_normal(n).astype(np.float32)
    return x, np.zeros(n, np.float32), np.int32(n)


def ballot_args(n: int = 100) -> tuple:
    x = _rng(6).standard_normal(n).astype(np.float32)
    return x, np.zeros(math.ceil(n / 32), np.int32), np.int32(n)


def float4_args(rows: int = 8, cols: int = 64) -> tuple:
    src = _rng(7).standard_normal((rows, cols)).astype(np.float32)
    return src, np.zeros_like(src)


def relu_args(n: int = 300) -> tuple:
    x = _rng(8).standard_normal(n).astype(np.float32)
    return x, np.zeros_like(x), np.int32(n)


KERNELS = {
    "saxpy": (saxpy, saxpy_args),
    "matmul_naive": (matmul_naive, matmul_args),
    "matmul_tiled": (matmul_tiled, matmul_args),
    "warp_reduce": (warp_reduce, reduce_args),
    "block_reduce": (block_reduce, reduce_args),
    "transpose": (transpose, transpose_args),
    "histogram": (histogram, histogram_args),
    "warp_inclusive_scan": (warp_inclusive_scan, scan_args),
    "ballot_count": (ballot_count, ballot_args),
    "float4_copy": (float4_copy, float4_args),
    "relu_early_exit": (relu_early_exit, relu_args),
}
"""Every kernel above, with the function making its launch arguments."""
