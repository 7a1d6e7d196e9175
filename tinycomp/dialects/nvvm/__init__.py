"""The nvvm dialect (a part): NVIDIA's warp-synchronous ops, as PTX has them.

``nvvm.redux.sync`` (PTX ``redux.sync``: one reduction over the lanes in a mask, in
hardware on sm_80 and later), ``nvvm.elect.sync`` (``elect.sync``: true on exactly one
active lane, sm_90) and ``nvvm.vote.sync`` (``vote.sync``: ``ballot``, ``any``, ``all``,
``uni``). Each takes the 32-bit mask of the lanes taking part and is convergent. They
live in ``warp_sync.py``. ``shuffle.py`` holds ``nvvm.shfl.sync`` (``shfl.sync``: read a
value from another lane) and ``nvvm.bar.warp.sync`` (``__syncwarp``).

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @f(%x: i32, %mask: i32, %p: i1) -> i32 {
...   %sum = nvvm.redux.sync  add %x, %mask : i32 -> i32
...   %bits = nvvm.vote.sync  ballot %mask, %p -> i32
...   return %bits : i32
... }''')
>>> [type(op).__name__ for op in module.body.first_op.entry_block.ops[:2]]
['ReduxSyncOp', 'VoteSyncOp']
"""

from __future__ import annotations

from tinycomp.dialects.nvvm.shuffle import SHFL_KINDS, BarWarpSyncOp, ShflSyncOp, shuffle_clamp
from tinycomp.dialects.nvvm.warp_sync import (
    REDUX_KINDS,
    VOTE_KINDS,
    ElectSyncOp,
    ReduxSyncOp,
    VoteSyncOp,
)
from tinycomp.ir.registry import Dialect, register_dialect

NVVM = Dialect("nvvm", (ReduxSyncOp, ElectSyncOp, VoteSyncOp, ShflSyncOp, BarWarpSyncOp))
"""The nvvm dialect, its warp-synchronous ops (registered on import)."""
register_dialect(NVVM)

__all__ = [
    "NVVM", "REDUX_KINDS", "SHFL_KINDS", "VOTE_KINDS", "BarWarpSyncOp", "ElectSyncOp",
    "ReduxSyncOp", "ShflSyncOp", "VoteSyncOp", "shuffle_clamp",
]  # fmt: skip
