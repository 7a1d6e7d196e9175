"""The blocked GEMM equals numpy's matmul on random inputs at many shapes, edges included,
and the generated module agrees with the reference interpreter and with mlir-opt."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.codegen.errors import CodegenError
from tinycomp.passes.bufferize import run_bufferized
from tinycomp.targets.cpu.blis import BlockedGemm, Blocking, choose_blocking
from tinycomp.targets.cpu.machine import detect_machine

SMALL = Blocking(mr=3, nr=8, kc=5, mc=6, nc=16, lanes=4)
"""Tiny blocks, so small matrices cross every edge: partial MR, NR, KC, MC and NC blocks."""


@pytest.fixture(scope="module")
def small_gemm() -> BlockedGemm:
    return BlockedGemm(SMALL)


@pytest.fixture(scope="module")
def host_gemm() -> BlockedGemm:
    return BlockedGemm(choose_blocking(detect_machine()))


def random_matrices(seed: int, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    return a, b


def assert_matmul(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    expected = a.astype(np.float64) @ b.astype(np.float64)
    k = a.shape[1]
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=2e-6 * k)


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 23), seed=st.integers(0, 99))
def test_small_blocks_equal_numpy(small_gemm, m, n, k, seed):
    a, b = random_matrices(seed, m, n, k)
    assert_matmul(small_gemm(a, b), a, b)


@pytest.mark.parametrize(
    ("m", "n", "k"),
    [(1, 1, 1), (14, 32, 216), (15, 33, 217), (97, 131, 433), (300, 70, 5), (3, 1000, 64)],
)
def test_host_blocking_equals_numpy(host_gemm, m, n, k):
    a, b = random_matrices(m * n + k, m, n, k)
    assert_matmul(host_gemm(a, b), a, b)


def test_larger_than_one_block_in_every_loop(host_gemm):
    b = host_gemm.blocking
    m, n, k = b.mc + 7, 2 * b.nr + 5, 2 * b.kc + 3  # several ic, jr and pc blocks
    a_matrix, b_matrix = random_matrices(1, m, n, k)
    assert_matmul(host_gemm(a_matrix, b_matrix), a_matrix, b_matrix)


def test_several_nc_panels():
    blocking = Blocking(mr=4, nr=16, kc=32, mc=8, nc=32, lanes=8)
    a, b = random_matrices(2, 9, 100, 70)  # 4 panels of NC = 32 columns
    assert_matmul(BlockedGemm(blocking)(a, b), a, b)


def test_output_argument_and_views(small_gemm):
    a, b = random_matrices(3, 11, 13, 9)
    out = np.full((11, 13), np.nan, dtype=np.float32)
    assert small_gemm(a, b, out) is out
    assert_matmul(out, a, b)
    transposed = np.asfortranarray(a.T).T  # a non-C-contiguous view of the same values
    assert_matmul(small_gemm(transposed, b[:, ::1]), a, b)


def test_empty_and_zero_depth(small_gemm):
    a, b = random_matrices(4, 5, 6, 0)
    assert np.array_equal(small_gemm(a, b), np.zeros((5, 6), np.float32))
    assert small_gemm(*random_matrices(4, 0, 6, 3)).shape == (0, 6)


def test_interpreter_agrees_with_native_code(small_gemm):
    a, b = random_matrices(5, 7, 19, 9)
    a_size, b_size = small_gemm.packed_sizes(7, 19, 9)
    interpreted, _, _ = run_bufferized(
        small_gemm.ir, a, b, entry="gemm", output_shapes=[(7, 19), (a_size,), (b_size,)]
    )
    np.testing.assert_array_equal(small_gemm(a, b), interpreted)
    assert_matmul(interpreted, a, b)


def test_bad_operands_are_named(small_gemm):
    a, b = random_matrices(6, 4, 5, 3)
    with pytest.raises(CodegenError, match=r"a's columns to equal b's rows, got a \(4, 3\)"):
        small_gemm(a, b.T.copy())
    with pytest.raises(
        CodegenError, match="expected b to be a 2-D float32 matrix, got 2-D float64"
    ):
        small_gemm(a, b.astype(np.float64))
    with pytest.raises(CodegenError, match="expected a to be a numpy array"):
        small_gemm([[1.0]], b)
    with pytest.raises(
        CodegenError, match=r"out to be a C-contiguous float32 array of shape \(4, 5\)"
    ):
        small_gemm(a, b, np.empty((5, 4), np.float32))


@pytest.mark.mlir
@pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="mlir-opt-22 is not installed")
def test_mlir_opt_accepts_and_lowers_the_module(tmp_path, host_gemm):
    path = tmp_path / "gemm.mlir"
    path.write_text(host_gemm.ir)
    flags = ["--convert-scf-to-cf", "--convert-to-llvm", "--reconcile-unrealized-casts"]
    done = subprocess.run(["mlir-opt-22", str(path), *flags], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # MLIR lowers vector.fma to llvm.intr.fmuladd (tinycomp's emitter: @llvm.fma).
    assert "llvm.intr.fmuladd" in done.stdout or "llvm.intr.fma" in done.stdout


def test_laptop_preset_compiled_for_an_avx2_cpu():
    """The AVX2 preset's blocking, generated for LLVM's ``skylake`` (a subset of this
    host's instructions when the host has AVX-512): ymm FMAs, still correct."""
    from tinycomp.codegen.cpu.assembly_stats import hot_loop
    from tinycomp.targets.cpu.machine import PRESETS

    if detect_machine().isa not in ("AVX2", "AVX-512"):
        pytest.skip("needs an x86 host with AVX2")
    gemm = BlockedGemm(choose_blocking(PRESETS["laptop-avx2"]), cpu="skylake")
    a, b = random_matrices(8, 50, 70, 200)
    assert_matmul(gemm(a, b), a, b)
    loop = hot_loop(gemm.assembly())
    assert loop.fma_registers == "ymm" and loop.spills == 0
