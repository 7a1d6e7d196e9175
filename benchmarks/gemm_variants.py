"""The matmuls the blocked GEMM is compared with: tinycomp's pipeline, untiled and tiled.

The GEMM benchmark's staircase has four steps, each a different amount of what a
compiler knows about the machine:

1. ``naive_matmul``: ``a @ b`` through ``tinycomp.compile`` to loops, untiled, and the
   CPU JIT at O3: three loops ``(i, j, k)`` with ``k`` innermost, so LLVM sees a chain of
   dependent scalar adds and a column walk through B; it cannot vectorize it without
   reassociating the sum.
2. ``tiled_matmul``: the same program tiled (``CompileOptions(tile_sizes=...)``), its
   point loops interchanged to ``(i, k, j)`` after bufferization (``interchange.py``)
   so that ``j`` is innermost, then ``vectorize-loops`` (``contract=True``: ``a * b + c``
   becomes ``vector.fma``): each vector iteration loads a row piece of B and of C, does
   one FMA, stores C. Tiling keeps the B tile in cache; the C traffic (a load and a
   store per FMA) is what still limits it.
3. ``BlockedGemm`` (``gemm.py``): packing and the register-blocked micro-kernel, so
   C stays in registers for KC steps.
4. numpy's ``matmul`` (OpenBLAS or MKL, hand-written assembly kernels).

>>> import numpy as np
>>> a = np.random.default_rng(0).standard_normal((24, 40)).astype(np.float32)
>>> b = np.random.default_rng(1).standard_normal((40, 48)).astype(np.float32)
>>> program, report = tiled_matmul(a, b, tile_sizes=(8, 16, 16), lanes=8)
>>> bool(np.allclose(program(a, b), a @ b, rtol=1e-5, atol=1e-4))
True
>>> print(report.splitlines()[0])
vectorize-loops (width 8): 2 of 2 innermost loops vectorized
"""

from __future__ import annotations

import numpy as np

__all__ = ["TILED_TILE_SIZES", "naive_matmul", "tiled_matmul"]

TILED_TILE_SIZES = (8, 256, 64)
"""Tile sizes of the ``(i, j, k)`` loops for ``tiled_matmul``: 8 rows x 256 columns of C
(8 KiB) stay in L1 while a 64 x 256 tile of B (64 KiB) comes from L2 (the best of a
few tried at 512 and 1024 on a Zen 5 core)."""


def _matmul(a, b):
    return a @ b


def naive_matmul(a: np.ndarray, b: np.ndarray, opt_level: int = 3):
    """Step 1: a ``CpuProgram`` for ``a @ b`` at these shapes, untiled.

    >>> a = np.ones((3, 4), np.float32); b = np.ones((4, 5), np.float32)
    >>> naive_matmul(a, b)(a, b)[0, :3]
    array([4., 4., 4.], dtype=float32)
    """
    import tinycomp
    from tinycomp.codegen.cpu.program import compile_for_cpu

    loops = tinycomp.compile(_matmul, a, b, stop_after="loops")
    return compile_for_cpu(loops.module, result_shapes=loops.result_shapes, opt_level=opt_level)


def tiled_matmul(
    a: np.ndarray,
    b: np.ndarray,
    tile_sizes: tuple[int, int, int] = TILED_TILE_SIZES,
    lanes: int = 16,
    opt_level: int = 3,
):
    """Step 2: ``(CpuProgram, vectorization report)`` for ``a @ b``, tiled by
    ``tile_sizes`` over ``(i, j, k)``, point loops ``(i, k, j)``, ``j`` widened to ``lanes``."""
    import tinycomp
    from tinycomp.codegen.cpu.program import compile_for_cpu
    from tinycomp.compiler import CompileOptions
    from tinycomp.passes.interchange import InterchangePass
    from tinycomp.passes.vectorize import VectorizeLoopsPass

    options = CompileOptions(
        tile_sizes=tuple(tile_sizes),
        extra_passes={"bufferized": [InterchangePass((0, 2, 1))]},
    )
    loops = tinycomp.compile(_matmul, a, b, options=options, stop_after="loops")
    vectorize = VectorizeLoopsPass(vector_width=lanes, contract=True)
    vectorize.run(loops.module)
    program = compile_for_cpu(loops.module, result_shapes=loops.result_shapes, opt_level=opt_level)
    return program, str(vectorize.report)
