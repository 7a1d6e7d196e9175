"""Waves: which block of a grid runs on which SM, and when.

The block scheduler deals blocks to SMs round-robin (block 0 to SM 0, block 1 to SM 1...)
until every SM holds ``blocks_per_sm`` of them; that set of ``blocks_per_sm * sm_count``
blocks is one *wave*. The next wave starts when the previous one is done (the model: real
SMs start a new block as soon as one finishes, which blurs the boundary but not the count).
The last wave may be partial, the *tail*: its SMs are idle for part of the wave's time,
which is why a grid of ``sm_count + 1`` blocks takes about two waves' time.

Block ``b`` of the grid is in wave ``b // wave_size``; inside its wave, at position
``i = b % wave_size``, it runs on SM ``i % sm_count`` in slot ``i // sm_count``.

>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> schedule = waves(lookup_preset("classroom"), blocks_total=10, blocks_per_sm=2)
>>> schedule.wave_size, schedule.waves, schedule.tail_blocks, schedule.tail_fraction
(4, 3, 2, 0.5)
>>> schedule.blocks_on(sm=1, wave=0)
[1, 3]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinycomp.targets.gpu_sim.preset import GpuPreset

__all__ = ["WaveSchedule", "waves"]


@dataclass(frozen=True)
class WaveSchedule:
    """The blocks of one grid over the SMs, wave by wave."""

    sm_count: int
    blocks_total: int
    blocks_per_sm: int
    wave_size: int
    """Blocks in a full wave: ``blocks_per_sm * sm_count``."""
    waves: int
    """Waves in all, the partial tail included."""
    full_waves: int
    tail_blocks: int
    """Blocks in the partial last wave (0 when every wave is full)."""
    wave: np.ndarray
    """Per block of the grid: the wave it runs in."""
    sm: np.ndarray
    """Per block: the SM it runs on."""
    slot: np.ndarray
    """Per block: its place among the blocks resident on that SM (0 first)."""

    @property
    def tail_fraction(self) -> float:
        """How full the last wave is (1.0 when it is a full wave).

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> waves(lookup_preset("classroom"), 8, 2).tail_fraction
        1.0
        """
        return self.tail_blocks / self.wave_size if self.tail_blocks else 1.0

    def blocks_in_wave(self, wave: int) -> int:
        """How many blocks wave ``wave`` runs.

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> [waves(lookup_preset("classroom"), 10, 2).blocks_in_wave(w) for w in range(3)]
        [4, 4, 2]
        """
        self._check_wave(wave)
        if wave < self.full_waves:
            return self.wave_size
        return self.tail_blocks

    def busiest_sm_blocks(self, wave: int) -> int:
        """Blocks on the most loaded SM in wave ``wave`` (what sets the wave's time).

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> waves(lookup_preset("classroom"), 11, 4).busiest_sm_blocks(1)
        2
        """
        return -(-self.blocks_in_wave(wave) // self.sm_count)

    def active_sms(self, wave: int) -> int:
        """SMs that hold at least one block in wave ``wave``.

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> waves(lookup_preset("h100"), 140, 1).active_sms(1)
        8
        """
        return min(self.sm_count, self.blocks_in_wave(wave))

    def blocks_on(self, sm: int, wave: int) -> list[int]:
        """The grid's linear block ids that run on SM ``sm`` in wave ``wave``.

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> waves(lookup_preset("classroom"), 10, 2).blocks_on(sm=0, wave=2)
        [8]
        """
        self._check_wave(wave)
        if not 0 <= sm < self.sm_count:
            raise ValueError(f"SM {sm} does not exist: the preset has {self.sm_count} SMs")
        return np.flatnonzero((self.wave == wave) & (self.sm == sm)).tolist()

    def _check_wave(self, wave: int) -> None:
        if not 0 <= wave < self.waves:
            raise ValueError(f"wave {wave} does not exist: the grid runs in {self.waves} waves")


def waves(preset: GpuPreset, blocks_total: int, blocks_per_sm: int) -> WaveSchedule:
    """Deal ``blocks_total`` blocks to the preset's SMs, ``blocks_per_sm`` at a time each.

    >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
    >>> s = waves(lookup_preset("classroom"), 5, 1)
    >>> s.waves, s.wave.tolist(), s.sm.tolist()
    (3, [0, 0, 1, 1, 2], [0, 1, 0, 1, 0])
    """
    if blocks_total < 1:
        raise ValueError(f"a grid needs at least one block, got blocks_total={blocks_total}")
    if blocks_per_sm < 1:
        raise ValueError(
            f"blocks_per_sm must be at least 1 (the occupancy of a block that runs), "
            f"got {blocks_per_sm}"
        )
    wave_size = blocks_per_sm * preset.sm_count
    ids = np.arange(blocks_total)
    position = ids % wave_size
    return WaveSchedule(
        sm_count=preset.sm_count,
        blocks_total=blocks_total,
        blocks_per_sm=blocks_per_sm,
        wave_size=wave_size,
        waves=-(-blocks_total // wave_size),
        full_waves=blocks_total // wave_size,
        tail_blocks=blocks_total % wave_size,
        wave=ids // wave_size,
        sm=position % preset.sm_count,
        slot=position // preset.sm_count,
    )
