"""The tile DSL's matmul and softmax (``tile_tutorials.py``) estimated on a preset, the way
the compiled kernels are, so the two can be set side by side (``benchmarks/gpu_compile.py``).

* ``tile_matmul_estimate``: Triton's grouped matmul, f32, ``size``^3, run with a few
  sampled blocks at the two depths ``ESTIMATE_DEPTHS``, the counters extrapolated to
  ``K = size`` (each is affine in K), then the cost model with ``flops = 2 size^3``,
  exactly as ``compiled_matmul_estimate`` does for ``tinycomp.compile(a @ b)``;
* ``tile_softmax_estimate``: the fused softmax, one program per row, sampled blocks.

The inputs are zeros: a sampled run writes nothing back and the counters do not depend on
the values (the tests check the results on random inputs).

>>> est = tile_softmax_estimate(64, 256, "a6000", sample_blocks=1)
>>> est.binding in ("dram", "latency", "issue", "l2", "launch")
True
"""

from __future__ import annotations

import numpy as np

from tinycomp import tile
from tinycomp.compiler.gpu_targets import ESTIMATE_DEPTHS
from tinycomp.frontend.tile.gpu_launch import launch_gpu
from tinycomp.targets.gpu_sim.cost_model import Estimate, estimate
from tinycomp.targets.gpu_sim.counters import extrapolate_counters
from tinycomp.testing.tile_tutorials import matmul_kernel, softmax_kernel

__all__ = ["MATMUL_TILES", "SOFTMAX_WARPS", "tile_matmul_estimate", "tile_softmax_estimate"]

MATMUL_TILES = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
"""The tile matmul's block sizes (4 warps): one of the configurations Triton's tutorial
autotunes over."""
MATMUL_WARPS = 4
SOFTMAX_WARPS = 8
"""Warps per softmax program (Triton's tutorial: 8 for rows of 2048 or fewer elements)."""


def tile_matmul_estimate(
    size: int = 4096, preset: str = "a6000", sample_blocks: int = 2
) -> Estimate:
    """The tile-DSL matmul at ``size``^3 on ``preset`` (module docstring)."""
    runs = []
    for depth in ESTIMATE_DEPTHS:
        a = np.zeros((size, depth), np.float32)
        b = np.zeros((depth, size), np.float32)
        c = np.zeros((size, size), np.float32)
        grid = (
            tile.cdiv(size, MATMUL_TILES["BLOCK_SIZE_M"])
            * tile.cdiv(size, MATMUL_TILES["BLOCK_SIZE_N"]),
        )
        strides = [*tile.element_strides(a), *tile.element_strides(b), *tile.element_strides(c)]
        runs.append(
            launch_gpu(
                matmul_kernel, grid, a, b, c, size, size, depth, *strides,
                num_warps=MATMUL_WARPS, preset=preset, sanitize=False,
                sample_blocks=sample_blocks, **MATMUL_TILES,
            )
        )  # fmt: skip
    counters = extrapolate_counters(runs[0].counters, runs[1].counters, ESTIMATE_DEPTHS, size)
    matrix = size * size * 4
    last = runs[-1]
    return estimate(
        counters, last.preset, last.occupancy, flops=2.0 * size**3,
        array_bytes={"a_ptr": matrix, "b_ptr": matrix, "c_ptr": matrix},
    )  # fmt: skip


def tile_softmax_estimate(
    rows: int = 8192, cols: int = 1024, preset: str = "a6000", sample_blocks: int = 4
) -> Estimate:
    """The tile-DSL fused softmax of ``rows x cols`` f32 on ``preset`` (module docstring)."""
    x = np.zeros((rows, cols), np.float32)
    out = np.zeros_like(x)
    block = 1 << max(0, (cols - 1).bit_length())
    launch = launch_gpu(
        softmax_kernel, (rows,), out, x, cols, cols, cols, BLOCK_SIZE=block,
        num_warps=SOFTMAX_WARPS, preset=preset, sanitize=False, sample_blocks=sample_blocks,
    )  # fmt: skip
    return launch.estimate
