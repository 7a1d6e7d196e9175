"""The tile DSL (``from tinycomp import tile``): Triton's programming model in tinycomp.

A kernel is written for one *program* of a grid and computes on whole tiles (tensors
of static shape); arrays are flat buffers seen through pointers plus offsets::

    @tile.kernel
    def add_kernel(x, y, out, n, BLOCK: tile.constexpr):
        pid = tile.program_id(0)
        offs = pid * BLOCK + tile.arange(0, BLOCK)
        mask = offs < n
        a = tile.load(x + offs, mask=mask, other=0.0)
        b = tile.load(y + offs, mask=mask, other=0.0)
        tile.store(out + offs, a + b, mask=mask)

    add_kernel[(tile.cdiv(n, 256),)](x, y, out, n, BLOCK=256)  # out written in place
    print(add_kernel.ir(x, y, out, n, BLOCK=256))               # func + linalg on tensors
    tile.launch_gpu(add_kernel, (tile.cdiv(n, 256),), x, y, out, n, BLOCK=256, num_warps=2)
                                                    # the same on the SIMT simulator

>>> import numpy as np
>>> @kernel
... def scale(x, n, s, BLOCK: constexpr):
...     offs = program_id(0) * BLOCK + arange(0, BLOCK)
...     store(x + offs, load(x + offs, mask=offs < n) * s, mask=offs < n)
>>> x = np.ones(6, np.float32)
>>> scale[(cdiv(6, 4),)](x, 6, 3.0, BLOCK=4)
>>> x
array([3., 3., 3., 3., 3., 3.], dtype=float32)
"""

from tinycomp.frontend.simt.errors import KernelArgumentError, KernelSyntaxError
from tinycomp.frontend.tile import (
    BlockedLayout,
    TileError,
    TileKernel,
    TileLaunch,
    constexpr,
    default_layout,
    element_strides,
    kernel,
    launch_gpu,
)
from tinycomp.frontend.tile.memory_builtins import load, num_programs, program_id, store
from tinycomp.frontend.tile.tile_builtins import (
    abs,
    arange,
    cast,
    cdiv,
    dot,
    exp,
    full,
    log,
    max,
    maximum,
    min,
    minimum,
    rsqrt,
    sqrt,
    sum,
    trans,
    where,
    zeros,
)
from tinycomp.ir.types import bf16, f16, f32, i1, i32, i64

float32, float16, bfloat16 = f32, f16, bf16
"""Element types, as Triton names them (``x.to(tile.float16)``)."""
int1, int32, int64 = i1, i32, i64
"""Integer element types."""

__all__ = [
    "BlockedLayout", "KernelArgumentError", "KernelSyntaxError", "TileError", "TileKernel",
    "TileLaunch", "abs", "arange", "bfloat16", "cast", "cdiv", "constexpr", "default_layout",
    "dot", "element_strides", "exp", "float16", "float32", "full", "int1", "int32", "int64",
    "kernel", "launch_gpu", "load", "log", "max", "maximum", "min", "minimum", "num_programs",
    "program_id", "rsqrt", "sqrt", "store", "sum", "trans", "where", "zeros",
]  # fmt: skip
