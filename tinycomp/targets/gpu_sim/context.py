"""What a compiled kernel reads and writes while it runs: the launch-wide ``RunContext``
and the ``ChunkState`` of one chunk of blocks.

``ChunkState.v`` is the slot list every compiled op reads its operands from and writes
its results to: a ``(T,)`` array for a per-lane value, a plain scalar for a uniform one.

Counters are *tallied*: a ``Contribution`` is a fixed list of per-block additions (a
region's instruction histogram times its mask's active warps, the sectors of one
memory access pattern...) and ``tally`` only counts how often each was made; ``flush``
multiplies out at the end of the chunk. A loop body that runs 64 times under one mask
thus costs one dict update per iteration.

>>> from tinycomp.targets.gpu_sim.launch_config import LaunchConfig
>>> from tinycomp.targets.gpu_sim.lanes import ChunkLanes
>>> lanes = ChunkLanes(LaunchConfig.create(2, 32), np.arange(2))
>>> state = ChunkState(RunContext("k"), lanes, 0)
>>> c = Contribution([("barriers", np.array([1, 2]))])
>>> state.tally(c); state.tally(c)
>>> state.flush()[COUNTER_ROW["barriers"]].tolist()
[2, 4]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.counters import BLOCK_COUNTERS, COUNTER_ROW
from tinycomp.targets.gpu_sim.errors import UNCHANGED, SanitizerError
from tinycomp.targets.gpu_sim.footprint import FootprintTracker
from tinycomp.targets.gpu_sim.lanes import ChunkLanes

__all__ = ["ChunkState", "Contribution", "RunContext", "op_where"]


class Contribution:
    """A fixed set of per-block counter additions, tallied rather than added each time."""

    __slots__ = ("count", "items")

    def __init__(self, items: list[tuple[str, np.ndarray | int]]) -> None:
        self.items = items
        self.count = 0
        """Uses so far in the chunk that made it (contributions belong to one chunk)."""


def op_where(op: Operation) -> str:
    """``'memref.load' at line 7`` for messages."""
    return f"'{op.name}'{describe_location(op.location)}"


@dataclass
class RunContext:
    """Launch-wide settings and the state that outlives one chunk."""

    kernel: str
    sanitize: bool = True
    step_limit: int = 10_000_000
    independent_thread_scheduling: bool = True
    steps: int = 0
    """Loop iterations so far (all loops, all chunks)."""
    trace: Any = None
    """The ``TraceRecorder`` when one warp is traced."""
    footprints: dict[str, np.ndarray] = field(default_factory=dict)
    """Per global array: a bool per sector, set when any simulated block touched it."""

    def error(
        self, kind: str, op: Operation, message: str, lanes: ChunkLanes | None = None,
        lane: int | None = None,
    ) -> SanitizerError:  # fmt: skip
        """A ``SanitizerError`` naming the kernel, the op and its line, and the lane."""
        where = f", {lanes.describe(lane)}" if lanes is not None and lane is not None else ""
        line = op.location.line if op.location is not None else None
        text = f"kernel '{self.kernel}', {op_where(op)}{where}: {message}; {UNCHANGED}"
        return SanitizerError(kind, text, line)

    def count_steps(self, op: Operation, steps: int) -> None:
        """Add loop iterations; a ``step-limit`` error past ``step_limit``."""
        self.steps += steps
        if self.steps > self.step_limit:
            raise self.error(
                "step-limit",
                op,
                f"the loops ran more than step_limit = {self.step_limit} iterations in all; "
                "the kernel may not terminate",
            )


class ChunkState:
    """The values, buffers and counters of one chunk of blocks while it runs."""

    def __init__(self, run: RunContext, lanes: ChunkLanes, slot_count: int) -> None:
        self.run = run
        self.lanes = lanes
        self.v: list[Any] = [None] * slot_count
        self.exited: np.ndarray | None = None
        """Lanes that reached a ``gpu.return`` (``None``: none yet)."""
        self.buffers: list[Any] = []
        """Per buffer spec, its storage for this chunk (see ``memory.py``)."""
        self.tallied: list[Contribution] = []
        self.direct = np.zeros((len(BLOCK_COUNTERS), lanes.blocks), np.int64)
        """Counters added directly, a row per counter (``COUNTER_ROW``)."""
        self.footprint = FootprintTracker(lanes)
        self.cache: dict[Any, Any] = {}
        """Per chunk: offsets, bounds checks and counters of access patterns seen before."""
        self.zeros = np.zeros(lanes.total, np.int64)
        self.cache_limit = max(32, (1 << 28) // (24 * lanes.total))
        self.memo: Any = None
        """The kept program's ``PatternMemo`` (counts found again by content), if any."""
        self.restored = False
        """Whether the structural values were restored from an earlier launch
        (``structural.py``): their closures then do nothing."""
        self.warp_epoch = np.zeros(lanes.warps, np.int64)
        """Per warp, how many ``syncwarp``\\ s it passed (race checks within a warp)."""

    def remember(self, key: Any, value: Any) -> Any:
        """Keep ``value`` in the chunk's cache (which is emptied when it grows too big)."""
        if len(self.cache) >= self.cache_limit:
            self.cache.clear()
        self.cache[key] = value
        return value

    def tally(self, contribution: Contribution, count: int = 1) -> None:
        """Count ``count`` more uses of ``contribution``."""
        if contribution.count == 0:
            self.tallied.append(contribution)
        contribution.count += count

    def add(self, name: str, per_block: np.ndarray | int) -> None:
        """Add to one counter now (per block, or the same for every block)."""
        self.direct[COUNTER_ROW[name]] += per_block

    def flush(self) -> np.ndarray:
        """Every counter of the chunk, per block: a row per counter (``COUNTER_ROW``)."""
        totals = self.direct.copy()
        row = COUNTER_ROW
        for contribution in self.tallied:
            count = contribution.count
            for name, per_block in contribution.items:
                totals[row[name]] += per_block * count if count != 1 else per_block
            contribution.count = 0
        self.tallied.clear()
        return totals
