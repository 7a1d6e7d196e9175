"""The GEMM staircase: GFLOPS against size for every step of a stored benchmark run.

Each step of the staircase is the same ``tinycomp.compile(..., target="cpu")`` call with
options that let the compiler use one more thing it knows about the machine (naive loops,
tiled and vectorized loops, the BLIS strategy), with numpy on one thread on top; the data
is a ``tinycomp.perf.gemm_results.GemmBenchmark`` read from ``benchmarks/results/``.

>>> from tinycomp.perf.gemm_results import GemmBenchmark
>>> result = GemmBenchmark.from_dict({"cpu": "toy", "sizes": [256, 512],
...     "gflops": {"naive": [2.0, 1.5], "numpy": [200.0, 210.0]}})
>>> print(staircase_picture(result).text.splitlines()[0])
line chart "GEMM f32 on toy, one thread" (x: log2, y: log)
"""

from __future__ import annotations

from tinycomp.perf.gemm_results import LABELS, VARIANTS, GemmBenchmark
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import line_chart

__all__ = ["staircase_picture"]


def staircase_picture(result: GemmBenchmark) -> Picture:
    """GFLOPS against size for every step of ``result``, log scales (a missing run is a gap)."""
    series = {
        LABELS[name]: [value if value is not None else float("nan") for value in values]
        for name, values in ((n, result.gflops[n]) for n in VARIANTS if n in result.gflops)
    }
    return line_chart(
        list(result.sizes),
        series,
        title=f"GEMM f32 on {result.cpu}, one thread",
        xlabel="n (n x n x n)",
        ylabel="GFLOPS",
        xscale="log2",
        yscale="log",
    )
