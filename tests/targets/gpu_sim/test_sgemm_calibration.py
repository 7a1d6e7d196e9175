"""The cost model against the SGEMM worklog measured on an RTX A6000 (4096^3, FP32).

First each worklog kernel must compute ``alpha * A @ B + beta * C`` (random inputs,
through ``tinycomp.gpu.launch``, against numpy). Then the staircase at 4096^3 on the
``a6000`` preset (one sampled block per kernel): the predicted GFLOP/s must rise in the
measured order, and each step's predicted speed-up must be within 2x of the measured one.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.gpu.launch import launch
from tinycomp.targets.gpu_sim.counters import extrapolate_counters
from tinycomp.testing.sgemm_staircase import sgemm_staircase
from tinycomp.testing.sgemm_worklog import SGEMM_KERNELS

MEASURED_STEPS = (6.43, 1.50, 2.84, 1.88, 1.14, 1.19)


@pytest.mark.parametrize("entry", SGEMM_KERNELS, ids=lambda e: e.name)
def test_worklog_kernel_computes_alpha_ab_plus_beta_c(entry):
    rng = np.random.default_rng(3)
    m, n, k = 128, 256, 256
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = rng.standard_normal((m, n), dtype=np.float32)
    alpha, beta = np.float32(1.5), np.float32(-0.75)
    expected = alpha * (a.astype(np.float64) @ b) + beta * c
    args = [a, b, c, np.int32(m), np.int32(n), np.int32(k), alpha, beta]
    launch(entry.kernel, entry.grid(m, n, k), entry.block, args, preset="a6000", sanitize=False)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-3)


def test_staircase_follows_the_measured_order_within_2x_per_step():
    table = sgemm_staircase(preset="a6000", size=4096)
    text = str(table)
    assert [r.kernel for r in table.rows] == [e.name for e in SGEMM_KERNELS]
    assert table.in_measured_order(), text
    measured = [r.measured_step for r in table.rows[1:]]
    assert measured == pytest.approx(MEASURED_STEPS, abs=0.01)
    for row in table.rows[1:]:
        assert 0.5 <= row.step_ratio <= 2.0, f"{row.kernel}: step off by more than 2x\n{text}"
    assert table.worst_step_factor() <= 2.0
    # the model is a throughput model: it should not be off by more than 2x anywhere
    for row in table.rows:
        assert 0.5 <= row.ratio <= 2.0, f"{row.kernel}: predicted/measured {row.ratio:.2f}"
    assert table.rows[0].binding == "l1/shared"  # 32 lines per uncoalesced load
    assert "in the measured order: yes" in text


@pytest.mark.parametrize("name", ["shared", "vectorized"])
def test_counters_at_a_long_k_follow_exactly_from_two_short_runs(name):
    entry = next(e for e in SGEMM_KERNELS if e.name == name)
    rng = np.random.default_rng(5)
    size = 256

    def counters(depth):
        a = rng.standard_normal((size, depth), dtype=np.float32)
        b = rng.standard_normal((depth, size), dtype=np.float32)
        c = np.zeros((size, size), np.float32)
        args = [a, b, c, np.int32(size), np.int32(size), np.int32(depth)]
        args += [np.float32(1), np.float32(0)]
        grid = entry.grid(size, size, depth)
        return launch(entry.kernel, grid, entry.block, args, "a6000", sample_blocks=2).counters

    guessed = extrapolate_counters(counters(64), counters(128), (64, 128), 256)
    real = counters(256)
    for counter, values in real.per_block.items():
        assert guessed.per_block[counter].tolist() == values.tolist(), counter
    assert guessed.footprint_sectors == real.footprint_sectors
    with pytest.raises(ValueError, match="does not grow linearly"):
        extrapolate_counters(counters(64), counters(128), (64, 100), 256)


def test_staircase_refuses_a_size_the_kernels_cannot_tile():
    with pytest.raises(ValueError, match="size 160 is not a multiple of 64, which kernel"):
        sgemm_staircase(size=160)
    with pytest.raises(ValueError, match="size 96 must be larger than 128"):
        sgemm_staircase(size=96)
