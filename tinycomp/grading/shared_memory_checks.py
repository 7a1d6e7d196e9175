"""Feedback on shared-memory staging: which barrier is missing, which access conflicts.

A kernel that stages tiles in ``gpu.shared.array`` goes wrong in two ways the counters
alone do not explain. These helpers turn what the simulator saw into a sentence a GPU
engineer would say:

* :func:`explain_shared_race`: the sanitizer's race report, read as the barrier that is
  missing. A *read* racing an earlier *write* means the tile was read before every
  thread had stored its part (a barrier is missing after the stores); a *write* racing
  an earlier *read* means a fast warp overwrote the tile while a slow one was still
  reading the previous step (a barrier is missing after the reads).
* :func:`worst_bank_conflict`: in a traced warp, the shared access whose lanes pile the
  most distinct 4-byte words onto one of the 32 banks, with its source line and text.

>>> report = ("kernel 'mm', 'memref.load' at mm.py:14, block (0, 0, 0), warp 0, lane 1 "
...           "(thread (1, 0, 0)): Race on __shared__ As[0, 0]: this read and a write by "
...           "block (0, 0, 0), warp 0, lane 0 (thread (0, 0, 0)) at line 11, with no barrier")
>>> print(explain_shared_race(report))
a barrier is missing between the stores to As (line 11) and the reads of As (line 14): thread (1, 0, 0) read As[0, 0] before thread (0, 0, 0) had stored it; call gpu.syncthreads() after the tile is stored
"""  # noqa: E501

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["BankConflict", "explain_shared_race", "worst_bank_conflict"]

BANKS = 32
"""Shared memory is 32 banks of 4-byte words."""
WORD_BYTES = 4

_RACE = re.compile(
    r"'memref\.(?P<op>load|store)' at [^:]+:(?P<line>\d+), .*?\(thread (?P<thread>\([^)]*\))\)"
    r": Race on __shared__ (?P<element>(?P<array>\w+)\[[^\]]*\]): this (?:read|write) and a "
    r"(?:read|write) by .*?\(thread (?P<other>\([^)]*\))\) at line (?P<other_line>\d+)"
)


def explain_shared_race(report: str) -> str | None:
    """The missing barrier a sanitizer race report on shared memory points at, or None if
    ``report`` is not such a report (see the module's example).

    >>> explain_shared_race("kernel 'k': a block of 1024 threads is too many") is None
    True
    """
    match = _RACE.search(report)
    if match is None:
        return None
    array, element = match["array"], match["element"]
    thread, other = match["thread"], match["other"]
    if match["op"] == "load":
        return (
            f"a barrier is missing between the stores to {array} (line {match['other_line']}) "
            f"and the reads of {array} (line {match['line']}): thread {thread} read {element} "
            f"before thread {other} had stored it; call gpu.syncthreads() after the tile is "
            "stored"
        )
    return (
        f"a barrier is missing between the reads of {array} (line {match['other_line']}) and "
        f"the next stores to it (line {match['line']}): thread {thread} overwrote {element} "
        f"while thread {other} could still be reading the previous tile; call "
        "gpu.syncthreads() after the reads, before the tile is stored again"
    )


@dataclass(frozen=True)
class BankConflict:
    """The worst shared access of one traced warp."""

    line: int | None
    """The kernel's source line."""
    text: str
    """The access as gpu IR (``memref.load %As[%k, %ty] ...``)."""
    direction: str
    """``"load"`` or ``"store"``."""
    bank: int
    """The bank most lanes hit with different words."""
    words: int
    """Distinct 4-byte words of that bank the access touched: its conflict degree."""
    lanes: tuple[int, ...]
    """The lanes that hit ``bank``."""

    def __str__(self) -> str:
        """One sentence: where, which bank, how many words, which lanes.

        >>> print(BankConflict(12, "memref.load %As[%k, %ty]", "load", 3, 32, tuple(range(32))))
        the shared load at line 12 (memref.load %As[%k, %ty]): lanes 0, 1, 2, ..., 31 hit bank 3 at 32 different words, a 32-way conflict (32 wavefronts where 1 would do)
        """  # noqa: E501
        shown = ", ".join(str(lane) for lane in self.lanes[:3])
        if len(self.lanes) > 3:
            shown += f", ..., {self.lanes[-1]}"
        return (
            f"the shared {self.direction} at line {self.line} ({self.text}): lanes {shown} hit "
            f"bank {self.bank} at {self.words} different words, a {self.words}-way conflict "
            f"({self.words} wavefronts where 1 would do)"
        )


def worst_bank_conflict(events: Iterable) -> BankConflict | None:
    """Among a traced warp's shared-memory events (``WarpTrace.memory_events("shared")``),
    the scalar access with the highest conflict degree; None if none conflicts.

    >>> from types import SimpleNamespace
    >>> column = SimpleNamespace(op_name="memref.load", line=7, text="memref.load %As[%l, %k]",
    ...     byte_addresses=np.arange(32) * 128, active=np.ones(32, bool), element_bytes=4)
    >>> worst_bank_conflict([column]).words
    32
    """
    worst: BankConflict | None = None
    for event in events:
        if event.byte_addresses is None or event.element_bytes > WORD_BYTES:
            continue
        if "vector<" in event.text:
            continue
        active = np.asarray(event.active, bool) & (np.asarray(event.byte_addresses) >= 0)
        lanes = np.flatnonzero(active)
        if len(lanes) == 0:
            continue
        words = np.asarray(event.byte_addresses)[lanes] // WORD_BYTES
        banks = words % BANKS
        for bank in np.unique(banks):
            hit = banks == bank
            degree = len(np.unique(words[hit]))
            if degree > 1 and (worst is None or degree > worst.words):
                direction = "store" if "store" in event.op_name else "load"
                text = event.text.split(" : ")[0]
                hit_lanes = tuple(int(lane) for lane in lanes[hit])
                worst = BankConflict(event.line, text, direction, int(bank), degree, hit_lanes)
    return worst
