"""Records the ``WarpTrace`` (``trace.py``) of one warp while the simulator runs.

The executor calls ``record`` after every op it issues; the recorder keeps an event
only when the traced warp is in the chunk and has an active lane. Memory ops first
report their byte addresses with ``access``, which the next event picks up.

>>> recorder = TraceRecorder("k", block=3, warp=1, block_xyz=(3, 0, 0))
>>> recorder.trace.block, recorder.trace.warp, recorder.trace.events
((3, 0, 0), 1, [])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask
from tinycomp.targets.gpu_sim.memory import BufferSpec
from tinycomp.targets.gpu_sim.op_classes import instruction_class
from tinycomp.targets.gpu_sim.trace import TraceEvent, WarpTrace

__all__ = ["TraceRecorder"]

WARP = 32


class TraceRecorder:
    """The events of warp ``warp`` of linear block ``block``."""

    def __init__(self, kernel: str, block: int, warp: int, block_xyz: tuple[int, int, int]) -> None:
        self.block = block
        self.warp = warp
        self.trace = WarpTrace(kernel, block_xyz, warp)
        self.pending: tuple[Any, ...] | None = None
        self.texts: dict[Operation, str] = {}

    def _lanes(self, st: ChunkState) -> slice | None:
        lanes = st.lanes
        where = np.flatnonzero(lanes.block_ids == self.block)
        if len(where) == 0:
            return None
        start = (int(where[0]) * lanes.warps_per_block + self.warp) * WARP
        return slice(start, start + WARP)

    def _active(self, st: ChunkState, m: Mask, lanes: slice) -> np.ndarray:
        active = np.ones(WARP, bool) if m.arr is None else m.arr[lanes].copy()
        return active & st.lanes.valid[lanes]

    def access(
        self, st: ChunkState, m: Mask, spec: BufferSpec, byte_addresses: np.ndarray, nbytes: int
    ) -> None:
        """A memory op's addresses (the next ``record`` attaches them)."""
        lanes = self._lanes(st)
        if lanes is None:
            return
        active = self._active(st, m, lanes)
        addresses = np.where(active, np.broadcast_to(byte_addresses, (st.lanes.total,))[lanes], -1)
        self.pending = (spec.space, spec.name, addresses.astype(np.int64), spec.element_bytes)

    def _text(self, op: Operation) -> str:
        """The op as one line of IR (its name alone for an op with regions)."""
        text = self.texts.get(op)
        if text is None:
            text = op.name if op.regions else str(op).strip().split("\n")[0]
            self.texts[op] = text
        return text

    def record(self, st: ChunkState, m: Mask, op: Operation) -> None:
        """The event of ``op`` if the traced warp issued it."""
        lanes = self._lanes(st)
        pending, self.pending = self.pending, None
        if lanes is None:
            return
        active = self._active(st, m, lanes)
        if not active.any():
            return
        space = array = addresses = None
        element_bytes = 0
        if pending is not None:
            space, array, addresses, element_bytes = pending
        events = self.trace.events
        events.append(
            TraceEvent(
                step=len(events),
                op_name=op.name,
                line=op.location.line if op.location is not None else None,
                kind=instruction_class(op) or "misc",
                active=active,
                space=space,
                array=array,
                byte_addresses=addresses,
                element_bytes=element_bytes,
                text=self._text(op),
            )
        )
