"""The npu dialect: tinycomp's own ops for a Da Vinci (Ascend) AI core, in MLIR's
generic form. A kernel is a ``func.func`` whose GM arguments are plain memrefs; on-chip
buffers are memrefs in a string memory space (``memref<256xf16, "ub">``); every op names
the pipe that runs it.

* ``spaces.py``: the address spaces and pipes, the data paths;
* ``core_ops.py``: ``npu.alloc``, ``block_idx`` / ``block_num`` / ``sub_block_idx`` /
  ``sub_block_num``, ``get_value`` / ``set_value``;
* ``dma.py``: ``npu.copy`` (MTE1, MTE2, MTE3, FixPipe; padded, strided, ND to NZ);
* ``vector.py``: the vector instructions (repeats, masks, strides);
* ``cube.py``: ``npu.mmad``;
* ``sync.py``: ``set_flag`` / ``wait_flag``, ``pipe_barrier``, the cross-core flags.

A kernel's function carries ``npu.kernel_type`` (``"aiv"``, ``"aic"``, ``"mix_1_1"``,
``"mix_1_2"``) and ``npu.core`` (``"aic"`` or ``"aiv"``): a MIX kernel is two functions,
``@k_aic`` and ``@k_aiv``, both with ``npu.kernel = "k"``, as Ascend's compiler builds
the cube and the vector halves of one kernel separately.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @k(%x: memref<256xf16>) attributes {npu.core = "aiv", npu.kernel_type = "aiv"} {
...   %c0 = arith.constant 0 : index
...   %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<256xf16, "ub">
...   "npu.copy"(%x, %ub, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16>, memref<256xf16, "ub">, index, index) -> ()
...   return
... }''')
>>> [op.execution_pipe() for op in module.body.first_op.entry_block.ops[1:3]]
['S', 'MTE2']
"""

from __future__ import annotations

from tinycomp.dialects.npu.core_ops import (
    AllocOp,
    BlockIdxOp,
    BlockNumOp,
    GetValueOp,
    SetValueOp,
    SubBlockIdxOp,
    SubBlockNumOp,
)
from tinycomp.dialects.npu.cube import MmadOp
from tinycomp.dialects.npu.dma import CopyOp
from tinycomp.dialects.npu.spaces import DMA_PATHS, ON_CHIP_SPACES, PIPES, space, space_of
from tinycomp.dialects.npu.sync import (
    CrossCoreSetOp,
    CrossCoreWaitOp,
    FlagOp,
    PipeBarrierOp,
    SetFlagOp,
    WaitFlagOp,
)
from tinycomp.dialects.npu.vector import VECTOR_OP_CLASSES, VectorOp
from tinycomp.ir.registry import Dialect, register_dialect

KERNEL_TYPES = ("aiv", "aic", "mix_1_1", "mix_1_2")
"""``npu.kernel_type``: vector cores only, cube cores only, or both (1:1 or 1:2)."""

NPU = Dialect(
    "npu",
    (
        AllocOp, BlockIdxOp, BlockNumOp, SubBlockIdxOp, SubBlockNumOp, GetValueOp, SetValueOp,
        CopyOp, MmadOp, SetFlagOp, WaitFlagOp, PipeBarrierOp, CrossCoreSetOp, CrossCoreWaitOp,
        *VECTOR_OP_CLASSES,
    ),
)  # fmt: skip
"""The npu dialect (registered on import)."""
register_dialect(NPU)

__all__ = [
    "DMA_PATHS", "KERNEL_TYPES", "NPU", "ON_CHIP_SPACES", "PIPES", "AllocOp", "BlockIdxOp",
    "BlockNumOp", "CopyOp", "CrossCoreSetOp", "CrossCoreWaitOp", "FlagOp", "GetValueOp",
    "MmadOp", "PipeBarrierOp", "SetFlagOp", "SetValueOp", "SubBlockIdxOp", "SubBlockNumOp",
    "VectorOp", "WaitFlagOp", "space", "space_of",
]  # fmt: skip
