"""The NPU simulator benchmark's quick run: every part of its record is there, each run
was checked against numpy inside the benchmark, and its counts add up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "npu_sim.py"


def test_the_quick_run_records_softmax_scaling_and_per_op_costs():
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick", "--no-write"],
        capture_output=True,
        text=True,
        check=True,
    )
    record = json.loads(done.stdout)
    softmax = record["softmax"]
    assert (softmax["rows"], softmax["cols"], softmax["blocks"]) == (960, 1024, 48)
    assert softmax["instructions"] > 48 and softmax["ratio_to_numpy"] > 0
    assert softmax["us_per_instruction"] == softmax["sim_s"] / softmax["instructions"] * 1e6
    assert [row["blocks"] for row in record["cores"]] == [1, 6, 12]
    # 20 rows a core: the instructions grow with the cores
    counts = [row["instructions"] for row in record["cores"]]
    assert counts == sorted(counts) and counts[-1] > 6 * counts[0]
    tiles = {row["rows_per_tile"]: row["instructions"] for row in record["tiles"]}
    assert tiles[4] < tiles[1]  # fewer, larger tiles: fewer copies and flags
    kernels = [row["kernel"] for row in record["per_op"]]
    assert kernels == ["vector_add", "softmax_rows", "cube_matmul"]
    for row in record["per_op"]:
        assert abs(row["functional_s"] + row["schedule_s"] - row["total_s"]) < 1e-9
