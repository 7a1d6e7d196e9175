"""Graded tests for chapter 10 (`ch10_compiling_for_gpu.py`): layouts and warp reductions.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).

* Task 10.1: the student's ``BlockedLayout`` for several tiles (f32 and f16, 1-D and
  2-D, tiles smaller than one layout tile): it covers the tile, each thread's run along
  the contiguous dimension is one 16-byte vector where the tile holds enough elements,
  and every warp access touches the fewest 32-byte sectors (counted from the layout's
  own thread map). The library's ``default_layout`` is blocked while the student's code
  runs.
* Task 10.2: the row softmax launched on the simulator (sanitizer on) on random rows,
  compared with numpy; then the counters: no shared memory, at most 10 shuffles and no
  warp-reduction intrinsics per warp, one global load and one store request per warp.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tinycomp.frontend.tile.layout import BlockedLayout, LayoutError
from tinycomp.grading.checks import GradingFailure, expect_array_close, expect_instance
from tinycomp.grading.gpu_checks import expect_kernel, expect_per_block_at_most, launch_kernel
from tinycomp.grading.library_calls import library_answers_blocked

task10_1 = pytest.mark.task10_1
task10_2 = pytest.mark.task10_2

ANSWERS = {
    "10.1": {"tinycomp.frontend.tile.layout:default_layout": "the library's coalesced layout"},
}
"""The library functions that compute a task's answer, blocked while the student's code
runs."""

SECTOR = 32
VECTOR_BYTES = 16


# -- Task 10.1 ---------------------------------------------------------------------------
def student_layout(impl, shape, element_bytes, warps) -> BlockedLayout:
    what = f"coalesced_layout({shape}, {element_bytes}, {warps})"
    with library_answers_blocked(impl, what, ANSWERS["10.1"]):
        layout = impl.coalesced_layout(shape, element_bytes, warps)
    expect_instance(what, layout, BlockedLayout, "a BlockedLayout")
    if layout.num_warps != warps:
        raise GradingFailure(f"{what}: the layout has {layout.num_warps} warps, expected {warps}")
    if layout.order[0] != len(shape) - 1:
        raise GradingFailure(
            f"{what}: order {list(layout.order)} does not start with the contiguous "
            f"dimension {len(shape) - 1}"
        )
    try:
        layout.check_covers(shape)
    except LayoutError as error:
        raise GradingFailure(f"{what}: the layout does not cover the tile: {error}") from None
    owned = set(layout.thread_map(shape))
    missing = [index for index in np.ndindex(*shape) if tuple(index) not in owned]
    if missing:
        raise GradingFailure(f"{what}: no thread owns element {missing[0]} of the tile")
    return layout


def warp_accesses(layout: BlockedLayout, shape, warp: int, vector: int):
    """Per vector access of ``warp``: each lane's element indices."""
    registers = layout.registers(shape)
    for access in range(registers // vector):
        yield [
            [layout.index_of(warp * 32 + lane, access * vector + j, shape) for j in range(vector)]
            for lane in range(32)
        ]


SHAPES = [
    ((64, 64), 2, 4),
    ((32, 128), 4, 4),
    ((1024,), 4, 4),
    ((8, 256), 2, 8),
    ((16, 16), 4, 4),
    ((128,), 2, 2),
]


@task10_1
@pytest.mark.parametrize(("shape", "element_bytes", "warps"), SHAPES)
def test_coalesced_layout(impl, shape, element_bytes, warps):
    what = f"coalesced_layout({shape}, {element_bytes}, {warps})"
    layout = student_layout(impl, shape, element_bytes, warps)
    per_thread = math.prod(shape) // (32 * warps)
    run = layout.size_per_thread[-1]
    wanted = VECTOR_BYTES // element_bytes
    if per_thread >= wanted and run * element_bytes != VECTOR_BYTES:
        raise GradingFailure(
            f"{what}: each thread holds {run} contiguous elements ({run * element_bytes} "
            f"bytes) along dimension {len(shape) - 1}, so its loads are "
            f"{run * element_bytes * 8}-bit; the tile has {per_thread} elements per thread, "
            f"enough for one 128-bit vector of {wanted}"
        )
    strides = np.cumprod((1, *shape[::-1]))[:-1][::-1]
    for warp in range(warps):
        for lanes in warp_accesses(layout, shape, warp, run):
            offsets = {int(np.dot(i, strides)) * element_bytes for lane in lanes for i in lane}
            touched = {o // SECTOR for o in offsets}
            fewest = math.ceil(len(offsets) * element_bytes / SECTOR)
            if len(touched) > fewest:
                raise GradingFailure(
                    f"{what}: warp {warp}'s access gives lane 5 the elements "
                    f"{[tuple(int(v) for v in i) for i in lanes[5]]}, and the warp touches "
                    f"{len(touched)} sectors where {fewest} suffice (the lanes' vectors are "
                    "not adjacent in memory)"
                )


# -- Task 10.2 ---------------------------------------------------------------------------
def softmax_args(rows: int, seed: int):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, 32)) * 4).astype(np.float32)
    return x, rng.uniform(-1e3, 1e3, (rows, 32)).astype(np.float32), np.int32(rows)


def run_softmax(impl, rows: int):
    what = f"row_softmax ({rows} rows)"
    kernel = expect_kernel("row_softmax_kernel()", impl.row_softmax_kernel())
    if Path(kernel.source[0]).resolve() != Path(impl.__file__).resolve():
        raise GradingFailure(
            "row_softmax_kernel(): the kernel it returns is not defined in your file; "
            "write the kernel yourself"
        )
    x, out, n = softmax_args(rows, seed=rows)
    grid = math.ceil(rows / 8)
    result = launch_kernel(what, kernel, grid, 256, (x, out, n))
    shifted = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    expected = (shifted / shifted.sum(axis=1, keepdims=True)).astype(np.float32)
    expect_array_close(f"{what}: out", out, expected, rtol=1e-4, atol=1e-6)
    return result, what


@task10_2
@pytest.mark.parametrize("rows", [40, 7, 64])
def test_row_softmax_matches_numpy(impl, rows):
    run_softmax(impl, rows)


@task10_2
def test_row_softmax_budget(impl):
    result, what = run_softmax(impl, 40)
    c, grid = result.counters, result.grid
    shared = sum(c.total(f"shared_{kind}_requests") for kind in ("load", "store", "atomic"))
    if shared or result.occupancy.shared_bytes_per_block:
        raise GradingFailure(
            f"{what}: the kernel declares {result.occupancy.shared_bytes_per_block} bytes of "
            f"shared memory and makes {shared} shared requests; the budget is none at all "
            "(a 32-element row is reduced within its warp with shuffles)"
        )
    shuffles = "shuffle instructions (5 for the maximum and 5 for the sum, per warp)"
    expect_per_block_at_most(what, c, grid, "inst_shuffle", 10 * 8, shuffles)
    votes = "warp-reduction or vote instructions (write the butterfly with shfl_xor_sync)"
    expect_per_block_at_most(what, c, grid, "inst_vote", 0, votes)
    loads = "global load requests (one per warp: each warp loads its row once)"
    expect_per_block_at_most(what, c, grid, "global_load_requests", 8, loads)
    stores = "global store requests (one per warp: each warp stores its row once)"
    expect_per_block_at_most(what, c, grid, "global_store_requests", 8, stores)
