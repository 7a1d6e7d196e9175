"""The benchmark's naive and tiled + vectorized matmuls equal numpy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


variants = _load("gemm_variants")


@pytest.mark.parametrize(("m", "n", "k"), [(5, 7, 3), (17, 40, 33)])
def test_naive_and_tiled_equal_numpy(m, n, k):
    rng = np.random.default_rng(m)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    expected = a.astype(np.float64) @ b
    np.testing.assert_allclose(variants.naive_matmul(a, b)(a, b), expected, rtol=1e-5, atol=1e-5)
    tiled, report = variants.tiled_matmul(a, b, tile_sizes=(4, 16, 8), lanes=8)
    np.testing.assert_allclose(tiled(a, b), expected, rtol=1e-5, atol=1e-5)
    assert "innermost loops vectorized" in report


def test_tiled_inner_loop_is_vector_fmas():
    a = np.ones((16, 64), np.float32)
    b = np.ones((64, 64), np.float32)
    tiled, report = variants.tiled_matmul(a, b, tile_sizes=(8, 32, 16), lanes=8)
    assert "2 of 2 innermost loops vectorized" in report
    ir = tiled.cpu_module.llvm_ir
    assert "@llvm.fma.v8f32" in ir
