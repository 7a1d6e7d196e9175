"""The SGEMM worklog's kernels, written in the kernel DSL, and what a real GPU measured.

Simon Boehm's worklog ("How to Optimize a CUDA Matmul Kernel for cuBLAS-like
Performance", 2022) takes a single-precision GEMM on an RTX A6000 from a naive kernel to
93.7% of cuBLAS in ten steps, timing each at 4096x4096x4096. Those measurements are the
test of the GPU cost model: each kernel below follows the worklog's CUDA (same tiles,
same thread mapping, same shared-memory layout), and ``MEASURED_GFLOPS`` holds the
figures the worklog published. All compute ``C = alpha * A @ B + beta * C`` on row-major
``M x K``, ``K x N`` and ``M x N`` float32 arrays.

=====================  ==========  ======================================================
kernel                 block       what changes
=====================  ==========  ======================================================
``naive``              32x32       one thread per C element; ``threadIdx.x`` runs down
                                   the rows, so a warp reads 32 rows of A: uncoalesced
``coalesced``          1024        ``threadIdx.x`` runs along a row of C: a warp reads one
                                   element of A (broadcast) and 32 contiguous of B
``shared``             1024        32x32 tiles of A and B staged in shared memory
``blocktile_1d``       512         64x64 block tile, BK=8; each thread 8 results (a column)
``blocktile_2d``       256         128x128 block tile, each thread an 8x8 register tile
``vectorized``         256         as 2D, with float4 global loads and A transposed in
                                   shared memory so its reads are float4 too
``warptile``           128         128x128 block tile, BK=16; each warp a 64x64 tile as
                                   four 64x16 sub-tiles, 8x4 per sub-tile per thread
=====================  ==========  ======================================================

>>> [k.name for k in SGEMM_KERNELS]  # doctest: +NORMALIZE_WHITESPACE
['naive', 'coalesced', 'shared', 'blocktile_1d', 'blocktile_2d', 'vectorized',
 'warptile']
>>> MEASURED_GFLOPS["naive"], MEASURED_GFLOPS["cublas"]
(309.0, 23249.6)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tinycomp.frontend.simt import kernel
from tinycomp.frontend.simt import markers as gpu

__all__ = ["MEASURED_GFLOPS", "SGEMM_KERNELS", "SgemmKernel", "sgemm_kernel"]

MEASURED_GFLOPS = {
    "naive": 309.0,
    "coalesced": 1986.5,
    "shared": 2980.3,
    "blocktile_1d": 8474.7,
    "blocktile_2d": 15971.7,
    "vectorized": 18237.3,
    "autotuned": 19721.0,
    "warptile": 21779.3,
    "cublas": 23249.6,
}
"""GFLOP/s on an RTX A6000 at M = N = K = 4096 (Boehm 2022), the worklog's own table."""


# -- 1: naive -----------------------------------------------------------------------------
@kernel
def naive(A, B, C, M, N, K, alpha, beta):
    x = gpu.block_idx.x * 32 + gpu.thread_idx.x
    y = gpu.block_idx.y * 32 + gpu.thread_idx.y
    if x < M and y < N:
        acc = 0.0
        for i in range(K):
            acc += A[x, i] * B[i, y]
        C[x, y] = alpha * acc + beta * C[x, y]


# -- 2: coalesced -------------------------------------------------------------------------
@kernel
def coalesced(A, B, C, M, N, K, alpha, beta):
    x = gpu.block_idx.x * 32 + gpu.thread_idx.x // 32
    y = gpu.block_idx.y * 32 + gpu.thread_idx.x % 32
    if x < M and y < N:
        acc = 0.0
        for i in range(K):
            acc += A[x, i] * B[i, y]
        C[x, y] = alpha * acc + beta * C[x, y]


# -- 3: shared-memory cache blocking ------------------------------------------------------
@kernel
def shared(A, B, C, M, N, K, alpha, beta):
    row = gpu.thread_idx.x // 32
    col = gpu.thread_idx.x % 32
    c_row = gpu.block_idx.x * 32
    c_col = gpu.block_idx.y * 32
    As = gpu.shared.array((32, 32), gpu.float32)
    Bs = gpu.shared.array((32, 32), gpu.float32)
    acc = 0.0
    for tile in range(0, K, 32):
        As[row, col] = A[c_row + row, tile + col]
        Bs[row, col] = B[tile + row, c_col + col]
        gpu.syncthreads()
        for k in range(32):
            acc += As[row, k] * Bs[k, col]
        gpu.syncthreads()
    C[c_row + row, c_col + col] = alpha * acc + beta * C[c_row + row, c_col + col]


# -- 4: 1D block tiling (BM = BN = 64, BK = 8, TM = 8) -------------------------------------
@kernel
def blocktile_1d(A, B, C, M, N, K, alpha, beta):
    c_row = gpu.block_idx.y * 64
    c_col = gpu.block_idx.x * 64
    thread_col = gpu.thread_idx.x % 64
    thread_row = gpu.thread_idx.x // 64
    As = gpu.shared.array((64, 8), gpu.float32)
    Bs = gpu.shared.array((8, 64), gpu.float32)
    inner_row_a = gpu.thread_idx.x // 8
    inner_col_a = gpu.thread_idx.x % 8
    inner_row_b = gpu.thread_idx.x // 64
    inner_col_b = gpu.thread_idx.x % 64
    results = gpu.local.array((8,), gpu.float32)
    for i in range(8):
        results[i] = 0.0
    for tile in range(0, K, 8):
        As[inner_row_a, inner_col_a] = A[c_row + inner_row_a, tile + inner_col_a]
        Bs[inner_row_b, inner_col_b] = B[tile + inner_row_b, c_col + inner_col_b]
        gpu.syncthreads()
        for k in range(8):
            b = Bs[k, thread_col]
            for r in range(8):
                results[r] += As[thread_row * 8 + r, k] * b
        gpu.syncthreads()
    for r in range(8):
        row = c_row + thread_row * 8 + r
        C[row, c_col + thread_col] = alpha * results[r] + beta * C[row, c_col + thread_col]


# -- 5: 2D block tiling (BM = BN = 128, BK = 8, TM = TN = 8) -------------------------------
@kernel
def blocktile_2d(A, B, C, M, N, K, alpha, beta):
    c_row = gpu.block_idx.y * 128
    c_col = gpu.block_idx.x * 128
    thread_col = gpu.thread_idx.x % 16
    thread_row = gpu.thread_idx.x // 16
    As = gpu.shared.array((128, 8), gpu.float32)
    Bs = gpu.shared.array((8, 128), gpu.float32)
    inner_row_a = gpu.thread_idx.x // 8
    inner_col_a = gpu.thread_idx.x % 8
    inner_row_b = gpu.thread_idx.x // 128
    inner_col_b = gpu.thread_idx.x % 128
    results = gpu.local.array((64,), gpu.float32)
    reg_m = gpu.local.array((8,), gpu.float32)
    reg_n = gpu.local.array((8,), gpu.float32)
    for i in range(64):
        results[i] = 0.0
    for tile in range(0, K, 8):
        for offset in range(0, 128, 32):
            As[inner_row_a + offset, inner_col_a] = A[
                c_row + inner_row_a + offset, tile + inner_col_a
            ]
        for offset in range(0, 8, 2):
            Bs[inner_row_b + offset, inner_col_b] = B[
                tile + inner_row_b + offset, c_col + inner_col_b
            ]
        gpu.syncthreads()
        for k in range(8):
            for i in range(8):
                reg_m[i] = As[thread_row * 8 + i, k]
            # eight adjacent loads from a 32 B-aligned address: ptxas merges them into two
            # 128-bit loads (LDS.128), so they are written as the vector loads that run
            for half in range(2):
                n0, n1, n2, n3 = gpu.vload(Bs, (k, thread_col * 8 + half * 4), 4)
                reg_n[half * 4 + 0] = n0
                reg_n[half * 4 + 1] = n1
                reg_n[half * 4 + 2] = n2
                reg_n[half * 4 + 3] = n3
            for m in range(8):
                for n in range(8):
                    results[m * 8 + n] += reg_m[m] * reg_n[n]
        gpu.syncthreads()
    for m in range(8):
        for n in range(8):
            row = c_row + thread_row * 8 + m
            col = c_col + thread_col * 8 + n
            C[row, col] = alpha * results[m * 8 + n] + beta * C[row, col]


# -- 6: vectorized (float4 loads; A transposed in shared memory) --------------------------
@kernel
def vectorized(A, B, C, M, N, K, alpha, beta):
    c_row = gpu.block_idx.y * 128
    c_col = gpu.block_idx.x * 128
    thread_col = gpu.thread_idx.x % 16
    thread_row = gpu.thread_idx.x // 16
    As = gpu.shared.array((8, 128), gpu.float32)  # transposed: As[k, m]
    Bs = gpu.shared.array((8, 128), gpu.float32)
    inner_row_a = gpu.thread_idx.x // 2
    inner_col_a = gpu.thread_idx.x % 2
    inner_row_b = gpu.thread_idx.x // 32
    inner_col_b = gpu.thread_idx.x % 32
    results = gpu.local.array((64,), gpu.float32)
    reg_m = gpu.local.array((8,), gpu.float32)
    reg_n = gpu.local.array((8,), gpu.float32)
    for i in range(64):
        results[i] = 0.0
    for tile in range(0, K, 8):
        a0, a1, a2, a3 = gpu.vload(A, (c_row + inner_row_a, tile + inner_col_a * 4), 4)
        As[inner_col_a * 4 + 0, inner_row_a] = a0
        As[inner_col_a * 4 + 1, inner_row_a] = a1
        As[inner_col_a * 4 + 2, inner_row_a] = a2
        As[inner_col_a * 4 + 3, inner_row_a] = a3
        b = gpu.vload(B, (tile + inner_row_b, c_col + inner_col_b * 4), 4)
        gpu.vstore(Bs, (inner_row_b, inner_col_b * 4), b)
        gpu.syncthreads()
        for k in range(8):
            for half in range(2):
                m0, m1, m2, m3 = gpu.vload(As, (k, thread_row * 8 + half * 4), 4)
                reg_m[half * 4 + 0] = m0
                reg_m[half * 4 + 1] = m1
                reg_m[half * 4 + 2] = m2
                reg_m[half * 4 + 3] = m3
                n0, n1, n2, n3 = gpu.vload(Bs, (k, thread_col * 8 + half * 4), 4)
                reg_n[half * 4 + 0] = n0
                reg_n[half * 4 + 1] = n1
                reg_n[half * 4 + 2] = n2
                reg_n[half * 4 + 3] = n3
            for m in range(8):
                for n in range(8):
                    results[m * 8 + n] += reg_m[m] * reg_n[n]
        gpu.syncthreads()
    for m in range(8):
        for n in range(0, 8, 4):
            row = c_row + thread_row * 8 + m
            col = c_col + thread_col * 8 + n
            c0, c1, c2, c3 = gpu.vload(C, (row, col), 4)
            i = m * 8 + n
            gpu.vstore(
                C,
                (row, col),
                (
                    alpha * results[i] + beta * c0,
                    alpha * results[i + 1] + beta * c1,
                    alpha * results[i + 2] + beta * c2,
                    alpha * results[i + 3] + beta * c3,
                ),
            )


# -- 10: warp tiling (the worklog's A6000 settings: BM = BN = 128, BK = 16, WM = WN = 64,
#    WNITER = 4, WMITER = 1, TM = 8, TN = 4, 128 threads) ---------------------------------
@kernel
def warptile(A, B, C, M, N, K, alpha, beta):
    c_row = gpu.block_idx.y * 128
    c_col = gpu.block_idx.x * 128
    warp = gpu.thread_idx.x // 32
    warp_col = warp % 2  # each warp owns a 64 x 64 tile of C ...
    warp_row = warp // 2
    lane = gpu.thread_idx.x % 32
    thread_col = lane % 4  # ... done as 4 sub-tiles of 64 x 16, 8 x 4 per thread
    thread_row = lane // 4
    As = gpu.shared.array((16, 128), gpu.float32)  # transposed: As[k, m]
    Bs = gpu.shared.array((16, 128), gpu.float32)
    inner_row_a = gpu.thread_idx.x // 4
    inner_col_a = gpu.thread_idx.x % 4
    inner_row_b = gpu.thread_idx.x // 32
    inner_col_b = gpu.thread_idx.x % 32
    results = gpu.local.array((128,), gpu.float32)  # 8 rows x (4 sub-tiles x 4 columns)
    reg_m = gpu.local.array((8,), gpu.float32)
    reg_n = gpu.local.array((16,), gpu.float32)
    for m in range(8):
        for n in range(16):
            results[m * 16 + n] = 0.0
    for tile in range(0, K, 16):
        for offset in range(0, 128, 32):
            a0, a1, a2, a3 = gpu.vload(A, (c_row + inner_row_a + offset, tile + inner_col_a * 4), 4)
            As[inner_col_a * 4 + 0, inner_row_a + offset] = a0
            As[inner_col_a * 4 + 1, inner_row_a + offset] = a1
            As[inner_col_a * 4 + 2, inner_row_a + offset] = a2
            As[inner_col_a * 4 + 3, inner_row_a + offset] = a3
        for offset in range(0, 16, 4):
            b = gpu.vload(B, (tile + inner_row_b + offset, c_col + inner_col_b * 4), 4)
            gpu.vstore(Bs, (inner_row_b + offset, inner_col_b * 4), b)
        gpu.syncthreads()
        for k in range(16):
            for half in range(2):
                m0, m1, m2, m3 = gpu.vload(As, (k, warp_row * 64 + thread_row * 8 + half * 4), 4)
                reg_m[half * 4 + 0] = m0
                reg_m[half * 4 + 1] = m1
                reg_m[half * 4 + 2] = m2
                reg_m[half * 4 + 3] = m3
            for sub in range(4):
                n0, n1, n2, n3 = gpu.vload(Bs, (k, warp_col * 64 + sub * 16 + thread_col * 4), 4)
                reg_n[sub * 4 + 0] = n0
                reg_n[sub * 4 + 1] = n1
                reg_n[sub * 4 + 2] = n2
                reg_n[sub * 4 + 3] = n3
            for m in range(8):
                for n in range(16):
                    results[m * 16 + n] += reg_m[m] * reg_n[n]
        gpu.syncthreads()
    for sub in range(4):
        for m in range(8):
            row = c_row + warp_row * 64 + thread_row * 8 + m
            col = c_col + warp_col * 64 + sub * 16 + thread_col * 4
            c0, c1, c2, c3 = gpu.vload(C, (row, col), 4)
            i = m * 16 + sub * 4
            gpu.vstore(
                C,
                (row, col),
                (
                    alpha * results[i] + beta * c0,
                    alpha * results[i + 1] + beta * c1,
                    alpha * results[i + 2] + beta * c2,
                    alpha * results[i + 3] + beta * c3,
                ),
            )


@dataclass(frozen=True)
class SgemmKernel:
    """One step of the worklog: the kernel and how it is launched for an M x N x K GEMM."""

    name: str
    kernel: object
    block: tuple[int, int, int]
    grid: Callable[[int, int, int], tuple[int, int, int]]
    """The grid for (M, N, K)."""
    multiple_of: int
    """M, N and K must be multiples of this (the kernels do not guard the edges)."""


SGEMM_KERNELS = (
    SgemmKernel("naive", naive, (32, 32, 1), lambda m, n, k: (m // 32, n // 32, 1), 32),
    SgemmKernel("coalesced", coalesced, (1024, 1, 1), lambda m, n, k: (m // 32, n // 32, 1), 32),
    SgemmKernel("shared", shared, (1024, 1, 1), lambda m, n, k: (m // 32, n // 32, 1), 32),
    SgemmKernel(
        "blocktile_1d", blocktile_1d, (512, 1, 1), lambda m, n, k: (n // 64, m // 64, 1), 64
    ),
    SgemmKernel(
        "blocktile_2d", blocktile_2d, (256, 1, 1), lambda m, n, k: (n // 128, m // 128, 1), 128
    ),
    SgemmKernel(
        "vectorized", vectorized, (256, 1, 1), lambda m, n, k: (n // 128, m // 128, 1), 128
    ),
    SgemmKernel("warptile", warptile, (128, 1, 1), lambda m, n, k: (n // 128, m // 128, 1), 128),
)
"""The worklog's kernels in order, with their launch shapes."""


def sgemm_kernel(name: str) -> SgemmKernel:
    """One kernel of the worklog by name.

    >>> sgemm_kernel("shared").block
    (1024, 1, 1)
    """
    for entry in SGEMM_KERNELS:
        if entry.name == name:
            return entry
    names = ", ".join(k.name for k in SGEMM_KERNELS)
    raise KeyError(f"no SGEMM kernel named {name!r}; the kernels are {names}")
