"""Draw kernels on a machine's roofline, as a picture whose text twin is ``roofline_table``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tinycomp.perf.roofline import KernelCost, Machine
from tinycomp.perf.roofline_table import roofline_table
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, new_figure

__all__ = ["roofline_picture"]


def roofline_picture(machine: Machine, kernels: Sequence[KernelCost]) -> Picture:
    """A log-log roofline of ``machine`` with each kernel placed at its intensity.

    >>> from tinycomp.perf.roofline import H100_FP32, matmul_cost
    >>> picture = roofline_picture(H100_FP32, [matmul_cost(64, 64, 64)])
    >>> picture.text.splitlines()[2].split()[-2:]
    ['memory', '35.73']
    """
    intensities = [kernel.intensity for kernel in kernels] + [machine.ridge_point]
    low = min(intensities) / 4
    high = max(intensities) * 4
    x = np.geomspace(low, high, 200)
    roof = np.minimum(machine.peak_flops, x * machine.bandwidth) / 1e12

    fig, ax = new_figure(figsize=(6.5, 4.0))
    ax.plot(x, roof, color="#444444", linewidth=2, label="roof")
    ax.axvline(machine.ridge_point, color="#999999", linestyle=":", linewidth=1)
    ax.annotate(
        f"ridge {machine.ridge_point:.3g}",
        (machine.ridge_point, roof.min()),
        textcoords="offset points",
        xytext=(4, 4),
        color="#666666",
        fontsize=9,
    )
    for index, kernel in enumerate(kernels):
        attainable = machine.attainable(kernel.intensity) / 1e12
        color = PALETTE[index % len(PALETTE)]
        ax.plot([kernel.intensity], [attainable], "o", color=color, markersize=8)
        ax.annotate(
            kernel.name,
            (kernel.intensity, attainable),
            textcoords="offset points",
            xytext=(6, -12),
            color=color,
            fontsize=9,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("attainable TFLOP/s")
    ax.set_title(machine.name)
    return figure_to_picture(fig, roofline_table(machine, kernels))
