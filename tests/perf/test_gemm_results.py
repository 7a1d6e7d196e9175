"""Stored CPU benchmark results: round trip, ratios, tables, staircase, and the stored files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tinycomp.perf.gemm_results import ContractionBenchmark, GemmBenchmark
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
    "steps": {
        "naive": {
            "options": "CompileOptions(strategies={'blis': False, 'vector': False})",
            "passes": {"loops": ["convert-linalg-to-loops", "canonicalize"]},
            "strategies": [],
        },
        "blocked": {
            "options": "CompileOptions()",
            "passes": {"bufferized": ["one-shot-bufferize", "cpu-contraction-to-blis"]},
            "strategies": [
                "%matmul: loops (%matmul is a contraction)",
                "linalg.generic: blis (f32 matmul 256x256x256, MR=14 NR=32)",
            ],
        },
    },
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
    assert "steps" not in result.extra


def test_steps_table_shows_options_passes_and_strategies():
    lines = GemmBenchmark.from_dict(DATA).steps_table().splitlines()
    assert lines[0].split() == [
        "naive",
        "CompileOptions(strategies={'blis':",
        "False,",
        "'vector':",
        "False})",
    ]
    assert lines[1].strip() == "loops: convert-linalg-to-loops, canonicalize"
    assert lines[2].strip() == "strategies: none listed"
    assert lines[3].split() == ["blocked", "CompileOptions()"]
    assert lines[5].strip() == "strategies: %matmul: loops (%matmul is a contraction)"
    assert lines[6].startswith(" " * 23 + "linalg.generic: blis (f32 matmul 256x256x256")


def test_a_result_without_steps_round_trips_without_them():
    old = {k: v for k, v in DATA.items() if k != "steps"}
    result = GemmBenchmark.from_dict(old)
    assert result.steps == {} and result.to_dict() == old and result.steps_table() == ""


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
    for name, step in result.steps.items():
        assert name in result.gflops and step["options"].startswith("CompileOptions(")
    if "blocked" in result.steps:
        assert any(": blis (" in decision for decision in result.steps["blocked"]["strategies"])


CONTRACTIONS = {
    "cpu": "toy",
    "numpy_blas": "OpenBLAS",
    "machine": "toy core",
    "cases": [
        {
            "case": "matmul 256^3",
            "tinycomp_gflops": 47.46,
            "numpy_gflops": 61.96,
            "ratio": 0.766,
            "target": 0.6,
            "compile_seconds_o3": 1.025,
            "decisions": ["linalg.generic: blis (...)"],
        },
        {
            "case": "conv2d 4x56x56x64 * 3x3x64x64, pad 1",
            "tinycomp_gflops": 36.91,
            "numpy_gflops": 43.07,
            "ratio": 0.857,
            "target": 0.5,
            "compile_seconds_o3": 0.789,
            "decisions": [],
        },
    ],
}


def test_contraction_table_has_a_row_per_case():
    run = ContractionBenchmark.from_dict(CONTRACTIONS)
    lines = run.table().splitlines()
    assert lines[0].startswith('contractions f32 through compile(..., target="cpu") on toy')
    assert lines[2].split() == ["matmul", "256^3", "47.5", "62.0", "0.77", "0.6", "1.02"]
    assert lines[3].split()[-5:] == ["36.9", "43.1", "0.86", "0.5", "0.79"]
    assert run.machine == "toy core"


@pytest.mark.parametrize(
    "path", sorted(RESULTS.glob("cpu_contractions_*.json")), ids=lambda p: p.name
)
def test_stored_contraction_results_load(path):
    run = ContractionBenchmark.load(path)
    assert run.cpu in path.name and run.cases
    table = run.table().splitlines()
    assert len(table) == 2 + len(run.cases)
    for case in run.cases:
        assert case["ratio"] == pytest.approx(
            case["tinycomp_gflops"] / case["numpy_gflops"], abs=0.01
        )
