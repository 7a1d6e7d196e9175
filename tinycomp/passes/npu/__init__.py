"""The NPU target's passes on npu IR.

=======================  =============================================================
``sync_analysis.py``     the hazards between pipes that no flag orders yet, loops and
                         loop-carried ones included
``insert_sync.py``       ``npu-insert-sync``: the fewest set_flag / wait_flag pairs that
                         make a kernel hazard-free, event ids assigned and reused
=======================  =============================================================
"""

from tinycomp.passes.npu.insert_sync import NpuInsertSyncPass, SyncPair, insert_sync
from tinycomp.passes.npu.sync_analysis import Need, find_needs

__all__ = ["Need", "NpuInsertSyncPass", "SyncPair", "find_needs", "insert_sync"]
