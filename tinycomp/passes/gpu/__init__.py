"""The GPU lowering of tensor programs: kernels mapped to a grid, then outlined.

=======================  =============================================================
``mapping.py``           ``gpu-map-kernels``: one tile per thread (or a block per row),
                         the tile loops bound to the grid; contractions left whole
``contraction_roles.py`` a contraction's M, N, K and batch loops; its block tiles
``block_tile_kernel.py`` the block-tiled GEMM kernel of one contraction
``block_tiles.py``       ``gpu-contraction-block-tiles``: contractions on buffers become
                         launches of that kernel (fill and epilogue folded in)
``lower_affine.py``      ``affine.apply`` / ``affine.min`` as arith (MLIR's ``-lower-affine``)
``fold_views.py``        subviews folded into loads and stores, copies as loops
``row_cooperation.py``   a block's threads share a row: strided loops, shuffles, barriers
``outlining.py``         ``gpu-kernel-outlining``: bound loop nests become ``gpu.func``
                         kernels and ``gpu.launch_func``s
=======================  =============================================================
"""

from tinycomp.passes.gpu.block_tiles import GpuBlockTilesPass
from tinycomp.passes.gpu.lower_affine import LowerAffinePass
from tinycomp.passes.gpu.mapping import ROW_THREADS_ATTRIBUTE, THREADS_ATTRIBUTE, GpuMappingPass
from tinycomp.passes.gpu.outlining import GpuKernelOutliningPass

__all__ = [
    "ROW_THREADS_ATTRIBUTE",
    "THREADS_ATTRIBUTE",
    "GpuBlockTilesPass",
    "GpuKernelOutliningPass",
    "GpuMappingPass",
    "LowerAffinePass",
]
