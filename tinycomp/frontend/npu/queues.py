"""Ascend C's memory management: a ``TPipe`` that owns the on-chip buffers, ``TQue``
queues between two pipes, and ``TBuf`` scratch buffers, and the flags they stand for.

A queue sits between the pipe that fills its buffers and the pipe that uses them (its
*position*: ``VECIN`` from MTE2 to V, ``VECOUT`` from V to MTE3, ``A1`` / ``B1`` from
MTE2 to MTE1 in L1, ``A2`` / ``B2`` from MTE1 to the cube in L0A / L0B, ``CO1`` from the
cube to FixPipe in L0C). ``pipe.init_buffer(queue, num, nbytes)`` gives it ``num``
buffers of ``nbytes`` each; ``num = 2`` (``BUFFER_NUM``) is double buffering. Each
queue call is a flag, which is what the sugar hides:

==========================  =================================================
call                        records
==========================  =================================================
``init_buffer``             ``set_flag(consumer->producer, free[s])`` for each buffer
``t = q.alloc_tensor()``    ``wait_flag(consumer->producer, free[s])``: buffer s is free
``q.enque(t)``              ``set_flag(producer->consumer, ready[s])``: t is filled
``t = q.deque()``           ``wait_flag(producer->consumer, ready[s])``
``q.free_tensor(t)``        ``set_flag(consumer->producer, free[s])``: s may be refilled
end of the kernel           ``wait_flag(consumer->producer, free[s])`` for each buffer
==========================  =================================================

Buffers are taken in turn (``s`` = allocations so far modulo ``num``). Inside an
``npu.range`` loop that count is a loop-carried value, so ``s``, the buffer's offset
and the event id are recorded arithmetic; a queue of one buffer needs none of it.
Event ids come from the pipe, counted per pair of pipes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.dialects.npu import AllocOp, FlagOp, space
from tinycomp.frontend.npu.scalar import as_value, binary, is_static
from tinycomp.frontend.npu.tensors import LocalTensor
from tinycomp.frontend.npu.trace import current_trace
from tinycomp.frontend.simt.signature import element_type_of
from tinycomp.ir import MemRefType

__all__ = ["POSITIONS", "TBuf", "TPipe", "TQue", "record_flag"]

POSITIONS = {
    "VECIN": ("UB", "MTE2", "V"),
    "VECOUT": ("UB", "V", "MTE3"),
    "VECCALC": ("UB", None, None),
    "A1": ("L1", "MTE2", "MTE1"),
    "B1": ("L1", "MTE2", "MTE1"),
    "A2": ("L0A", "MTE1", "M"),
    "B2": ("L0B", "MTE1", "M"),
    "CO1": ("L0C", "M", "FIX"),
}
"""Position -> (space, the pipe that fills it, the pipe that uses it)."""
ALIGN = 32


class _Buffers:
    """What ``TQue`` and ``TBuf`` share: one ``npu.alloc`` per element type over the
    bytes ``init_buffer`` gave them, at the top of the kernel."""

    space = "UB"
    offset = 0
    nbytes = 0
    num = 1

    def buffer_for(self, dtype: np.dtype) -> Any:
        views = self.__dict__.setdefault("views", {})
        if dtype not in views:
            memref = MemRefType((self.num * self.nbytes // dtype.itemsize,),
                                element_type_of(dtype), memory_space=space(self.space))  # fmt: skip
            views[dtype] = current_trace().at_top(AllocOp.build(memref, self.offset)).result
        return views[dtype]


def record_flag(name: str, src: str, dst: str, event: Any) -> None:
    """Record ``npu.set_flag`` / ``npu.wait_flag`` between ``src`` and ``dst``."""
    trace = current_trace()
    trace.emit(FlagOp.build(name, src, dst, as_value(event)))


class TQue(_Buffers):
    """A queue at a position (module docstring); give it buffers with
    ``TPipe.init_buffer``."""

    def __init__(self, position: str, depth: int = 1) -> None:
        if position not in POSITIONS or position == "VECCALC":
            queues = ", ".join(p for p in POSITIONS if p != "VECCALC")
            raise current_trace().error(
                f"expected a queue position among {queues}, got {position!r}"
            )
        self.position = position
        self.depth = depth
        self.space, self.producer, self.consumer = POSITIONS[position]
        self.num = 0
        self.ready: list[int] = []
        self.free: list[int] = []
        self.allocated: Any = 0
        """Allocations so far (carried through ``npu.range`` loops)."""
        self.queued: list[LocalTensor] = []

    # -- what npu.range carries -------------------------------------------------------------
    def carried(self) -> list[Any]:
        return [self.allocated] if self.num > 1 else []

    def set_carried(self, values: list[Any]) -> None:
        if self.num > 1:
            (self.allocated,) = values

    def _slot_event(self, slot: Any, ids: list[int]) -> Any:
        return ids[0] + slot if is_static(slot) else binary("+", slot, ids[0])

    def alloc_tensor(self, dtype: Any = None) -> LocalTensor:
        """The next free buffer (waits until its last user freed it)."""
        trace = current_trace()
        if self.num == 0:
            raise trace.error(f"queue {self.position} has no buffers: call pipe.init_buffer first")
        slot = binary("%", self.allocated, self.num) if self.num > 1 else 0
        free = self._slot_event(slot, self.free)
        record_flag("npu.wait_flag", self.consumer, self.producer, free)
        self.allocated = binary("+", self.allocated, 1)
        element = np.dtype(dtype) if dtype is not None else np.dtype(np.float16)
        length = self.nbytes // element.itemsize
        tensor = LocalTensor(self.buffer_for(element), binary("*", slot, length), length,
                             element, self.space, self, slot)  # fmt: skip
        tensor.events = (self._slot_event(slot, self.ready), free)
        return tensor

    def enque(self, tensor: LocalTensor) -> None:
        """``tensor`` is filled: its user may take it."""
        self._own(tensor, "enque")
        record_flag("npu.set_flag", self.producer, self.consumer, tensor.events[0])
        self.queued.append(tensor)

    def deque(self, dtype: Any = None) -> LocalTensor:
        """The oldest enqueued tensor, once its filling has finished."""
        trace = current_trace()
        if not self.queued:
            raise trace.error(
                f"deque on queue {self.position} with nothing enqueued (enque a tensor first, "
                "in the same loop iteration)"
            )
        tensor = self.queued.pop(0)
        record_flag("npu.wait_flag", self.producer, self.consumer, tensor.events[0])
        return tensor

    def free_tensor(self, tensor: LocalTensor) -> None:
        """``tensor``'s buffer may be refilled."""
        self._own(tensor, "free_tensor")
        record_flag("npu.set_flag", self.consumer, self.producer, tensor.events[1])

    def _own(self, tensor: LocalTensor, what: str) -> None:
        if tensor.queue is not self:
            raise current_trace().error(
                f"{what} on queue {self.position} of a tensor from another buffer"
            )


class TBuf(_Buffers):
    """A scratch buffer with no queue (position ``VECCALC``): sync it yourself."""

    def __init__(self, position: str = "VECCALC") -> None:
        self.position = position
        self.space = POSITIONS.get(position, ("UB",))[0]

    def get(self, dtype: Any = np.float16) -> LocalTensor:
        """The whole buffer as a tensor of ``dtype``."""
        element = np.dtype(dtype)
        if self.nbytes == 0:
            raise current_trace().error("this TBuf has no bytes: call pipe.init_buffer first")
        return LocalTensor(self.buffer_for(element), 0, self.nbytes // element.itemsize,
                           element, self.space)  # fmt: skip


class TPipe:
    """Owns the on-chip buffers of one core and the event ids of its queues."""

    def __init__(self) -> None:
        self.trace = current_trace()
        self.used: dict[str, int] = {}
        self.events: dict[tuple[str, str], int] = {}
        self.trace.pipes.append(self)

    def _events(self, src: str, dst: str, count: int) -> list[int]:
        first = self.events.get((src, dst), 0)
        self.events[(src, dst)] = first + count
        return list(range(first, first + count))

    def alloc_event(self, src: str, dst: str) -> int:
        """An event id of its own for a flag ``src -> dst`` you set and wait yourself."""
        return self._events(src, dst, 1)[0]

    def _place(self, where: str, nbytes: int) -> int:
        offset = self.used.get(where, 0)
        self.used[where] = offset + -(-nbytes // ALIGN) * ALIGN
        return offset

    def init_buffer(self, target: TQue | TBuf, num: int, nbytes: int | None = None) -> None:
        """Give ``target`` ``num`` buffers of ``nbytes`` each (a ``TBuf``: one buffer;
        ``init_buffer(buf, nbytes)``)."""
        trace = self.trace
        if isinstance(target, TBuf):
            nbytes = num if nbytes is None else nbytes
            num = 1
        if nbytes is None or nbytes <= 0 or num < 1:
            raise trace.error(f"init_buffer: expected num >= 1 and nbytes > 0, got {num}, {nbytes}")
        nbytes = -(-nbytes // ALIGN) * ALIGN
        target.offset = self._place(target.space, num * nbytes)
        target.nbytes = nbytes
        if isinstance(target, TBuf):
            return
        target.num = num
        target.ready = self._events(target.producer, target.consumer, num)
        target.free = self._events(target.consumer, target.producer, num)
        for slot in range(num):
            record_flag("npu.set_flag", target.consumer, target.producer, target.free[slot])
        trace.carried.append(target)
        trace.finishers.append(_drain(target))


def _drain(queue: TQue) -> Callable[[], None]:
    def finish() -> None:
        for slot in range(queue.num):
            record_flag("npu.wait_flag", queue.consumer, queue.producer, queue.free[slot])

    return finish
