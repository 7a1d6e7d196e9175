"""The names a kernel's source uses for what CUDA builds in: thread and block ids, shared
and local arrays, barriers, warp shuffles and votes, atomics, float4 accesses, dtypes.

These objects compute nothing. The kernel parser finds them by resolving the names of
the kernel's source in the function's globals and closure, so each of these works::

    from tinycomp import gpu                 # gpu.thread_idx.x, gpu.syncthreads()
    from tinycomp.gpu import thread_idx      # thread_idx.x

and turns each use into gpu-dialect IR (``gpu.thread_id x``, ``gpu.barrier``,
``nvvm.shfl.sync``...). Called outside a kernel, they say so.

>>> thread_idx.x
thread_idx.x
>>> try:
...     syncthreads()
... except RuntimeError as error:
...     print(str(error)[:53])
syncthreads() only has a meaning inside a @gpu.kernel
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = [
    "Dim3Marker", "DimComponent", "Intrinsic", "Namespace", "all_sync", "any_sync", "atomic",
    "ballot_sync", "bfloat16", "block_dim", "block_idx", "elect_sync", "float16", "float32",
    "fma", "grid_dim", "int32", "int64", "lane_id", "local", "reduce_add_sync",
    "reduce_max_sync", "reduce_min_sync", "rsqrt", "shared", "shfl_down_sync", "shfl_sync",
    "shfl_up_sync", "shfl_xor_sync", "syncthreads", "syncwarp", "thread_idx", "vload",
    "vstore", "warp_size",
]  # fmt: skip


class Intrinsic:
    """A function that only means something inside a kernel (``syncthreads``, ``shfl_sync``).

    >>> shfl_down_sync.name
    'shfl_down_sync'
    """

    def __init__(self, name: str, signature: str) -> None:
        self.name = name
        """The name the parser dispatches on."""
        self.signature = signature
        """How it is called, for messages: ``shfl_sync(mask, value, src_lane, width=32)``."""

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError(
            f"{self.name}() only has a meaning inside a @gpu.kernel; launch it with "
            "gpu.launch(kernel, grid, block, args)"
        )

    def __repr__(self) -> str:
        return self.signature


class DimComponent:
    """One coordinate of a built-in index: ``thread_idx.x`` (CUDA's ``threadIdx.x``)."""

    def __init__(self, marker: Dim3Marker, dimension: str) -> None:
        self.marker = marker
        """The ``thread_idx``, ``block_idx``, ``block_dim`` or ``grid_dim`` it belongs to."""
        self.dimension = dimension
        """``"x"``, ``"y"`` or ``"z"``."""

    def __repr__(self) -> str:
        return f"{self.marker.name}.{self.dimension}"


class Dim3Marker:
    """A built-in 3-d index: ``thread_idx``, ``block_idx``, ``block_dim``, ``grid_dim``.

    >>> block_dim.y.dimension, block_dim.op_name
    ('y', 'gpu.block_dim')
    """

    def __init__(self, name: str, op_name: str) -> None:
        self.name = name
        """Its name in the DSL."""
        self.op_name = op_name
        """The gpu op each coordinate becomes."""
        self.x = DimComponent(self, "x")
        self.y = DimComponent(self, "y")
        self.z = DimComponent(self, "z")

    def __repr__(self) -> str:
        return self.name


class Namespace:
    """A group of intrinsics reached by attribute: ``shared.array``, ``atomic.add``.

    >>> atomic.cas
    atomic.cas(array, index, compare, value)
    """

    def __init__(self, name: str, members: dict[str, str]) -> None:
        self.name = name
        for member, arguments in members.items():
            setattr(self, member, Intrinsic(f"{name}.{member}", f"{name}.{member}({arguments})"))

    def __repr__(self) -> str:
        return self.name


thread_idx = Dim3Marker("thread_idx", "gpu.thread_id")
"""The thread's index in its block (``threadIdx``): ``thread_idx.x``."""
block_idx = Dim3Marker("block_idx", "gpu.block_id")
"""The block's index in the grid (``blockIdx``)."""
block_dim = Dim3Marker("block_dim", "gpu.block_dim")
"""The block's size in threads (``blockDim``)."""
grid_dim = Dim3Marker("grid_dim", "gpu.grid_dim")
"""The grid's size in blocks (``gridDim``)."""
warp_size = 32
"""Threads per warp (``warpSize``)."""

lane_id = Intrinsic("lane_id", "lane_id()")
"""The thread's lane in its warp, 0-31."""
syncthreads = Intrinsic("syncthreads", "syncthreads()")
"""Wait for every thread of the block (``__syncthreads``, ``gpu.barrier``)."""
syncwarp = Intrinsic("syncwarp", "syncwarp(mask=0xffffffff)")
"""Wait for the lanes of ``mask`` (``__syncwarp``, ``nvvm.bar.warp.sync``)."""
shfl_sync = Intrinsic("shfl_sync", "shfl_sync(mask, value, src_lane, width=32)")
"""Read ``value`` from lane ``src_lane`` of the segment (``__shfl_sync``)."""
shfl_up_sync = Intrinsic("shfl_up_sync", "shfl_up_sync(mask, value, delta, width=32)")
"""Read ``value`` from ``lane - delta`` (``__shfl_up_sync``)."""
shfl_down_sync = Intrinsic("shfl_down_sync", "shfl_down_sync(mask, value, delta, width=32)")
"""Read ``value`` from ``lane + delta`` (``__shfl_down_sync``)."""
shfl_xor_sync = Intrinsic("shfl_xor_sync", "shfl_xor_sync(mask, value, lane_mask, width=32)")
"""Read ``value`` from ``lane ^ lane_mask`` (``__shfl_xor_sync``)."""
ballot_sync = Intrinsic("ballot_sync", "ballot_sync(mask, predicate)")
"""The i32 whose bit ``l`` is lane ``l``'s predicate (``__ballot_sync``)."""
any_sync = Intrinsic("any_sync", "any_sync(mask, predicate)")
"""Whether any lane's predicate holds (``__any_sync``)."""
all_sync = Intrinsic("all_sync", "all_sync(mask, predicate)")
"""Whether every lane's predicate holds (``__all_sync``)."""
reduce_add_sync = Intrinsic("reduce_add_sync", "reduce_add_sync(mask, value)")
"""The sum of an i32 over the lanes (``__reduce_add_sync``, ``redux.sync``)."""
reduce_min_sync = Intrinsic("reduce_min_sync", "reduce_min_sync(mask, value)")
"""The minimum over the lanes (i32, or f32 on sm_100a's ``redux.sync``)."""
reduce_max_sync = Intrinsic("reduce_max_sync", "reduce_max_sync(mask, value)")
"""The maximum over the lanes."""
elect_sync = Intrinsic("elect_sync", "elect_sync()")
"""True on exactly one lane of the warp (``elect.sync``)."""
fma = Intrinsic("fma", "fma(a, b, c)")
"""``a * b + c`` with one rounding (``math.fma``)."""
rsqrt = Intrinsic("rsqrt", "rsqrt(x)")
"""``1 / sqrt(x)`` (``math.rsqrt``)."""
vload = Intrinsic("vload", "vload(array, index_tuple, width)")
"""``width`` contiguous elements along the last axis, as a tuple (a ``float4`` load)."""
vstore = Intrinsic("vstore", "vstore(array, index_tuple, values)")
"""Store a tuple of contiguous elements along the last axis (a ``float4`` store)."""

shared = Namespace("shared", {"array": "shape, dtype"})
"""``shared.array(shape, dtype)``: memory shared by the block (``__shared__``)."""
local = Namespace("local", {"array": "shape, dtype"})
"""``local.array(shape, dtype)``: memory private to the thread (a per-thread array)."""
atomic = Namespace(
    "atomic",
    {
        "add": "array, index, value",
        "max": "array, index, value",
        "min": "array, index, value",
        "exch": "array, index, value",
        "cas": "array, index, compare, value",
    },
)
"""``atomic.add/max/min/exch(array, index, value)`` and ``atomic.cas(array, index,
compare, value)``; each returns the element's old value."""

float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
