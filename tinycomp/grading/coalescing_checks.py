"""Feedback on global loads: which load of a traced warp scatters over the most sectors.

A budget of global sectors says *how much* a kernel moved; a student needs to know
*which* access moved too much. :func:`worst_global_load` looks at the loads one traced
warp issued (``launch(..., trace_warp=(block, warp))``) and finds the scalar load whose
active lanes touch the most 32-byte sectors beyond the fewest their bytes need:

* sectors touched: the distinct ``address // 32`` of the active lanes;
* the fewest: ``ceil(active lanes x element bytes / 32)``, as if the lanes read
  consecutive elements.

A load whose lanes read one column of a row-major matrix touches 32 sectors for 128
bytes (the fewest is 4): the message names its line and IR. When every load of the warp
is already at its fewest sectors, the excess over a budget comes from reading the same
data more than once (no staging), and :func:`worst_global_load` returns None.

>>> from types import SimpleNamespace
>>> column = SimpleNamespace(op_name="memref.load", line=9, text="memref.load %B[%k, %col]",
...     byte_addresses=np.arange(32) * 512, active=np.ones(32, bool), element_bytes=4)
>>> print(worst_global_load([column]))
the global load at line 9 (memref.load %B[%k, %col]): its 32 lanes touch 32 sectors of 32 bytes where 4 would do (the lanes are 512 bytes apart, not 4)
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["ScatteredLoad", "worst_global_load"]

SECTOR_BYTES = 32


@dataclass(frozen=True)
class ScatteredLoad:
    """One traced load and the sectors it touched."""

    line: int | None
    text: str
    lanes: int
    sectors: int
    fewest: int
    element_bytes: int
    stride: int | None
    """The byte distance between neighbouring active lanes, when it is the same for all."""

    def __str__(self) -> str:
        """One sentence: where, how many sectors, how few would do, and why.

        >>> print(ScatteredLoad(4, "memref.load %A[%i, %k]", 32, 8, 4, 4, None))
        the global load at line 4 (memref.load %A[%i, %k]): its 32 lanes touch 8 sectors of 32 bytes where 4 would do
        """  # noqa: E501
        sentence = (
            f"the global load at line {self.line} ({self.text}): its {self.lanes} lanes touch "
            f"{self.sectors} sectors of {SECTOR_BYTES} bytes where {self.fewest} would do"
        )
        if self.stride is not None and self.stride > 0:
            sentence += f" (the lanes are {self.stride} bytes apart, not {self.element_bytes})"
        return sentence


def worst_global_load(events: Iterable) -> ScatteredLoad | None:
    """Among a traced warp's global events, the scalar load with the most sectors beyond
    the fewest; None when every load is at its fewest (see the module docstring)."""
    worst: ScatteredLoad | None = None
    for event in events:
        if "load" not in event.op_name or event.byte_addresses is None:
            continue
        if "vector<" in event.text:
            continue
        addresses = np.asarray(event.byte_addresses)
        active = np.asarray(event.active, bool) & (addresses >= 0)
        lanes = addresses[active]
        if len(lanes) == 0:
            continue
        sectors = len(np.unique(lanes // SECTOR_BYTES))
        fewest = -(-len(lanes) * event.element_bytes // SECTOR_BYTES)
        if sectors <= fewest:
            continue
        if worst is None or sectors - fewest > worst.sectors - worst.fewest:
            steps = np.unique(np.diff(lanes))
            stride = int(steps[0]) if len(steps) == 1 else None
            text = event.text.split(" : ")[0]
            if text.startswith("%") and " = " in text:  # drop the result's name
                text = text.split(" = ", 1)[1]
            worst = ScatteredLoad(
                event.line, text, len(lanes), sectors, fewest, event.element_bytes, stride
            )
    return worst
