"""Memory accounting of one warp-wide access: global sectors, shared wavefronts, atomic
conflicts, and the sectors each block touched (its footprint).

Lanes are taken as ``(warps, 32)`` rows; inactive lanes do not count.

* global: a request per warp with an active lane; its *sectors* are the distinct
  ``byte_address // 32`` of its active lanes (when a warp's addresses are non-decreasing
  that is ``1 + count(diff != 0)``, no sort needed); *ideal* is
  ``ceil(distinct bytes asked / 32)``: the distinct addresses of its active lanes times
  the bytes each asks for (a broadcast of one float is one sector, ideally one);
* shared: the *wavefronts* of a request are the most distinct 4-byte words any one bank
  (``word % 32``) is asked for (the same word is broadcast); ideal is one per 128 bytes;
* atomics: *conflicts* are the lanes of a warp that hit an address an earlier lane of
  the warp already hit.

Each returns per-block ``int64`` arrays.

>>> from tinycomp.targets.gpu_sim.launch_config import LaunchConfig
>>> from tinycomp.targets.gpu_sim.lanes import ChunkLanes
>>> lanes = ChunkLanes(LaunchConfig.create(1, 32), np.arange(1))
>>> [a.tolist() for a in global_sectors(np.arange(32) * 4, None, 4, lanes)]
[[1], [4], [4]]
>>> [a.tolist() for a in global_sectors(np.arange(32) * 128, None, 4, lanes)]
[[1], [32], [4]]
>>> [a.tolist() for a in global_sectors(np.zeros(32, np.int64), None, 4, lanes)]
[[1], [1], [1]]
>>> [a.tolist() for a in shared_wavefronts(np.arange(32) * 128, None, 4, lanes)]
[[1], [32], [1]]
"""

from __future__ import annotations

import numpy as np

from tinycomp.targets.gpu_sim.lanes import ChunkLanes

__all__ = ["atomic_conflicts", "distinct_per_row", "global_sectors", "shared_wavefronts"]

WARP = 32


def distinct_per_row(rows: np.ndarray) -> np.ndarray:
    """Distinct non-negative values in each row (``-1`` marks an inactive lane).

    >>> distinct_per_row(np.array([[3, -1, 3, 5], [-1, -1, -1, -1]])).tolist()
    [2, 0]
    """
    ordered = np.sort(rows, axis=1)
    starts = (ordered[:, 1:] != ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    return (ordered[:, 0] >= 0).astype(np.int64) + starts.sum(1)


def _per_block(per_warp: np.ndarray, lanes: ChunkLanes) -> np.ndarray:
    return per_warp.reshape(lanes.blocks, lanes.warps_per_block).sum(1, dtype=np.int64)


def _active_counts(arr: np.ndarray | None, lanes: ChunkLanes) -> np.ndarray:
    if arr is None:
        return np.full(lanes.warps, WARP, np.int64)
    return arr.reshape(lanes.warps, WARP).sum(1, dtype=np.int64)


def _block_sums(flags: np.ndarray, lanes: ChunkLanes) -> np.ndarray:
    """Per block, how many lanes' flags are set."""
    rows = flags.view(np.uint8).reshape(lanes.blocks, -1)
    return rows.sum(1, dtype=np.int64)


def global_sectors(
    byte_address: np.ndarray, arr: np.ndarray | None, nbytes: int, lanes: ChunkLanes,
    may_span: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Per block: requests, sectors and ideal sectors of one global access of ``nbytes``
    bytes per lane (``may_span=False`` promises no lane's bytes cross a sector)."""
    first = byte_address >> 5
    spans = False
    if may_span and nbytes > 1:
        last = (byte_address + (nbytes - 1)) >> 5
        spans = bool(np.any(last != first))
    per_block = distinct = None
    if arr is None and not spans:
        later, earlier = byte_address[1:], byte_address[:-1]
        rising = np.greater_equal(later, earlier)
        rising[WARP - 1 :: WARP] = True
        if bool(rising.all()):
            new_sector = np.empty(lanes.total, bool)
            np.not_equal(first[1:], first[:-1], out=new_sector[1:])
            new_sector[::WARP] = True
            per_block = _block_sums(new_sector, lanes)
            new_address = np.empty(lanes.total, bool)
            np.not_equal(later, earlier, out=new_address[1:])
            new_address[::WARP] = True
            distinct = new_address.reshape(lanes.warps, WARP).sum(1, dtype=np.int64)
    if per_block is None:
        if spans:
            both = np.concatenate([first.reshape(-1, WARP), last.reshape(-1, WARP)], axis=1)
            if arr is not None:
                both = np.where(np.tile(arr.reshape(-1, WARP), 2), both, -1)
        else:
            both = (first if arr is None else np.where(arr, first, -1)).reshape(-1, WARP)
        per_block = _per_block(distinct_per_row(both), lanes)
        asked = byte_address if arr is None else np.where(arr, byte_address, -1)
        distinct = distinct_per_row(asked.reshape(-1, WARP))
    active = _active_counts(arr, lanes)
    requests = (active > 0).astype(np.int64)
    ideal = -(-distinct * nbytes // 32)
    return _per_block(requests, lanes), per_block, _per_block(ideal, lanes)


def shared_wavefronts(
    byte_address: np.ndarray, arr: np.ndarray | None, nbytes: int, lanes: ChunkLanes
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block: requests, wavefronts and ideal wavefronts of one shared access.

    First the lanes per bank are counted (no sort); only the warps where some bank gets
    two lanes are sorted, to tell a broadcast (one word) from a conflict."""
    words = byte_address >> 2
    per_lane = max(1, nbytes // 4)
    if per_lane > 1:
        words = words[:, None] + np.arange(per_lane)
    if arr is not None:
        words = np.where(arr[:, None] if per_lane > 1 else arr, words, -1)
    rows = words.reshape(lanes.warps, WARP * per_lane)
    banks = (rows & (WARP - 1)) + (np.arange(lanes.warps, dtype=np.int64) * WARP)[:, None]
    banks = banks[rows >= 0] if arr is not None else banks.reshape(-1)
    lanes_per_bank = np.bincount(banks, minlength=lanes.warps * WARP).reshape(lanes.warps, WARP)
    wavefronts = lanes_per_bank.max(1)
    crowded = np.flatnonzero(wavefronts > 1)
    if len(crowded):
        wavefronts[crowded] = _distinct_words_per_bank(rows[crowded])
    active = _active_counts(arr, lanes)
    requests = (active > 0).astype(np.int64)
    ideal = np.where(active > 0, -(-active * nbytes // 128), 0)
    return _per_block(requests, lanes), _per_block(wavefronts, lanes), _per_block(ideal, lanes)


def _distinct_words_per_bank(rows: np.ndarray) -> np.ndarray:
    """Per row (a warp's words, ``-1`` inactive), the most distinct words of one bank."""
    rows = np.sort(rows, axis=1)
    unique = np.empty(rows.shape, bool)
    unique[:, 0] = rows[:, 0] >= 0
    unique[:, 1:] = (rows[:, 1:] != rows[:, :-1]) & (rows[:, 1:] >= 0)
    count = len(rows)
    warp = np.arange(count, dtype=np.int64)[:, None] * WARP
    keys = (warp + (rows & (WARP - 1)))[unique]
    return np.bincount(keys, minlength=count * WARP).reshape(count, WARP).max(1)


def atomic_conflicts(
    element: np.ndarray, arr: np.ndarray | None, lanes: ChunkLanes
) -> tuple[np.ndarray, np.ndarray]:
    """Per block: requests and conflicts (lanes beyond the first to each address, per
    warp) of one atomic access to element offsets ``element``."""
    rows = element if arr is None else np.where(arr, element, -1)
    distinct = distinct_per_row(rows.reshape(lanes.warps, WARP))
    active = _active_counts(arr, lanes)
    requests = (active > 0).astype(np.int64)
    return _per_block(requests, lanes), _per_block(active - distinct, lanes)
