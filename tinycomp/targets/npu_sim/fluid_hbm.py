"""HBM bandwidth shared by every DMA moving GM data at the same time.

A DMA to or from GM first waits its latency, then moves its bytes. While it moves
them it gets its path's rate (the bytes a cycle of, say, GM -> UB of one core) unless
the chip's HBM cannot feed all the DMAs moving at once: then the HBM bandwidth is
shared. The sharing is max-min fair ("water filling"): DMAs that want less than an
equal share get what they want, the rest split what is left equally. Rates change
whenever a DMA starts or finishes moving; between two such moments every DMA moves at
a constant rate, so each one's finishing time is exact (a fluid model, as network
simulators use for links).

>>> hbm = FluidHbm(bytes_per_cycle=200.0)
>>> hbm.start("a", 0.0, nbytes=1000, cap=128.0)
>>> hbm.start("b", 0.0, nbytes=1000, cap=128.0)
>>> hbm.rates()          # both want 128, the HBM has 200: 100 each
{'a': 100.0, 'b': 100.0}
>>> hbm.next_finish()    # 1000 bytes at 100 a cycle
(10.0, 'a')
"""

from __future__ import annotations

from collections.abc import Hashable

__all__ = ["FluidHbm"]

EPSILON = 1e-9


class FluidHbm:
    """The DMAs moving GM data now, and the rate each gets (module docstring)."""

    def __init__(self, bytes_per_cycle: float) -> None:
        self.bytes_per_cycle = bytes_per_cycle
        self.remaining: dict[Hashable, float] = {}
        self.caps: dict[Hashable, float] = {}
        self.time = 0.0
        self._rates: dict[Hashable, float] = {}

    def advance(self, now: float) -> None:
        """Move every active DMA's bytes on to time ``now``."""
        elapsed = now - self.time
        if elapsed > 0:
            for key, rate in self._rates.items():
                self.remaining[key] -= rate * elapsed
        self.time = max(self.time, now)

    def start(self, key: Hashable, now: float, nbytes: float, cap: float) -> None:
        """DMA ``key`` starts moving ``nbytes`` at ``now``, at most ``cap`` a cycle."""
        self.advance(now)
        self.remaining[key] = float(nbytes)
        self.caps[key] = cap
        self._share()

    def finish(self, key: Hashable) -> None:
        """DMA ``key`` has moved everything."""
        self.remaining.pop(key, None)
        self.caps.pop(key, None)
        self._share()

    def rates(self) -> dict[Hashable, float]:
        """The bytes a cycle each active DMA moves now."""
        return dict(self._rates)

    def next_finish(self) -> tuple[float, Hashable] | None:
        """When the first active DMA will have moved everything, at the current rates."""
        best: tuple[float, Hashable] | None = None
        for key, rate in self._rates.items():
            when = self.time + max(self.remaining[key], 0.0) / rate
            if best is None or when < best[0] - EPSILON:
                best = (when, key)
        return best

    def done(self) -> list[Hashable]:
        """The active DMAs with nothing left to move."""
        return [key for key, left in self.remaining.items() if left <= EPSILON * 1e3]

    def _share(self) -> None:
        """Water filling: serve the smallest wants first, split the rest equally."""
        left = self.bytes_per_cycle
        order = sorted(self.caps, key=lambda key: self.caps[key])
        rates: dict[Hashable, float] = {}
        for index, key in enumerate(order):
            share = left / (len(order) - index)
            rates[key] = min(self.caps[key], share)
            left -= rates[key]
        self._rates = rates
