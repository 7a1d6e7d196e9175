"""Which npu ops need a flag between them: the hazards of a kernel, found statically.

An AI core's pipes run side by side; two ops on different pipes that touch the same
buffer (one of them writing) run in the program's order only if something orders them.
This analysis walks one kernel function as its core would run it and finds every such
pair that nothing orders yet, the way the simulator's sanitizer does at run time, but
for every iteration of every loop at once:

1. **What an op touches.** Its declared memory effects on memrefs: a buffer is an
   ``npu.alloc`` (its space and its bytes ``[offset, offset + size)``, so two allocs
   that overlap are one buffer) or a GM argument (the whole array). Offsets inside a
   buffer are not looked at: the analysis is conservative.
2. **What is ordered already.** A vector clock per pipe, as in ``hazards.py``: the ops
   of one pipe are ordered; an op inherits the scalar unit's clock when it is
   dispatched; a ``set_flag`` already in the IR carries its pipe's clock to its
   ``wait_flag``.
3. **A hazard** is an access that overlaps an earlier one of another pipe, one of the
   two writing, the earlier not in the later op's clock. For each such pipe only the
   latest conflicting op needs a flag (the pipe is in order, and a flag fires once
   everything before it on its pipe has finished), and of those the one whose own clock
   already orders the others goes first (a vector op that waited for the copy in covers
   it for the copy out). The pair found is taken as ordered from then on, so no second
   flag is asked for the same order.
4. **Loops** are walked twice: the first walk finds the hazards within an iteration and
   with the code before the loop; the second finds those from one iteration to the
   next (a buffer the vector unit reads in iteration ``i`` that MTE2 refills in
   ``i + 1``). Those are *loop-carried*: their flag is set once before the loop so the
   first iteration passes, and waited once after it so none is left set.

Every hazard is a ``Need``: the producer, the consumer, their pipes, and the op of the
common block before which the wait and after which the set go (the producer and
consumer themselves, or the loops that hold them).

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @k(%x: memref<256xf16>, %y: memref<256xf16>) {
...   %c0 = arith.constant 0 : index
...   %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<256xf16, "ub">
...   "npu.copy"(%x, %ub, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16>, memref<256xf16, "ub">, index, index) -> ()
...   "npu.copy"(%ub, %y, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16, "ub">, memref<256xf16>, index, index) -> ()
...   return
... }''')
>>> [(need.src, need.dst, need.loop_carried) for need in find_needs(module.body.first_op)]
[('MTE2', 'MTE3', False)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tinycomp.dialects.npu import AllocOp, FlagOp
from tinycomp.dialects.npu.base import NpuOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import OpResult, Value

__all__ = ["Need", "find_needs"]

Clock = dict[str, int]


@dataclass(frozen=True)
class Need:
    """A flag the kernel needs: set on ``src`` after ``after``, waited on ``dst`` before
    ``before`` (both ops of one block); loop-carried ones also set once before
    ``loop`` and waited once after it."""

    src: str
    dst: str
    producer: Operation
    consumer: Operation
    after: Operation
    before: Operation
    loop: Operation | None = None
    set_clock: dict = field(default_factory=dict, compare=False)
    """What is known finished when the set fires: the producer's clock."""
    wait_tick: int = 0
    """The consumer's tick on ``dst``: every op of ``dst`` from it on is after the wait."""

    @property
    def loop_carried(self) -> bool:
        return self.loop is not None


@dataclass
class _Access:
    buffer: tuple
    write: bool
    pipe: str
    tick: int
    op: Operation
    clock: Clock
    iterations: tuple[tuple[int, int], ...]
    """``(id(loop), walk)`` of each enclosing loop when it was made."""


def buffer_of(value: Value) -> tuple | None:
    """``("UB", low, high)`` for a value of an ``npu.alloc``, ``("GM", id)`` for any
    other memref (an argument), ``None`` for what is not memory."""
    if isinstance(value, OpResult) and isinstance(value.op, AllocOp):
        return (value.op.space, value.op.offset, value.op.offset + value.op.nbytes)
    if hasattr(value.type, "element_type") and type(value.type).__name__ == "MemRefType":
        return ("GM", id(value))
    return None


def value_key(value: Value) -> object:
    """A key equal for values computed the same way: a constant's value, a pure op's name
    and operands' keys (so two ``arith.addi %slot, %c2`` are one event id)."""
    if isinstance(value, OpResult):
        op = value.op
        if op.name == "arith.constant":
            return op.attributes["value"].value
        if op.is_pure and not op.regions:
            return (op.name, value.index, tuple(value_key(v) for v in op.operands))
    return id(value)


def _overlap(a: tuple, b: tuple) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "GM":
        return a[1] == b[1]
    return a[1] < b[2] and b[1] < a[2]


def _merge(clock: Clock, other: Clock) -> None:
    for pipe, tick in other.items():
        if tick > clock.get(pipe, 0):
            clock[pipe] = tick


@dataclass
class _Walk:
    clocks: dict[str, Clock] = field(default_factory=lambda: {"S": {}})
    accesses: list[_Access] = field(default_factory=list)
    flags: dict[tuple, Clock] = field(default_factory=dict)
    needs: dict[tuple, Need] = field(default_factory=dict)
    loops: list[tuple[Operation, int]] = field(default_factory=list)
    """The loops being walked, innermost last, with the walk (1 or 2) of each."""

    def clock(self, pipe: str) -> Clock:
        return self.clocks.setdefault(pipe, {})

    def block_ops(self, ops: list[Operation]) -> None:
        for op in ops:
            if op.name == "scf.for":
                self.loop(op)
            elif op.regions and op.name != "func.func":
                for region in op.regions:
                    for block in region.blocks:
                        self.block_ops(list(block))
            elif isinstance(op, NpuOp):
                self.npu_op(op)

    def loop(self, loop: Operation) -> None:
        body = list(loop.regions[0].blocks[0])
        for walk in (1, 2):
            self.loops.append((loop, walk))
            self.block_ops(body)
            self.loops.pop()

    def iterations(self) -> tuple[tuple[int, int], ...]:
        return tuple((id(loop), walk) for loop, walk in self.loops)

    def npu_op(self, op: NpuOp) -> None:
        pipe = op.execution_pipe()
        if isinstance(op, FlagOp):
            key = (op.src, op.dst, self._event(op))
            if op.name == "npu.set_flag":
                self.flags[key] = dict(self.clock(op.src))
            elif key in self.flags:
                _merge(self.clock(op.dst), self.flags[key])
            return
        clock = self.clock(pipe)
        if pipe != "S":
            _merge(clock, self.clock("S"))  # dispatched by the scalar unit
        touched = []
        for effect in op.get_effects() or []:
            if effect.value is None or effect.kind not in ("read", "write"):
                continue
            buffer = buffer_of(effect.value)
            if buffer is not None:
                touched.append((buffer, effect.kind == "write"))
        for buffer, write in touched:
            self.check(op, pipe, clock, buffer, write)
        clock[pipe] = clock.get(pipe, 0) + 1
        here = self.iterations()
        for buffer, write in touched:
            self.accesses.append(_Access(buffer, write, pipe, clock[pipe], op, dict(clock), here))

    @staticmethod
    def _event(op: FlagOp) -> object:
        return value_key(op.operands[0])

    def check(self, op: Operation, pipe: str, clock: Clock, buffer: tuple, write: bool) -> None:
        latest: dict[str, _Access] = {}
        for access in self.accesses:
            if access.pipe == pipe or not (write or access.write):
                continue
            if not _overlap(access.buffer, buffer) or access.tick <= clock.get(access.pipe, 0):
                continue
            if access.pipe not in latest or access.tick > latest[access.pipe].tick:
                latest[access.pipe] = access
        pending = list(latest.values())
        while pending:  # the producer whose clock covers most others first: fewer flags
            best = max(pending, key=lambda a: sum(
                b.tick <= a.clock.get(b.pipe, 0) for b in pending
            ))  # fmt: skip
            self.need(best, op, pipe, clock.get(pipe, 0) + 1)
            _merge(clock, best.clock)
            pending = [b for b in pending if b.tick > clock.get(b.pipe, 0)]

    def need(self, producer: _Access, consumer: Operation, pipe: str, wait_tick: int) -> None:
        now = self.iterations()
        carried = None
        pairs = zip(now, producer.iterations, strict=False)  # the loops both are in
        for (loop_id, walk), (other_id, other_walk) in pairs:
            if loop_id == other_id and walk == 2 and other_walk == 1:
                carried = loop_id
                break
        after, before, loop = _anchors(producer.op, consumer, carried)
        key = (producer.pipe, pipe, id(after), id(before), id(loop))
        self.needs.setdefault(key, Need(
            producer.pipe, pipe, producer.op, consumer, after, before, loop,
            dict(producer.clock), wait_tick,
        ))  # fmt: skip


def _ancestors(op: Operation) -> list[Operation]:
    chain = [op]
    while chain[-1].parent is not None and chain[-1].parent_op() is not None:
        parent = chain[-1].parent_op()
        if parent.name == "func.func":
            break
        chain.append(parent)
    return chain


def _anchors(
    producer: Operation, consumer: Operation, carried: int | None
) -> tuple[Operation, Operation, Operation | None]:
    """The ops of one block after / before which the set / wait go (module docstring)."""
    ups, downs = _ancestors(producer), _ancestors(consumer)
    if carried is not None:  # both inside the loop: anchor them in its body
        loop = next(op for op in downs if id(op) == carried)
        after = next(op for op in ups if op.parent_op() is loop)
        before = next(op for op in downs if op.parent_op() is loop)
        return after, before, loop
    blocks = {id(op.parent): op for op in ups}
    for op in downs:
        if id(op.parent) in blocks:
            return blocks[id(op.parent)], op, None
    raise ValueError("npu-insert-sync: the two ops share no block")


def find_needs(func: Operation) -> list[Need]:
    """Every flag ``func`` (an npu kernel) needs and lacks, in program order."""
    walk = _Walk()
    walk.block_ops(list(func.regions[0].blocks[0]))
    return list(walk.needs.values())
