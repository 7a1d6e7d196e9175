"""The CPU roofline: the micro-kernel benchmark computes what it times, the kernels'
counted costs, placements on a given machine, the picture."""

from __future__ import annotations

import numpy as np

from tinycomp.codegen.cpu import jit
from tinycomp.codegen.gemm import Blocking, CpuRoofline, chapter_kernel_costs
from tinycomp.codegen.gemm.roofline import (
    ROOFLINE_SHAPES,
    measure_copy_bandwidth,
    microkernel_repeat_ir,
)

SMALL = Blocking(mr=4, nr=16, kc=24, mc=4, nc=16, lanes=8)


def test_microkernel_repeat_accumulates_every_repeat():
    module = jit(microkernel_repeat_ir(SMALL))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((SMALL.mr, SMALL.kc)).astype(np.float32)
    b = rng.standard_normal((SMALL.kc, SMALL.nr)).astype(np.float32)
    c = rng.standard_normal((SMALL.mr, SMALL.nr)).astype(np.float32)
    start = c.astype(np.float64)
    module["microkernel_repeat"](SMALL.kc, np.ascontiguousarray(a.T).ravel(), b.ravel(), c, 3)
    np.testing.assert_allclose(c, start + 3 * (a.astype(np.float64) @ b), rtol=1e-5, atol=1e-4)


def test_kernel_costs_are_counted_from_the_programs():
    costs = {c.name: c for c in chapter_kernel_costs()}
    assert list(costs) == ["softmax", "layernorm", "matmul", "conv2d"]
    matmul = costs["matmul"]
    assert matmul.flops == 2 * 1024**3
    # A and B read, C filled (written), then read and written by the matmul.
    assert matmul.bytes == 5 * 1024 * 1024 * 4
    conv = costs["conv2d"]
    assert conv.flops == 2 * 28 * 28 * 64 * 3 * 3 * 64  # stride 2: a 28x28 output
    assert costs["softmax"].intensity < 1 < conv.intensity


def test_placements_on_a_stored_machine():
    roofline = CpuRoofline.from_dict(
        {"name": "core", "peak_gflops": 250.0, "bandwidth_gbs": 25.0, "notes": {"cpu": "x"}}
    )
    assert roofline.machine.ridge_point == 10.0
    placed = {p.name: p for p in roofline.placements()}
    assert placed["softmax"].bound == "memory"
    assert placed["matmul"].bound == "compute"
    assert placed["matmul"].attainable_gflops == 250.0
    softmax = placed["softmax"]
    assert softmax.attainable_gflops == round(softmax.intensity * 25.0, 2)
    again = CpuRoofline.from_dict(roofline.to_dict())
    assert again.machine == roofline.machine and again.notes == {"cpu": "x"}
    picture = roofline.picture()
    assert picture.text == roofline.table()
    assert "softmax" in picture.text and "<svg" in picture.svg


def test_measurements_are_positive_and_shapes_cover_the_chapter():
    assert measure_copy_bandwidth(megabytes=2, trials=1) > 0
    assert sorted(ROOFLINE_SHAPES) == ["conv2d", "layernorm", "matmul", "softmax"]
