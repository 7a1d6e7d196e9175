"""The NZ layout: the documented shapes, where each element lands, fractals as contiguous
512-byte blocks, and ND -> NZ -> ND as the identity on random matrices of odd shapes."""

import numpy as np
import pytest

from tinycomp.targets.npu_sim.nz_layout import FRACTAL_BYTES, M0, from_nz, nz_shape, to_nz

RNG = np.random.default_rng(5)
DTYPES = [np.float16, np.int8, np.float32]


def random(shape, dtype):
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-100, 100, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def test_the_documented_example():
    # Ascend's Transdata: ND {8, 100, 30} fp16 -> NZ {8, 2, 112, 16}; int8 has n0 = 32
    assert nz_shape((8, 100, 30), np.float16) == (8, 2, 112, 16)
    assert nz_shape((8, 100, 30), np.int8) == (8, 1, 112, 32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(16, 16), (100, 30), (3, 5, 33), (1, 1), (2, 17, 64)])
def test_round_trip_and_where_each_element_lands(dtype, shape):
    x = random(shape, dtype)
    nz = to_nz(x)
    assert nz.shape == nz_shape(shape, dtype) and nz.dtype == x.dtype
    n0 = nz.shape[-1]
    m, n = shape[-2:]
    i, j = RNG.integers(0, m, 20), RNG.integers(0, n, 20)
    np.testing.assert_array_equal(nz[..., j // n0, i, j % n0], x[..., i, j])
    np.testing.assert_array_equal(from_nz(nz, shape), x)
    padding = np.ones(nz.shape, bool)  # every slot no ND element lands in is zero
    rows, cols = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    padding[..., cols // n0, rows, cols % n0] = False
    assert not nz[padding].any()


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_fractal_is_512_contiguous_bytes(dtype):
    x = random((48, 96), dtype)
    nz = to_nz(x)
    n0 = nz.shape[-1]
    flat = nz.reshape(-1)
    per_fractal = FRACTAL_BYTES // np.dtype(dtype).itemsize
    assert per_fractal == M0 * n0
    # fractal (row block 1, column block 2) is one run of 512 bytes in NZ
    start = (2 * nz.shape[-2] + 1 * M0) * n0
    block = flat[start : start + per_fractal].reshape(M0, n0)
    np.testing.assert_array_equal(block, x[M0 : 2 * M0, 2 * n0 : 3 * n0])


def test_bad_shapes_say_what_was_expected():
    with pytest.raises(ValueError, match="expected a matrix"):
        nz_shape((7,), np.float16)
    with pytest.raises(ValueError, match=r"is NZ \(2, 16, 16\), got \(1, 16, 16\)"):
        from_nz(np.zeros((1, 16, 16), np.float16), (10, 20))
    with pytest.raises(ValueError, match="1, 2 or 4 bytes"):
        to_nz(np.zeros((4, 4), np.float64))
