"""Graded tests for chapter 09 (`ch09_simt_gpu.py`): SIMT kernels held to counter budgets.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
Every kernel is launched through `tinycomp.gpu.launch` (the DSL, the simulator with its
sanitizer on, the counters) on random inputs and compared with numpy; a wrong element is
answered with the block, warp and lane that stored it (found by tracing the warps of the
block that owns it) and the source line. Then the counters meet the task's budget, per
block: barriers, bank conflicts, global sectors, shuffles, atomics. Time is never graded.

* Task 09.1: one sum per 256-thread block; at most 2 barriers, no bank conflicts (the
  tree of log2(256) steps with a barrier each runs 9).
* Task 09.2: the transpose; global sectors within 10% of the ideal, no bank conflicts.
* Task 09.3: the per-warp inclusive scan; no shared memory, 5 shuffles per warp, one
  global load and one global store request per warp.
* Task 09.4: the histogram; `BINS / 32` global atomic requests per block, no plain store
  to the bins, no more atomic conflicts than the values force.
* Task 09.5: the stencil's race fixed; no sanitizer report, the tile kept (10 global load
  requests per tile), at most 2 barriers per tile.
* Task 09.6: the smallest block of full occupancy, against the occupancy calculator (blocked
  while the student's code runs) on random kernels, and on a real launch on `a6000`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from tinycomp.frontend import simt as gpu
from tinycomp.gpu.launch import LaunchResult
from tinycomp.grading.checks import (
    GradingFailure,
    expect_array_close,
    expect_equal,
    expect_instance,
)
from tinycomp.grading.gpu_checks import (
    expect_kernel,
    expect_no_bank_conflicts,
    expect_per_block_at_most,
    launch_kernel,
    who_wrote,
)
from tinycomp.grading.library_calls import library_answers_blocked
from tinycomp.targets.gpu_sim.occupancy import OccupancyError, occupancy
from tinycomp.targets.gpu_sim.preset import PRESETS, lookup_preset

task09_1 = pytest.mark.task09_1
task09_2 = pytest.mark.task09_2
task09_3 = pytest.mark.task09_3
task09_4 = pytest.mark.task09_4
task09_5 = pytest.mark.task09_5
task09_6 = pytest.mark.task09_6

BLOCK = 256
WARPS = BLOCK // 32

ANSWERS = {
    "09.6": {
        "tinycomp.targets.gpu_sim.occupancy:occupancy": "the library's occupancy calculator",
    },
}
"""The library functions that compute a task's answer, blocked while the student's code
runs. The kernels of tasks 1-5 must be defined in the student's file (`own_kernel`)."""


def own_kernel(impl, factory: str):
    """Call ``impl.<factory>()`` and check it returned a ``@gpu.kernel`` of the student's
    own file (not one imported from elsewhere)."""
    what = f"{factory}()"
    kernel = expect_kernel(what, getattr(impl, factory)())
    file = Path(kernel.source[0]).resolve()
    if file != Path(impl.__file__).resolve():
        raise GradingFailure(
            f"{what}: the kernel it returns is defined in {file.name}, not in your file; "
            "write the kernel yourself"
        )
    return kernel


def garbage(shape, rng: np.random.Generator, dtype=np.float32) -> np.ndarray:
    """An output array full of values a kernel must overwrite."""
    return rng.uniform(-1e3, 1e3, shape).astype(dtype)


def expect_output(
    what: str,
    found: np.ndarray,
    expected: np.ndarray,
    writer: Callable[[int], str] | None,
    *,
    rtol: float = 1e-5,
    atol: float = 0.0,
) -> None:
    """``expect_array_close``, and on a mismatch the thread that stored the first wrong
    element (``writer(flat_index)``)."""
    try:
        expect_array_close(what, found, expected, rtol=rtol, atol=atol)
    except GradingFailure as failure:
        if writer is None or found.shape != expected.shape:
            raise
        close = np.isclose(
            found.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol
        )
        first = int(np.flatnonzero(~close.reshape(-1))[0])
        raise GradingFailure(f"{failure}; that element was {writer(first)}") from None


def writer_of(kernel, grid, block, make_args, array: str, owner: Callable[[int], list[int]]):
    """``writer(flat_index)`` for ``expect_output``: traces the blocks ``owner`` names."""

    def writer(flat_index: int) -> str:
        return who_wrote(kernel, grid, block, make_args, array, flat_index, owner(flat_index))

    return writer


def dims(value: int | Sequence[int]) -> tuple[int, int, int]:
    """A launch dimension as ``(x, y, z)``."""
    values = (value,) if isinstance(value, int) else tuple(value)
    return tuple([*values, 1, 1][:3])  # type: ignore[return-value]


# -- Task 09.1 ---------------------------------------------------------------------------
def sum_args(n: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    return x, garbage(math.ceil(n / BLOCK), rng), np.int32(n)


def run_block_sum(impl, n: int, seed: int) -> tuple[LaunchResult, tuple]:
    kernel = own_kernel(impl, "block_sum_kernel")
    args = sum_args(n, seed)
    grid = math.ceil(n / BLOCK)
    result = launch_kernel(f"block_sum (n={n})", kernel, grid, BLOCK, args)
    x, out, _ = args
    expected = np.array([x[b : b + BLOCK].astype(np.float64).sum() for b in range(0, n, BLOCK)])
    writer = writer_of(
        kernel, dims(grid), dims(BLOCK), lambda: sum_args(n, seed), "out", lambda i: [i]
    )
    expect_output(
        f"block_sum (n={n}): out", out, expected.astype(np.float32), writer, rtol=1e-4, atol=1e-4
    )
    return result, args


@task09_1
@pytest.mark.parametrize("n", [1000, 3 * BLOCK, 77])
def test_block_sum_matches_numpy(impl, n):
    run_block_sum(impl, n, seed=n)


@task09_1
def test_block_sum_budget(impl):
    result, _ = run_block_sum(impl, 1000, seed=1)
    what = "block_sum (n=1000)"
    expect_per_block_at_most(what, result.counters, result.grid, "barriers", 2, "barriers")
    expect_no_bank_conflicts(what, result.counters, result.grid)


# -- Task 09.2 ---------------------------------------------------------------------------
TRANSPOSE_TILE = 32
TRANSPOSE_BLOCK = (32, 8, 1)


def transpose_args(m: int, n: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, n)).astype(np.float32), garbage((n, m), rng)


def run_transpose(impl, m: int, n: int) -> LaunchResult:
    kernel = own_kernel(impl, "transpose_kernel")
    grid = (math.ceil(n / TRANSPOSE_TILE), math.ceil(m / TRANSPOSE_TILE), 1)
    src, dst = transpose_args(m, n, seed=m * n)
    what = f"transpose of a {m}x{n} matrix"
    result = launch_kernel(what, kernel, grid, TRANSPOSE_BLOCK, (src, dst))

    def owner(flat_index: int) -> list[int]:
        j, i = divmod(flat_index, m)  # dst[j, i] = src[i, j]: the tile of block (j/32, i/32)
        return [j // TRANSPOSE_TILE + (i // TRANSPOSE_TILE) * grid[0]]

    writer = writer_of(
        kernel, grid, TRANSPOSE_BLOCK, lambda: transpose_args(m, n, m * n), "dst", owner
    )
    expect_output(f"{what}: dst", dst, src.T, writer)
    return result


@task09_2
@pytest.mark.parametrize("shape", [(96, 72), (37, 50), (8, 200)])
def test_transpose_matches_numpy(impl, shape):
    run_transpose(impl, *shape)


@task09_2
@pytest.mark.parametrize("shape", [(96, 72), (64, 136)])
def test_transpose_budget(impl, shape):
    result = run_transpose(impl, *shape)
    c = result.counters
    what = f"transpose of a {shape[0]}x{shape[1]} matrix"
    loads, stores = c.total("global_load_sectors"), c.total("global_store_sectors")
    ideal_loads = c.total("global_load_sectors_ideal")
    ideal_stores = c.total("global_store_sectors_ideal")
    budget = math.floor(1.1 * (ideal_loads + ideal_stores))
    if loads + stores > budget:
        ratio = (loads + stores) / (ideal_loads + ideal_stores)
        raise GradingFailure(
            f"{what}: the kernel moved {loads + stores} global sectors ({loads} loaded, "
            f"ideal {ideal_loads}; {stores} stored, ideal {ideal_stores}), {ratio:.2f}x the "
            f"ideal; the budget is 1.1x ({budget} sectors): {loads + stores - budget} too many"
        )
    expect_no_bank_conflicts(what, c, result.grid)


# -- Task 09.3 ---------------------------------------------------------------------------
def scan_args(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32), garbage(n, rng), np.int32(n)


def run_scan(impl, n: int) -> LaunchResult:
    kernel = own_kernel(impl, "warp_scan_kernel")
    grid = math.ceil(n / BLOCK)
    x, out, size = scan_args(n, seed=n)
    what = f"warp_scan (n={n})"
    result = launch_kernel(what, kernel, grid, BLOCK, (x, out, size))
    expected = np.concatenate([np.cumsum(x[s : s + 32], dtype=np.float64) for s in range(0, n, 32)])
    writer = writer_of(
        kernel, dims(grid), dims(BLOCK), lambda: scan_args(n, n), "out", lambda i: [i // BLOCK]
    )
    expect_output(f"{what}: out", out, expected.astype(np.float32), writer, rtol=1e-4, atol=1e-4)
    return result


@task09_3
@pytest.mark.parametrize("n", [1000, 37, 2 * BLOCK + 5])
def test_warp_scan_matches_numpy(impl, n):
    run_scan(impl, n)


@task09_3
def test_warp_scan_budget(impl):
    result = run_scan(impl, 1000)
    c, grid, what = result.counters, result.grid, "warp_scan (n=1000)"
    shared = c.total("shared_load_requests") + c.total("shared_store_requests")
    shared += c.total("shared_atomic_requests")
    if shared or result.occupancy.shared_bytes_per_block:
        raise GradingFailure(
            f"{what}: the kernel declares {result.occupancy.shared_bytes_per_block} bytes of "
            f"shared memory and makes {shared} shared requests; the budget is none at all "
            "(the lanes trade values with shuffles)"
        )
    expect_per_block_at_most(what, c, grid, "inst_shuffle", 5 * WARPS, "shuffle instructions")
    loads = "global load requests (one per warp: each warp loads x once)"
    expect_per_block_at_most(what, c, grid, "global_load_requests", WARPS, loads)
    stores = "global store requests (one per warp: each warp stores out once)"
    expect_per_block_at_most(what, c, grid, "global_store_requests", WARPS, stores)
    expect_per_block_at_most(what, c, grid, "global_atomic_requests", 0, "global atomics")


# -- Task 09.4 ---------------------------------------------------------------------------
def histogram_args(n: int, seed: int, skew: bool, bins: int):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, bins, n)
    if skew:
        values[rng.random(n) < 0.7] = 5
    return values.astype(np.int32), np.zeros(bins, np.int32), np.int32(n)


def forced_conflicts(values: np.ndarray, blocks: int) -> np.ndarray:
    """Per block: repeated values within each warp's 32 (what one atomic per value costs)."""
    per_block = np.zeros(blocks, np.int64)
    for start in range(0, len(values), 32):
        warp = values[start : start + 32]
        per_block[start // BLOCK] += len(warp) - len(np.unique(warp))
    return per_block


def run_histogram(impl, n: int, skew: bool) -> tuple[LaunchResult, np.ndarray]:
    kernel = own_kernel(impl, "histogram_kernel")
    bins_count = impl.BINS
    grid = math.ceil(n / BLOCK)
    values, bins, size = histogram_args(n, n, skew, bins_count)
    what = f"histogram of {n} values{' (70% of them 5)' if skew else ''}"
    result = launch_kernel(what, kernel, grid, BLOCK, (values, bins, size))
    expect_array_close(
        f"{what}: bins", bins, np.bincount(values, minlength=bins_count).astype(np.int32)
    )
    return result, values


@task09_4
@pytest.mark.parametrize(("n", "skew"), [(2000, False), (1500, True), (100, False)])
def test_histogram_matches_numpy(impl, n, skew):
    run_histogram(impl, n, skew)


@task09_4
@pytest.mark.parametrize("skew", [False, True])
def test_histogram_budget(impl, skew):
    n = 2000
    result, values = run_histogram(impl, n, skew)
    c, grid = result.counters, result.grid
    what = f"histogram of {n} values{' (70% of them 5)' if skew else ''}"
    plain = "plain global stores (blocks run at the same time: update bins with atomics)"
    expect_per_block_at_most(what, c, grid, "global_store_requests", 0, plain)
    flush = math.ceil(impl.BINS / 32)
    atomics = f"global atomic requests (warp instructions; {impl.BINS} bins take {flush})"
    expect_per_block_at_most(what, c, grid, "global_atomic_requests", flush, atomics)
    forced = forced_conflicts(values, grid[0])
    conflicts = "atomic conflicts (the budget is the values each warp repeats)"
    expect_per_block_at_most(what, c, grid, "atomic_conflicts", forced, conflicts)


# -- Task 09.5 ---------------------------------------------------------------------------
def stencil_args(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32), garbage(n, rng), np.int32(n)


def run_stencil(impl, n: int) -> LaunchResult:
    kernel = own_kernel(impl, "stencil_fixed_kernel")
    per_block = BLOCK * impl.STENCIL_TILES
    grid = math.ceil(n / per_block)
    x, y, size = stencil_args(n, seed=n)
    what = f"stencil_fixed (n={n})"
    result = launch_kernel(what, kernel, grid, BLOCK, (x, y, size))
    padded = np.pad(x.astype(np.float64), 1)
    expected = (padded[:-2] + padded[1:-1] + padded[2:]).astype(np.float32)
    writer = writer_of(
        kernel, dims(grid), dims(BLOCK), lambda: stencil_args(n, n), "y", lambda i: [i // per_block]
    )
    expect_output(f"{what}: y", y, expected, writer, rtol=1e-5, atol=1e-5)
    return result


@task09_5
@pytest.mark.parametrize("n", [3000, 4 * 1024, 200])
def test_stencil_fixed_matches_numpy(impl, n):
    run_stencil(impl, n)


@task09_5
def test_stencil_fixed_budget(impl):
    result = run_stencil(impl, 3000)
    c, grid, tiles = result.counters, result.grid, impl.STENCIL_TILES
    what = "stencil_fixed (n=3000)"
    barriers = f"barriers ({tiles} tiles need 2 each)"
    expect_per_block_at_most(what, c, grid, "barriers", 2 * tiles, barriers)
    loads = f"global load requests ({tiles} tiles: 8 for each tile and 2 for its halo)"
    expect_per_block_at_most(what, c, grid, "global_load_requests", 10 * tiles, loads)


# -- Task 09.6 ---------------------------------------------------------------------------
def calculator_answer(preset: str, registers: int, shared: int) -> int | None:
    """The smallest multiple of 32 threads at 100% occupancy, by the library's calculator."""
    chip = lookup_preset(preset)
    for threads in range(32, chip.max_threads_per_block + 1, 32):
        try:
            found = occupancy(chip, threads, registers, shared)
        except OccupancyError:
            continue
        if found.blocks_per_sm * found.warps_per_block == chip.max_warps_per_sm:
            return threads
    return None


def occupancy_cases() -> list[tuple[str, int, int]]:
    rng = np.random.default_rng(96)
    cases = [("a6000", 32, 0), ("a6000", 64, 8192), ("a100", 40, 20000), ("h100", 128, 0)]
    cases += [("classroom", 24, 4096), ("a6000", 255, 0), ("a100", 32, 200 * 1024)]
    for _ in range(24):
        preset = str(rng.choice(sorted(PRESETS)))
        registers = int(rng.integers(8, 129))
        shared = int(rng.choice([0, 1, 2, 4, 8, 12, 16, 24, 40])) * 1024 + int(rng.integers(0, 64))
        cases.append((preset, registers, shared))
    return cases


@task09_6
def test_full_occupancy_block_size(impl):
    for preset, registers, shared in occupancy_cases():
        what = f"full_occupancy_block_size({preset!r}, {registers}, {shared})"
        with library_answers_blocked(impl, what, ANSWERS["09.6"]):
            found = impl.full_occupancy_block_size(preset, registers, shared)
        expected = calculator_answer(preset, registers, shared)
        if found != expected and isinstance(found, int) and found > 0:
            try:
                table = str(occupancy(lookup_preset(preset), found, registers, shared))
            except OccupancyError as error:
                table = str(error)
            raise GradingFailure(
                f"{what}: expected {expected} threads, found {found}; at {found} threads "
                f"the occupancy calculator says:\n{table}"
            )
        expect_equal(what, found, expected)


STAGE = 1024
"""Elements of the shared staging buffer of ``staged_copy`` (4 KB per block)."""


@gpu.kernel
def staged_copy(x, y, n):
    stage = gpu.shared.array(STAGE, gpu.float32)
    tid = gpu.thread_idx.x
    start = gpu.block_idx.x * gpu.block_dim.x
    for k in range(tid, gpu.block_dim.x, gpu.block_dim.x):
        stage[k % STAGE] = x[start + k] * 2.0 if start + k < n else 0.0
    gpu.syncthreads()
    if start + tid < n:
        y[start + tid] = stage[tid % STAGE]


@task09_6
def test_full_occupancy_on_a_launch(impl):
    n = 5000
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal(n).astype(np.float32), garbage(n, rng)
    probe = launch_kernel("staged_copy", staged_copy, 40, 128, (x, y, np.int32(n)), "a6000")
    registers, shared = probe.registers.registers, probe.occupancy.shared_bytes_per_block
    what = f"full_occupancy_block_size('a6000', {registers}, {shared}) for a kernel of 4 KB shared"
    with library_answers_blocked(impl, what, ANSWERS["09.6"]):
        threads = impl.full_occupancy_block_size("a6000", registers, shared)
    expect_instance(what, threads, int, "a number of threads")
    y = garbage(n, rng)
    run = launch_kernel(
        f"staged_copy with block={threads}",
        staged_copy,
        math.ceil(n / threads),
        threads,
        (x, y, np.int32(n)),
        "a6000",
    )
    expect_array_close(f"staged_copy with block={threads}: y", y, 2 * x)
    if run.occupancy.occupancy != 1.0:
        raise GradingFailure(
            f"{what}: {threads} threads per block reach {run.occupancy.occupancy:.0%} "
            f"occupancy on a6000, not 100%:\n{run.occupancy}"
        )
