"""The real-GPU benchmark's quick run: without a GPU it says why in one line, exits 0 and
writes nothing; with one, every kernel is checked against numpy and timed. Its numpy
check rejects a wrong result and its preset follows the GPU's name."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tinycomp.gpu.devices import device_unavailable
from tinycomp.testing.kernels import KERNELS

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_device.py"
CUDA_REASON = device_unavailable("cuda")


def _load():
    spec = importlib.util.spec_from_file_location("gpu_device", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpu_device = _load()


def test_the_quick_run_exits_0_and_says_why_without_a_gpu_or_measures_with_one(tmp_path):
    output = tmp_path / "record.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick", "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    if CUDA_REASON is not None:
        assert done.stdout.strip().splitlines() == [
            f"gpu_device: skipped, no GPU to measure on: {CUDA_REASON}"
        ]
        assert not output.exists()
        return
    record = json.loads(output.read_text())
    assert record["preset"] == gpu_device.preset_for(record["device"])
    assert [row["kernel"] for row in record["results"]] == sorted(KERNELS)[:2]
    for row in record["results"]:
        assert row["measured_us"] > 0 and row["estimate_us"] > 0
        assert row["ratio"] == row["measured_us"] / row["estimate_us"]


@pytest.mark.parametrize("name", ["softmax", "matmul"])
def test_the_numpy_check_accepts_the_reference_and_rejects_a_wrong_result(name):
    inputs = KERNELS[name].make_inputs(np.random.default_rng(7), "f32")
    right = KERNELS[name].reference(*inputs).astype(np.float32)
    assert gpu_device.checked_error(name, right, inputs) < 1e-5
    wrong = right.copy()
    wrong.flat[np.random.default_rng(8).integers(wrong.size)] += 1.0
    with pytest.raises(AssertionError, match=f"{name} on cuda: differs from numpy"):
        gpu_device.checked_error(name, wrong, inputs)


@pytest.mark.parametrize(
    ("device", "preset"),
    [
        ("NVIDIA H100 80GB HBM3", "h100"),
        ("NVIDIA A100-SXM4-80GB", "a100"),
        ("NVIDIA RTX A6000", "a6000"),
        ("NVIDIA GeForce RTX 4090", "h100"),
    ],
)
def test_the_preset_follows_the_gpu_name(device, preset):
    assert gpu_device.preset_for(device) == preset


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_a_full_size_softmax_on_the_gpu_is_checked_and_timed():
    row = gpu_device.measure_kernel("softmax", {"rows": 1024, "cols": 1024}, "h100", 2, 3)
    assert row["max_abs_error"] < 1e-4 and row["measured_us"] > 0
