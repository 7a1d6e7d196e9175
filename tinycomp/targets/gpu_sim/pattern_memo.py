"""Counts of access patterns kept between launches of a kept program, found again by the
contents of the arrays they were counted from.

A launch of a kernel whose program is kept (``compiled_cache.py``) recomputes its index
arrays (``row * n + k``...) from the thread and block ids: new arrays, most often with
the very same contents as at the last launch. Counting their sectors, wavefronts and
footprint again would give the same numbers. A ``PatternMemo`` keeps those numbers
under a small key (the op's plan, the residue of the uniform part, the chunk's shape)
together with the arrays they came from; a later lookup with the same key returns them
when its arrays are equal element for element (the same objects, or ``np.array_equal``),
so a hit is exact, never a guess from a hash. An entry found by its contents with
arrays no one can write to (the structural values a kept program restores,
``structural.py``) holds those very arrays afterwards: the next lookup matches them by
identity.

Only chunks of at most ``MEMO_LANES`` lanes are kept (a few hundred kB per entry): in
larger ones the counting is a small part of the run.

>>> memo = PatternMemo()
>>> offsets = np.arange(64) * 4
>>> memo.find(("a", 0), (offsets, None)) is None
True
>>> memo.keep(("a", 0), (offsets, None), "sectors of a")
>>> memo.find(("a", 0), (np.arange(64) * 4, None)), memo.find(("a", 0), (offsets + 1, None))
('sectors of a', None)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MEMO_LANES", "PatternMemo"]

MEMO_LANES = 1 << 16
"""The most lanes a chunk may have for its patterns to be kept."""


def _read_only(a: np.ndarray | None) -> bool:
    """Whether ``a`` can be held instead of a copy: no one can write to it (an array
    that owns its data and is not writeable, as the structural values are)."""
    return a is None or (not a.flags.writeable and a.base is None)


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is b:
        return True
    if a is None or b is None or a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(np.array_equal(a, b))


class PatternMemo:
    """Key -> a few ``(arrays, value)`` entries, matched by the arrays' contents."""

    def __init__(self, per_key: int = 4, keys: int = 4096) -> None:
        self.per_key = per_key
        self.keys = keys
        self.entries: dict[Any, list[tuple[tuple[np.ndarray | None, ...], Any]]] = {}

    def find(self, key: Any, arrays: tuple[np.ndarray | None, ...]) -> Any:
        """The value kept under ``key`` for arrays equal to ``arrays``, or ``None``."""
        found = self.entries.get(key)
        if found is None:
            return None
        for i, (kept, value) in enumerate(found):
            if all(a is b for a, b in zip(kept, arrays, strict=True)):
                return value
            if all(_same(a, b) for a, b in zip(kept, arrays, strict=True)):
                if all(_read_only(b) for b in arrays):  # next time, found by identity
                    found[i] = (arrays, value)
                return value
        return None

    def keep(self, key: Any, arrays: tuple[np.ndarray | None, ...], value: Any) -> None:
        """Keep ``value`` for ``key`` and ``arrays`` (the oldest entry of the key, or the
        oldest key, goes when there are too many)."""
        found = self.entries.get(key)
        if found is None:
            if len(self.entries) >= self.keys:
                del self.entries[next(iter(self.entries))]
            found = self.entries[key] = []
        if len(found) >= self.per_key:
            found.pop(0)
        found.append((tuple(None if a is None else a.copy() for a in arrays), value))
