"""``npu-insert-sync``: the flags a kernel needs, inserted where they order the least.

Given an npu kernel whose ops are written without (some of) their flags, the pass
makes it hazard-free, as the automatic synchronisation of Ascend's compilers does
(``inject-block-sync`` in AscendNPU-IR), in four steps:

1. find every hazard nothing orders yet (``sync_analysis.find_needs``): a producer, a
   consumer, their pipes, and the ops of one block after / before which the flag goes;
   a pair for the latest conflicting op of each pipe only, none where one is already
   implied, so the pairs are few and each is as late (set) and as early (wait) as the
   data allows, which keeps the pipes overlapping;
2. give each an event id of its pair of pipes, one the kernel's own flags do not use. A
   flag holds one set, so an id serves a second pair only once the first pair's interval
   (from its set to its wait; a loop-carried one's: the whole loop) has ended *and* its
   wait is known to come before the second set: the second producer's clock has the
   first consumer in it, or the wait is on the scalar unit, which dispatches nothing
   after it before it passes. More than the preset's 8 for one pair of pipes at once is
   an error naming the pipes;
3. insert ``set_flag`` right after the producer's anchor and ``wait_flag`` right before
   the consumer's, located at their ops' lines; for a loop-carried hazard also a
   ``set_flag`` before the loop and a ``wait_flag`` after it, so each iteration's wait
   has its set and no flag is left set at the end;
4. report each pair inserted (``statistics["flags inserted"]``, and the returned
   ``SyncPair`` list: pipes, event, the two ops and their lines).

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @k(%x: memref<256xf16>, %y: memref<256xf16>) {
...   %c0 = arith.constant 0 : index
...   %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<256xf16, "ub">
...   "npu.copy"(%x, %ub, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16>, memref<256xf16, "ub">, index, index) -> ()
...   "npu.vadd"(%ub, %ub, %ub, %c0, %c0, %c0) {repeat = 2 : i64}
...       : (memref<256xf16, "ub">, memref<256xf16, "ub">, memref<256xf16, "ub">,
...          index, index, index) -> ()
...   "npu.copy"(%ub, %y, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16, "ub">, memref<256xf16>, index, index) -> ()
...   return
... }''')
>>> [str(pair) for pair in insert_sync(module.body.first_op)]
['MTE2 -> V event 0: line 5 -> line 7', 'V -> MTE3 event 0: line 7 -> line 10']
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.npu import FlagOp
from tinycomp.ir import Builder, InsertionPoint, index
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import OpResult
from tinycomp.passes.npu.sync_analysis import Need, find_needs
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass

__all__ = ["EVENT_IDS", "NpuInsertSyncPass", "SyncPair", "insert_sync"]

EVENT_IDS = 8
"""Event ids of one pair of pipes (Ascend's 0-7)."""


@dataclass(frozen=True)
class SyncPair:
    """One pair of flags the pass inserted."""

    need: Need
    event: int

    def __str__(self) -> str:
        def line(op: Operation) -> str:
            return f"line {op.location.line}" if op.location is not None else op.name

        carried = " (loop-carried)" if self.need.loop_carried else ""
        return (
            f"{self.need.src} -> {self.need.dst} event {self.event}: "
            f"{line(self.need.producer)} -> {line(self.need.consumer)}{carried}"
        )


def _positions(func: Operation) -> dict[int, int]:
    return {id(op): n for n, op in enumerate(func.walk())}


def _last_position(op: Operation, positions: dict[int, int]) -> int:
    return max(positions[id(inner)] for inner in op.walk())


def _constant_ids(func: Operation) -> dict[tuple[str, str], set[int]]:
    """Event ids the kernel's own flags use, by pair (``-1``: one computed at run time)."""
    used: dict[tuple[str, str], set[int]] = defaultdict(set)
    for op in func.walk():
        if isinstance(op, FlagOp):
            value = op.operands[0]
            constant = isinstance(value, OpResult) and value.op.name == "arith.constant"
            used[(op.src, op.dst)].add(value.op.attributes["value"].value if constant else -1)
    return used


def _assign(needs: list[Need], func: Operation) -> list[SyncPair]:
    """Step 2: an event id for each need, reused once its interval is over."""
    positions = _positions(func)
    used = _constant_ids(func)
    intervals = []
    for need in needs:
        if need.loop is not None:
            span = (positions[id(need.loop)], _last_position(need.loop, positions) + 1)
        else:
            span = (positions[id(need.after)], positions[id(need.before)])
        intervals.append((span, need))
    holders: dict[tuple[str, str], dict[int, tuple[int, Need]]] = defaultdict(dict)
    pairs = []
    for (start, end), need in sorted(intervals, key=lambda item: item[0]):
        pair = (need.src, need.dst)
        if -1 in used[pair]:
            raise ValueError(
                f"npu-insert-sync: {need.src} -> {need.dst} already has flags whose event "
                "ids are computed at run time; cannot pick a free id for "
                f"'{need.consumer.name}'"
            )
        free = [
            i for i in range(EVENT_IDS)
            if i not in used[pair] and _reusable(holders[pair].get(i), need, start)
        ]  # fmt: skip
        if not free:
            raise ValueError(
                f"npu-insert-sync: more than {EVENT_IDS} flags {need.src} -> {need.dst} in "
                f"flight at '{need.consumer.name}'; the pipes have event ids 0-{EVENT_IDS - 1}"
            )
        holders[pair][free[0]] = (end, need)
        pairs.append(SyncPair(need, free[0]))
    return pairs


def _reusable(holder: tuple[int, Need] | None, need: Need, start: int) -> bool:
    """Whether ``need`` may take the event id ``holder`` has: its interval is over and its
    wait comes before ``need``'s set (the set's clock knows the waiter's consumer, or the
    wait is on the scalar unit, which dispatches nothing after it before it passes)."""
    if holder is None:
        return True
    end, earlier = holder
    if end > start:
        return False
    if need.dst == "S":
        return True
    if need.loop_carried or earlier.loop_carried:  # set before the loop, waited after it:
        return False  # those two have no clock here to compare
    return need.set_clock.get(need.dst, 0) >= earlier.wait_tick


def _flag(name: str, pair: SyncPair, event, where: Operation) -> FlagOp:
    op = FlagOp.build(name, pair.need.src, pair.need.dst, event)
    op.location = where.location
    return op


def insert_sync(func: Operation) -> list[SyncPair]:
    """Make ``func`` hazard-free (the module docstring's steps); the pairs inserted."""
    pairs = _assign(find_needs(func), func)
    builder = Builder()
    constants: dict[int, object] = {}
    entry = func.regions[0].blocks[0]
    for pair in pairs:
        if pair.event not in constants:
            with builder.at(InsertionPoint.at_start(entry)):
                constants[pair.event] = builder.insert(ConstantOp.build(pair.event, index)).result
        event, need = constants[pair.event], pair.need
        with builder.at(InsertionPoint.after(need.after)):
            builder.insert(_flag("npu.set_flag", pair, event, need.producer))
        with builder.at(InsertionPoint.before(need.before)):
            builder.insert(_flag("npu.wait_flag", pair, event, need.consumer))
        if need.loop is not None:
            with builder.at(InsertionPoint.before(need.loop)):
                builder.insert(_flag("npu.set_flag", pair, event, need.loop))
            with builder.at(InsertionPoint.after(need.loop)):
                builder.insert(_flag("npu.wait_flag", pair, event, need.loop))
    return pairs


class NpuInsertSyncPass(Pass):
    """``npu-insert-sync`` on every npu kernel of the module (module docstring)."""

    name = "npu-insert-sync"
    summary = "insert the set_flag / wait_flag pairs an npu kernel needs"

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[SyncPair] = []
        """The pairs of the last run, kernel after kernel."""

    def run(self, op: Operation) -> None:
        self.pairs = []
        funcs = [op] if op.name == "func.func" else [
            f for f in op.walk() if f.name == "func.func" and "npu.kernel_type" in f.attributes
        ]  # fmt: skip
        for func in funcs:
            pairs = insert_sync(func)
            self.pairs.extend(pairs)
            self.statistics["flags inserted"] += len(pairs)


register_pass(NpuInsertSyncPass)
