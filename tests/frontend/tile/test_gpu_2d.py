"""Tile programs of rank 2 on the GPU: Triton's matmul and FlashAttention forward, outer
products, reductions along an axis and transposes, on the simulator (sanitizer on)
against numpy on random inputs at odd shapes, in f32, f16 and bf16; their gpu IR through
``mlir-opt-22``; their PTX through ``ptxas`` for sm_80 and sm_90 with no spills; and the
shared-memory traffic of ``dot`` (no bank conflicts on its reads)."""

import re
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

from tinycomp import tile
from tinycomp.codegen.gpu.ptxas import ptxas_unavailable
from tinycomp.frontend.tile.gpu_launch import gpu_module, launch_gpu
from tinycomp.frontend.tile.to_gpu import lower_to_gpu

from .kernels import attention_fwd, matmul_kernel

RNG = np.random.default_rng(11)
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]
TOLERANCE = {np.float32: 2e-5, np.float16: 2e-2, ml_dtypes.bfloat16: 6e-2}


def random(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def run_matmul(a, b, c, blocks, num_warps, **options):
    m, k = a.shape
    n = b.shape[1]
    grid = (tile.cdiv(m, blocks["BLOCK_SIZE_M"]) * tile.cdiv(n, blocks["BLOCK_SIZE_N"]),)
    strides = [*tile.element_strides(a), *tile.element_strides(b), *tile.element_strides(c)]
    return launch_gpu(
        matmul_kernel, grid, a, b, c, m, n, k, *strides,
        num_warps=num_warps, preset="a100", **blocks, **options,
    )  # fmt: skip


def blocks(m, n, k, group=2):
    return {"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": group}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shape, tiles, warps",
    [
        ((70, 45, 50), (32, 16, 16), 4),
        ((100, 90, 70), (64, 64, 32), 4),
        ((33, 65, 17), (16, 32, 16), 2),
    ],
)
def test_matmul_equals_numpy(dtype, shape, tiles, warps):
    m, n, k = shape
    a, b = random((m, k), dtype), random((k, n), dtype)
    c = np.full((m, n), np.nan, dtype)
    run_matmul(a, b, c, blocks(*tiles), warps)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    tol = TOLERANCE[dtype] * np.sqrt(k)
    np.testing.assert_allclose(c.astype(np.float64), expected, rtol=tol, atol=tol)


def attention_reference(q, k, v, scale):
    s = np.einsum("hmd,hnd->hmn", q.astype(np.float64), k.astype(np.float64)) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("hmn,hnd->hmd", p / p.sum(axis=-1, keepdims=True), v.astype(np.float64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seq, dim, block_m, block_n", [(37, 16, 16, 16), (70, 32, 32, 16)])
def test_flash_attention_equals_numpy(dtype, seq, dim, block_m, block_n):
    heads = 2
    q, k, v = (random((heads, seq, dim), dtype) for _ in range(3))
    out = np.full_like(q, np.nan)
    scale = 1 / np.sqrt(dim)
    strides = tile.element_strides(q)
    launch_gpu(
        attention_fwd, (tile.cdiv(seq, block_m), heads), q, k, v, out, seq, strides[1],
        strides[0], float(scale), HEAD_DIM=dim, BLOCK_M=block_m, BLOCK_N=block_n, preset="a100",
    )  # fmt: skip
    tol = TOLERANCE[dtype]
    expected = attention_reference(q, k, v, scale)
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=tol, atol=tol)


@tile.kernel
def outer(x, y, BLOCK: tile.constexpr):
    offsets = tile.arange(0, BLOCK)
    v = tile.load(x + offsets)
    tile.store(y + offsets[:, None] * BLOCK + offsets[None, :], v[:, None] * v[None, :])


@pytest.mark.parametrize("block, warps", [(8, 4), (64, 2)])
def test_outer_product_reads_a_held_tile_at_other_threads_elements(block, warps):
    x = random(block)
    y = np.full(block * block, np.nan, np.float32)
    launch_gpu(outer, (1,), x, y, BLOCK=block, num_warps=warps, preset="a100")
    np.testing.assert_array_equal(y.reshape(block, block), np.outer(x, x))


@tile.kernel
def row_and_column_stats(x, row_max, col_sum, rows, cols, R: tile.constexpr, C: tile.constexpr):
    r, c = tile.arange(0, R), tile.arange(0, C)
    inside = (r[:, None] < rows) & (c[None, :] < cols)
    v = tile.load(x + r[:, None] * cols + c[None, :], mask=inside, other=0.0)
    tile.store(row_max + r, tile.max(tile.where(inside, v, -float("inf")), 1), mask=r < rows)
    tile.store(col_sum + c, tile.sum(v, 0), mask=c < cols)


@pytest.mark.parametrize("rows, cols, tiles, warps", [(5, 37, (8, 64), 4), (30, 7, (32, 8), 2)])
def test_reductions_along_each_axis(rows, cols, tiles, warps):
    x = random((rows, cols))
    row_max, col_sum = np.zeros(rows, np.float32), np.zeros(cols, np.float32)
    result = launch_gpu(
        row_and_column_stats, (1,), x, row_max, col_sum, rows, cols,
        R=tiles[0], C=tiles[1], num_warps=warps,
    )  # fmt: skip
    np.testing.assert_array_equal(row_max, x.max(axis=1))
    np.testing.assert_allclose(col_sum, x.sum(axis=0), rtol=1e-5, atol=1e-6)
    assert result.counters.total("inst_shuffle") > 0


@tile.kernel
def transpose_copy(x, y, N: tile.constexpr):
    i, j = tile.arange(0, N), tile.arange(0, N)
    v = tile.load(x + i[:, None] * N + j[None, :])
    tile.store(y + i[:, None] * N + j[None, :], tile.trans(v) + 1.0)


def test_transpose():
    x = random((16, 16))
    y = np.zeros_like(x)
    launch_gpu(transpose_copy, (1,), x, y, N=16)
    np.testing.assert_array_equal(y, x.T + 1.0)


def test_dot_reads_of_shared_memory_are_free_of_bank_conflicts():
    size = 128
    a, b = random((size, size)), random((size, size))
    c = np.zeros((size, size), np.float32)
    result = run_matmul(a, b, c, blocks(128, 64, 32, 8), 4)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    counters = result.counters
    loads = counters.total("shared_load_wavefronts"), counters.total("shared_load_requests")
    assert loads[0] == loads[1], f"shared loads: {loads[0]} wavefronts for {loads[1]} requests"
    stores = counters.total("shared_store_wavefronts")
    ideal = counters.total("shared_store_wavefronts_ideal")
    assert stores == ideal, f"shared stores: {stores} wavefronts, {ideal} without conflicts"
    assert counters.total("barriers") > 0


def test_a_reduction_of_a_3d_tile_names_the_op_and_interp():
    @tile.kernel
    def cube_sum(x, y):
        i = tile.arange(0, 4)
        offsets = i[:, None, None] * 16 + i[None, :, None] * 4 + i[None, None, :]
        tile.store(y + i[:, None] * 4 + i[None, :], tile.sum(tile.load(x + offsets), 0))

    v = np.zeros(64, np.float32)
    with pytest.raises(tile.TileError, match=r"'linalg.generic' at .*test_gpu_2d.py:\d+.*'interp'"):
        lower_to_gpu(cube_sum.specialize(v, v))


def mlir_and_ptx_modules(dtype):
    a = np.zeros((256, 256), dtype)
    q = np.zeros((2, 128, 64), dtype)
    strides = (256, 1, 256, 1, 256, 1)
    return {
        "matmul": gpu_module(
            matmul_kernel, a, a, a, 256, 256, 256, *strides, num_warps=4, **blocks(128, 64, 32, 8)
        ),
        "attention": gpu_module(
            attention_fwd, q, q, q, q, 128, 64, 128 * 64, 0.125,
            HEAD_DIM=64, BLOCK_M=32, BLOCK_N=32, num_warps=4,
        ),
    }  # fmt: skip


@pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="needs mlir-opt-22")
def test_gpu_ir_passes_mlir_opt():
    for name, module in mlir_and_ptx_modules(np.float16).items():
        checked = subprocess.run(
            ["mlir-opt-22", "--verify-each"], input=str(module), capture_output=True, text=True
        )
        assert checked.returncode == 0, f"{name}: {checked.stderr}"


@pytest.mark.skipif(ptxas_unavailable() is not None, reason=str(ptxas_unavailable()))
@pytest.mark.parametrize("dtype", DTYPES)
def test_ptx_assembles_without_spills(dtype):
    from tinycomp.gpu import to_ptx

    for name, module in mlir_and_ptx_modules(dtype).items():
        for preset in ("a100", "h100"):
            compiled = to_ptx(module, [], preset=preset)
            where = f"{name} {np.dtype(dtype).name} on {preset}"
            assert compiled.resources.spill_stores == 0, where
            assert compiled.resources.spill_loads == 0, where
            assert "bar.sync" in compiled.ptx or "barrier.sync" in compiled.ptx, where
            assert re.search(r"ld\.shared(\.\w+)*\.v[24]", compiled.ptx), where
            if name == "matmul" and dtype == np.float32:
                assert "fma.rn.f32" in compiled.ptx, where
            if dtype == ml_dtypes.bfloat16:
                assert re.search(r"(cvt\.f32\.bf16|shl\.b32|prmt\.b32|mov\.b32)", compiled.ptx)
