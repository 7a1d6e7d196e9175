"""Static memory planning for an AI core's buffers: where each buffer goes in UB, L1 or
L0, reusing the bytes of buffers that are no longer live, and how many copies of a
tile's buffers (multi-buffering) the space allows.

An NPU kernel has no allocator at run time: every on-chip buffer is an ``npu.alloc`` at
a byte offset fixed by the compiler. The plan, for each space in three steps:

1. every buffer asks for its bytes (rounded up to 32, the alignment every DMA and on-chip
   address needs) times its copies, live from its first use to its last (steps of the
   kernel's program);
2. the largest buffers are placed first, each at the lowest 32-byte aligned offset where
   it overlaps (in bytes) no placed buffer whose lifetime overlaps its own, so buffers
   that are never live together share bytes;
3. a buffer that does not fit is an error naming the space, its size, the buffers live
   with it and their bytes, so the kernel's author sees what to shrink.

``choose_buffer_count`` answers the multi-buffering question: the most copies (up to a
limit) of a tile's per-stage buffers that fit beside what else the space holds, and
says why in words.

>>> plan = plan_memory([
...     BufferRequest("x", "UB", 64 * 1024, 0, 10, copies=2),
...     BufferRequest("y", "UB", 1000, 4, 6),
...     BufferRequest("tmp", "UB", 32 * 1024, 11, 12),   # after x: takes x's bytes
... ], {"UB": 192 * 1024})
>>> [(p.request.name, p.offset) for p in plan.placements]
[('x', 0), ('tmp', 0), ('y', 131072)]
>>> plan.peak("UB")
132096
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "ALIGNMENT", "BufferRequest", "MemoryPlan", "MemoryPlanError", "Placement",
    "choose_buffer_count", "plan_memory",
]  # fmt: skip

ALIGNMENT = 32
"""Bytes every on-chip address and DMA length is a multiple of."""
KIB = 1024


def _aligned(nbytes: int) -> int:
    return -(-nbytes // ALIGNMENT) * ALIGNMENT


def _kib(nbytes: int) -> str:
    return f"{nbytes / KIB:g} KiB"


class MemoryPlanError(ValueError):
    """The buffers of a space do not fit it."""


@dataclass(frozen=True)
class BufferRequest:
    """A buffer of ``nbytes`` (times ``copies``) in ``space``, live from step ``start``
    to step ``end`` (inclusive)."""

    name: str
    space: str
    nbytes: int
    start: int
    end: int
    copies: int = 1

    @property
    def footprint(self) -> int:
        """The bytes it takes: each copy rounded up to 32."""
        return _aligned(self.nbytes) * self.copies

    def live_with(self, other: BufferRequest) -> bool:
        """Whether the two lifetimes overlap."""
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True)
class Placement:
    """Where a buffer went."""

    request: BufferRequest
    offset: int

    @property
    def end(self) -> int:
        return self.offset + self.request.footprint


@dataclass(frozen=True)
class MemoryPlan:
    """Every buffer's offset, in the order they were placed (the largest first)."""

    placements: tuple[Placement, ...]
    capacity: dict[str, int]

    def offset(self, name: str) -> int:
        """The offset of buffer ``name``."""
        return next(p.offset for p in self.placements if p.request.name == name)

    def peak(self, space: str) -> int:
        """The highest byte any buffer of ``space`` reaches."""
        return max((p.end for p in self.placements if p.request.space == space), default=0)

    def __str__(self) -> str:
        lines = ["buffer  space  offset  bytes  live"]
        for p in sorted(self.placements, key=lambda p: (p.request.space, p.offset)):
            r = p.request
            copies = f" x {r.copies}" if r.copies > 1 else ""
            lines.append(f"{r.name}  {r.space}  {p.offset}  {_aligned(r.nbytes)}{copies}  "
                         f"{r.start}-{r.end}")  # fmt: skip
        for space in sorted({p.request.space for p in self.placements}):
            lines.append(f"{space}: {_kib(self.peak(space))} of {_kib(self.capacity[space])}")
        return "\n".join(lines)


def plan_memory(requests: Sequence[BufferRequest], capacity: dict[str, int]) -> MemoryPlan:
    """Offsets for every request (the module docstring's steps)."""
    placed: list[Placement] = []
    order = sorted(requests, key=lambda r: (-r.footprint, r.start, r.name))
    for request in order:
        if request.space not in capacity:
            raise MemoryPlanError(
                f"buffer {request.name!r}: no space {request.space!r} on this core (it has "
                f"{', '.join(sorted(capacity))})"
            )
        rivals = sorted(
            (p for p in placed
             if p.request.space == request.space and p.request.live_with(request)),
            key=lambda p: p.offset,
        )  # fmt: skip
        offset = 0
        for rival in rivals:
            if offset + request.footprint <= rival.offset:
                break
            offset = max(offset, rival.end)
        size = capacity[request.space]
        if offset + request.footprint > size:
            live = ", ".join(f"{p.request.name} ({_kib(p.request.footprint)})" for p in rivals)
            raise MemoryPlanError(
                f"buffer {request.name!r} ({_kib(request.footprint)}"
                + (f", {request.copies} copies" if request.copies > 1 else "")
                + f") does not fit {request.space} ({_kib(size)}): live with it "
                + (live or "nothing else")
                + f"; it would end at byte {offset + request.footprint}"
            )
        placed.append(Placement(request, offset))
    return MemoryPlan(tuple(placed), dict(capacity))


def choose_buffer_count(
    stage_bytes: int, capacity: int, other_bytes: int = 0, *, limit: int = 3, space: str = "UB"
) -> tuple[int, str]:
    """The most copies (1 to ``limit``) of ``stage_bytes`` that fit ``capacity`` beside
    ``other_bytes``, and why.

    >>> choose_buffer_count(48 * 1024, 192 * 1024, 16 * 1024)
    (3, '3 buffers of 48 KiB + 16 KiB of others = 160 KiB fit UB (192 KiB)')
    >>> choose_buffer_count(80 * 1024, 192 * 1024, 16 * 1024)[1]
    '2 buffers of 80 KiB + 16 KiB of others = 176 KiB fit UB (192 KiB); 3 would need 256 KiB'
    """
    stage = _aligned(stage_bytes)
    other = _aligned(other_bytes)
    if stage + other > capacity:
        raise MemoryPlanError(
            f"one buffer of {_kib(stage)} + {_kib(other)} of others = {_kib(stage + other)} "
            f"does not fit {space} ({_kib(capacity)}): make the tile smaller"
        )
    count = min(limit, (capacity - other) // stage)
    used = count * stage + other
    reason = (
        f"{count} buffer{'s' if count > 1 else ''} of {_kib(stage)} + {_kib(other)} of "
        f"others = {_kib(used)} fit {space} ({_kib(capacity)})"
    )
    if count < limit:
        reason += f"; {count + 1} would need {_kib((count + 1) * stage + other)}"
    return count, reason
