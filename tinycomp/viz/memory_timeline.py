"""Memory timelines: when each buffer is live and held, and the bytes held over time.

After bufferization every temporary is a ``memref.alloc``. Two ranges matter for each
one, both in **op indices** (an op's position in a pre-order walk of its function,
counting from 1, ``memref.dealloc`` not counted, as ``BufferizationReport`` counts):

* **live**: from the ``memref.alloc`` to the last op that uses the buffer (or a view of
  it); after that nobody needs its contents;
* **held**: from the ``memref.alloc`` to its ``memref.dealloc``, or to the end of the
  function when nothing frees it. The memory is taken while it is held.

The bytes *held* at each op index, summed over buffers, is the memory the program takes
at that point; its maximum is the **peak** (``BufferizationReport.peak_bytes``). The
bytes *live* is what it would take if every buffer were freed right after its last use.

A ``MemoryTimeline`` is those ranges for one function, under a label. Three ways to get
one: ``memory_timeline`` measures the IR as it stands; ``bufferization_timelines`` runs
the bufferization passes one by one and measures after each; ``slot_timeline`` draws a
plan that puts several buffers, in turn, into one shared allocation (a *slot*).
``tinycomp.viz.liveness_chart`` draws them.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%v: f32, %out: memref<4xf32>) {
...   %a = memref.alloc() : memref<4xf32>
...   linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
...   %b = memref.alloc() : memref<4xf32>
...   memref.copy %a, %b : memref<4xf32> to memref<4xf32>
...   memref.copy %b, %out : memref<4xf32> to memref<4xf32>
...   return
... }''')
>>> timeline = memory_timeline(m, "as written")
>>> [(b.name, b.live, b.held) for b in timeline.buffers]
[('%a', (('%a', 1, 4),), (1, 6)), ('%b', (('%b', 3, 5),), (3, 6))]
>>> timeline.held_bytes(), timeline.peak, timeline.peak_at
([16, 16, 32, 32, 32, 32], 32, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.passes.bufferize import LiveInterval, bufferization_passes
from tinycomp.passes.bufferize.liveness import OpIndices, buffer_liveness
from tinycomp.passes.bufferize.memref_types import buffer_bytes
from tinycomp.passes.manager import PassManager

__all__ = [
    "BufferLifetime",
    "MemoryTimeline",
    "bufferization_timelines",
    "memory_timeline",
    "slot_timeline",
]


@dataclass(frozen=True)
class BufferLifetime:
    """One row of a chart: a buffer (or a slot several buffers share in turn)."""

    name: str
    """``%alloc`` as the IR prints it, or ``slot 0``."""
    bytes: int | None
    """Its size (``None`` for a dynamic shape, counted as 0)."""
    held: tuple[int, int]
    """Op indices from its allocation to the last op before it is freed."""
    live: tuple[tuple[str, int, int], ...]
    """``(buffer, start, end)`` for each buffer whose contents live in it, in turn."""

    @property
    def holders(self) -> tuple[str, ...]:
        """The buffers that use this memory, in order.

        >>> BufferLifetime("slot 0", 64, (1, 6), (("%a", 1, 3), ("%c", 4, 6))).holders
        ('%a', '%c')
        """
        return tuple(name for name, _, _ in self.live)

    def is_live_at(self, index: int) -> bool:
        """Whether some holder is live at op ``index``."""
        return any(start <= index <= end for _, start, end in self.live)

    def is_held_at(self, index: int) -> bool:
        """Whether the memory is allocated at op ``index``."""
        return self.held[0] <= index <= self.held[1]


@dataclass(frozen=True)
class MemoryTimeline:
    """Buffers over the op indices ``1..last`` of one function, under a ``label``."""

    label: str
    buffers: tuple[BufferLifetime, ...]
    last: int
    """The index of the function's last op (its ``return``)."""

    def held_bytes(self) -> list[int]:
        """Bytes held at each op index ``1..last`` (dynamic sizes count 0)."""
        return [
            sum(b.bytes or 0 for b in self.buffers if b.is_held_at(i))
            for i in range(1, self.last + 1)
        ]

    def live_bytes(self) -> list[int]:
        """Bytes of the buffers live at each op index: what freeing every buffer right
        after its last use would hold."""
        return [
            sum(b.bytes or 0 for b in self.buffers if b.is_live_at(i))
            for i in range(1, self.last + 1)
        ]

    @property
    def peak(self) -> int:
        """The most bytes held at one op index."""
        return max(self.held_bytes(), default=0)

    @property
    def peak_at(self) -> int:
        """The first op index where ``peak`` bytes are held (0 with no op)."""
        held = self.held_bytes()
        return held.index(self.peak) + 1 if held else 0


def _function(op: Operation, entry: str | None) -> Operation:
    """``op`` if it is a function; else its function ``@entry`` (or its only one)."""
    if op.name == "func.func":
        return op
    functions = [f for f in op.walk() if f.name == "func.func" and f.regions[0].blocks]
    if entry is not None:
        functions = [f for f in functions if symbol_name(f) == entry]
    if len(functions) != 1:
        names = ", ".join(f"@{symbol_name(f)}" for f in functions) or "none"
        wanted = f"@{entry}" if entry else "one function with a body"
        raise ValueError(f"memory_timeline: expected {wanted}, found {names}")
    return functions[0]


def memory_timeline(op: Operation, label: str, entry: str | None = None) -> MemoryTimeline:
    """The buffers of a bufferized function as the IR stands: the same live ranges, held
    ranges and peak as ``BufferizationReport.measure``. ``op`` is the function, or a
    module with one function (or pick one with ``entry="name"``).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32) {
    ...   %a = memref.alloc() : memref<2xf32>
    ...   linalg.fill ins(%v : f32) outs(%a : memref<2xf32>)
    ...   memref.dealloc %a : memref<2xf32>
    ...   return }''')
    >>> timeline = memory_timeline(m, "freed")
    >>> [(b.name, b.bytes, b.live, b.held) for b in timeline.buffers], timeline.last
    ([('%a', 8, (('%a', 1, 2),), (1, 2))], 3)
    """
    function = _function(op, entry)
    root = function
    while root.parent_op() is not None:
        root = root.parent_op()
    names = SSANames(root)
    indices = OpIndices(function)
    buffers = []
    for alloc in [nested for nested in function.walk() if nested.name == "memref.alloc"]:
        liveness = buffer_liveness(alloc)
        name = names.value_name(alloc.results[0])
        start, end = indices.interval(liveness)
        buffers.append(
            BufferLifetime(
                name,
                buffer_bytes(alloc.results[0].type),
                indices.held(liveness),
                ((name, start, end),),
            )
        )
    return MemoryTimeline(label, tuple(buffers), indices.last)


def bufferization_timelines(
    module: Operation, reuse: bool = True, deallocate: bool = True
) -> list[MemoryTimeline]:
    """Run ``bufferization_passes(reuse, deallocate)`` on a copy of ``module`` (tensors,
    one function), one pass at a time: one timeline per pass, labelled with its name.

    All of them count op indices as the IR after ``one-shot-bufferize`` does, so their
    x axes line up: ``buffer-reuse`` erases the allocations it merges, so its timeline is
    drawn as the slots it made (``slot_timeline``: each shared buffer is a row holding
    the buffers that took it over, in turn). Each timeline's peak is the report's.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> timelines = bufferization_timelines(trace(softmax, TensorSpec((2, 5))))
    >>> [(t.label, len(t.buffers), t.peak) for t in timelines]
    [('one-shot-bufferize', 4, 96), ('buffer-reuse', 3, 88), ('buffer-deallocation', 3, 88)]
    >>> [row.holders for row in timelines[1].buffers]
    [('%alloc', '%alloc_3'), ('%alloc_0',), ('%alloc_1',)]
    """
    copy = module.clone()
    passes = bufferization_passes(reuse=reuse, deallocate=deallocate)
    PassManager(passes[:1]).run(copy)
    first = memory_timeline(copy, passes[0].name)
    timelines = [first]
    slots = list(range(len(first.buffers)))
    for pass_ in passes[1:]:
        PassManager([pass_]).run(copy)
        if pass_.name == "buffer-reuse":
            slots = _slots_after_reuse(first, pass_.report.reuse)
        freed = pass_.name == "buffer-deallocation"
        if not reuse and freed:
            timelines.append(memory_timeline(copy, pass_.name))
            continue
        intervals = [LiveInterval(b.name, *b.live[0][1:], b.bytes) for b in first.buffers]
        plan = slot_timeline(intervals, slots, pass_.name, first.last, hold_to_end=not freed)
        # A slot is named after the allocation the others took over (the first holder).
        rows = [replace(row, name=row.holders[0]) for row in plan.buffers]
        timelines.append(replace(plan, buffers=tuple(rows)))
    return timelines


def _slots_after_reuse(first: MemoryTimeline, pairs: Sequence[tuple[str, str]]) -> list[int]:
    """Slot of each buffer of ``first``: its own position, or its giver's slot."""
    position = {b.name: number for number, b in enumerate(first.buffers)}
    slots = list(range(len(first.buffers)))
    for taker, giver in pairs:
        slots[position[taker]] = slots[position[giver]]
    return slots


def slot_timeline(
    buffers: Sequence, slots: Sequence[int], label: str, last: int, hold_to_end: bool = False
) -> MemoryTimeline:
    """A plan that gives buffer ``i`` (anything with ``name``, ``start``, ``end``,
    ``bytes``, such as ``LiveInterval``) the slot ``slots[i]``: one row per slot, as big
    as its largest buffer, held from its first buffer's start to its last buffer's end
    (freed after its last use), or to the end of the function when ``hold_to_end``
    (nothing is freed).

    >>> from tinycomp.passes.bufferize import LiveInterval
    >>> plan = slot_timeline([LiveInterval("%a", 1, 3, 64), LiveInterval("%b", 2, 5, 64),
    ...                       LiveInterval("%c", 4, 6, 64)], [0, 1, 0], "two slots", 7)
    >>> [(row.name, row.holders, row.held) for row in plan.buffers], plan.peak
    ([('slot 0', ('%a', '%c'), (1, 6)), ('slot 1', ('%b',), (2, 5))], 128)
    """
    if len(slots) != len(buffers):
        raise ValueError(f"expected one slot per buffer ({len(buffers)}), got {len(slots)}")
    rows = []
    for slot in sorted(set(slots)):
        members = [b for b, s in zip(buffers, slots, strict=True) if s == slot]
        members.sort(key=lambda b: b.start)
        start, end = members[0].start, max(b.end for b in members)
        held = (start, last if hold_to_end else end)
        size = max(b.bytes or 0 for b in members)
        live = tuple((b.name, b.start, b.end) for b in members)
        rows.append(BufferLifetime(f"slot {slot}", size, held, live))
    return MemoryTimeline(label, tuple(rows), last)
