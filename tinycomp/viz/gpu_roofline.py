"""GPU kernels on their preset's roofline: how far below the roof each one runs.

``gpu_roofline_picture(preset, points)`` draws the preset's two roofs (the FP32 peak and
the DRAM bandwidth times the intensity; ``roofline_machine`` of
``tinycomp.targets.gpu_sim.roofline_place``, a ``perf.roofline.Machine``) on log-log
axes and places each kernel at its arithmetic intensity (FLOPs per DRAM byte) and the
GFLOP/s it *achieved* (FLOPs over its time), with a dotted line up to the roof above it:
the room left. A point is ``(name, flops, dram_bytes, seconds)``, measured or estimated.

>>> point = ("naive sgemm", 2 * 4096**3, 4 * 3 * 4096**2 * 64, 0.4448)
>>> print(gpu_roofline_picture("a6000", [point]).text)
roofline of a6000 (FP32): peak 38.71 TFLOP/s, 768 GB/s, ridge at 50.4 FLOP/byte
  kernel       FLOP/byte  achieved GFLOP/s  roof GFLOP/s  of roof  bound
  naive sgemm  10.67      309               8192          3.77%    memory
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tinycomp.perf.roofline import Machine
from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.targets.gpu_sim.roofline_place import roofline_machine
from tinycomp.viz.bytes_chart import text_table
from tinycomp.viz.gpu_access import percent
from tinycomp.viz.palette import swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import figure_to_picture, new_figure

__all__ = ["KernelPoint", "gpu_roofline_picture", "gpu_roofline_text"]

KernelPoint = tuple[str, float, float, float]
"""``(name, flops, dram_bytes, seconds)``."""
ROOF = "#444444"


def _checked(points: Sequence[KernelPoint]) -> list[KernelPoint]:
    """The points, each with positive FLOPs, bytes and seconds (a clear error if not)."""
    found = []
    for point in points:
        if len(point) != 4:
            raise ValueError(f"expected a point (name, flops, dram_bytes, seconds), got {point!r}")
        name, flops, dram_bytes, seconds = point
        for what, value in (("flops", flops), ("dram_bytes", dram_bytes), ("seconds", seconds)):
            if not value > 0:
                raise ValueError(f"kernel {name!r}: expected {what} > 0, got {value!r}")
        found.append((str(name), float(flops), float(dram_bytes), float(seconds)))
    return found


def _g(value: float) -> str:
    """Four significant digits, and whole numbers from 1000 up (``15971``, not ``1.597e+04``)."""
    return f"{value:.0f}" if value >= 1000 else f"{value:.4g}"


def gpu_roofline_text(machine: Machine, points: Sequence[KernelPoint]) -> str:
    """The text twin of ``gpu_roofline_picture`` (module docstring)."""
    lines = [
        f"roofline of {machine.name}: peak {machine.peak_flops / 1e12:.4g} TFLOP/s, "
        f"{machine.bandwidth / 1e9:.4g} GB/s, ridge at {machine.ridge_point:.3g} FLOP/byte"
    ]
    rows = []
    for name, flops, dram_bytes, seconds in _checked(points):
        intensity = flops / dram_bytes
        achieved, roof = flops / seconds, machine.attainable(intensity)
        rows.append([name, _g(intensity), _g(achieved / 1e9), _g(roof / 1e9),
                     percent(achieved / roof), machine.bound(intensity)])  # fmt: skip
    headers = ["kernel", "FLOP/byte", "achieved GFLOP/s", "roof GFLOP/s", "of roof", "bound"]
    return "\n".join(lines + text_table(headers, rows))


def gpu_roofline_picture(preset: str | GpuPreset, points: Sequence[KernelPoint]) -> Picture:
    """The roofline of ``preset`` with each kernel at its intensity and achieved rate
    (module docstring).

    >>> picture = gpu_roofline_picture("classroom", [("copy", 1e6, 8e6, 1e-3)])
    >>> picture.text.splitlines()[-1].split()[-2:]
    ['25%', 'memory']
    """
    machine = roofline_machine(lookup_preset(preset))
    checked = _checked(points)
    intensities = [flops / dram for _, flops, dram, _ in checked] + [machine.ridge_point]
    x = np.geomspace(min(intensities) / 4, max(intensities) * 4, 200)
    roof = np.minimum(machine.peak_flops, x * machine.bandwidth) / 1e9
    fig, ax = new_figure(figsize=(9.0, 4.8))
    ax.plot(x, roof, color=ROOF, linewidth=2.2, label="roof: min(peak, intensity x bandwidth)")
    ax.axvline(machine.ridge_point, color="#999999", linestyle=":", linewidth=1)
    ax.annotate(f"ridge {machine.ridge_point:.3g} FLOP/byte", (machine.ridge_point, 0.03),
                xycoords=("data", "axes fraction"), textcoords="offset points", xytext=(4, 0),
                color="#555555", fontsize=9)  # fmt: skip
    for (name, flops, dram, seconds), swatch in zip(checked, swatches(len(checked)), strict=True):
        intensity, achieved = flops / dram, flops / seconds / 1e9
        top = machine.attainable(intensity) / 1e9
        ax.plot([intensity, intensity], [achieved, top], color=swatch.color, linestyle=":",
                linewidth=1.2)  # fmt: skip
        share = percent(achieved * 1e9 / machine.attainable(intensity))
        ax.plot([intensity], [achieved], "o", color=swatch.color, markersize=9,
                markeredgecolor="black", label=f"{name} ({share} of roof)")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"{machine.name}: how far below the roof does each kernel run?")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9)
    return figure_to_picture(fig, gpu_roofline_text(machine, checked))
