"""Graded tests for the chapter 00 warm-up (`ch00_warmup.py`).

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
"""

import numpy as np
import pytest

from tinycomp.grading.checks import describe_call, expect_close, expect_equal, expect_instance
from tinycomp.perf import A100_FP32, matmul_cost, softmax_cost

# Task 00.1 is worth two points. The marker is written once, here, and used on every test.
task00_1 = pytest.mark.task00_1(points=2)
task00_2 = pytest.mark.task00_2

PEAK_FLOPS = 100e12  # FLOP/s of a made-up accelerator...
BANDWIDTH = 2e12  # ...and its DRAM bandwidth in bytes/s: the ridge is at 50 FLOP/byte


@task00_1
@pytest.mark.parametrize(
    "shape, expected",
    [((1, 1, 1), 2), ((2, 3, 4), 48), ((128, 1, 768), 196608), ((4096, 4096, 4096), 137438953472)],
)
def test_matmul_flops(impl, shape, expected):
    found = impl.matmul_flops(*shape)
    expect_equal(describe_call(impl.matmul_flops, *shape), found, expected)


@task00_1
@pytest.mark.parametrize(
    "shape, itemsize, expected",
    [((2, 3, 4), 4, 104), ((128, 1, 768), 4, 396800), ((4096, 4096, 4096), 2, 100663296)],
)
def test_matmul_bytes(impl, shape, itemsize, expected):
    found = impl.matmul_bytes(*shape, itemsize)
    expect_equal(describe_call(impl.matmul_bytes, *shape, itemsize), found, expected)


@task00_1
@pytest.mark.parametrize("flops, num_bytes", [(2.0e9, 1.2e7), (48, 104), (1.0, 4.0)])
def test_arithmetic_intensity(impl, flops, num_bytes):
    found = impl.arithmetic_intensity(flops, num_bytes)
    what = describe_call(impl.arithmetic_intensity, flops, num_bytes)
    expect_close(what, found, flops / num_bytes, unit="FLOP/byte")


@task00_1
@pytest.mark.parametrize(
    "intensity, bound, attainable",
    [
        (0.5, "memory", 1e12),
        (10.0, "memory", 2e13),
        (50.0, "compute", 1e14),  # exactly at the ridge: both roofs meet
        (200.0, "compute", 1e14),
    ],
)
def test_roofline_bound(impl, intensity, bound, attainable):
    found = impl.roofline_bound(intensity, PEAK_FLOPS, BANDWIDTH)
    what = describe_call(impl.roofline_bound, intensity, PEAK_FLOPS, BANDWIDTH)
    expect_instance(what, found, tuple, "a (bound, attainable FLOP/s) tuple")
    expect_equal(f"len({what})", len(found), 2)
    expect_equal(f"{what}[0]", found[0], bound)
    expect_close(f"{what}[1]", found[1], attainable, unit="FLOP/s")


@task00_1
def test_a_large_matmul_is_compute_bound(impl):
    flops = impl.matmul_flops(4096, 4096, 4096)
    num_bytes = impl.matmul_bytes(4096, 4096, 4096, 2)
    intensity = impl.arithmetic_intensity(flops, num_bytes)
    expect_close("intensity of a 4096^3 f16 matmul", intensity, 4096 / 3, unit="FLOP/byte")
    found = impl.roofline_bound(intensity, PEAK_FLOPS, BANDWIDTH)
    expect_equal("roofline of a 4096^3 f16 matmul", found, ("compute", PEAK_FLOPS))


@task00_2
@pytest.mark.parametrize("shape, expected", [((2, 4), 40), ((1024, 4096), 20971520)])
def test_softmax_flops(impl, shape, expected):
    found = impl.softmax_flops(*shape)
    expect_equal(describe_call(impl.softmax_flops, *shape), found, expected)


@task00_2
@pytest.mark.parametrize(
    "shape, itemsize, fused, expected",
    [
        ((2, 4), 4, True, 64),
        ((1024, 4096), 2, True, 16777216),
        ((2, 4), 4, False, 224),
        ((1024, 4096), 2, False, 50339840),
    ],
)
def test_softmax_bytes(impl, shape, itemsize, fused, expected):
    found = impl.softmax_bytes(*shape, itemsize, fused=fused)
    what = describe_call(impl.softmax_bytes, *shape, itemsize, fused=fused)
    expect_equal(what, found, expected)


@task00_2
def test_softmax_bytes_is_fused_by_default(impl):
    found = impl.softmax_bytes(2, 4, 4)
    expect_equal(describe_call(impl.softmax_bytes, 2, 4, 4), found, 64)


@task00_1
def test_matmul_counts_agree_with_the_library_on_random_shapes(impl):
    """The student's counts equal tinycomp's own roofline model on random shapes."""
    rng = np.random.default_rng(0)
    for m, n, k in rng.integers(1, 5000, size=(20, 3)).tolist():
        for itemsize in (2, 4):
            cost = matmul_cost(m, n, k, itemsize)
            expect_equal(
                describe_call(impl.matmul_flops, m, n, k), impl.matmul_flops(m, n, k), cost.flops
            )
            expect_equal(
                describe_call(impl.matmul_bytes, m, n, k, itemsize),
                impl.matmul_bytes(m, n, k, itemsize),
                cost.bytes,
            )
            bound, attainable = impl.roofline_bound(
                cost.intensity, A100_FP32.peak_flops, A100_FP32.bandwidth
            )
            what = f"roofline_bound of {cost.name} on {A100_FP32.name}"
            expect_equal(what, bound, A100_FP32.bound(cost.intensity))
            expect_close(what, attainable, A100_FP32.attainable(cost.intensity), unit="FLOP/s")


@task00_2
def test_fused_softmax_counts_agree_with_the_library_on_random_shapes(impl):
    rng = np.random.default_rng(1)
    for rows, cols in rng.integers(1, 5000, size=(20, 2)).tolist():
        cost = softmax_cost(rows, cols, itemsize=4)
        expect_equal(
            describe_call(impl.softmax_flops, rows, cols),
            impl.softmax_flops(rows, cols),
            cost.flops,
        )
        expect_equal(
            describe_call(impl.softmax_bytes, rows, cols, 4),
            impl.softmax_bytes(rows, cols, 4),
            cost.bytes,
        )
