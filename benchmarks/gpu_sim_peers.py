"""The peers of ``gpu_sim.py``: the same five kernels on numba's CUDA simulator and on
Triton's interpreter, one peer per process.

``gpu_sim.py`` runs this file in a subprocess with the peer's environment variable set
(``NUMBA_ENABLE_CUDASIM=1`` or ``TRITON_INTERPRET=1``, before either library is
imported), so nothing leaks into the tinycomp half. Each kernel does the work of its
tinycomp twin: numba's are the same CUDA-style kernels (thread ids, shared arrays,
``syncthreads``, ``shfl_down_sync``, atomics); Triton's are block programs computing the
same thing (a program per block of elements or per 16x16 tile of the output). numba's
simulator has no warp shuffles, so its reduction does the same warp tree through shared
memory. Every
result is checked against numpy before it is timed. One JSON line per kernel goes to
stdout: ``{"kernel": ..., "ms": [...]}``, or ``{"kernel": ..., "error": ...}``.

Usage (what ``gpu_sim.py`` runs)::

    NUMBA_ENABLE_CUDASIM=1 python benchmarks/gpu_sim_peers.py numba --repeats 3
    TRITON_INTERPRET=1 python benchmarks/gpu_sim_peers.py triton --kernels vector_add
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

import numpy as np

KERNELS = ("vector_add", "matmul_naive", "matmul_tiled", "reduce_shuffle", "transpose")
ENVIRONMENT = {"numba": "NUMBA_ENABLE_CUDASIM", "triton": "TRITON_INTERPRET"}


def problems(quick: bool) -> dict[str, dict[str, int]]:
    """The problem sizes (``--quick``: small ones for a smoke run).

    >>> problems(True)["matmul_naive"]
    {'n': 16}
    """
    if quick:
        return {"vector_add": {"n": 1 << 10}, "matmul_naive": {"n": 16},
                "matmul_tiled": {"n": 32}, "reduce_shuffle": {"n": 1 << 12},
                "transpose": {"n": 64}}  # fmt: skip
    return {"vector_add": {"n": 1 << 16}, "matmul_naive": {"n": 64},
            "matmul_tiled": {"n": 64}, "reduce_shuffle": {"n": 1 << 20},
            "transpose": {"n": 1024}}  # fmt: skip


def inputs(kernel: str, n: int) -> tuple[list[np.ndarray], Callable[[list[np.ndarray]], bool]]:
    """Random inputs (and zeroed outputs) for ``kernel``, and a check against numpy."""
    rng = np.random.default_rng(0)
    if kernel == "vector_add":
        a, b = rng.standard_normal((2, n)).astype(np.float32)
        return [a, b, np.zeros(n, np.float32)], lambda x: np.array_equal(x[2], a + b)
    if kernel.startswith("matmul"):
        a, b = rng.standard_normal((2, n, n)).astype(np.float32)
        ok = lambda x: np.allclose(x[2], a @ b, rtol=1e-4, atol=1e-4)  # noqa: E731
        return [a, b, np.zeros((n, n), np.float32)], ok
    if kernel == "reduce_shuffle":
        x = rng.standard_normal(n).astype(np.float32)
        total = float(x.astype(np.float64).sum())
        return [x, np.zeros(1, np.float32)], lambda v: abs(v[1][0] - total) < 1e-3 * n**0.5
    src = rng.standard_normal((n, n)).astype(np.float32)
    return [src, np.zeros((n, n), np.float32)], lambda x: np.array_equal(x[1], src.T)


# -- numba's CUDA simulator ---------------------------------------------------------------
def numba_kernels() -> dict[str, Callable[[list[np.ndarray]], None]]:
    """Launchers of the CUDA-style kernels (``NUMBA_ENABLE_CUDASIM=1`` must be set).

    ``cuda`` is made a module global: the simulator swaps the kernels' global ``cuda``
    for its own per-thread one."""
    global cuda, float32
    try:
        from numba import cuda, float32
    except ImportError as error:  # the benchmark checks for the peer before it runs it
        raise SystemExit(f"numba is not installed: {error}") from None

    @cuda.jit
    def vector_add(a, b, c):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i < c.size:
            c[i] = a[i] + b[i]

    @cuda.jit
    def matmul_naive(A, B, C):
        i = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        j = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i < C.shape[0] and j < C.shape[1]:
            acc = float32(0.0)
            for k in range(A.shape[1]):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc

    @cuda.jit
    def matmul_tiled(A, B, C):
        a_tile = cuda.shared.array((16, 16), float32)
        b_tile = cuda.shared.array((16, 16), float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * 16 + ty
        col = cuda.blockIdx.x * 16 + tx
        acc = float32(0.0)
        for t in range(0, A.shape[1], 16):
            a_tile[ty, tx] = A[row, t + tx]
            b_tile[ty, tx] = B[t + ty, col]
            cuda.syncthreads()
            for k in range(16):
                acc += a_tile[ty, k] * b_tile[k, tx]
            cuda.syncthreads()
        C[row, col] = acc

    @cuda.jit
    def reduce_shuffle(x, out):
        # numba's simulator has no shfl_down_sync: the same warp tree, through shared memory
        values = cuda.shared.array(256, float32)
        tid = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + tid
        values[tid] = x[i] if i < x.size else float32(0.0)
        cuda.syncthreads()
        offset = 16
        while offset > 0:
            lane = tid % 32
            add = values[tid + offset] if lane + offset < 32 else float32(0.0)
            cuda.syncthreads()
            values[tid] += add
            cuda.syncthreads()
            offset //= 2
        if tid % 32 == 0:
            cuda.atomic.add(out, 0, values[tid])

    @cuda.jit
    def transpose(src, dst):
        tile = cuda.shared.array((32, 33), float32)
        x = cuda.blockIdx.x * 32 + cuda.threadIdx.x
        y = cuda.blockIdx.y * 32 + cuda.threadIdx.y
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = src[y, x]
        cuda.syncthreads()
        tx = cuda.blockIdx.y * 32 + cuda.threadIdx.x
        ty = cuda.blockIdx.x * 32 + cuda.threadIdx.y
        dst[ty, tx] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

    def grid2(n: int, t: int) -> tuple[tuple[int, int], tuple[int, int]]:
        return ((n + t - 1) // t, (n + t - 1) // t), (t, t)

    return {
        "vector_add": lambda x: vector_add[(x[0].size + 255) // 256, 256](*x),
        "matmul_naive": lambda x: matmul_naive[grid2(len(x[0]), 16)](*x),
        "matmul_tiled": lambda x: matmul_tiled[grid2(len(x[0]), 16)](*x),
        "reduce_shuffle": lambda x: reduce_shuffle[(x[0].size + 255) // 256, 256](*x),
        "transpose": lambda x: transpose[grid2(len(x[0]), 32)](*x),
    }


# -- Triton's interpreter -----------------------------------------------------------------
def triton_kernels() -> dict[str, Callable[[list[np.ndarray]], None]]:
    """Launchers of the block programs on CPU torch tensors (``TRITON_INTERPRET=1``)."""
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as error:  # the benchmark checks for the peer before it runs it
        raise SystemExit(f"triton (with torch) is not installed: {error}") from None

    @triton.jit
    def vector_add(a, b, c, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        ok = offs < n
        tl.store(c + offs, tl.load(a + offs, mask=ok) + tl.load(b + offs, mask=ok), mask=ok)

    @triton.jit
    def matmul_naive(A, B, C, n, T: tl.constexpr):
        rows = tl.program_id(1) * T + tl.arange(0, T)
        cols = tl.program_id(0) * T + tl.arange(0, T)
        acc = tl.zeros((T, T), tl.float32)
        for k in range(0, n):  # one k at a time, as each naive thread does
            a = tl.load(A + rows * n + k)
            b = tl.load(B + k * n + cols)
            acc += a[:, None] * b[None, :]
        tl.store(C + rows[:, None] * n + cols[None, :], acc)

    @triton.jit
    def matmul_tiled(A, B, C, n, T: tl.constexpr):
        rows = tl.program_id(1) * T + tl.arange(0, T)
        cols = tl.program_id(0) * T + tl.arange(0, T)
        ks = tl.arange(0, T)
        acc = tl.zeros((T, T), tl.float32)
        for t in range(0, n, T):  # a 16x16 tile of A and of B per step, as in shared memory
            a = tl.load(A + rows[:, None] * n + (t + ks)[None, :])
            b = tl.load(B + (t + ks)[:, None] * n + cols[None, :])
            acc += tl.dot(a, b, input_precision="ieee")
        tl.store(C + rows[:, None] * n + cols[None, :], acc)

    @triton.jit
    def reduce_shuffle(x, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.atomic_add(out, tl.sum(tl.load(x + offs, mask=offs < n, other=0.0), axis=0))

    @triton.jit
    def transpose(src, dst, n, T: tl.constexpr):
        rows = tl.program_id(1) * T + tl.arange(0, T)
        cols = tl.program_id(0) * T + tl.arange(0, T)
        tile = tl.load(src + rows[:, None] * n + cols[None, :])
        tl.store(dst + cols[None, :] * n + rows[:, None], tile)  # dst[col, row]

    def run(kernel: Callable, grid: tuple[int, ...], arrays: list[np.ndarray], *extra) -> None:
        tensors = [torch.from_numpy(a) for a in arrays]  # views: results land in the arrays
        kernel[grid](*tensors, *extra)

    def tiles(x: list[np.ndarray], t: int) -> tuple[int, int]:
        return (len(x[0]) // t, len(x[0]) // t)

    return {
        "vector_add": lambda x: run(vector_add, ((x[0].size + 1023) // 1024,), x, x[0].size, 1024),
        "matmul_naive": lambda x: run(matmul_naive, tiles(x, 16), x, len(x[0]), 16),
        "matmul_tiled": lambda x: run(matmul_tiled, tiles(x, 16), x, len(x[0]), 16),
        "reduce_shuffle": lambda x: run(
            reduce_shuffle, ((x[0].size + 255) // 256,), x, x[0].size, 256
        ),
        "transpose": lambda x: run(transpose, tiles(x, 32), x, len(x[0]), 32),
    }


def measure(peer: str, kernel: str, n: int, repeats: int) -> dict[str, object]:
    """Check one peer kernel against numpy, then time ``repeats`` runs (in ms)."""
    launch = (numba_kernels if peer == "numba" else triton_kernels)()[kernel]
    arrays, check = inputs(kernel, n)
    launch(arrays)
    if not check(arrays):
        return {"kernel": kernel, "error": "result differs from numpy"}
    times = []
    for _ in range(repeats):
        arrays, _ = inputs(kernel, n)
        start = time.perf_counter()
        launch(arrays)
        times.append((time.perf_counter() - start) * 1e3)
    return {"kernel": kernel, "ms": [round(t, 3) for t in times]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("peer", choices=sorted(ENVIRONMENT))
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = problems(args.quick)
    for kernel in args.kernels:
        try:
            record = measure(args.peer, kernel, sizes[kernel]["n"], args.repeats)
        except Exception as error:  # a peer that cannot run a kernel is reported, not fatal
            record = {"kernel": kernel, "error": f"{type(error).__name__}: {error}"[:300]}
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    sys.exit(main())
