"""The GPU compile benchmark's quick run: every part of its record is there, the row
kernels' estimates sit beside a roofline of the bytes they must move, and each kernel's
compile to PTX is split into its steps."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_compile.py"


def test_the_quick_run_records_rows_matmul_and_compile_times():
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick", "--no-write"],
        capture_output=True,
        text=True,
        check=True,
    )
    record = json.loads(done.stdout)
    assert record["quick"] and record["arch"] == "sm_80"
    assert [row["kernel"] for row in record["rows"]] == ["softmax", "layernorm"]
    for row in record["rows"]:
        # 512x1024 f32 read and written once (layernorm also reads gamma and beta)
        assert row["roofline_bytes"] >= 2 * 512 * 1024 * 4
        assert row["estimate_us"] > 0 and row["ratio"] == row["estimate_us"] / row["roofline_us"]
        assert row["binding"] in row["breakdown"]
    (matmul,) = record["matmul"]
    assert set(matmul["kernels"]) == {"compiled", "blocktile_2d", "vectorized", "warptile"}
    assert all(k["gflops"] > 0 for k in matmul["kernels"].values())
    assert [row["kernel"] for row in record["compile"]] == ["attention", "batch_matmul"]
    for row in record["compile"]:
        assert row["compile_s"] > 0 and row["prepare_s"] > 0 and row["ptx_lines"] > 0
