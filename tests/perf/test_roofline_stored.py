"""One roofline for every machine: placements, the stored form, the picture, the stored files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tinycomp.perf.roofline import KernelCost, Machine, kernels_from_dict, matmul_cost
from tinycomp.perf.roofline_table import roofline_table
from tinycomp.viz.roofline_plot import roofline_picture

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def test_placements_and_round_trip():
    core = Machine("core", peak_flops=250e9, bandwidth=25e9, notes={"cpu": "x"})
    kernels = [KernelCost("softmax", flops=5e6, bytes=8e6), matmul_cost(1024, 1024, 1024)]
    placed = {p.name: p for p in core.placements(kernels)}
    assert placed["softmax"].bound == "memory"
    assert placed["softmax"].attainable_gflops == round(5 / 8 * 25.0, 2)
    assert placed["matmul 1024x1024x1024"].bound == "compute"
    assert placed["matmul 1024x1024x1024"].attainable_gflops == 250.0
    stored = core.to_dict(kernels)
    again = Machine.from_dict(stored)
    assert again == core and again.notes == {"cpu": "x"}
    assert kernels_from_dict(stored) == kernels
    picture = roofline_picture(again, kernels_from_dict(stored))
    assert picture.text == roofline_table(core, kernels)
    assert "softmax" in picture.text and "<svg" in picture.svg


@pytest.mark.parametrize("path", sorted(RESULTS.glob("cpu_roofline_*.json")), ids=lambda p: p.name)
def test_stored_rooflines_load(path):
    data = json.loads(path.read_text())
    machine = Machine.from_dict(data)
    assert machine.peak_flops > machine.bandwidth > 0
    kernels = kernels_from_dict(data)
    assert [k.name for k in kernels] == ["softmax", "layernorm", "matmul", "conv2d"]
    assert [p._asdict() for p in machine.placements(kernels)] == [
        {key: k[key] for key in ("name", "intensity", "bound", "attainable_gflops")}
        for k in data["kernels"]
    ]
