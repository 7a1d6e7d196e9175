"""The SIMT kernel DSL: CUDA-style kernels written in Python, translated to gpu IR.

A kernel is a Python function run by every thread of a grid; the thread asks where it
is (``thread_idx.x``...), reads and writes arrays, synchronises its block or warp, and
trades values with its warp's lanes::

    from tinycomp import gpu

    @gpu.kernel
    def saxpy(a, x, y, n):
        i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
        if i < n:
            y[i] = a * x[i] + y[i]

    print(saxpy.ir(np.float32(2.0), x, y, np.int32(n)))

The function is never called: ``kernel.py`` reads its source, ``generator.py`` and the
modules it dispatches to (``statements``, ``control_flow``, ``expressions``,
``operators``, ``intrinsics``) turn each Python construct into ``gpu``, ``scf``,
``arith``, ``math``, ``memref``, ``vector`` and ``nvvm`` ops, with the Python line as
each op's location. ``markers.py`` holds the names a kernel uses, ``signature.py`` the
argument types, ``conversions.py`` the typing rules, ``errors.py`` the one exception,
``KernelSyntaxError``.

Integer ``//`` and ``%`` are C's (and CUDA's): they truncate toward zero
(``arith.divsi``/``remsi``), so ``-7 // 2 == -3`` in a kernel. ``and``/``or`` give a
``bool``.

>>> import numpy as np
>>> @kernel
... def scale(x, n):
...     i = thread_idx.x
...     if i < n:
...         x[i] = x[i] * 2.0
>>> "scf.if" in scale.ir(np.zeros(4, np.float32), 4)
True
"""

from tinycomp.frontend.simt.errors import KernelArgumentError, KernelSyntaxError
from tinycomp.frontend.simt.kernel import Kernel, KernelSignature, kernel
from tinycomp.frontend.simt.markers import (
    all_sync,
    any_sync,
    atomic,
    ballot_sync,
    bfloat16,
    block_dim,
    block_idx,
    elect_sync,
    float16,
    float32,
    fma,
    grid_dim,
    int32,
    int64,
    lane_id,
    local,
    reduce_add_sync,
    reduce_max_sync,
    reduce_min_sync,
    rsqrt,
    shared,
    shfl_down_sync,
    shfl_sync,
    shfl_up_sync,
    shfl_xor_sync,
    syncthreads,
    syncwarp,
    thread_idx,
    vload,
    vstore,
    warp_size,
)

__all__ = [
    "Kernel", "KernelArgumentError", "KernelSignature", "KernelSyntaxError", "all_sync",
    "any_sync", "atomic",
    "ballot_sync", "bfloat16", "block_dim", "block_idx", "elect_sync", "float16", "float32",
    "fma", "grid_dim", "int32", "int64", "kernel", "lane_id", "local", "reduce_add_sync",
    "reduce_max_sync", "reduce_min_sync", "rsqrt", "shared", "shfl_down_sync", "shfl_sync",
    "shfl_up_sync", "shfl_xor_sync", "syncthreads", "syncwarp", "thread_idx", "vload",
    "vstore", "warp_size",
]  # fmt: skip
