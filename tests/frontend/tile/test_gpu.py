"""Tile kernels on the SIMT simulator: one program per block, each tile spread over the
block's threads by its blocked layout. Results against numpy and the interpreter at odd
shapes (masked lanes), the gpu IR through mlir-opt, and the vector add's accesses."""

import re
import shutil
import subprocess

import numpy as np
import pytest

from tinycomp import tile
from tinycomp.codegen.gpu.ptxas import ptxas_unavailable
from tinycomp.frontend.tile.gpu_launch import gpu_module, launch_gpu
from tinycomp.frontend.tile.layout import BlockedLayout, LayoutError
from tinycomp.frontend.tile.to_gpu import lower_to_gpu

from .kernels import add_kernel, layer_norm_fwd, softmax_kernel

RNG = np.random.default_rng(11)
TOLERANCE = {np.float32: 2e-5, np.float16: 2e-2}


def random(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("n, block, warps", [(1, 128, 1), (1003, 512, 4), (777, 256, 2)])
def test_vector_add(n, block, warps):
    x, y = random(n), random(n)
    out = np.full(n, np.nan, np.float32)
    launch_gpu(add_kernel, (tile.cdiv(n, block),), x, y, out, n, BLOCK=block, num_warps=warps)
    np.testing.assert_array_equal(out, x + y)


def test_vector_add_is_coalesced_with_four_elements_per_thread():
    n, block = 4096, 512  # 4 warps of 32 threads, 4 consecutive f32 each: 128-bit accesses
    x, y = random(n), random(n)
    out = np.zeros(n, np.float32)
    result = launch_gpu(add_kernel, (n // block,), x, y, out, n, BLOCK=block, num_warps=4)
    np.testing.assert_array_equal(out, x + y)
    counters = result.counters
    assert counters.coalescing_efficiency() == 1.0
    assert counters.total("global_load_sectors") == 2 * n * 4 // 32
    assert counters.total("global_store_sectors") == n * 4 // 32
    names = [op.name for op in result.module.walk()]
    assert names.count("vector.load") == 2 and names.count("vector.store") == 1


@pytest.mark.parametrize(
    "rows, cols, stride, block, warps", [(7, 37, 41, 64, 4), (3, 300, 300, 512, 4), (4, 5, 5, 8, 1)]
)
def test_fused_softmax(rows, cols, stride, block, warps):
    padded = random((rows, stride))
    out = np.full((rows, stride), np.nan, np.float32)
    launch_gpu(
        softmax_kernel,
        (rows,),
        out,
        padded,
        stride,
        stride,
        cols,
        BLOCK_SIZE=block,
        num_warps=warps,
    )
    x = padded[:, :cols].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        out[:, :cols], e / e.sum(axis=1, keepdims=True), atol=TOLERANCE[np.float32]
    )
    assert np.isnan(out[:, cols:]).all()  # nothing written past the row


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("rows, cols, block", [(5, 37, 16), (3, 700, 512)])
def test_layernorm(dtype, rows, cols, block):
    x, w, b = random((rows, cols), dtype), random(cols, dtype), random(cols, dtype)
    y = np.zeros_like(x)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    launch_gpu(layer_norm_fwd, (rows,), x, y, w, b, mean, rstd, cols, cols, 1e-5, BLOCK_SIZE=block)
    x64 = x.astype(np.float64)
    mu, var = x64.mean(axis=1), x64.var(axis=1)
    expected_rstd = 1 / np.sqrt(var + 1e-5)
    expected = (x64 - mu[:, None]) * expected_rstd[:, None] * w + b
    tolerance = TOLERANCE[dtype]
    np.testing.assert_allclose(y.astype(np.float64), expected, atol=tolerance, rtol=tolerance)
    np.testing.assert_allclose(mean, mu, atol=1e-5)
    np.testing.assert_allclose(rstd, expected_rstd, rtol=1e-5)


def test_softmax_equals_the_interpreter():
    rows, cols = 6, 45
    x = random((rows, cols))
    on_gpu, on_interp = np.zeros_like(x), np.zeros_like(x)
    launch_gpu(softmax_kernel, (rows,), on_gpu, x, cols, cols, cols, BLOCK_SIZE=64)
    softmax_kernel[(rows,)](on_interp, x, cols, cols, cols, BLOCK_SIZE=64)
    np.testing.assert_allclose(on_gpu, on_interp, rtol=1e-6, atol=1e-7)


def test_reductions_use_shuffles_and_shared_memory():
    x = random((2, 10))
    module = gpu_module(softmax_kernel, x, x, 10, 10, 10, BLOCK_SIZE=16, num_warps=4)
    names = [op.name for op in module.walk()]
    assert names.count("gpu.shuffle") == 2 * 5  # max and sum: xor 16, 8, 4, 2, 1
    assert names.count("gpu.barrier") == 2
    assert "gpu.block_id" in names


@pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="needs mlir-opt-22")
@pytest.mark.parametrize("kernel", ["add", "softmax", "layernorm"])
def test_gpu_ir_passes_mlir_opt(kernel):
    a, v = np.zeros((3, 40), np.float32), np.zeros(40, np.float32)
    chosen, args, constexprs = {
        "add": (add_kernel, (v, v, v, 40), {"BLOCK": 512}),
        "softmax": (softmax_kernel, (a, a, 40, 40, 40), {"BLOCK_SIZE": 64}),
        "layernorm": (layer_norm_fwd, (a, a, v, v, v, v, 40, 40, 1e-5), {"BLOCK_SIZE": 16}),
    }[kernel]
    as_lowered = lower_to_gpu(chosen.specialize(*args, **constexprs), 4)
    cleaned = gpu_module(chosen, *args, num_warps=4, **constexprs)
    for module in (as_lowered, cleaned):
        checked = subprocess.run(
            ["mlir-opt-22", "--verify-each"], input=str(module), capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stderr


def test_an_uncovered_layout_is_an_error_naming_shape_and_layout():
    layout = BlockedLayout((4,), (32,), (4,), (0,))
    with pytest.raises(
        LayoutError, match=r"shape \(96,\) cannot be laid out by #blocked<\{sizePerThread"
    ):
        layout.check_covers((96,))


@tile.kernel
def centred_chunks(x, out, n, BLOCK: tile.constexpr):
    """Per row: the sum over chunks of ``x - max(chunk)`` (a reduction inside a loop)."""
    row = tile.program_id(0)
    acc = tile.zeros((BLOCK,), tile.float32)
    for off in range(0, n, BLOCK):
        cols = off + tile.arange(0, BLOCK)
        v = tile.load(x + row * n + cols, mask=cols < n, other=-float("inf"))
        acc += tile.where(cols < n, v - tile.max(v, axis=0), 0.0)
    tile.store(out + row, tile.sum(acc, axis=0))


def test_a_reduction_inside_a_loop_is_race_free():
    rows, n, block = 3, 300, 128
    x = random((rows, n))
    out = np.zeros(rows, np.float32)
    result = launch_gpu(centred_chunks, (rows,), x, out, n, BLOCK=block)  # sanitizer on
    expected = [
        sum((chunk - chunk.max()).sum() for chunk in np.split(r.astype(np.float64), [128, 256]))
        for r in x
    ]
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    assert result.counters.total("barriers") > 0


@pytest.mark.skipif(ptxas_unavailable() is not None, reason=str(ptxas_unavailable()))
def test_vector_add_assembles_to_128_bit_loads():
    from tinycomp.gpu import to_ptx

    v = np.zeros(4096, np.float32)
    compiled = to_ptx(gpu_module(add_kernel, v, v, v, 4096, BLOCK=512), [], preset="a100")
    assert len(re.findall(r"ld\.global(\.\w+)*\.v4\.(f|b)32", compiled.ptx)) == 2
    assert len(re.findall(r"st\.global(\.\w+)*\.v4\.(f|b)32", compiled.ptx)) == 1
    assert compiled.resources.spill_stores == 0


def test_the_kernel_method_launches_on_the_simulator_like_the_function():
    n = 300
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    out = np.zeros(n, np.float32)
    result = add_kernel.launch_gpu((tile.cdiv(n, 128),), x, y, out, n, BLOCK=128, num_warps=1)
    assert np.array_equal(out, x + y)
    assert result.counters.total("global_store_requests") > 0
