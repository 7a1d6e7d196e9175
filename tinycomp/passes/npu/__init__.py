"""The NPU target's passes on npu IR.

=======================  =============================================================
``sync_analysis.py``     the hazards between pipes that no flag orders yet, loops and
                         loop-carried ones included
``insert_sync.py``       ``npu-insert-sync``: the fewest set_flag / wait_flag pairs that
                         make a kernel hazard-free, event ids assigned and reused
``memory_plan.py``       static offsets of on-chip buffers, 32-byte aligned, bytes reused
                         by liveness; how many buffers multi-buffering can afford
``sub_block_split.py``   how a MIX 1:2 kernel's vector side is shared by its two vector
                         cores: one dimension followed back through the producers, never
                         a reduction cut in halves, a recorded reason for each fallback
=======================  =============================================================
"""

from tinycomp.passes.npu.insert_sync import NpuInsertSyncPass, SyncPair, insert_sync
from tinycomp.passes.npu.memory_plan import (
    BufferRequest,
    MemoryPlan,
    MemoryPlanError,
    choose_buffer_count,
    plan_memory,
)
from tinycomp.passes.npu.sub_block_split import (
    Fallback,
    Replicated,
    Split,
    split_decision,
    split_decisions,
)
from tinycomp.passes.npu.sync_analysis import Need, find_needs

__all__ = [
    "BufferRequest", "Fallback", "MemoryPlan", "MemoryPlanError", "Need", "NpuInsertSyncPass",
    "Replicated", "Split", "SyncPair", "choose_buffer_count", "find_needs", "insert_sync",
    "plan_memory", "split_decision", "split_decisions",
]  # fmt: skip
