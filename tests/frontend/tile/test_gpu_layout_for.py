"""``layout_for``: the caller's choice of blocked layout for the tiles a kernel loads and
stores, in place of ``default_layout``. A copy and a scaled copy at odd sizes against
numpy under several layouts (vector widths, replication, repeats), the accesses each
layout implies, and the errors for a layout that does not fit."""

import numpy as np
import pytest

from tinycomp import tile
from tinycomp.frontend.tile.gpu_launch import gpu_module, launch_gpu
from tinycomp.frontend.tile.layout import BlockedLayout, LayoutError

RNG = np.random.default_rng(23)


@tile.kernel
def scaled_copy(x, y, n, alpha, BLOCK: tile.constexpr):
    offsets = tile.program_id(0) * BLOCK + tile.arange(0, BLOCK)
    mask = offsets < n
    tile.store(y + offsets, tile.load(x + offsets, mask=mask) * alpha, mask=mask)


def per_thread(size):
    """A ``layout_for`` giving each thread ``size`` consecutive elements."""

    def choose(shape, num_warps):
        return BlockedLayout((size,), (32,), (num_warps,), (0,))

    return choose


@pytest.mark.parametrize(
    "size, block, warps, n",
    [(1, 128, 4, 1001), (2, 256, 2, 777), (8, 512, 2, 513), (4, 64, 4, 100), (1, 1024, 1, 3000)],
)
def test_a_chosen_layout_copies_like_numpy(size, block, warps, n):
    x = RNG.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    launch_gpu(
        scaled_copy, (tile.cdiv(n, block),), x, y, n, 1.5, BLOCK=block, num_warps=warps,
        layout_for=per_thread(size),
    )  # fmt: skip
    np.testing.assert_array_equal(y, x * np.float32(1.5))


def test_the_chosen_vector_width_is_the_one_emitted():
    n, block = 2048, 512
    x = RNG.standard_normal(n).astype(np.float32)
    widths = {}
    for size in (1, 2, 4):
        y = np.zeros(n, np.float32)
        result = scaled_copy.launch_gpu(
            (n // block,), x, y, n, 2.0, BLOCK=block, num_warps=4, layout_for=per_thread(size)
        )
        np.testing.assert_array_equal(y, x * 2)
        names = [op.name for op in result.module.walk()]
        widths[size] = (names.count("vector.load"), result.counters.coalescing_efficiency())
    assert widths[1][0] == 0 and widths[2][0] == 2 and widths[4][0] == 1
    assert all(efficiency == 1.0 for _, efficiency in widths.values())


def test_a_layout_larger_than_the_tile_replicates_and_stores_once():
    n, block = 50, 64  # layout tile 2 * 32 * 4 = 256 > 64: each element held four times
    x = RNG.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    result = launch_gpu(
        scaled_copy, (1,), x, y, n, -1.0, BLOCK=block, num_warps=4, layout_for=per_thread(2)
    )
    np.testing.assert_array_equal(y, -x)
    assert result.counters.total("global_store_bytes") == n * 4  # each element once


def test_no_layout_for_is_the_default():
    v = np.zeros(256, np.float32)
    chosen = gpu_module(scaled_copy, v, v, 256, 1.0, BLOCK=256, layout_for=None)
    default = gpu_module(scaled_copy, v, v, 256, 1.0, BLOCK=256)
    assert str(chosen) == str(default)


@pytest.mark.parametrize(
    "layout, message",
    [
        (BlockedLayout((4,), (32,), (3,), (0,)), r"held by 4 warps, got #blocked<.*> for 3"),
        (BlockedLayout((3,), (32,), (4,), (0,)), r"shape \(256,\) cannot be laid out by"),
        (BlockedLayout((1, 1), (1, 32), (1, 4), (1, 0)), r"needs a layout of rank 1"),
        ("blocked", r"expected a BlockedLayout, got 'blocked'"),
    ],
)
def test_a_layout_that_does_not_fit_is_an_error_naming_the_shape(layout, message):
    v = np.zeros(256, np.float32)
    with pytest.raises(LayoutError, match=r"layout_for\(\(256,\), 4\): .*" + message):
        gpu_module(scaled_copy, v, v, 256, 1.0, BLOCK=256, layout_for=lambda s, w: layout)
