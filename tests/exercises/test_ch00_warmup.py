"""Graded tests for the chapter 00 warm-up (`ch00_warmup.py`).

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
The counts are compared with tinycomp's roofline model (`tinycomp.perf`) on fixed and
random shapes, and a wrong count is answered with what it is off by (a whole tensor, one
value per row, a factor of two). The student's functions run while the grader watches
for calls of that same model: an answer that calls it fails and says so. Task 00.3 is
graded on its outcome: the tile's bytes on the chip and the intensity its DRAM traffic
gives, both counted here from the indexing maps of `linalg.matmul`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral
from typing import Any

import numpy as np
import pytest

from tinycomp.dialects.linalg.named import MatmulOp
from tinycomp.grading.checks import (
    GradingFailure,
    describe_call,
    expect_close,
    expect_equal,
    expect_instance,
)
from tinycomp.grading.formatting import format_number
from tinycomp.grading.library_calls import library_calls_refused
from tinycomp.perf import (
    A100_FP32,
    H100_FP32,
    Machine,
    kernel_cost,
    kernel_costs,
    matmul_cost,
    program_bytes,
    softmax_cost,
)

# Task 00.1 is worth two points. The marker is written once, here, and used on every test.
task00_1 = pytest.mark.task00_1(points=2)
task00_2 = pytest.mark.task00_2
task00_3 = pytest.mark.task00_3

PEAK_FLOPS = 100e12  # FLOP/s of a made-up accelerator...
BANDWIDTH = 2e12  # ...and its DRAM bandwidth in bytes/s: the ridge is at 50 FLOP/byte

COST_MODEL = {
    "tinycomp.perf.matmul_cost": matmul_cost,
    "tinycomp.perf.softmax_cost": softmax_cost,
    "tinycomp.perf.kernel_cost": kernel_cost,
    "tinycomp.perf.kernel_costs": kernel_costs,
    "tinycomp.perf.program_bytes": program_bytes,
    "Machine.attainable": Machine.attainable,
    "Machine.bound": Machine.bound,
    "Machine.ridge_point": Machine.ridge_point.fget,
}
"""The library's own answers to Tasks 00.1 and 00.2, which the student's code must not call."""


def library_refused(task: str, forbidden: dict[str, Callable[..., Any]]):
    """Run the student's code; fail if it reached one of ``forbidden``, however imported."""
    return library_calls_refused(
        forbidden,
        "your code calls {called}, the library's own answer; Task "
        f"{task} asks you to do the counting yourself",
    )


def call(impl, task: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """``impl.name(*args, **kwargs)``, with the library's cost model off limits."""
    with library_refused(task, COST_MODEL):
        return getattr(impl, name)(*args, **kwargs)


def expect_count(what: str, found: Any, expected: int, hints: dict[int, str]) -> None:
    """An exact count; when it is wrong and ``found`` is a known slip, say which one."""
    try:
        expect_equal(what, found, expected)
    except GradingFailure as failure:
        hint = hints.get(found) if isinstance(found, Integral) else None
        raise GradingFailure(f"{failure}: {hint}" if hint else str(failure)) from None


# == Task 00.1 ============================================================================
def matmul_flops_hints(m: int, n: int, k: int) -> dict[int, str]:
    return {  # the likelier slip last: it wins where two give the same number
        2 * m * n * k - m * n: "that skips the first add of each dot product; C starts at "
        "zero and every product is added to it",
        m * n * k: "that is one FLOP per multiply-add; the course counts the multiply and "
        "the add as one FLOP each",
    }


def matmul_bytes_hints(m: int, n: int, k: int, itemsize: int) -> dict[int, str]:
    a, b, c = m * k, k * n, m * n
    return {
        (a + b) * itemsize: "C is produced on the chip but must still be written to DRAM",
        a + b + c: "that counts elements; the question asks for bytes",
        (a + b + 2 * c) * itemsize: "C starts at zero on the chip: its old value is never "
        "read from DRAM, only the result written",
        (a + b) * itemsize + c * 4: "C has the same element type as A and B here",
    }


@task00_1
@pytest.mark.parametrize(
    "shape, expected",
    [((1, 1, 1), 2), ((2, 3, 4), 48), ((128, 1, 768), 196608), ((4096, 4096, 4096), 137438953472)],
)
def test_matmul_flops(impl, shape, expected):
    found = call(impl, "00.1", "matmul_flops", *shape)
    what = describe_call(impl.matmul_flops, *shape)
    expect_count(what, found, expected, matmul_flops_hints(*shape))


@task00_1
@pytest.mark.parametrize(
    "shape, itemsize, expected",
    [((2, 3, 4), 4, 104), ((128, 1, 768), 4, 396800), ((4096, 4096, 4096), 2, 100663296)],
)
def test_matmul_bytes(impl, shape, itemsize, expected):
    found = call(impl, "00.1", "matmul_bytes", *shape, itemsize)
    what = describe_call(impl.matmul_bytes, *shape, itemsize)
    expect_count(what, found, expected, matmul_bytes_hints(*shape, itemsize))


@task00_1
@pytest.mark.parametrize("flops, num_bytes", [(2.0e9, 1.2e7), (48, 104), (1.0, 4.0)])
def test_arithmetic_intensity(impl, flops, num_bytes):
    found = call(impl, "00.1", "arithmetic_intensity", flops, num_bytes)
    what = describe_call(impl.arithmetic_intensity, flops, num_bytes)
    expect_close(what, found, flops / num_bytes, unit="FLOP/byte")


def expect_roofline(what: str, found: Any, intensity: float, peak: float, bandwidth: float):
    """``(roof, attainable)`` for a kernel of ``intensity``, with the roofline explained."""
    ridge = peak / bandwidth
    memory_roof = intensity * bandwidth
    bound = "memory" if memory_roof < peak else "compute"
    attainable = min(memory_roof, peak)
    expect_instance(what, found, (tuple, list), "a (roof, attainable FLOP/s) pair")
    expect_equal(f"len({what})", len(found), 2)
    roof, rate = found
    place = (
        "exactly at the ridge, where both roofs meet: the kit calls that compute-bound"
        if intensity == ridge
        else f"{'left' if intensity < ridge else 'right'} of the ridge at {ridge:g} FLOP/byte"
    )
    expect_equal(f"{what}[0] (intensity {intensity:g} is {place})", roof, bound)
    why = (
        f"memory delivers {format_number(bandwidth)} bytes/s, each worth {intensity:g} FLOPs"
        if bound == "memory"
        else f"the arithmetic units cannot beat the peak of {format_number(peak)} FLOP/s"
    )
    expect_close(f"{what}[1] ({why})", rate, attainable, unit="FLOP/s")


@task00_1
@pytest.mark.parametrize("intensity", [0.5, 10.0, 49.999, 50.0, 200.0])
def test_roofline_bound(impl, intensity):
    found = call(impl, "00.1", "roofline_bound", intensity, PEAK_FLOPS, BANDWIDTH)
    what = describe_call(impl.roofline_bound, intensity, PEAK_FLOPS, BANDWIDTH)
    expect_roofline(what, found, intensity, PEAK_FLOPS, BANDWIDTH)


@task00_1
def test_a_large_matmul_is_compute_bound(impl):
    flops = call(impl, "00.1", "matmul_flops", 4096, 4096, 4096)
    num_bytes = call(impl, "00.1", "matmul_bytes", 4096, 4096, 4096, 2)
    intensity = call(impl, "00.1", "arithmetic_intensity", flops, num_bytes)
    expect_close("intensity of a 4096^3 f16 matmul", intensity, 4096 / 3, unit="FLOP/byte")
    found = call(impl, "00.1", "roofline_bound", intensity, PEAK_FLOPS, BANDWIDTH)
    expect_roofline("roofline of a 4096^3 f16 matmul", found, intensity, PEAK_FLOPS, BANDWIDTH)


@task00_1
def test_matmul_counts_agree_with_the_library_on_random_shapes(impl):
    """The student's counts equal tinycomp's own roofline model on random shapes."""
    rng = np.random.default_rng(0)
    for m, n, k in rng.integers(1, 5000, size=(20, 3)).tolist():
        for itemsize in (2, 4):
            cost = matmul_cost(m, n, k, itemsize)
            expect_count(
                describe_call(impl.matmul_flops, m, n, k),
                call(impl, "00.1", "matmul_flops", m, n, k),
                cost.flops,
                matmul_flops_hints(m, n, k),
            )
            expect_count(
                describe_call(impl.matmul_bytes, m, n, k, itemsize),
                call(impl, "00.1", "matmul_bytes", m, n, k, itemsize),
                cost.bytes,
                matmul_bytes_hints(m, n, k, itemsize),
            )
            chip = A100_FP32
            found = call(impl, "00.1", "roofline_bound", cost.intensity, chip.peak_flops,
                         chip.bandwidth)  # fmt: skip
            what = f"roofline_bound of {cost.name} on {chip.name}"
            expect_roofline(what, found, cost.intensity, chip.peak_flops, chip.bandwidth)


# == Task 00.2 ============================================================================
def unfused_softmax_bytes(rows: int, cols: int, itemsize: int) -> int:
    """The four kernels, operand by operand: (elements read + written) x itemsize."""
    x = e = y = rows * cols  # full tensors
    m = s = rows  # one value per row
    kernels = [(x, m), (x + m, e), (e, s), (e + s, y)]  # (read, written) per kernel
    return sum(read + written for read, written in kernels) * itemsize


def softmax_bytes_diagnosis(found: int, expected: int, rows: int, cols: int, itemsize: int):
    """Say what a wrong byte count is off by, in tensors of the program."""
    difference = found - expected
    more_or_fewer = "too many" if difference > 0 else "too few"
    tensor, vector = rows * cols * itemsize, rows * itemsize
    units = ((tensor, f"a whole {rows} x {cols} tensor"), (vector, f"a vector of {rows} values"))
    for unit, name in units:
        if difference % unit == 0 and abs(difference) // unit <= 8:
            count = abs(difference) // unit
            return (
                f"{more_or_fewer} by {count} x the size of {name}; count again, kernel by "
                "kernel, which tensors each one reads and which it writes"
            )
    return "count, kernel by kernel, which tensors each one reads and which it writes"


@task00_2
@pytest.mark.parametrize("shape, expected", [((2, 4), 40), ((1024, 4096), 20971520), ((7, 1), 35)])
def test_softmax_flops(impl, shape, expected):
    found = call(impl, "00.2", "softmax_flops", *shape)
    rows, cols = shape
    hints = {
        count * rows * cols: f"that is {count} FLOPs per element; a softmax does five things "
        "to each element: compare it with the running max, subtract the max, exp, add to "
        "the row sum, divide by the sum"
        for count in (1, 2, 3, 4, 6)
    }
    expect_count(describe_call(impl.softmax_flops, *shape), found, expected, hints)


SOFTMAX_CASES = [((2, 4), 4), ((1024, 4096), 2), ((3, 5), 8), ((1, 1), 4)]


@task00_2
@pytest.mark.parametrize("shape, itemsize", SOFTMAX_CASES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_softmax_bytes(impl, shape, itemsize, fused):
    rows, cols = shape
    expected = 2 * rows * cols * itemsize if fused else unfused_softmax_bytes(*shape, itemsize)
    found = call(impl, "00.2", "softmax_bytes", *shape, itemsize, fused=fused)
    what = describe_call(impl.softmax_bytes, *shape, itemsize, fused=fused)
    if isinstance(found, Integral) and found != expected:
        diagnosis = softmax_bytes_diagnosis(int(found), expected, rows, cols, itemsize)
        raise GradingFailure(f"{what}: expected {expected}, found {found}: {diagnosis}")
    expect_equal(what, found, expected)


@task00_2
def test_softmax_bytes_is_fused_by_default(impl):
    found = call(impl, "00.2", "softmax_bytes", 2, 4, 4)
    expect_equal(describe_call(impl.softmax_bytes, 2, 4, 4), found, 64)


@task00_2
def test_softmax_counts_agree_with_the_library_on_random_shapes(impl):
    rng = np.random.default_rng(1)
    for rows, cols in rng.integers(1, 5000, size=(20, 2)).tolist():
        cost = softmax_cost(rows, cols, itemsize=4)
        expect_equal(
            describe_call(impl.softmax_flops, rows, cols),
            call(impl, "00.2", "softmax_flops", rows, cols),
            cost.flops,
        )
        expect_equal(
            describe_call(impl.softmax_bytes, rows, cols, 4),
            call(impl, "00.2", "softmax_bytes", rows, cols, 4),
            cost.bytes,
        )
        expect_equal(
            describe_call(impl.softmax_bytes, rows, cols, 4, fused=False),
            call(impl, "00.2", "softmax_bytes", rows, cols, 4, fused=False),
            unfused_softmax_bytes(rows, cols, 4),
        )


# == Task 00.3: a tile under a budget ======================================================
SIZE = 4096  # M = N = K
ITEMSIZE = 4  # f32
CHIP_BYTES = 48 * 1024
CHIP = H100_FP32
A_MAP, B_MAP, C_MAP = MatmulOp.default_maps()  # (m, n, k) -> (m, k), (k, n), (m, n)


def elements(indexing_map, sizes: tuple[int, int, int]) -> int:
    """Elements of one operand that a tile of the loops (m, n, k) of these sizes touches."""
    return math.prod(indexing_map.tile_footprint((0, 0, 0), sizes).sizes)


def tile_counts(size: int, tile: int) -> list[tuple[int, int]]:
    """``(extent, how many)`` of the tiles along a loop: the full ones, then the cut one."""
    full, rest = divmod(size, tile)
    return [(tile, full)] + ([(rest, 1)] if rest else [])


def tiled_traffic(tm: int, tn: int) -> dict[str, int]:
    """DRAM bytes of the kernel: per C tile, its rows of A and columns of B over all of k,
    and the C tile itself written once (tiles at the edge count their part)."""
    traffic = {"A": 0, "B": 0, "C": 0}
    for rows, row_tiles in tile_counts(SIZE, tm):
        for columns, column_tiles in tile_counts(SIZE, tn):
            tiles = row_tiles * column_tiles
            panel = (rows, columns, SIZE)  # one C tile, over the whole of k
            for name, indexing_map in zip("ABC", (A_MAP, B_MAP, C_MAP), strict=True):
                traffic[name] += tiles * elements(indexing_map, panel) * ITEMSIZE
    return traffic


def times(count: int) -> str:
    """``once``, ``twice``, ``3 times``."""
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


@task00_3
def test_matmul_tile_fits_the_chip_and_reaches_the_compute_roof(impl):
    found = impl.matmul_tile()
    what = "matmul_tile()"
    expect_instance(what, found, (tuple, list), "a (tm, tn, tk) tuple")
    expect_equal(f"len({what})", len(found), 3)
    for name, value in zip(("tm", "tn", "tk"), found, strict=True):
        if not isinstance(value, Integral) or isinstance(value, bool):
            raise GradingFailure(f"{what}: expected {name} to be an int, found {value!r}")
        if not 1 <= value <= SIZE:
            raise GradingFailure(f"{what}: expected 1 <= {name} <= {SIZE}, found {value}")
    tm, tn, tk = (int(value) for value in found)
    tile = (tm, tn, tk)
    maps = {"A": A_MAP, "B": B_MAP, "C": C_MAP}
    pieces = {name: elements(indexing_map, tile) * ITEMSIZE for name, indexing_map in maps.items()}
    on_chip = sum(pieces.values())
    if on_chip > CHIP_BYTES:
        raise GradingFailure(
            f"the tile {tile} needs {on_chip} bytes on the chip (C tile {pieces['C']}, A "
            f"piece {pieces['A']}, B piece {pieces['B']}), {on_chip - CHIP_BYTES} more than "
            f"the {CHIP_BYTES} bytes there are"
        )
    traffic = tiled_traffic(tm, tn)
    total = sum(traffic.values())
    flops = 2 * SIZE**3
    intensity = flops / total
    if intensity < CHIP.ridge_point:
        reads_a, reads_b = (times(math.ceil(SIZE / side)) for side in (tn, tm))
        raise GradingFailure(
            f"the tile {tile} fits ({on_chip} of {CHIP_BYTES} bytes) but the kernel moves "
            f"{total:,} bytes through DRAM: all of A {reads_a} (once per column of C "
            f"tiles), all of B {reads_b} (once per row of C tiles), and C once. That "
            f"is {intensity:.2f} FLOP/byte, below the ridge of {CHIP.name} at "
            f"{CHIP.ridge_point:.2f}: still memory-bound. Which of the three pieces on the "
            "chip buys reuse, and which only costs room?"
        )
