"""A stored GEMM benchmark result: round trip, ratios, table, staircase, and the stored files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tinycomp.perf.gemm_results import GemmBenchmark
from tinycomp.viz.gemm_staircase import staircase_picture

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"

DATA = {
    "cpu": "toy",
    "sizes": [256, 512, 1024],
    "gflops": {
        "naive": [2.0, 1.0, None],
        "tiled": [40.0, 50.0, 50.0],
        "blocked": [150.0, 200.0, 210.0],
        "numpy": [200.0, 230.0, 230.0],
    },
    "blocking": {"mr": 14, "nr": 32, "kc": 216, "mc": 1050, "nc": 3328},
    "numpy_blas": "OpenBLAS",
    "microkernel_peak_gflops": 250.0,
}


def test_round_trip_and_ratio(tmp_path):
    path = tmp_path / "gemm_toy.json"
    path.write_text(json.dumps(DATA))
    result = GemmBenchmark.load(path)
    assert result.to_dict() == DATA
    assert result.ratio_to_numpy() == (0.75, 0.87, 0.91)
    assert result.ratio_to_numpy("tiled") == (0.2, 0.22, 0.22)
    assert result.extra["microkernel_peak_gflops"] == 250.0


def test_table_and_staircase_show_missing_runs():
    result = GemmBenchmark.from_dict(DATA)
    rows = result.table().splitlines()
    assert rows[-1].split() == ["1024", "-", "50.0", "210.0", "230.0", "0.91"]
    picture = staircase_picture(result)
    assert "naive loops" in picture.text and "nan" in picture.text
    assert picture.svg.startswith("<svg") or "<svg" in picture.svg


@pytest.mark.parametrize("path", sorted(RESULTS.glob("gemm_*.json")), ids=lambda p: p.name)
def test_stored_gemm_results_load(path):
    result = GemmBenchmark.load(path)
    assert set(result.gflops) == {"naive", "tiled", "blocked", "numpy"}
    assert all(len(values) == len(result.sizes) for values in result.gflops.values())
    assert {"mr", "nr", "kc", "mc", "nc"} <= set(result.blocking)
