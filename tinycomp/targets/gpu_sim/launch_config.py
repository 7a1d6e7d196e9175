"""A kernel launch's shape: grid and block dimensions checked against a preset, the
blocks to simulate, and how they are split into chunks.

A block of ``bx * by * bz`` threads is laid out as whole warps of 32 lanes (thread
``x + y*bx + z*bx*by`` is lane ``t % 32`` of warp ``t // 32``); a partial last warp is
padded with lanes that never run. The simulator runs as many whole blocks at once (a
*chunk*) as fit a budget of lanes, so that every value is one numpy array per chunk.

>>> config = LaunchConfig.create(grid=4, block=(16, 16))
>>> config.grid, config.block, config.threads_per_block, config.warps_per_block
((4, 1, 1), (16, 16, 1), 256, 8)
>>> config.chunks(lane_budget=512)
[array([0, 1]), array([2, 3])]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinycomp.targets.gpu_sim.errors import UNCHANGED, LaunchError
from tinycomp.targets.gpu_sim.preset import GpuPreset

__all__ = ["DEFAULT_LANE_BUDGET", "LaunchConfig", "normalize_dims"]

DEFAULT_LANE_BUDGET = 2**16
"""Lanes simulated at once (whole blocks; at least one block)."""

WARP = 32


def normalize_dims(dims: int | tuple[int, ...] | list[int], what: str) -> tuple[int, int, int]:
    """``8`` or ``(8, 2)`` as ``(x, y, z)``, every entry a positive int.

    >>> normalize_dims((8, 2), "grid")
    (8, 2, 1)
    >>> normalize_dims((0,), "block")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tinycomp.targets.gpu_sim.errors.LaunchError: expected the block dimensions to be 1 to 3 ...
    """
    values = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    ok = 1 <= len(values) <= 3 and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1 for v in values
    )
    if not ok:
        raise LaunchError(
            f"expected the {what} dimensions to be 1 to 3 positive integers, got {dims!r}"
        )
    x, y, z = (*(int(v) for v in values), 1, 1)[:3]
    return x, y, z


@dataclass(frozen=True)
class LaunchConfig:
    """Grid and block dimensions, and the blocks that run."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]

    @classmethod
    def create(cls, grid: int | tuple[int, ...], block: int | tuple[int, ...]) -> LaunchConfig:
        """From ints or 1-3 tuples."""
        return cls(normalize_dims(grid, "grid"), normalize_dims(block, "block"))

    @property
    def threads_per_block(self) -> int:
        """``bx * by * bz``."""
        bx, by, bz = self.block
        return bx * by * bz

    @property
    def warps_per_block(self) -> int:
        """Warps per block, a partial last one included."""
        return -(-self.threads_per_block // WARP)

    @property
    def lanes_per_block(self) -> int:
        """``32 * warps_per_block``: the threads and the padding of the last warp."""
        return WARP * self.warps_per_block

    @property
    def blocks_total(self) -> int:
        """Blocks in the grid."""
        gx, gy, gz = self.grid
        return gx * gy * gz

    def check(self, preset: GpuPreset, kernel: str, shared_bytes: int) -> None:
        """Raise ``LaunchError`` if the launch breaks a limit of ``preset``.

        >>> from tinycomp.targets.gpu_sim.preset import lookup_preset
        >>> try:
        ...     LaunchConfig.create(1, 512).check(lookup_preset("classroom"), "k", 0)
        ... except LaunchError as error:
        ...     print(error)  # doctest: +ELLIPSIS
        kernel 'k': a block of 512 threads (512, 1, 1) is more than the 256 threads per block ...
        """
        where = f"kernel '{kernel}': "
        end = f" of preset '{preset.name}'; {UNCHANGED}"
        if self.threads_per_block > preset.max_threads_per_block:
            raise LaunchError(
                f"{where}a block of {self.threads_per_block} threads {self.block} is more than "
                f"the {preset.max_threads_per_block} threads per block{end}"
            )
        for what, dims, limits in (
            ("block", self.block, preset.max_block_dims),
            ("grid", self.grid, preset.max_grid_dims),
        ):
            for axis, size, limit in zip("xyz", dims, limits, strict=True):
                if size > limit:
                    raise LaunchError(
                        f"{where}{what} dimension {axis} = {size} is more than the largest "
                        f"{what} dimension {axis} = {limit}{end}"
                    )
        if shared_bytes > preset.max_shared_per_block:
            raise LaunchError(
                f"{where}{shared_bytes} bytes of shared memory (workgroup attributions) are more "
                f"than the {preset.max_shared_per_block} bytes per block{end}"
            )

    def block_ids(self, sample_blocks: int | None) -> np.ndarray:
        """Linear ids of the blocks to run: all, or ``n`` spread over the grid (the first,
        the last and evenly between).

        >>> LaunchConfig.create(10, 32).block_ids(3).tolist()
        [0, 4, 9]
        """
        total = self.blocks_total
        if sample_blocks is None or sample_blocks >= total:
            return np.arange(total, dtype=np.int64)
        if sample_blocks < 1:
            raise LaunchError(f"expected sample_blocks to be at least 1, got {sample_blocks}")
        return np.unique(np.linspace(0, total - 1, sample_blocks).round().astype(np.int64))

    def chunks(
        self, lane_budget: int = DEFAULT_LANE_BUDGET, block_ids: np.ndarray | None = None
    ) -> list[np.ndarray]:
        """The block ids split into chunks of at most ``lane_budget`` lanes (at least one
        block per chunk)."""
        ids = self.block_ids(None) if block_ids is None else block_ids
        per_chunk = max(1, lane_budget // self.lanes_per_block)
        return [ids[i : i + per_chunk] for i in range(0, len(ids), per_chunk)]

    def block_coordinates(self, linear: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, y, z)`` of linear block ids.

        >>> [c.tolist() for c in LaunchConfig.create((2, 3), 32).block_coordinates(np.array([5]))]
        [[1], [2], [0]]
        """
        gx, gy, _ = self.grid
        return linear % gx, (linear // gx) % gy, linear // (gx * gy)
