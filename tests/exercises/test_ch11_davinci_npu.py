"""Graded tests for chapter 11 (`ch11_davinci_npu.py`): kernels on the simulated Da Vinci NPU.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
Every launch has the sanitizer on; cycles are the simulator's, never wall time.

* Task 11.1: ``scaled_add`` launched on ``small`` (1, 2 and 4 blocks) and ``910b2`` (8
  blocks) on random f16 inputs, compared with numpy within f16 rounding. Double
  buffering is read from the timeline of a one-block run: while the vector unit computes,
  a copy (MTE2 or MTE3) is in flight (issued, its bytes not yet landed) for at least half
  of its busy cycles. Then the
  cycles on ``small`` with 4 blocks and on ``910b2`` with 8, against fixed budgets (the
  reference's cycles plus 10%, measured as ``BUDGETS`` says); over budget, the feedback
  names the critical pipe, its share, the pipe that waited most and on which flag.
* Task 11.2: ``flagged_copy_scale`` (no ``TQue``: the library's queues are blocked while
  it is traced) on the same presets; the sanitizer's report is the feedback (a hazard
  names both ops, their pipes and the missing set / wait; a deadlock, the stuck waits of
  the first core); a flag set and never waited for by the end fails too. Then the cycle
  budgets, which a ``pipe_barrier("ALL")`` per step, or one event id for both buffers,
  exceeds: the feedback says which pipe waited on what.
* Task 11.3: ``choose_tile`` for f16 and f32, 2 to 4 queues of 1 or 2 buffers, UBs of
  32, 40 and 192 KiB; the tile runs a streaming kernel defined here (``stream_sum``: the
  queues' inputs summed into the last) on a preset with that UB: no sanitizer report
  (an overflowing tile is answered with the UB bill, a misaligned one with its bytes),
  the right sums, and the fewest DMAs (``npu.copy`` spans of the timeline) that any
  valid tile makes, found by brute force.
* Task 11.4: ``a_slice_copy`` and ``b_slice_copy`` (the library's NZ layout functions are
  blocked while they run) drive ``panel_matmul``, a cube matmul through L1 and L0
  defined here, at three shapes, compared with numpy. Each step's copy is also replayed
  on a panel of element ids and compared with ``nz_layout.to_nz`` of the slice it should
  move (a consistent mistake in A and B can leave the product right); a wrong copy is
  answered with the first fractal it puts in the wrong place.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
import pytest

from tinycomp import npu
from tinycomp.grading.checks import GradingFailure, expect_array_close, expect_instance
from tinycomp.grading.formatting import describe_value
from tinycomp.grading.library_calls import library_answers_blocked
from tinycomp.grading.npu_checks import (
    expect_flags_balanced,
    expect_npu_kernel,
    expect_own_kernel,
    format_bytes,
    launch_npu_kernel,
    nz_slice_counter_example,
    sanitizer_feedback,
    ub_bill,
)
from tinycomp.grading.npu_timeline_checks import (
    dma_count,
    expect_cycles_at_most,
    overlap_cycles,
    pipe_waits,
)
from tinycomp.targets.npu_sim.preset import lookup_npu_preset

task11_1 = pytest.mark.task11_1
task11_2 = pytest.mark.task11_2
task11_3 = pytest.mark.task11_3
task11_4 = pytest.mark.task11_4

ANSWERS = {
    "11.2": {
        "tinycomp.frontend.npu.queues:TQue.__init__": (
            "a TQue, whose alloc / enque / deque / free write the flags for you"
        ),
    },
    "11.4": {
        "tinycomp.targets.npu_sim.nz_layout:to_nz": "the library's ND -> NZ conversion",
        "tinycomp.targets.npu_sim.nz_layout:from_nz": "the library's NZ -> ND conversion",
        "tinycomp.targets.npu_sim.nz_layout:nz_shape": "the library's NZ shapes",
    },
}
"""The library functions that compute a task's answer, blocked while the student's code
runs."""

TILE = 2048
"""The tile of tasks 1 and 2 (f16 elements); the graded sizes are multiples of it."""
TILES_PER_BLOCK = 8
"""Tiles each block streams in the budget runs."""

BUDGETS = {
    ("scaled_add", "small", 4): 7816,
    ("scaled_add", "910b2", 8): 3718,
    ("flagged_copy_scale", "small", 4): 7042,
    ("flagged_copy_scale", "910b2", 8): 4872,
}
"""Cycle budgets: the reference's cycles x 1.10, rounded down, for ``TILES_PER_BLOCK``
tiles a block. The reference (``solutions/ch11_davinci_npu.py``) measured 7106 and 3381
(scaled_add), 6402 and 4430 (flagged_copy_scale) cycles; the simulator is deterministic.
Measured with ``.venv/bin/python -m tests.exercises.test_ch11_davinci_npu``, which prints
the reference's cycles for each entry (rerun it if the NPU timing model changes, and update
the numbers in the docstrings of ``scaled_add`` and ``flagged_copy_scale`` in exercises/ and
solutions/ too)."""


def random_f16(size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-4, 4, size).astype(np.float16)


def on_blocks(blocks: int, preset: str) -> str:
    return f"{blocks} block{'s' if blocks > 1 else ''} on {preset}"


def expect_tile(impl) -> None:
    found = getattr(impl, "TILE", None)
    if found != TILE:
        raise GradingFailure(
            f"TILE is {found!r}; the tasks' tile is {TILE} f16 elements (the graded sizes and "
            "the budgets are for it): keep TILE = 2048"
        )


# -- Task 11.1 ---------------------------------------------------------------------------
def run_scaled_add(impl, preset: str, blocks: int, tiles: int, alpha: float, seed: int = 0):
    expect_tile(impl)
    kernel = expect_npu_kernel("scaled_add", impl.scaled_add)
    expect_own_kernel("scaled_add", kernel, impl)
    n = blocks * TILE * tiles
    x, y = random_f16(n, seed), random_f16(n, seed + 1)
    z = np.full(n, np.float16(-7.0))
    what = f"scaled_add ({n} elements, alpha = {alpha}, {on_blocks(blocks, preset)})"
    result = launch_npu_kernel(what, kernel, (x, y, z, alpha), blocks, preset)
    expected = np.float32(alpha) * x.astype(np.float32) + y.astype(np.float32)
    expect_array_close(f"{what}: z", z, expected.astype(np.float16), rtol=1e-2, atol=1e-2)
    return result, what


@task11_1
@pytest.mark.parametrize(
    ("preset", "blocks", "tiles", "alpha"),
    [("small", 4, 2, 1.5), ("small", 2, 3, -0.25), ("small", 1, 1, 2.0), ("910b2", 8, 4, 0.5)],
)
def test_scaled_add_matches_numpy(impl, preset, blocks, tiles, alpha):
    run_scaled_add(impl, preset, blocks, tiles, alpha, seed=blocks * tiles)


@task11_1
def test_scaled_add_double_buffers(impl):
    result, what = run_scaled_add(impl, "small", 1, 6, 1.5)
    core = "AIV 0.0"
    v_busy = result.timeline.busy_cycles(core, "V")
    overlap = overlap_cycles(result.timeline, core, "V", "MTE2", "MTE3", in_flight=True)
    if overlap >= 0.5 * v_busy:
        return
    waits = [w for w in pipe_waits(result, core) if w.pipe in ("V", "MTE2")]
    detail = "; ".join(f"{w.pipe} waited {w.cycles:.0f} cycles on {w.flag}" for w in waits[:2])
    raise GradingFailure(
        f"{what}: copies (MTE2, MTE3) were in flight during only {overlap:.0f} of the vector "
        f"unit's {v_busy:.0f} busy cycles: each pipe waits for the others, tile after tile "
        f"({detail}). Are you double-buffering? With BUFFER_NUM = 2 buffers in every queue, "
        "the next tile is on its way in while V computes this one"
    )


@task11_1
@pytest.mark.parametrize(("preset", "blocks"), [("small", 4), ("910b2", 8)])
def test_scaled_add_budget(impl, preset, blocks):
    result, what = run_scaled_add(impl, preset, blocks, TILES_PER_BLOCK, 1.5)
    expect_cycles_at_most(what, result, BUDGETS[("scaled_add", preset, blocks)])


# -- Task 11.2 ---------------------------------------------------------------------------
def run_flagged(impl, preset: str, blocks: int, pairs: int, scale: float, seed: int = 0):
    expect_tile(impl)
    kernel = expect_npu_kernel("flagged_copy_scale", impl.flagged_copy_scale)
    expect_own_kernel("flagged_copy_scale", kernel, impl)
    n = blocks * 2 * TILE * pairs
    x = random_f16(n, seed)
    y = np.full(n, np.float16(-7.0))
    what = f"flagged_copy_scale ({n} elements, scale = {scale}, {on_blocks(blocks, preset)})"
    with library_answers_blocked(impl, "flagged_copy_scale", ANSWERS["11.2"]):
        result = launch_npu_kernel(what, kernel, (x, y, scale), blocks, preset)
    expect_flags_balanced(what, result)
    expected = (np.float32(scale) * x.astype(np.float32)).astype(np.float16)
    expect_array_close(f"{what}: y", y, expected, rtol=1e-2, atol=1e-2)
    return result, what


@task11_2
@pytest.mark.parametrize(
    ("preset", "blocks", "pairs", "scale"),
    [("small", 1, 1, 0.75), ("small", 4, 3, -2.0), ("910b2", 8, 2, 0.125)],
)
def test_flagged_copy_scale_matches_numpy(impl, preset, blocks, pairs, scale):
    run_flagged(impl, preset, blocks, pairs, scale, seed=blocks + pairs)


@task11_2
@pytest.mark.parametrize(("preset", "blocks"), [("small", 4), ("910b2", 8)])
def test_flagged_copy_scale_budget(impl, preset, blocks):
    result, what = run_flagged(impl, preset, blocks, TILES_PER_BLOCK // 2, 0.75)
    expect_cycles_at_most(what, result, BUDGETS[("flagged_copy_scale", preset, blocks)])


# -- Task 11.3 ---------------------------------------------------------------------------
@npu.kernel
def stream_sum(*args):
    """The last array = the sum of the others, ``tile`` elements at a time: one VECIN
    queue per input and a VECOUT queue, ``buffer_num`` buffers each (one block)."""
    *arrays, tile, buffer_num = args
    *inputs, out = arrays
    dtype = out.dtype
    pipe = npu.TPipe()
    queues = [npu.TQue(npu.VECIN) for _ in inputs]
    result = npu.TQue(npu.VECOUT)
    for queue in (*queues, result):
        pipe.init_buffer(queue, buffer_num, tile * dtype.itemsize)
    for i in npu.range(out.size // tile):
        offset = i * tile
        for queue, source in zip(queues, inputs, strict=True):
            t = queue.alloc_tensor(dtype)
            npu.data_copy(t, source[offset], tile)
            queue.enque(t)
        tiles = [queue.deque() for queue in queues]
        total = result.alloc_tensor(dtype)
        if len(tiles) == 1:
            npu.muls(total, tiles[0], 1.0, tile)
        else:
            npu.add(total, tiles[0], tiles[1], tile)
            for t in tiles[2:]:
                npu.add(total, total, t, tile)
        result.enque(total)
        for queue, t in zip(queues, tiles, strict=True):
            queue.free_tensor(t)
        total = result.deque()
        npu.data_copy(out[offset], total, tile)
        result.free_tensor(total)


def chip_with_ub(name: str, ub_bytes: int | None):
    chip = lookup_npu_preset(name)
    if ub_bytes is None:
        return chip
    buffers = {**chip.buffers, "UB": ub_bytes}
    return chip.with_changes(name=f"{name}-{ub_bytes // 1024}k", buffers=buffers)


def fewest_dmas(n: int, dtype, ub_bytes: int, queues: int, buffer_num: int) -> tuple[int, int]:
    """``(tile, DMAs)`` of the best valid tile, by trying every tile."""
    size = np.dtype(dtype).itemsize
    valid = [
        t for t in range(1, n + 1)
        if (t * size) % 32 == 0 and n % t == 0 and queues * buffer_num * t * size <= ub_bytes
    ]  # fmt: skip
    best = max(valid)
    return best, queues * n // best


TILE_CASES = [
    (24576, np.float32, "small", None, 3, 2),
    (12000, np.float32, "small", None, 3, 2),
    (30720, np.float16, "small", None, 2, 2),
    (6000, np.float16, "small", None, 4, 1),
    (20480, np.float16, "small", 40 * 1024, 3, 2),
    (49152, np.float16, "910b2", None, 3, 2),
    (98304, np.float32, "910b2", None, 2, 1),
]


@task11_3
@pytest.mark.parametrize(
    ("n", "dtype", "preset", "ub", "queues", "buffer_num"),
    TILE_CASES,
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_choose_tile(impl, n, dtype, preset, ub, queues, buffer_num):
    chip = chip_with_ub(preset, ub)
    ub_bytes = chip.buffer_bytes("UB")
    element = np.dtype(dtype)
    what = f"choose_tile({n}, np.{element}, {ub_bytes}, {queues}, {buffer_num})"
    tile = impl.choose_tile(n, dtype, ub_bytes, queues, buffer_num)
    if isinstance(tile, bool) or not isinstance(tile, Integral) or tile <= 0:
        raise GradingFailure(
            f"{what}: expected a positive int (the tile length, in elements), found "
            f"{describe_value(tile)}"
        )
    tile = int(tile)
    context = f"{what} = {tile} (UB {format_bytes(ub_bytes)} of {chip.name})"
    if n % tile:
        raise GradingFailure(
            f"{context}: {tile} does not divide {n}: the last {n % tile} elements would need "
            "a tile of their own (a tail), which the kernel does not have"
        )
    rng = np.random.default_rng(n)
    inputs = [rng.integers(-8, 8, n).astype(element) for _ in range(queues - 1)]
    out = np.full(n, -99, element)
    try:
        result = npu.launch(stream_sum, (*inputs, out, tile, buffer_num), 1, chip)
    except npu.NpuSanitizerError as error:
        raise GradingFailure(tile_feedback(context, error, tile, element, queues, buffer_num,
                                           chip)) from None  # fmt: skip
    expected = np.sum(inputs, axis=0, dtype=element) if inputs else np.zeros(n, element)
    expect_array_close(f"{context}: the sum", out, expected)
    best, fewest = fewest_dmas(n, dtype, ub_bytes, queues, buffer_num)
    made = dma_count(result, "AIV 0.0")
    if made > fewest:
        _, bill = ub_bill(best, element, queues, buffer_num, chip)
        raise GradingFailure(
            f"{context}: the kernel made {made} DMAs ({queues} queues x {n // tile} tiles); "
            f"the fewest is {fewest}, with tile {best} ({bill})"
        )


def tile_feedback(context, error, tile, element, queues, buffer_num, chip) -> str:
    if error.kind == "overflow":
        _, bill = ub_bill(tile, element, queues, buffer_num, chip)
        return f"{context}: the buffers do not fit: {bill}. The sanitizer: {error}"
    if error.kind == "misaligned":
        return (
            f"{context}: {tile} x {element} = {tile * element.itemsize} bytes, not a multiple "
            f"of 32 (a tile of {element} is a multiple of {32 // element.itemsize} elements). "
            f"The sanitizer: {error}"
        )
    return f"{context}: {sanitizer_feedback(error)}"


# -- Task 11.4 ---------------------------------------------------------------------------
def load(dst, panel, move) -> None:
    offset, n_burst, burst_len, src_stride = move
    stride = src_stride if n_burst > 1 else None
    npu.load_data(dst, panel[offset], burst_len, n_burst=n_burst, src_stride=stride)


@npu.kernel(kernel_type="aic")
def panel_matmul(a, b, c, l1_k, l0_k, a_moves, b_moves):
    """``c = a @ b`` (f16 in, f32 out) on one cube core: ``l1_k``-deep panels of A and B
    into L1 in NZ, each moved to L0A / L0B ``l0_k`` deep by the copies ``a_moves[step]`` /
    ``b_moves[step]`` (``(offset, n_burst, burst_len, src_stride)``), ``mmad``
    accumulating in L0C, FixPipe out."""
    (m, k), (_, n) = a.shape, b.shape
    pipe = npu.TPipe()
    a1, b1 = npu.TQue(npu.A1), npu.TQue(npu.B1)
    a2, b2, c1 = npu.TQue(npu.A2), npu.TQue(npu.B2), npu.TQue(npu.CO1)
    pipe.init_buffer(a1, 2, m * l1_k * 2)
    pipe.init_buffer(b1, 2, l1_k * n * 2)
    pipe.init_buffer(a2, 2, m * l0_k * 2)
    pipe.init_buffer(b2, 2, l0_k * n * 2)
    pipe.init_buffer(c1, 1, m * n * 4)
    c_tile = c1.alloc_tensor(np.float32)
    for kk in range(k // l1_k):
        a_panel, b_panel = a1.alloc_tensor(np.float16), b1.alloc_tensor(np.float16)
        npu.data_copy_nd2nz(a_panel, a[kk * l1_k], m, l1_k, k)
        npu.data_copy_nd2nz(b_panel, b[kk * l1_k * n], l1_k, n, n)
        a1.enque(a_panel)
        b1.enque(b_panel)
        a_panel, b_panel = a1.deque(), b1.deque()
        for step, (a_move, b_move) in enumerate(zip(a_moves, b_moves, strict=True)):
            a_slice, b_slice = a2.alloc_tensor(np.float16), b2.alloc_tensor(np.float16)
            load(a_slice, a_panel, a_move)
            load(b_slice, b_panel, b_move)
            a2.enque(a_slice)
            b2.enque(b_slice)
            a_slice, b_slice = a2.deque(), b2.deque()
            first = kk == 0 and step == 0
            npu.mmad(c_tile, a_slice, b_slice, m, l0_k, n, accumulate=not first)
            a2.free_tensor(a_slice)
            b2.free_tensor(b_slice)
        a1.free_tensor(a_panel)
        b1.free_tensor(b_panel)
    c1.enque(c_tile)
    c_tile = c1.deque()
    npu.fixpipe(c, c_tile, m, n, n)
    c1.free_tensor(c_tile)


def student_moves(impl, operand: str, width: int, l1_k: int, l0_k: int) -> list[tuple]:
    """Each step's copy, from ``a_slice_copy`` (``width = m``) or ``b_slice_copy`` (``n``)."""
    name = f"{operand.lower()}_slice_copy"
    function = getattr(impl, name)
    moves = []
    for step in range(l1_k // l0_k):
        what = f"{name}({step}, {width}, {l1_k}, {l0_k})"
        with library_answers_blocked(impl, what, ANSWERS["11.4"]):
            move = function(step, width, l1_k, l0_k)
        noun = "an (offset, n_burst, burst_len, src_stride) tuple of 4 ints"
        expect_instance(what, move, (tuple, list), noun)
        if len(move) != 4 or not all(
            isinstance(v, Integral) and not isinstance(v, bool) for v in move
        ):
            raise GradingFailure(f"{what}: expected {noun}, found {move!r}")
        move = tuple(int(v) for v in move)
        if move[1] < 1 or move[2] < 1:
            raise GradingFailure(f"{what} = {move}: n_burst and burst_len must be at least 1")
        moves.append(move)
    return moves


def wrong_slice(impl, operand: str, moves, rows: int, cols: int, width: int, l1_k, l0_k):
    """The first step whose copy misplaces a fractal, as feedback; ``None`` if none does."""
    for step, move in enumerate(moves):
        problem = nz_slice_counter_example(operand, move, step, rows, cols, l0_k)
        if problem is not None:
            name = f"{operand.lower()}_slice_copy({step}, {width}, {l1_k}, {l0_k})"
            return f"{name} = {move}: {problem}"
    return None


SLICE_SHAPES = [(32, 64, 256, 128, 32), (48, 32, 128, 64, 16), (16, 48, 192, 96, 48)]
"""``(m, n, k, l1_k, l0_k)``: the matmul, the L1 panels' depth and the L0 slices'."""


def slice_moves(impl, m, n, l1_k, l0_k):
    a_moves = student_moves(impl, "A", m, l1_k, l0_k)
    b_moves = student_moves(impl, "B", n, l1_k, l0_k)
    problems = [
        wrong_slice(impl, "A", a_moves, m, l1_k, m, l1_k, l0_k),
        wrong_slice(impl, "B", b_moves, l1_k, n, n, l1_k, l0_k),
    ]
    return a_moves, b_moves, [p for p in problems if p is not None]


@task11_4
@pytest.mark.parametrize(("m", "n", "k", "l1_k", "l0_k"), SLICE_SHAPES)
def test_panel_matmul_matches_numpy(impl, m, n, k, l1_k, l0_k):
    a_moves, b_moves, problems = slice_moves(impl, m, n, l1_k, l0_k)
    rng = np.random.default_rng(m + n + k)
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    c = np.full((m, n), np.float32(-7.0))
    what = f"panel_matmul (M, N, K = {m}, {n}, {k}; l1_k = {l1_k}, l0_k = {l0_k})"
    try:
        launch_npu_kernel(what, panel_matmul, (a, b, c, l1_k, l0_k, tuple(a_moves),
                                               tuple(b_moves)), 1, "small")  # fmt: skip
        expect_array_close(f"{what}: C", c, a.astype(np.float32) @ b.astype(np.float32))
    except GradingFailure as failure:
        if not problems:
            raise
        raise GradingFailure(f"{failure}\nThe copy at fault: {problems[0]}") from None


@task11_4
@pytest.mark.parametrize(("m", "n", "k", "l1_k", "l0_k"), SLICE_SHAPES)
def test_slices_hold_their_fractals(impl, m, n, k, l1_k, l0_k):
    _, _, problems = slice_moves(impl, m, n, l1_k, l0_k)
    if problems:
        raise GradingFailure(problems[0])


# -- measuring the budgets -----------------------------------------------------------------
def reference_cycles() -> dict[tuple[str, str, int], float]:
    """The reference's cycles for each entry of ``BUDGETS``."""
    from pathlib import Path

    from tinycomp.grading.loader import load_implementation

    root = Path(__file__).resolve().parents[2]
    reference = load_implementation(root, "solutions", "ch11_davinci_npu")
    found = {}
    for name, preset, blocks in BUDGETS:
        if name == "scaled_add":
            result, _ = run_scaled_add(reference, preset, blocks, TILES_PER_BLOCK, 1.5)
        else:
            result, _ = run_flagged(reference, preset, blocks, TILES_PER_BLOCK // 2, 0.75)
        found[(name, preset, blocks)] = result.cycles
    return found


if __name__ == "__main__":
    for key, cycles in reference_cycles().items():
        print(f"{key}: {cycles:.0f} cycles, budget {math.floor(cycles * 1.10)}")
