"""DRAM traffic of kernels whose blocks share a small array (layernorm's gamma and beta)
beside the large ones they split between them (the rows of x and of the output).

A block's distinct sectors are counted over all arrays together; the reuse model splits
them over the arrays (``array_sectors_per_block``) to find what one wave of blocks
touches. Split in proportion to the arrays' footprints, the rows of x took a share of
gamma's sectors and every wave seemed to read more of x than it does.
"""

from __future__ import annotations

import numpy as np
import pytest

import tinycomp
from tinycomp.compiler.options import CompileOptions
from tinycomp.frontend import layernorm, softmax
from tinycomp.targets.gpu_sim.cost_memory import array_sectors_per_block, memory_traffic
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.occupancy import occupancy
from tinycomp.targets.gpu_sim.preset import lookup_preset

ROWS, COLS = 1024, 1024


def _counters(simulated, blocks_total, distinct, footprint):
    counters = KernelCounters.zeros(np.arange(simulated), 256)
    counters.blocks_total = blocks_total
    counters.add("global_distinct_sectors", distinct)
    counters.footprint_sectors = dict(footprint)
    return counters


def _layernorm_inputs(rng):
    x = rng.standard_normal((ROWS, COLS), dtype=np.float32)
    gamma = rng.standard_normal(COLS, dtype=np.float32)
    beta = rng.standard_normal(COLS, dtype=np.float32)
    return x, gamma, beta


def _numpy_layernorm(x, gamma, beta, eps=1e-5):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    return (x64 - mean) / np.sqrt(var + eps) * gamma + beta


def _dram_bytes(fn, args, preset, sample_blocks):
    program = tinycomp.compile(
        fn, *args, target="gpu-sim", options=CompileOptions(gpu_preset=preset)
    )
    program.native.sample_blocks = sample_blocks
    result = program.native(*args)
    (launch,) = program.native.launches
    return launch.estimate.dram_bytes, result


def test_a_shared_vector_takes_the_sectors_blocks_share():
    # 4 sampled rows: 128 sectors of x and of out each, all 128 of gamma and of beta
    c = _counters(4, 8192, 512, {"x": 512, "out": 512, "gamma": 128, "beta": 128})
    assert array_sectors_per_block(c) == {"x": 128, "out": 128, "gamma": 128, "beta": 128}
    # no sharing: every array split evenly over the blocks
    c = _counters(4, 8192, 256, {"x": 512, "out": 512})
    assert array_sectors_per_block(c) == {"x": 128, "out": 128}


def test_arrays_of_equal_footprints_get_equal_shares():
    # 4x4 blocks of 64x64 over K = 256 (f32, 8 per sector): a block reads a 64x256 panel
    # of A and of B (2048 sectors each) and writes a 64x64 tile of C (512). A, B and C
    # each have 8192 sectors touched by 16 blocks: the counters cannot tell which array
    # the blocks share, and the split is even (the block's total is kept)
    c = _counters(16, 16, 2048 + 2048 + 512, {"A": 8192, "B": 8192, "C": 8192})
    assert array_sectors_per_block(c) == pytest.approx({"A": 1536, "B": 1536, "C": 1536})


def test_the_split_keeps_the_block_total_and_each_arrays_bounds():
    rng = np.random.default_rng(7)
    for _ in range(200):
        simulated = int(rng.integers(1, 9))
        footprint = {f"a{i}": int(rng.integers(1, 5000)) for i in range(int(rng.integers(1, 6)))}
        least = sum(footprint.values()) / simulated
        distinct = int(rng.integers(int(np.ceil(least)), sum(footprint.values()) + 1))
        split = array_sectors_per_block(_counters(simulated, 64, distinct, footprint))
        assert sum(split.values()) == pytest.approx(distinct, rel=1e-9)
        for name, sectors in split.items():
            assert footprint[name] / simulated - 1e-9 <= sectors <= footprint[name] + 1e-9


def test_each_wave_reads_its_own_rows_and_the_shared_vectors_again():
    # layernorm at 8192 rows on the A6000 (6 MB of L2): 17 waves of up to 504 blocks
    preset = lookup_preset("a6000")
    c = _counters(4, 8192, 512, {"x": 512, "out": 512, "gamma": 128, "beta": 128})
    c.add("global_load_sectors", 512)
    c.add("global_store_sectors", 128)
    arrays = {"x": 8192 * COLS * 4, "out": 8192 * COLS * 4, "gamma": COLS * 4, "beta": COLS * 4}
    traffic = memory_traffic(c, preset, occupancy(preset, 256, 32, 0), arrays)
    rows = 2 * 8192 * 128  # x and out, each row once
    assert traffic.footprint_sectors == rows + 256
    waves = -(-8192 // 504)
    assert traffic.dram_sectors_per_block * 8192 == pytest.approx(rows + 256 * waves)


@pytest.mark.parametrize("preset", ["a6000", "h100"])
def test_sampled_layernorm_moves_what_the_full_run_moves(preset):
    rng = np.random.default_rng(0)
    args = _layernorm_inputs(rng)
    full, result = _dram_bytes(layernorm, args, preset, None)
    np.testing.assert_allclose(result, _numpy_layernorm(*args), rtol=1e-4, atol=1e-4)
    sampled, _ = _dram_bytes(layernorm, args, preset, 4)
    once = 2 * ROWS * COLS * 4 + 2 * COLS * 4  # x read, out written, gamma and beta
    assert sampled == pytest.approx(full, rel=0.05)
    assert full == pytest.approx(once, rel=0.05)


def test_sampled_softmax_moves_its_rows_once():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((ROWS, COLS), dtype=np.float32)
    sampled, _ = _dram_bytes(softmax, (x,), "a6000", 4)
    assert sampled == pytest.approx(2 * ROWS * COLS * 4, rel=0.05)
