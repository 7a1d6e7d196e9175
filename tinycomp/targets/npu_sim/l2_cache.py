"""The chip's L2 cache in front of the HBM: which GM lines a DMA finds there.

On 910B-class chips every GM access goes through an L2 of some 192 MB, about five
times faster than the HBM behind it (hardware notes, section 4). A matmul whose
cores read the same panels, or a kernel whose data fit, runs from the L2; a stream
too big for it (a large vector add) runs at the HBM's pace. The model:

1. GM is cut in lines (512 bytes); each line of each GM array remembers the *traffic
   clock* when it was last touched. The clock counts the bytes brought into the L2
   so far (every miss, every write);
2. a line is in the L2 when fewer than ``capacity`` bytes came in since it was last
   touched: least-recently-used replacement, measured by what replaced it;
3. a DMA that reads GM misses on the lines not in the L2 (they come from the HBM and
   stay); one that writes GM puts its lines in the L2 and, since every written byte
   reaches the HBM sooner or later, counts all of them as HBM traffic.

The cache starts cold: arrays from the host are in HBM.

>>> cache = L2Cache(line_bytes=512, capacity_bytes=4096)
>>> cache.touch("x", np.arange(4), write=False)   # cold: 4 misses
4
>>> cache.touch("x", np.arange(4), write=False)   # now they hit
0
>>> _ = cache.touch("y", np.arange(8), write=False)   # 4 KiB of other lines come in
>>> cache.touch("x", np.arange(4), write=False)   # and replaced x's
4
"""

from __future__ import annotations

import numpy as np

from tinycomp.targets.npu_sim.instruction import Access

__all__ = ["L2Cache", "lines_of"]


def lines_of(access: Access, line_bytes: int) -> np.ndarray:
    """The distinct GM lines a (strided) access touches, sorted."""
    starts = access.start + np.arange(access.count, dtype=np.int64) * access.stride
    first = starts // line_bytes
    last = (starts + access.length - 1) // line_bytes
    widest = int((last - first).max()) + 1
    lines = first[:, None] + np.arange(widest)[None, :]
    return np.unique(lines[lines <= last[:, None]])


class L2Cache:
    """The L2 (module docstring)."""

    def __init__(self, line_bytes: int, capacity_bytes: int) -> None:
        self.line_bytes = line_bytes
        self.capacity_bytes = capacity_bytes
        self.clock = 0
        self.stamps: dict[str, np.ndarray] = {}

    def _stamps(self, region: str, top: int) -> np.ndarray:
        stamps = self.stamps.get(region)
        if stamps is None or len(stamps) <= top:
            grown = np.full(max(top + 1, 2 * (0 if stamps is None else len(stamps))), -np.inf)
            if stamps is not None:
                grown[: len(stamps)] = stamps
            self.stamps[region] = stamps = grown
        return stamps

    def touch(self, region: str, lines: np.ndarray, write: bool) -> int:
        """Touch ``lines`` of GM array ``region``; the lines that came from (or go to)
        the HBM."""
        if lines.size == 0:
            return 0
        stamps = self._stamps(region, int(lines.max()))
        present = (self.clock - stamps[lines]) < self.capacity_bytes
        absent = int(np.count_nonzero(~present))
        self.clock += absent * self.line_bytes
        stamps[lines] = self.clock
        return lines.size if write else absent
