"""The row benchmark's variants compute the kernels, and its record has every field."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cpu_rows = _load("cpu_rows")


@pytest.mark.parametrize("kernel", sorted(cpu_rows.NUMPY))
def test_every_variant_is_checked_and_timed(kernel):
    record = cpu_rows.measure(kernel, 5, 37, repeats=1, tile_sweep=[256])
    assert list(record["staircase_ms"]) == list(cpu_rows.STAIRCASE)
    assert list(record["tile_sweep_ms"]) == ["256"]
    assert record["shape"] == [5, 37] and record["ratio"] > 0


def test_each_step_is_compile_with_fewer_strategies_and_the_last_is_the_default():
    import numpy as np

    import tinycomp
    from tinycomp.testing import KERNELS

    kernel = KERNELS["softmax"]
    inputs = kernel.make_inputs(np.random.default_rng(0), "f32", rows=4, cols=40)
    passes = []
    for step in range(4):
        program = tinycomp.compile(
            kernel.fn, *inputs, target="cpu", options=cpu_rows.cpu_options(step)
        )
        passes.append({s.name for run in program.runs.values() for s in run.stages})
    assert "vectorize-loops" not in passes[0] and "vectorize-loops" in passes[1]
    assert "math-polynomial-approximation" not in passes[1]
    assert "math-polynomial-approximation" in passes[2] and "cpu-row-strategy" not in passes[2]
    assert "cpu-row-strategy" in passes[3]
    assert cpu_rows.cpu_options(3) == tinycomp.CompileOptions()
