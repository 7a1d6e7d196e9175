"""gpu_roofline_picture: kernels at their intensity and achieved rate under the roofs."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.preset import lookup_preset
from tinycomp.viz.gpu_roofline import gpu_roofline_picture

N = 4096
FLOPS = 2 * N**3
# The SGEMM worklog's A6000 figures (GFLOP/s), with DRAM traffic from reuse guesses.
STAIRCASE = [
    ("naive", FLOPS, 12 * N * N * 64, FLOPS / 309.0e9),
    ("coalesced", FLOPS, 12 * N * N * 16, FLOPS / 1986.5e9),
    ("warp tiling", FLOPS, 12 * N * N, FLOPS / 21779.3e9),
]


def test_text_twin_of_the_staircase():
    assert gpu_roofline_picture("a6000", STAIRCASE).text == (
        "roofline of a6000 (FP32): peak 38.71 TFLOP/s, 768 GB/s, ridge at 50.4 FLOP/byte\n"
        "  kernel       FLOP/byte  achieved GFLOP/s  roof GFLOP/s  of roof  bound\n"
        "  naive        10.67      309               8192          3.77%    memory\n"
        "  coalesced    42.67      1986              32768         6.06%    memory\n"
        "  warp tiling  682.7      21779             38707         56.3%    compute"
    )


def test_numbers_match_numpy_on_random_kernels():
    rng = np.random.default_rng(4)
    preset = lookup_preset("h100")
    peak = 2 * preset.fp32_lanes_per_sm * preset.sm_count * preset.clock_ghz * 1e9
    flops = rng.uniform(1e9, 1e12, 6)
    dram = rng.uniform(1e8, 1e11, 6)
    seconds = rng.uniform(1e-3, 1.0, 6)
    points = [(f"k{i}", flops[i], dram[i], seconds[i]) for i in range(6)]
    rows = gpu_roofline_picture(preset, points).text.splitlines()[2:]
    roof = np.minimum(peak, flops / dram * preset.dram_gb_per_s * 1e9)
    for row, f, b, s, r in zip(rows, flops, dram, seconds, roof, strict=True):
        name, intensity, achieved, top, share, bound = row.split()
        assert float(intensity) == pytest.approx(f / b, rel=1e-3)
        assert float(achieved) == pytest.approx(f / s / 1e9, rel=1e-3, abs=0.5)
        assert float(top) == pytest.approx(r / 1e9, rel=1e-3, abs=0.5)
        assert float(share.rstrip("%")) == pytest.approx(100 * f / s / r, rel=1e-2)
        assert bound == ("memory" if r < peak else "compute")


def test_picture_is_well_formed_and_deterministic():
    first, second = (
        gpu_roofline_picture("a6000", STAIRCASE),
        gpu_roofline_picture("a6000", STAIRCASE),
    )
    assert first.svg == second.svg
    ET.fromstring(first.svg)


def test_bad_points_are_clear_errors():
    with pytest.raises(ValueError, match="kernel 'naive': expected seconds > 0, got 0"):
        gpu_roofline_picture("a6000", [("naive", 1e9, 1e6, 0)])
    with pytest.raises(ValueError, match=r"expected a point \(name, flops, dram_bytes, seconds\)"):
        gpu_roofline_picture("a6000", [("naive", 1e9, 1e6)])
