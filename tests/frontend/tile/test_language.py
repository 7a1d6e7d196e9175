"""The tile language piece by piece, each against numpy on random inputs: branches on
scalars, compile-time branches, reductions, casts, ``where``, ``trans``, ``full``,
2-D pointers and scalar loads and stores."""

import ml_dtypes
import numpy as np
import pytest

from tinycomp import tile

RNG = np.random.default_rng(11)


@tile.kernel
def clamp_or_scale(x, out, n, limit, BLOCK: tile.constexpr, SCALE: tile.constexpr):
    pid = tile.program_id(0)
    offs = pid * BLOCK + tile.arange(0, BLOCK)
    mask = offs < n
    values = tile.load(x + offs, mask=mask)
    factor = 1.0
    if pid % 2 == 0:
        values = tile.minimum(values, limit)
        factor = 2.0
    else:
        values = tile.maximum(values, -limit)
    if SCALE:
        values = values * factor
    tile.store(out + offs, values, mask=mask)


@pytest.mark.parametrize("scale", [True, False])
def test_if_on_a_scalar_merges_tiles_and_numbers(scale):
    n = 29
    x = RNG.standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    clamp_or_scale[(tile.cdiv(n, 8),)](x, out, n, 0.5, BLOCK=8, SCALE=scale)
    block = np.arange(n) // 8
    even = block % 2 == 0
    expected = np.where(even, np.minimum(x, 0.5), np.maximum(x, -0.5))
    if scale:
        expected = expected * np.where(even, 2.0, 1.0)
    np.testing.assert_allclose(out, expected.astype(np.float32), rtol=1e-6)
    text = clamp_or_scale.ir(x, out, n, 0.5, BLOCK=8, SCALE=scale)
    assert text.count("scf.if") == 1 and "-> (tensor<8xf32>, f32)" in text


@tile.kernel
def row_stats(x, stats, n_cols, stride, BLOCK: tile.constexpr):
    row = tile.program_id(0)
    cols = tile.arange(0, BLOCK)
    mask = cols < n_cols
    values = tile.load(x + row * stride + cols, mask=mask, other=0.0)
    low = tile.min(tile.where(mask, values, float("inf")), axis=0)
    high = tile.max(tile.where(mask, values, -float("inf")), axis=0)
    total = tile.sum(values.to(tile.float32), axis=0)
    tile.store(stats + row * 3, low)
    tile.store(stats + row * 3 + 1, high)
    tile.store(stats + row * 3 + 2, total)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reductions_and_scalar_stores(dtype):
    x = RNG.standard_normal((6, 13)).astype(dtype)
    stats = np.zeros((6, 3), np.float32)
    row_stats[(6,)](x, stats, 13, 13, BLOCK=16)
    x64 = x.astype(np.float64)
    expected = np.stack([x64.min(axis=1), x64.max(axis=1), x64.sum(axis=1)], axis=1)
    np.testing.assert_allclose(stats, expected, rtol=1e-5, atol=1e-5)


@tile.kernel
def transpose_tile(x, out, M, N, BLOCK: tile.constexpr):
    rows = tile.arange(0, BLOCK)
    cols = tile.arange(0, BLOCK)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    block = tile.load(x + rows[:, None] * N + cols[None, :], mask=mask, other=0)
    flipped = tile.trans(block)
    out_mask = (rows[:, None] < N) & (cols[None, :] < M)
    tile.store(out + rows[:, None] * M + cols[None, :], flipped, mask=out_mask)


def test_trans_and_2d_masks_on_integers():
    x = RNG.integers(-100, 100, (5, 7)).astype(np.int32)
    out = np.zeros((7, 5), np.int32)
    transpose_tile[(1,)](x, out, 5, 7, BLOCK=8)
    np.testing.assert_array_equal(out, x.T)


@tile.kernel
def casts(x, as_int, as_half, n, BLOCK: tile.constexpr):
    offs = tile.arange(0, BLOCK)
    mask = offs < n
    values = tile.load(x + offs, mask=mask)
    tile.store(as_int + offs, tile.cast(values * 10.0, tile.int32), mask=mask)
    tile.store(as_half + offs, values.to(tile.bfloat16), mask=mask)


def test_casts_truncate_and_round_like_numpy():
    x = RNG.standard_normal(11).astype(np.float32)
    as_int, as_half = np.zeros(11, np.int32), np.zeros(11, ml_dtypes.bfloat16)
    casts[(1,)](x, as_int, as_half, 11, BLOCK=16)
    np.testing.assert_array_equal(as_int, (x * np.float32(10.0)).astype(np.int32))
    np.testing.assert_array_equal(as_half, x.astype(ml_dtypes.bfloat16))


@tile.kernel
def fill_counts(out, BLOCK: tile.constexpr):
    offs = tile.program_id(0) * BLOCK + tile.arange(0, BLOCK)
    counts = tile.full((BLOCK,), tile.num_programs(0), tile.int32)
    tile.store(out + offs, counts + offs // BLOCK)


def test_full_num_programs_and_integer_division():
    out = np.zeros(12, np.int32)
    fill_counts[(3,)](out, BLOCK=4)
    np.testing.assert_array_equal(out, 3 + np.arange(12) // 4)


def test_a_callable_grid_sees_the_constexprs():
    @tile.kernel
    def iota(out, n, BLOCK: tile.constexpr):
        offs = tile.program_id(0) * BLOCK + tile.arange(0, BLOCK)
        tile.store(out + offs, offs * 3, mask=offs < n)

    out = np.zeros(10, np.int32)
    iota[lambda meta: (tile.cdiv(10, meta["BLOCK"]),)](out, 10, BLOCK=4)
    np.testing.assert_array_equal(out, np.arange(10) * 3)
