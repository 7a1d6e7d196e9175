"""Every DSL kernel through ``gpu.launch``, against numpy on random inputs, with and
without the cleanup; a few counters against hand counts."""

from __future__ import annotations

import numpy as np
import pytest
from frontend.simt import kernels

from tinycomp import gpu

from .launches import LAUNCHES


def launched(name: str, optimize: bool, **sizes):
    kernel, make_args = kernels.KERNELS[name]
    args = make_args(**sizes)
    before = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
    plan = LAUNCHES[name]
    result = gpu.launch(kernel, plan.grid(args), plan.block, args, optimize=optimize)
    return before, args, result


def test_every_kernel_has_a_launch():
    assert set(LAUNCHES) == set(kernels.KERNELS)


@pytest.mark.parametrize("optimize", [True, False], ids=["optimized", "as-written"])
@pytest.mark.parametrize("name", sorted(kernels.KERNELS))
def test_kernel_matches_numpy(name, optimize):
    before, args, result = launched(name, optimize)
    expected = LAUNCHES[name].expected(before)
    for position, want in expected.items():
        assert not np.array_equal(want, before[position]), "the launch must change something"
        if LAUNCHES[name].exact:
            np.testing.assert_array_equal(args[position], want)
        else:
            np.testing.assert_allclose(args[position], want, rtol=1e-4, atol=1e-4)
    assert result.counters.blocks_total == int(np.prod(result.grid))


def test_transpose_moves_a_full_tile_with_32x8_and_32x32_blocks():
    kernel, make_args = kernels.KERNELS["transpose"]
    for block in [(32, 8), (32, 32)]:
        src, dst = make_args(70, 45)
        result = gpu.launch(kernel, (2, 3), block, (src, dst), preset="h100")
        np.testing.assert_array_equal(dst, src.T)
        assert result.counters.bank_conflict_degree() == 1.0  # the padding column


def test_saxpy_counts_match_a_hand_count():
    # n = 1000, 4 blocks of 256: 32 warps, the last one with 1000 - 992 = 8 active lanes
    _, _, result = launched("saxpy", optimize=True)
    c = result.counters
    assert c.total("global_load_requests") == 2 * 32  # x[i] and y[i]
    assert c.total("global_store_requests") == 32
    assert c.total("global_load_sectors") == 2 * (31 * 4 + 1)  # 128 B per full warp
    assert c.total("global_store_sectors") == 31 * 4 + 1
    assert c.total("inst_fp32") == 32  # a * x + y is one fma per warp
    # warp 31 of the last block: the saxpy body runs for 8 of its 32 lanes
    assert c.total("divergent_branches") == 1


def test_naive_matmul_counts_one_fma_per_k_step_per_warp():
    _, args, result = launched("matmul_naive", optimize=True, m=32, k=24, n=32)
    # 32 x 32 outputs in 16 x 16 blocks: 4 blocks of 8 warps, every lane in range
    assert result.counters.total("inst_fp32") == 32 * 24
    assert result.counters.total("global_load_requests") == 32 * 24 * 2
    assert result.counters.total("global_store_requests") == 32


def test_tiled_matmul_counts_barriers_and_shared_traffic():
    _, _, result = launched("matmul_tiled", optimize=True, m=32, k=48, n=32)
    tiles, blocks, warps = 48 // 16, 4, 8
    assert result.counters.total("barriers") == blocks * tiles * 2
    assert result.counters.total("shared_store_requests") == blocks * warps * tiles * 2
    assert result.counters.total("shared_load_requests") == blocks * warps * tiles * 16 * 2


def test_cleanup_runs_fewer_instructions_and_the_same_memory_traffic():
    _, _, optimized = launched("matmul_tiled", optimize=True)
    _, _, as_written = launched("matmul_tiled", optimize=False)
    memory = ["global_load_sectors", "global_store_sectors", "shared_load_wavefronts", "barriers"]
    for name in memory:
        assert optimized.counters.total(name) == as_written.counters.total(name), name
    assert optimized.counters.total("inst_int") < as_written.counters.total("inst_int")
    assert optimized.counters.warp_instructions() < as_written.counters.warp_instructions()
