"""The gpu dialect: MLIR's portable model of a SIMT GPU, kernels and their threads.

A *kernel* (``gpu.func ... kernel``) in a ``gpu.module`` runs once per thread of a grid
of blocks; the host starts it with ``gpu.launch_func``. Inside, a thread asks where it is
(``gpu.thread_id``, ``gpu.block_id``, ``gpu.lane_id``...), synchronises its block
(``gpu.barrier``) and trades values with the lanes of its warp (``gpu.shuffle``,
``gpu.subgroup_reduce``). Memory shared by a block lives in memrefs of the address space
``#gpu.address_space<workgroup>``, per-thread memory in ``#gpu.address_space<private>``.

Files by role: ``container.py`` (``gpu.module``), ``func.py`` (``gpu.func``, ``gpu.return``),
``launch.py`` (``gpu.launch_func``), ``ids.py`` (the id and dim ops), ``warp.py``
(barrier, shuffle, subgroup reduce), ``enums.py`` (the ``#gpu<...>`` enums) and
``address_space.py`` (the memory spaces).

>>> from tinycomp.ir import parse
>>> module = parse('''
... gpu.module @kernels {
...   gpu.func @copy(%src: memref<32xf32>, %dst: memref<32xf32>) kernel {
...     %tx = gpu.thread_id  x
...     %v = memref.load %src[%tx] : memref<32xf32>
...     memref.store %v, %dst[%tx] : memref<32xf32>
...     gpu.return
...   }
... }''')
>>> func = module.body.first_op.body.first_op
>>> type(func).__name__, func.is_kernel
('GPUFuncOp', True)
"""

from __future__ import annotations

from tinycomp.dialects.gpu.address_space import (
    ADDRESS_SPACES,
    address_space,
    address_space_of,
)
from tinycomp.dialects.gpu.container import GPUModuleOp
from tinycomp.dialects.gpu.func import GPUFuncOp, ReturnOp
from tinycomp.dialects.gpu.ids import (
    BlockDimOp,
    BlockIdOp,
    GridDimOp,
    LaneIdOp,
    SubgroupIdOp,
    ThreadIdOp,
)
from tinycomp.dialects.gpu.launch import LaunchFuncOp
from tinycomp.dialects.gpu.warp import BarrierOp, ShuffleOp, SubgroupReduceOp
from tinycomp.ir.registry import Dialect, register_dialect

GPU = Dialect(
    "gpu",
    (
        GPUModuleOp, GPUFuncOp, ReturnOp, LaunchFuncOp, ThreadIdOp, BlockIdOp, BlockDimOp,
        GridDimOp, LaneIdOp, SubgroupIdOp, BarrierOp, ShuffleOp, SubgroupReduceOp,
    ),
)  # fmt: skip
"""The gpu dialect (registered on import)."""
register_dialect(GPU)

__all__ = [
    "ADDRESS_SPACES", "GPU", "BarrierOp", "BlockDimOp", "BlockIdOp", "GPUFuncOp", "GPUModuleOp",
    "GridDimOp", "LaneIdOp", "LaunchFuncOp", "ReturnOp", "ShuffleOp", "SubgroupIdOp",
    "SubgroupReduceOp", "ThreadIdOp", "address_space", "address_space_of",
]  # fmt: skip
