"""The SIMT benchmark's tinycomp half computes its kernels (checked against numpy) and
its record has every field; the peers are left out (they run in their own venv)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


gpu_sim = _load("gpu_sim")
peers = sys.modules["gpu_sim_peers"]


@pytest.mark.parametrize("kernel", peers.KERNELS)
def test_each_quick_kernel_matches_numpy_and_is_timed(kernel):
    n = peers.problems(True)[kernel]["n"]
    row = gpu_sim.measure_tinycomp(kernel, n, repeats=1)
    assert row["checked"] and row["sim_ms"] > 0 and row["launch_ms"] > 0
    assert row["n"] == n and len(row["grid"]) == len(row["block"]) == 2


def test_the_checks_reject_a_wrong_result():
    arrays, check = peers.inputs("transpose", 64)
    arrays[1][:] = arrays[0]  # a copy, not a transpose
    assert not check(arrays)
    arrays, check = peers.inputs("reduce_shuffle", 4096)
    arrays[1][0] = float(arrays[0].sum()) + 1.0
    assert not check(arrays)


def test_the_quick_record_without_peers_has_every_field():
    options = argparse.Namespace(
        kernels=["vector_add", "transpose"],
        repeats=1,
        peer_repeats=1,
        quick=True,
        no_peers=True,
        peers=[],
        peer_python=sys.executable,
        timeout=1.0,
    )
    record = gpu_sim.collect(options)
    assert [row["kernel"] for row in record["results"]] == ["vector_add", "transpose"]
    assert record["quick"] and record["peers"] == {}
    memory = record["peak_memory"]
    assert memory["threads"] == 1 << 14 and memory["tracemalloc_peak_mib"] > 0
    counters = record["results"][0]["counters"]
    # 2^10 floats: 32 warps each load 2 x 4 sectors of a and b; one add per warp
    assert counters["global_load_sectors"] == 32 * 8 and counters["inst_fp32"] == 32
    assert np.isfinite(record["results"][1]["sim_ms"])


def test_a_missing_peer_is_skipped_with_a_note():
    note = gpu_sim.peer_available("triton", sys.executable + "-missing")
    assert note is not None and "triton is not installed" in note
