"""Contractions on ``target="gpu-sim"`` as block-tiled GEMM kernels.

1. Every contraction of the catalogue, at odd shapes, in f32, f16 and bf16, equals the
   float64 numpy reference, and gets the block-tiles decision and a ``gemm`` launch;
   transposed operands (copies along M or N) and partial tiles in M, N and K too.
2. mlp2's bias is applied before the store: no launch of its own.
3. The counters show the staging: shared loads and stores, two barriers per step of K,
   and on a 128^3 matmul 16x fewer global load sectors than a thread per output
   element (see the test for why 16).
4. The tiles follow the problem: 128x128 for a large one, 16 for a short M.
5. The fallback: a matrix-vector product keeps a thread per output element, and the
   strategy turned off gives the old mapping.
6. The estimate at 4096^3 (f32) is at least the hand-written ``blocktile_2d``'s on the
   A6000 and H100 presets.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import tinycomp
import tinycomp.compiler.gpu_targets  # noqa: F401  (registers target "gpu-sim")
from tinycomp import CompileOptions
from tinycomp.frontend import TensorSpec
from tinycomp.testing import DTYPES, KERNELS, check_against_reference
from tinycomp.testing.sgemm_staircase import compiled_against_worklog

CONTRACTIONS = {
    "matmul": {"m": 13, "k": 7, "n": 19},
    "batch_matmul": {"batch": 3, "m": 7, "k": 1, "n": 13},
    "conv2d": {"n": 1, "h": 7, "w": 5, "c": 3, "f": 5, "kh": 3, "kw": 3},
    "conv2d_plain": {"n": 2, "h": 6, "w": 7, "c": 1, "f": 3, "kh": 2, "kw": 3},
    "attention": {"batch": 2, "l": 7, "s": 13, "d": 5, "dv": 3},
    "mlp2": {"m": 7, "k": 13, "hidden": 5, "n": 3},
}
LARGER = {"matmul": {"m": 150, "k": 37, "n": 70}, "conv2d": {"n": 2, "h": 11, "w": 9,
          "c": 5, "f": 17, "kh": 3, "kw": 3}}  # fmt: skip
"""Several blocks, partial tiles along M, N and K."""


def _program(fn, *inputs, options=None):
    return tinycomp.compile(fn, *inputs, target="gpu-sim", options=options)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("name", "shape"), [*CONTRACTIONS.items(), *LARGER.items()], ids=lambda x: str(x)[:20]
)
def test_every_contraction_is_block_tiled_and_equals_numpy(name, shape, dtype):
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(3), dtype, **shape)
    program = _program(kernel.trace(dtype, **shape))
    check_against_reference(kernel, program(*inputs), inputs, dtype)
    assert any(d.strategy == "block-tiles" and d.chosen for d in program.decisions)
    assert any("gemm" in launch.kernel for launch in program.native.launches)


@pytest.mark.parametrize(
    "fn", [lambda a, b: a.T @ b, lambda a, b: a @ b.T, lambda a, b: a.T @ b.T],
    ids=["a_transposed", "b_transposed", "both"],
)  # fmt: skip
def test_transposed_operands_are_copied_along_their_contiguous_loop(fn):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((2, 45, 45)).astype(np.float32)
    program = _program(fn, a, b)
    expected = fn(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(program(a, b), expected, rtol=1e-4, atol=1e-4)
    assert [launch.kernel for launch in program.native.launches] == ["main_gemm"]


def test_the_epilogue_is_applied_before_the_store():
    kernel = KERNELS["mlp2"]
    shape = CONTRACTIONS["mlp2"]
    inputs = kernel.make_inputs(np.random.default_rng(5), "f32", **shape)
    program = _program(kernel.trace("f32", **shape))
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    assert [launch.kernel for launch in program.native.launches] == ["main_gemm", "main_gemm_1"]
    assert "epilogue" in str(program)


def _matmul_launch(size: int, options: CompileOptions | None = None):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, size, size)).astype(np.float32)
    program = _program(lambda x, y: x @ y, a, b, options=options)
    np.testing.assert_allclose(program(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
    (launch,) = program.native.launches
    return launch


def test_the_counters_show_tiles_staged_in_shared_memory():
    tiled = _matmul_launch(128).counters
    naive = _matmul_launch(128, CompileOptions(strategies={"block-tiles": False})).counters
    assert tiled.total("shared_store_requests") > 0 and tiled.total("shared_load_requests") > 0
    # 16 blocks of 32x32 tiles (a100: halved until 32), 16 steps of K=8, 2 barriers each
    assert tiled.total("barriers") == 16 * 16 * 2
    flops = 2 * 128**3
    tiled_per_flop = tiled.total("global_load_sectors") / flops
    naive_per_flop = naive.total("global_load_sectors") / flops
    # A block reads each of its A and B elements once, so the sectors are those of A
    # read N/BN = 4 times and B read M/BM = 4 times: 2 * 4 * 128^2 * 4 B / 32 B = 16384.
    # A thread per element (16x16 threads, a warp is 2 rows x 16 columns) reads per
    # warp and k one sector of A per row and two of B: 262144, 16x more.
    assert tiled.total("global_load_sectors") == 2 * 4 * 128**2 * 4 // 32
    assert naive_per_flop / tiled_per_flop >= 16


def _decision(fn, *specs, sm_count: int = 84):
    from tinycomp.passes.gpu.mapping import GpuMappingPass

    mapping = GpuMappingPass(sm_count=sm_count)
    options = CompileOptions(extra_passes={"tiled": [mapping]})
    tinycomp.compile(fn, *specs, options=options, stop_after="tiled")
    return mapping.decisions


def test_the_tiles_follow_the_problem():
    (large,) = _decision(lambda a, b: a @ b, TensorSpec((2048, 512)), TensorSpec((512, 2048)))
    assert large.strategy == "block-tiles" and "128x128 tiles, BK=8, 8x8 per thread" in large.reason
    specs = TensorSpec((9, 512)), TensorSpec((512, 2048))
    (short,) = _decision(lambda a, b: a @ b, *specs, sm_count=8)
    assert "16x128 tiles, BK=16, 1x8 per thread" in short.reason  # 16 blocks: enough
    (halved,) = _decision(lambda a, b: a @ b, *specs, sm_count=84)
    assert "16x32 tiles, BK=16, 1x2 per thread" in halved.reason  # 64 blocks for 84 SMs


def test_a_matrix_vector_product_keeps_a_thread_per_output_element():
    rng = np.random.default_rng(2)
    a, v = rng.standard_normal((33, 17)).astype(np.float32), rng.standard_normal(17)
    v = v.astype(np.float32)
    program = _program(lambda a, v: (a * v).sum(axis=1), a, v)
    np.testing.assert_allclose(program(a, v), a.astype(np.float64) @ v, rtol=1e-4, atol=1e-4)
    assert not any(d.strategy == "block-tiles" for d in program.decisions)
    assert "no block tiles: one factor has no loop of its own" in str(program)


def test_turned_off_the_contraction_gets_a_thread_per_output_element():
    launch = _matmul_launch(40, CompileOptions(strategies={"block-tiles": False}))
    assert launch.kernel == "main_kernel" and launch.counters.total("barriers") == 0


@pytest.mark.parametrize("preset", ["a6000", "h100"])
def test_the_compiled_matmul_is_at_least_as_fast_as_blocktile_2d(preset):
    rows = compiled_against_worklog(preset, 4096, 2, ("blocktile_2d",))
    assert rows["compiled"].achieved_gflops >= rows["blocktile_2d"].achieved_gflops


@pytest.mark.mlir
@pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="mlir-opt-22 is not installed")
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("name", ["mlp2", "conv2d", "attention"])
def test_mlir_opt_verifies_the_block_tiled_kernels(name, dtype, tmp_path):
    path = tmp_path / f"{name}.mlir"
    program = _program(KERNELS[name].trace(dtype, **CONTRACTIONS[name]))
    path.write_text(program.stages["loops"])
    done = subprocess.run(
        ["mlir-opt-22", "--verify-each", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "gpu.barrier" in done.stdout and "workgroup" in done.stdout
