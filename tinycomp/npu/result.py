"""What ``npu.launch`` returns: the run's cycles, each pipe's work, the bound, the
timeline, and the Chrome trace made from it (the Gantt picture is
``tinycomp.viz.npu_timeline_picture(result.timeline)``).

The *critical pipe* is the pipe kind (``MTE2``, ``V``...) that some core kept busy the
largest share of the run; the L2 and the HBM are resources too (the bytes every core
moved through them over what they could have moved in the run). ``bound`` is whichever of
them is the busiest: a kernel whose HBM share is near 100% cannot go faster by
overlapping better, one whose critical pipe is near 100% is bound by that unit, and
one where every share is below half is bound by latency and sync (``"latency"``: the
timeline shows where the pipes waited).

>>> import numpy as np
>>> from tinycomp import npu
>>> @npu.kernel
... def copy(x, y):
...     pipe = npu.TPipe()
...     q = npu.TQue(npu.VECIN)
...     pipe.init_buffer(q, 1, 512)
...     t = q.alloc_tensor(np.float16)
...     npu.data_copy(t, x, 256)
...     npu.set_flag("MTE2", "MTE3", 0)
...     npu.wait_flag("MTE2", "MTE3", 0)
...     npu.data_copy(y, t, 256)
...     q.free_tensor(t)
>>> x, y = np.arange(256, dtype=np.float16), np.zeros(256, np.float16)
>>> result = npu.launch(copy, (x, y), block_num=1, preset="small")
>>> bool((y == x).all()), result.cycles, result.critical_pipe
(True, 1020.0, 'MTE2')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tinycomp.ir import ModuleOp
from tinycomp.targets.npu_sim.chrome_trace import chrome_trace, write_chrome_trace
from tinycomp.targets.npu_sim.preset import NpuPreset
from tinycomp.targets.npu_sim.simulator import NpuRun
from tinycomp.targets.npu_sim.timeline import PIPES, Timeline

__all__ = ["LATENCY_BOUND_BELOW", "NpuLaunchResult", "PipeShare"]

LATENCY_BOUND_BELOW = 0.5
"""A run whose busiest resource is busy less than this share of it is latency-bound."""


@dataclass(frozen=True)
class PipeShare:
    """One pipe kind over all cores: the busiest core's busy cycles and share of the run."""

    pipe: str
    core: str
    busy_cycles: float
    share: float


@dataclass(frozen=True)
class NpuLaunchResult:
    """The outcome of one launch (module docstring)."""

    run: NpuRun
    module: ModuleOp
    """The npu IR that ran."""

    @property
    def preset(self) -> NpuPreset:
        return self.run.preset

    @property
    def timeline(self) -> Timeline:
        return self.run.timeline

    @property
    def cycles(self) -> float:
        """From the launch to the last instruction's end."""
        return self.timeline.cycles

    @property
    def seconds(self) -> float:
        return self.timeline.seconds

    @property
    def kernel_type(self) -> str:
        return self.run.kernel_type

    @property
    def hbm_bytes(self) -> int:
        """Bytes moved to and from GM (whole 512-byte lines)."""
        return self.run.schedule.hbm_bytes

    @property
    def l2_bytes(self) -> int:
        """Bytes moved to and from GM, all through the L2."""
        return self.run.schedule.l2_bytes

    @property
    def l2_share(self) -> float:
        """``l2_bytes`` over what the L2 could move in ``cycles``."""
        if not self.cycles:
            return 0.0
        return self.l2_bytes / (self.preset.l2_bytes_per_cycle * self.cycles)

    @property
    def hbm_share(self) -> float:
        """``hbm_bytes`` over what the HBM could move in ``cycles``."""
        if not self.cycles:
            return 0.0
        return self.hbm_bytes / (self.preset.hbm_bytes_per_cycle * self.cycles)

    @cached_property
    def pipes(self) -> dict[str, PipeShare]:
        """Each pipe kind that ran, with its busiest core."""
        shares: dict[str, PipeShare] = {}
        total = self.cycles or 1.0
        for core in self.timeline.cores:
            for pipe in self.timeline.pipes(core):
                busy = self.timeline.busy_cycles(core, pipe)
                if pipe not in shares or busy > shares[pipe].busy_cycles:
                    shares[pipe] = PipeShare(pipe, core, busy, busy / total)
        return {pipe: shares[pipe] for pipe in PIPES if pipe in shares}

    @property
    def critical_pipe(self) -> str:
        """The pipe kind with the largest share (``S`` only if nothing else ran)."""
        candidates = {p: s for p, s in self.pipes.items() if p != "S"} or self.pipes
        return max(candidates.values(), key=lambda share: share.share).pipe

    @property
    def bound(self) -> str:
        """``"HBM"``, ``"L2"`` or the critical pipe, whichever is busiest; ``"latency"``
        when none is busy half the run (the pipes mostly wait on flags and landings)."""
        shares = {"HBM": self.hbm_share, "L2": self.l2_share}
        shares[self.critical_pipe] = self.pipes[self.critical_pipe].share
        busiest = max(shares, key=lambda name: shares[name])
        return busiest if shares[busiest] >= LATENCY_BOUND_BELOW else "latency"

    def summary(self) -> str:
        """A text table: cycles, each pipe's share, HBM, the bound."""
        lines = [
            f"{self.kernel_type} kernel on {self.preset.name}, {self.run.block_num} blocks: "
            f"{self.cycles:.0f} cycles = {self.seconds * 1e6:.2f} us",
            "  pipe  busiest core  busy cycles  share",
        ]
        for share in self.pipes.values():
            lines.append(
                f"  {share.pipe:<5} {share.core:<13} {share.busy_cycles:>11.0f}  {share.share:6.1%}"
            )
        lines.append(f"  L2    {self.l2_bytes:>13} B  {'':>9}  {self.l2_share:6.1%}")
        lines.append(f"  HBM   {self.hbm_bytes:>13} B  {'':>9}  {self.hbm_share:6.1%}")
        lines.append(f"  bound: {self.bound}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<NpuLaunchResult {self.cycles:.0f} cycles, bound by {self.bound}>"

    def chrome_trace(self) -> dict[str, Any]:
        """The run in Chrome's trace-event format (opens in Perfetto)."""
        return chrome_trace(self.timeline)

    def write_trace(self, path: str | Path) -> Path:
        """Write ``chrome_trace()`` as JSON to ``path``."""
        return write_chrome_trace(self.timeline, path)
