"""GM bandwidth shared by every DMA moving GM data at the same time: the L2's and the
HBM's.

A DMA to or from GM first waits its latency, then moves its bytes. While it moves
them it gets its path's rate (the bytes a cycle of, say, GM -> UB of one core) unless
the memory behind GM cannot feed all the DMAs moving at once. Every GM byte passes the
L2; what a DMA misses in the L2 also passes the HBM, ``miss_fraction`` HBM bytes for
each byte it moves (whole lines come from the HBM, so a DMA of short bursts may move
more HBM bytes than its own). So each DMA's rate ``r`` is bounded three ways:
``r <= cap`` (its path), the sum of all rates ``<= L2 bandwidth``, the sum of
``miss_fraction * r`` ``<= HBM bandwidth``. The sharing is max-min fair, by
progressive filling ("water filling"): raise every rate together until a bound is
reached, freeze the DMAs that bound holds, go on with the rest. Rates change whenever
a DMA starts or finishes moving; between two such moments every DMA moves at a
constant rate, so each one's finishing time is exact (a fluid model, as network
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

    def __init__(self, bytes_per_cycle: float, l2_bytes_per_cycle: float | None = None) -> None:
        self.bytes_per_cycle = bytes_per_cycle
        """The HBM's."""
        self.l2_bytes_per_cycle = l2_bytes_per_cycle or float("inf")
        self.remaining: dict[Hashable, float] = {}
        self.caps: dict[Hashable, float] = {}
        self.misses: dict[Hashable, float] = {}
        self.time = 0.0
        self._rates: dict[Hashable, float] = {}

    def advance(self, now: float) -> None:
        """Move every active DMA's bytes on to time ``now``."""
        elapsed = now - self.time
        if elapsed > 0:
            for key, rate in self._rates.items():
                self.remaining[key] -= rate * elapsed
        self.time = max(self.time, now)

    def start(
        self, key: Hashable, now: float, nbytes: float, cap: float, miss_fraction: float = 1.0
    ) -> None:
        """DMA ``key`` starts moving ``nbytes`` at ``now``, at most ``cap`` a cycle, the
        share ``miss_fraction`` of them from (or to) the HBM."""
        self.advance(now)
        self.remaining[key] = float(nbytes)
        self.caps[key] = cap
        self.misses[key] = miss_fraction
        self._share()

    def finish(self, key: Hashable) -> None:
        """DMA ``key`` has moved everything."""
        self.remaining.pop(key, None)
        self.caps.pop(key, None)
        self.misses.pop(key, None)
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
        """Progressive filling over the three bounds (module docstring)."""
        rates = {key: 0.0 for key in self.caps}
        active = set(rates)
        l2_left, hbm_left = self.l2_bytes_per_cycle, self.bytes_per_cycle
        while active:
            misses = sum(self.misses[key] for key in active)
            step = min(self.caps[key] - rates[key] for key in active)
            step = min(step, l2_left / len(active))
            if misses > 0:
                step = min(step, hbm_left / misses)
            for key in active:
                rates[key] += step
            l2_left -= step * len(active)
            hbm_left -= step * misses
            frozen = {key for key in active if self.caps[key] - rates[key] <= EPSILON}
            if l2_left <= EPSILON or (misses > 0 and hbm_left <= EPSILON):
                saturated = active if l2_left <= EPSILON else {
                    key for key in active if self.misses[key] > 0
                }  # fmt: skip
                frozen |= saturated
            if not frozen:
                break
            active -= frozen
        self._rates = {key: rate for key, rate in rates.items() if rate > 0}
        for key in rates:
            if rates[key] <= 0:  # cannot happen with positive caps; keep every DMA moving
                self._rates[key] = EPSILON
