"""The stored row benchmarks load, and their tables say what the JSON says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinycomp.perf.row_results import RowBenchmark

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
STORED = sorted(RESULTS.glob("cpu_rows_*.json"))


def test_there_is_a_stored_run():
    assert STORED, "benchmarks/results has no cpu_rows_<cpu>.json for chapter 08 to show"


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_a_stored_run_reads_back_into_its_table(path):
    run = RowBenchmark.load(path)
    assert path.stem == f"cpu_rows_{run.cpu}"
    table = run.table()
    for result in run.results:
        assert result["kernel"] in table
        measured = result["numpy_ms"] / result["tinycomp_ms"]
        assert result["ratio"] == pytest.approx(measured, abs=0.01)
        assert result["tinycomp_ms"] == result["staircase_ms"]["rows"]  # the last step
    assert list(run.staircase_options) == list(run.results[0]["staircase_ms"])
