"""A trace of one warp: every instruction it issued, with its active lanes and, for
memory instructions, the address each lane asked for.

The simulator records one when asked (``trace_warp=(block, warp)``); the pictures of
chapter 09 draw it (lanes over time, addresses against sectors, lanes against banks).

>>> import numpy as np
>>> event = TraceEvent(0, "arith.addf", 7, "fp32", np.ones(32, bool))
>>> event.active_lanes
32
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["TraceEvent", "WarpTrace"]


@dataclass(frozen=True)
class TraceEvent:
    """One warp instruction as the traced warp issued it."""

    step: int
    """Position in the warp's instruction stream (0, 1, 2...)."""
    op_name: str
    line: int | None
    """The source line (of the DSL kernel, or of the IR text) the op came from."""
    kind: str
    """Its instruction class (``INSTRUCTION_CLASSES`` in ``counters.py``)."""
    active: np.ndarray
    """32 booleans: the lanes that executed it."""
    space: str | None = None
    """``"global"``, ``"shared"`` or ``"local"`` for a memory instruction, else None."""
    array: str | None = None
    """The argument or shared array's name, for a memory instruction."""
    byte_addresses: np.ndarray | None = None
    """32 int64 byte offsets into that array (-1 on inactive lanes)."""
    element_bytes: int = 0
    text: str = ""
    """The op as one line of IR (for labels)."""

    @property
    def active_lanes(self) -> int:
        """How many lanes executed it."""
        return int(np.count_nonzero(self.active))


@dataclass
class WarpTrace:
    """Every instruction one warp issued, in order."""

    kernel: str
    block: tuple[int, int, int]
    warp: int
    events: list[TraceEvent] = field(default_factory=list)

    def memory_events(self, space: str | None = None) -> list[TraceEvent]:
        """The memory instructions (of one space, if given).

        >>> WarpTrace("k", (0, 0, 0), 0).memory_events("shared")
        []
        """
        return [e for e in self.events if e.space and (space is None or e.space == space)]
