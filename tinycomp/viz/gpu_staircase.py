"""The SGEMM staircase on a GPU: the cost model's GFLOP/s beside what a real GPU measured.

One pair of bars per kernel of the worklog (predicted, measured), on a log scale so that
every step of the staircase is the same height for the same speed-up; the limit the model
says binds is written above each pair. The text twin is the staircase's own table.

>>> from tinycomp.testing.sgemm_staircase import Staircase, StaircaseRow
>>> rows = (StaircaseRow("naive", 284.0, 309.0, None, None, "l1/shared", 16, 1, "warps"),
...         StaircaseRow("tiled", 3645.0, 2980.0, 12.8, 9.6, "ld/st", 22, 1, "warps"))
>>> picture = gpu_staircase_picture(Staircase("a6000", 4096, 1, rows, {}))
>>> picture.text.splitlines()[-1]
'in the measured order: yes; worst step off by 1.33x'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style, new_figure

if TYPE_CHECKING:
    from tinycomp.testing.sgemm_staircase import Staircase

__all__ = ["gpu_staircase_picture"]


def gpu_staircase_picture(staircase: Staircase) -> Picture:
    """Predicted and measured GFLOP/s of each kernel of ``staircase``, side by side."""
    names = [row.kernel for row in staircase.rows]
    predicted = [row.predicted_gflops for row in staircase.rows]
    measured = [row.measured_gflops for row in staircase.rows]
    x = np.arange(len(names))
    width = 0.38
    with house_style():
        fig, ax = new_figure((8.0, 4.2))
        ax.bar(x - width / 2, predicted, width, color=PALETTE[0], label="predicted (cost model)")
        ax.bar(x + width / 2, measured, width, color=PALETTE[1], label="measured (RTX A6000)")
        for index, row in enumerate(staircase.rows):
            top = max(row.predicted_gflops, row.measured_gflops)
            ax.annotate(
                row.binding,
                (index, top),
                textcoords="offset points",
                xytext=(0, 4),
                ha="center",
                fontsize=8,
                color="#555555",
            )
        ax.set_yscale("log")
        ax.set_ylim(min(predicted + measured) / 2, max(predicted + measured) * 2.5)
        ax.set_xticks(x, names, rotation=20, ha="right")
        ax.grid(axis="x", visible=False)
        ax.set_ylabel("GFLOP/s (log scale)")
        ax.set_title(
            f"SGEMM {staircase.size}³ on {staircase.preset}: the model against the worklog"
        )
        ax.legend(loc="upper left", fontsize=9)
    return figure_to_picture(fig, str(staircase))
