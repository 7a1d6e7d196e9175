"""The GEMM staircase's steps: one compile call each, equal to numpy, with the strategies named."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import tinycomp
from tinycomp.compiler import CompileOptions
from tinycomp.targets.cpu import PRESETS

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


variants = _load("gemm_variants")


def _compile(a, b, options):
    return tinycomp.compile(lambda a, b: a @ b, a, b, target="cpu", options=options)


def _chosen(program):
    """The strategies the program's kernels got (a pass that passed on a kernel says so too)."""
    return [d.strategy for d in program.decisions if d.chosen]


def _op_names(program, stage):
    return {op.name for op in program.ir(stage).walk()}


@pytest.mark.parametrize(("m", "n", "k"), [(5, 7, 3), (17, 40, 33)])
@pytest.mark.parametrize("step", ["naive", "tiled", "blocked"])
def test_every_step_equals_numpy_at_odd_shapes(step, m, n, k):
    rng = np.random.default_rng(m + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    program = _compile(a, b, variants.staircase_options()[step])
    expected = a.astype(np.float64) @ b
    np.testing.assert_allclose(program(a, b), expected, rtol=1e-5, atol=1e-5)


def test_the_steps_differ_in_what_the_compiler_did():
    a = np.ones((16, 64), np.float32)
    b = np.ones((64, 64), np.float32)
    steps = {name: _compile(a, b, o) for name, o in variants.staircase_options().items()}
    naive, tiled, blocked = steps["naive"], steps["tiled"], steps["blocked"]
    assert _chosen(naive) == [] and "vector.fma" not in _op_names(naive, "loops")
    assert "vector.fma" in _op_names(tiled, "loops")
    assert "linalg-interchange" in [s.name for s in tiled.runs["bufferized"].stages]
    assert _chosen(tiled) == []
    assert _chosen(blocked) == ["blis"]
    functions = [op for op in blocked.ir("loops").walk() if op.name == "func.func"]
    assert any("@blis_" in str(op).split("(")[0] for op in functions)
    assert ": blis (f32 matmul 16x64x64" in str(blocked)
    assert ": blis (" not in str(naive) and ": blis (" not in str(tiled)


def test_options_text_is_the_python_that_makes_them():
    texts = {name: variants.options_text(o) for name, o in variants.staircase_options().items()}
    assert texts["blocked"] == "CompileOptions()"
    assert texts["naive"] == "CompileOptions(strategies={'blis': False, 'vector': False})"
    assert "InterchangePass((0, 2, 1))" in texts["tiled"]
    assert "tile_sizes=(8, 256, 64)" in texts["tiled"]
    assert variants.options_text(CompileOptions(opt_level=0)) == "CompileOptions(opt_level=0)"


def test_kc_options_give_the_blis_pass_that_depth():
    options = variants.kc_options(PRESETS["laptop-avx2"], kc=64)
    assert "kc=64" in variants.options_text(options)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((30, 150)).astype(np.float32)
    b = rng.standard_normal((150, 20)).astype(np.float32)
    program = _compile(a, b, options)
    assert _chosen(program) == ["blis"]
    assert "KC=64" in str(next(d for d in program.decisions if d.chosen))
    np.testing.assert_allclose(program(a, b), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


def test_benchmark_script_records_each_step(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    gemm = _load("gemm")
    output = tmp_path / "gemm_toy.json"
    argv = ["gemm.py", "--sizes", "48", "--repeats", "1", "--kc-sweep", "32"]
    monkeypatch.setattr(sys, "argv", [*argv, "--output", str(output)])
    monkeypatch.setattr(gemm, "measure_microkernel_peak", lambda blocking: 1e9)
    gemm.main()
    result = gemm.GemmBenchmark.load(output)
    assert set(result.steps) == {"naive", "tiled", "blocked"}
    assert result.steps["naive"]["options"] == variants.options_text(
        variants.staircase_options()["naive"]
    )
    assert "cpu-contraction-to-blis" in result.steps["blocked"]["passes"]["bufferized"]
    assert any(": blis (f32 matmul 48x48x48" in s for s in result.steps["blocked"]["strategies"])
    assert not any(": blis (" in s for s in result.steps["naive"]["strategies"])
    assert result.extra["microkernel_loop"]["fmas"] > 0
    assert set(result.extra["kc_sweep"]) == {str(result.blocking["kc"]), "32"}
