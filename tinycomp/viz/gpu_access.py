"""One warp's memory access in numbers: the sectors and lines it touches, the banks it asks.

A warp's load or store is one *request*: 32 lanes, each asking for ``element_bytes`` at
its own byte address. What it costs depends on where those addresses fall:

1. **Global memory** moves whole 32-byte *sectors* (four to a 128-byte *line*).
   ``sector_usage`` finds every sector some active lane's bytes fall in, the lanes in
   each, and the *ideal*: the fewest sectors the distinct bytes asked for could fill.
   The coalescing efficiency is ``ideal / sectors`` (contiguous f32: 4 of 4; a stride of
   32 elements: 4 of 32).
2. **Shared memory** has 32 *banks* of 4-byte words: word ``w`` (byte ``4 * w``) lives in
   bank ``w mod 32``. ``bank_usage`` groups the words each bank is asked for, with their
   lanes. A bank serves one word per round (a *wavefront*); lanes asking for the same
   word share it (a *broadcast*). The *conflict degree* is the most distinct words asked
   of one bank.

``warp_access`` builds the ``TraceEvent`` of such a request from plain addresses, so a
chapter can draw an access pattern without running the simulator.

>>> event = warp_access([4 * lane + 4 for lane in range(32)], element_bytes=4)
>>> usage = sector_usage(event)
>>> len(usage.sectors), usage.ideal, percent(usage.efficiency)
(5, 4, '80%')
>>> bank_usage(warp_access([0] * 32, 4, space="shared")).degree
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tinycomp.targets.gpu_sim.trace import TraceEvent

__all__ = [
    "BankUsage",
    "SectorUsage",
    "bank_usage",
    "lane_ranges",
    "percent",
    "sector_usage",
    "warp_access",
]

WARP = 32
KINDS = {("global", "load"): "ld_global", ("global", "store"): "st_global"}
KINDS |= {("shared", "load"): "ld_shared", ("shared", "store"): "st_shared"}


def warp_access(
    addresses: Sequence[int],
    element_bytes: int,
    *,
    space: str = "global",
    array: str = "a",
    store: bool = False,
    line: int | None = None,
) -> TraceEvent:
    """The trace event of one warp's load (or ``store``) of ``array``: lane ``i`` asks for
    ``element_bytes`` at byte ``addresses[i]``; ``-1`` (or a missing lane past the end)
    marks an inactive lane.

    >>> event = warp_access([0, 4, -1], 4, array="x")
    >>> event.op_name, event.kind, event.active_lanes, event.byte_addresses[:4].tolist()
    ('memref.load', 'ld_global', 2, [0, 4, -1, -1])
    """
    if len(addresses) > WARP:
        raise ValueError(f"expected at most {WARP} addresses (one per lane), got {len(addresses)}")
    if element_bytes <= 0:
        raise ValueError(f"expected element_bytes to be positive, got {element_bytes}")
    if space not in ("global", "shared"):
        raise ValueError(f"expected space 'global' or 'shared', got {space!r}")
    found = np.full(WARP, -1, np.int64)
    found[: len(addresses)] = np.asarray(addresses, np.int64)
    if (found < -1).any():
        lane = int(np.argmax(found < -1))
        raise ValueError(
            f"expected byte addresses >= 0 (-1: inactive), got {found[lane]} at lane {lane}"
        )
    verb = "store" if store else "load"
    return TraceEvent(
        step=0,
        op_name=f"memref.{verb}",
        line=line,
        kind=KINDS[(space, verb)],
        active=found >= 0,
        space=space,
        array=array,
        byte_addresses=found,
        element_bytes=element_bytes,
    )


def percent(fraction: float) -> str:
    """A fraction as a percentage to three digits: ``80%``, ``12.5%``, ``15.6%``.

    >>> percent(0.8), percent(1 / 8), percent(5 / 32)
    ('80%', '12.5%', '15.6%')
    """
    return f"{100 * fraction:.3g}%"


def lane_ranges(lanes: Sequence[int]) -> str:
    """Lanes as runs: ``0-7, 16, 18``.

    >>> lane_ranges([0, 1, 2, 3, 8, 10, 11])
    '0-3, 8, 10-11'
    """
    runs: list[list[int]] = []
    for lane in sorted(lanes):
        if runs and lane == runs[-1][1] + 1:
            runs[-1][1] = lane
        else:
            runs.append([lane, lane])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _active_addresses(event: TraceEvent) -> list[tuple[int, int]]:
    """``(lane, byte address)`` of every active lane; a clear error for a non-memory event."""
    if event.byte_addresses is None or event.element_bytes <= 0:
        raise ValueError(
            f"expected a memory instruction with byte addresses, got {event.op_name} "
            f"(step {event.step}, line {event.line}) without them"
        )
    return [(int(lane), int(event.byte_addresses[lane])) for lane in np.flatnonzero(event.active)]


@dataclass(frozen=True)
class SectorUsage:
    """The sectors one global request touches (module docstring, step 1)."""

    sectors: dict[int, tuple[int, ...]]
    """Sector number (byte address // ``sector_bytes``) -> the lanes with bytes in it."""
    ideal: int
    """The fewest sectors the distinct bytes asked for could fill."""
    sector_bytes: int
    line_bytes: int

    @property
    def lines(self) -> tuple[int, ...]:
        """The 128-byte lines touched, in order."""
        per_line = self.line_bytes // self.sector_bytes
        return tuple(sorted({sector // per_line for sector in self.sectors}))

    @property
    def efficiency(self) -> float:
        """``ideal / sectors`` (1.0 with no lanes active)."""
        return self.ideal / len(self.sectors) if self.sectors else 1.0

    @property
    def caption(self) -> str:
        """``5 sectors (ideal 4): 80% efficient``."""
        count = len(self.sectors)
        noun = "sector" if count == 1 else "sectors"
        return f"{count} {noun} (ideal {self.ideal}): {percent(self.efficiency)} efficient"


def sector_usage(event: TraceEvent, sector_bytes: int = 32, line_bytes: int = 128) -> SectorUsage:
    """Which sectors the active lanes' bytes fall in, and the ideal count.

    >>> stride = warp_access([128 * lane for lane in range(32)], 4)
    >>> sector_usage(stride).caption
    '32 sectors (ideal 4): 12.5% efficient'
    """
    lanes_of: dict[int, list[int]] = {}
    distinct: set[int] = set()
    for lane, address in _active_addresses(event):
        last = address + event.element_bytes - 1
        distinct.update(range(address, last + 1))
        for sector in range(address // sector_bytes, last // sector_bytes + 1):
            lanes_of.setdefault(sector, []).append(lane)
    sectors = {sector: tuple(lanes_of[sector]) for sector in sorted(lanes_of)}
    ideal = -(-len(distinct) // sector_bytes)
    return SectorUsage(sectors, ideal, sector_bytes, line_bytes)


@dataclass(frozen=True)
class BankUsage:
    """The words each bank is asked for by one shared request (module docstring, step 2)."""

    banks: dict[int, dict[int, tuple[int, ...]]]
    """Bank -> word (byte address // ``bank_width``) -> the lanes asking for it; only the
    banks asked for, in order, their words in order."""
    bank_count: int
    bank_width: int

    @property
    def degree(self) -> int:
        """The conflict degree: the most distinct words asked of one bank (0: no lane)."""
        return max((len(words) for words in self.banks.values()), default=0)

    @property
    def ideal(self) -> int:
        """The fewest wavefronts the distinct words could be served in."""
        words = sum(len(words) for words in self.banks.values())
        return -(-words // self.bank_count)

    @property
    def broadcasts(self) -> int:
        """Words asked for by more than one lane (served to all of them at once)."""
        return sum(len(lanes) > 1 for words in self.banks.values() for lanes in words.values())

    @property
    def caption(self) -> str:
        """``conflict degree 2: 2 wavefronts (ideal 1)``."""
        waves = "wavefront" if self.degree == 1 else "wavefronts"
        text = f"conflict degree {self.degree}: {self.degree} {waves} (ideal {self.ideal})"
        if self.broadcasts:
            text += f"; {self.broadcasts} broadcast" + ("s" if self.broadcasts > 1 else "")
        return text


def bank_usage(event: TraceEvent, bank_count: int = 32, bank_width: int = 4) -> BankUsage:
    """The words asked of each bank, with the lanes asking (a lane's ``element_bytes`` may
    span several words).

    >>> two_way = warp_access([8 * lane for lane in range(32)], 4, space="shared")
    >>> usage = bank_usage(two_way)
    >>> usage.degree, usage.banks[0]
    (2, {0: (0,), 32: (16,)})
    """
    lanes_of: dict[int, list[int]] = {}
    for lane, address in _active_addresses(event):
        last = address + event.element_bytes - 1
        for word in range(address // bank_width, last // bank_width + 1):
            lanes_of.setdefault(word, []).append(lane)
    banks: dict[int, dict[int, tuple[int, ...]]] = {}
    for word in sorted(lanes_of):
        banks.setdefault(word % bank_count, {})[word] = tuple(lanes_of[word])
    return BankUsage(dict(sorted(banks.items())), bank_count, bank_width)
