"""Structural values: what a kernel computes from its ids, constants, ``memref.dim``\\ s
and scalar arguments only, kept between launches of a kept program.

``i = block_id * block_dim + thread_id`` and the mask ``i < n`` are the same at every
launch of one program on one chunk of blocks: only the arrays' contents change. A kept
program (``compiled_cache.py``) computes them at its first launch on a chunk layout
and then hands back the very same arrays, so that every cache keyed by an array's
identity (the offsets of an access, the ``PatternMemo``) hits without comparing
contents.

1. *Which values.* An op of the kernel's entry block is structural when it is an
   ``arith`` or ``math`` op (no region, no memory) whose operands are all structural;
   the seeds are the slots fixed at chunk start (constants, dims, scalars, ids). Ops
   under a branch or in a loop are left alone (their masks and induction variables
   change).
2. *Kept per layout.* After a chunk ran to its end, ``keep`` stores those slots'
   values (made read-only) and the access offsets computed from them, under the
   chunk's layout (the launch configuration and its block ids); at most
   ``LAYOUTS_KEPT`` layouts, for chunks of at most ``pattern_memo.MEMO_LANES`` lanes.
3. *Restored.* A later chunk of that layout writes them back at its start and its
   structural closures do nothing. The instruction counts do not change: they come
   from each block's static histogram, not from the closures.

A traced run compiles a program of its own and keeps nothing, so the trace shows
every instruction.

>>> kept = StructuralValues()
>>> kept.seed(0); kept.seed(1)
>>> kept.admits("arith.addi", [0, 1], has_regions=False), kept.admits("memref.load", [0], False)
(True, False)
>>> kept.add([2]); sorted(kept.slots)
[0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["LAYOUTS_KEPT", "KeptLayout", "StructuralValues", "skipped_when_restored"]

LAYOUTS_KEPT = 4
"""The most chunk layouts whose structural values one program keeps (the oldest goes)."""


class KeptLayout:
    """The structural values of one chunk layout, and the offsets computed from them."""

    __slots__ = ("offsets", "values")

    def __init__(self, values: list[tuple[int, Any]], offsets: dict[Any, Any]) -> None:
        self.values = values
        """``(slot, value)`` for every structural slot (arrays made read-only)."""
        self.offsets = offsets
        """Access offsets (``ChunkState.cache`` entries) keyed by kept arrays only."""


def _frozen(value: Any) -> Any:
    if type(value) is np.ndarray:
        value.flags.writeable = False
    return value


class StructuralValues:
    """The structural slots of one program and their values per chunk layout."""

    def __init__(self) -> None:
        self.slots: set[int] = set()
        self.layouts: dict[Any, KeptLayout] = {}

    def seed(self, slot: int) -> None:
        """A slot fixed at chunk start (a constant, a dim, a scalar, an id)."""
        self.slots.add(slot)

    def admits(self, name: str, operand_slots: list[int], has_regions: bool) -> bool:
        """Whether an entry-block op of this name and these operands is structural."""
        if has_regions or name.split(".")[0] not in ("arith", "math"):
            return False
        return all(slot in self.slots for slot in operand_slots)

    def add(self, result_slots: list[int]) -> None:
        """Mark a structural op's results."""
        self.slots.update(result_slots)

    def find(self, layout: Any) -> KeptLayout | None:
        """The values kept for ``layout`` (``None``: not kept, or no layout)."""
        return None if layout is None else self.layouts.get(layout)

    def keep(self, layout: Any, v: list[Any], cache: dict[Any, Any]) -> None:
        """Keep the structural slots of a chunk that ran to its end, and the offsets
        (``("V", buffer, id, stride, ...)`` entries of ``cache``) made of them alone."""
        if layout is None or layout in self.layouts:
            return
        values = [(slot, _frozen(v[slot])) for slot in sorted(self.slots)]
        kept_ids = {id(value) for _, value in values if type(value) is np.ndarray}
        offsets = {}
        for key, entry in cache.items():
            if key[0] == "V" and all(i in kept_ids for i in key[2::2]):
                _frozen(entry[0])
                offsets[key] = entry
        if len(self.layouts) >= LAYOUTS_KEPT:
            del self.layouts[next(iter(self.layouts))]
        self.layouts[layout] = KeptLayout(values, offsets)


def skipped_when_restored(fn: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """``fn``, doing nothing in a chunk whose structural values were restored."""

    def run(st: Any, m: Any) -> None:
        if not st.restored:
            fn(st, m)

    return run
