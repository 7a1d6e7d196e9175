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


def test_the_last_step_is_the_row_strategy():
    steps = [cpu_rows.cpu_options(n).extra_passes for n in range(4)]
    assert [len(s.get("loops", [])) for s in steps] == [0, 1, 2, 2]
    assert "tiled" not in steps[2] and type(steps[3]["tiled"][0]).__name__ == "RowStrategyPass"
