"""The SIMT simulator against its peers: numba's CUDA simulator and Triton's interpreter.

Five kernels, each checked against numpy before it is timed, with the sanitizer and
every counter on:

* ``vector_add``: 2^16 f32, blocks of 256;
* ``matmul_naive`` and ``matmul_tiled`` (16x16 shared tiles): 64^3, blocks of 16x16;
* ``reduce_shuffle``: 2^20 f32, a ``shfl_down_sync`` tree per warp and one atomic add;
* ``transpose``: 1024x1024 through a padded 32x33 shared tile, blocks of 32x32.

tinycomp is timed twice: ``simulate`` on the specialised IR (``sim_ms``, the
simulator alone, its compiled program kept as ``launch`` keeps it) and
``tinycomp.gpu.launch`` from the Python kernel (``launch_ms``: argument binding,
simulation, the occupancy and cost models; the cleanup, the compiled program and the
register estimate are made at the first, checked launch and kept). Each peer runs
in a **subprocess** (``gpu_sim_peers.py``) with its environment variable set, under
``--peer-python`` (an interpreter that has numba, numba-cuda, triton and CPU torch: the
``bench`` extra); a peer that is not installed is skipped with a note, and one that
takes longer than ``--timeout`` seconds is stopped and reported as ``> N s``. Times are
medians of ``--repeats`` runs (tinycomp's fastest run is kept too, ``launch_min_ms``: a
millisecond-long run on a shared machine is often delayed); ratios are peer median /
tinycomp median (``launch_ms``), so above 1 tinycomp is faster. The peak Python memory
(``tracemalloc``) of a 2^20-thread vector add is recorded too. The record goes to
``benchmarks/results/gpu_sim_<cpu>.json``.

Usage::

    python benchmarks/gpu_sim.py --peer-python /path/to/bench/venv/bin/python
    python benchmarks/gpu_sim.py --quick --no-peers --no-write     # a smoke run

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

from tinycomp import gpu
from tinycomp.codegen.cpu.target import host_cpu
from tinycomp.targets.gpu_sim.simulator import simulate

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
from gpu_sim_peers import ENVIRONMENT, KERNELS, inputs, problems  # noqa: E402

FULL_MASK = 0xFFFFFFFF
PRESET = "a100"
"""The chip the launches are checked against (1024-thread blocks fit; the counters
do not depend on it)."""


@gpu.kernel
def vector_add(a, b, c):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


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
    a_tile = gpu.shared.array((16, 16), gpu.float32)
    b_tile = gpu.shared.array((16, 16), gpu.float32)
    tx = gpu.thread_idx.x
    ty = gpu.thread_idx.y
    row = gpu.block_idx.y * 16 + ty
    col = gpu.block_idx.x * 16 + tx
    acc = 0.0
    for t in range(0, A.shape[1], 16):
        a_tile[ty, tx] = A[row, t + tx]
        b_tile[ty, tx] = B[t + ty, col]
        gpu.syncthreads()
        for k in range(16):
            acc += a_tile[ty, k] * b_tile[k, tx]
        gpu.syncthreads()
    C[row, col] = acc


@gpu.kernel
def reduce_shuffle(x, out):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    value = x[i] if i < x.shape[0] else 0.0
    offset = 16
    while offset > 0:
        value += gpu.shfl_down_sync(FULL_MASK, value, offset)
        offset = offset // 2
    if gpu.lane_id() == 0:
        gpu.atomic.add(out, 0, value)


@gpu.kernel
def transpose(src, dst):
    tile = gpu.shared.array((32, 33), gpu.float32)
    x = gpu.block_idx.x * 32 + gpu.thread_idx.x
    y = gpu.block_idx.y * 32 + gpu.thread_idx.y
    tile[gpu.thread_idx.y, gpu.thread_idx.x] = src[y, x]
    gpu.syncthreads()
    tx = gpu.block_idx.y * 32 + gpu.thread_idx.x
    ty = gpu.block_idx.x * 32 + gpu.thread_idx.y
    dst[ty, tx] = tile[gpu.thread_idx.x, gpu.thread_idx.y]


TINYCOMP = {
    "vector_add": vector_add, "matmul_naive": matmul_naive, "matmul_tiled": matmul_tiled,
    "reduce_shuffle": reduce_shuffle, "transpose": transpose,
}  # fmt: skip


def launch_shape(kernel: str, n: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """``(grid, block)`` of a kernel for problem size ``n``.

    >>> launch_shape("matmul_tiled", 64)
    ((4, 4), (16, 16))
    """
    if kernel in ("vector_add", "reduce_shuffle"):
        return (-(-n // 256), 1), (256, 1)
    tile = 32 if kernel == "transpose" else 16
    return (-(-n // tile), -(-n // tile)), (tile, tile)


def measure_tinycomp(kernel: str, n: int, repeats: int) -> dict[str, Any]:
    """Check the tinycomp kernel against numpy, then time ``simulate`` and ``launch``."""
    grid, block = launch_shape(kernel, n)
    arrays, check = inputs(kernel, n)
    result = gpu.launch(TINYCOMP[kernel], grid, block, arrays, preset=PRESET)
    if not check(arrays):
        raise AssertionError(f"{kernel}: the simulator's result differs from numpy")
    module = result.module
    sim, full = [], []
    for _ in range(repeats):
        arrays, _ = inputs(kernel, n)
        start = time.perf_counter()
        simulate(module, grid, block, arrays, preset=PRESET, keep_compiled=True)
        sim.append((time.perf_counter() - start) * 1e3)
        arrays, _ = inputs(kernel, n)
        start = time.perf_counter()
        gpu.launch(TINYCOMP[kernel], grid, block, arrays, preset=PRESET)
        full.append((time.perf_counter() - start) * 1e3)
    counters = result.counters
    return {
        "kernel": kernel, "n": n, "grid": list(grid), "block": list(block),
        "checked": True, "sim_ms": round(statistics.median(sim), 3),
        "launch_ms": round(statistics.median(full), 3), "launch_min_ms": round(min(full), 3),
        "counters": {name: counters.total(name) for name in (
            "inst_fp32", "global_load_sectors", "global_load_sectors_ideal",
            "shared_load_wavefronts", "branches", "barriers")},
    }  # fmt: skip


def peak_memory_mib(threads: int) -> float:
    """Peak Python allocations (MiB) of a vector add over ``threads`` threads."""
    arrays, check = inputs("vector_add", threads)
    module = vector_add.specialize(*arrays)
    tracemalloc.start()
    simulate(module, threads // 256, 256, arrays, preset=PRESET)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if not check(arrays):
        raise AssertionError("vector_add: the simulator's result differs from numpy")
    return round(peak / 2**20, 1)


def run_peer(
    peer: str, python: str, kernel: str, quick: bool, repeats: int, timeout: float
) -> dict[str, Any]:
    """One peer kernel in a subprocess with its environment variable set."""
    env = {**os.environ, ENVIRONMENT[peer]: "1"}
    command = [python, str(HERE / "gpu_sim_peers.py"), peer, "--kernels", kernel,
               "--repeats", str(repeats)] + (["--quick"] if quick else [])  # fmt: skip
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return {"kernel": kernel, "timeout_s": timeout, "note": f"> {timeout:g} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"kernel": kernel, "error": tail[:300]}
    record = json.loads(lines[-1])
    if "ms" in record:
        record["median_ms"] = round(statistics.median(record["ms"]), 3)
    return record


def peer_available(peer: str, python: str) -> str | None:
    """``None`` when ``python`` can import the peer, else a note saying what is missing."""
    modules = {"numba": "numba.cuda", "triton": "triton, torch"}[peer]
    try:
        done = subprocess.run([python, "-c", f"import {modules}"], capture_output=True, check=False)
    except OSError:
        return f"{peer} is not installed for {python} (no such interpreter)"
    return None if done.returncode == 0 else f"{peer} is not installed for {python}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="+", default=list(KERNELS))
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--peer-repeats", type=int, default=3)
    parser.add_argument("--peer-python", default=sys.executable)
    parser.add_argument("--peers", nargs="+", default=sorted(ENVIRONMENT))
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true", help="small problems, for a smoke run")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    record = collect(args)
    print(json.dumps(record, indent=2))
    if not args.no_write:
        path = args.output or RESULTS / f"gpu_sim_{record['cpu']}.json"
        path.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {path}", file=sys.stderr)


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """The whole record: tinycomp, then each peer, per kernel, and the peak memory."""
    sizes = problems(args.quick)
    peers = [] if args.no_peers else args.peers
    notes = {peer: peer_available(peer, args.peer_python) for peer in peers}
    results = []
    for kernel in args.kernels:
        row = measure_tinycomp(kernel, sizes[kernel]["n"], args.repeats)
        for peer in peers:
            if notes[peer] is not None:
                row[peer] = {"skipped": notes[peer]}
                continue
            found = run_peer(
                peer, args.peer_python, kernel, args.quick, args.peer_repeats, args.timeout
            )
            if "median_ms" in found:
                found["ratio"] = round(found["median_ms"] / row["launch_ms"], 1)
            elif "timeout_s" in found:
                found["ratio_at_least"] = round(found["timeout_s"] * 1e3 / row["launch_ms"], 1)
            row[peer] = found
        print(json.dumps(row), file=sys.stderr, flush=True)
        results.append(row)
    threads = 1 << 14 if args.quick else 1 << 20
    return {
        "cpu": host_cpu()[0], "preset": PRESET, "numpy": np.__version__, "quick": args.quick,
        "repeats": args.repeats, "peer_repeats": args.peer_repeats,
        "timeout_s": args.timeout, "peer_python": args.peer_python,
        "peers": {peer: notes[peer] or "ran" for peer in peers},
        "results": results,
        "peak_memory": {"kernel": "vector_add", "threads": threads,
                        "tracemalloc_peak_mib": peak_memory_mib(threads)},
    }  # fmt: skip


if __name__ == "__main__":
    main()
