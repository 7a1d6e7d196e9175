"""The tensors of an NPU kernel: ``GlobalTensor`` (an array in GM, a kernel argument)
and ``LocalTensor`` (a window of an on-chip buffer), as in Ascend C.

A ``LocalTensor`` is a buffer (an ``npu.alloc``), an element offset into it and a
length; ``t[k]`` is the tensor from element ``k`` on (Ascend C's ``tensor[k]``), which
is how a kernel addresses the rows of a tile. Offsets may be recorded values (a queue
slot chosen in a loop). ``t.get_value(i)`` / ``t.set_value(i, v)`` are the scalar
unit's reads and writes of one element.

A ``GlobalTensor`` is one kernel argument: a flat ``memref`` of the array's size (the
array's ``shape`` is kept for the kernel's arithmetic); ``x[offset]`` is the view from
``offset`` on, what ``data_copy`` reads or writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.dialects.npu import GetValueOp, SetValueOp
from tinycomp.frontend.npu.scalar import Scalar, as_value, binary, is_static
from tinycomp.frontend.npu.trace import current_trace
from tinycomp.frontend.simt.signature import element_type_of
from tinycomp.ir.values import Value

__all__ = ["GlobalTensor", "GlobalView", "LocalTensor"]


def add_offsets(a: Any, b: Any) -> Any:
    """``a + b`` for element offsets (Python ints or recorded)."""
    return binary("+", a, b)


@dataclass
class GlobalTensor:
    """An array in GM (a kernel argument)."""

    value: Value
    shape: tuple[int, ...]
    dtype: np.dtype
    name: str

    @property
    def size(self) -> int:
        """Elements in all."""
        return int(np.prod(self.shape)) if self.shape else 1

    def __getitem__(self, offset: Any) -> GlobalView:
        return GlobalView(self, offset)


@dataclass
class GlobalView:
    """A GM array from element ``offset`` on."""

    tensor: GlobalTensor
    offset: Any

    @property
    def value(self) -> Value:
        return self.tensor.value

    @property
    def dtype(self) -> np.dtype:
        return self.tensor.dtype

    def __getitem__(self, offset: Any) -> GlobalView:
        return GlobalView(self.tensor, add_offsets(self.offset, offset))


@dataclass
class LocalTensor:
    """A window of an on-chip buffer (module docstring)."""

    buffer: Value
    """The ``npu.alloc`` it is in."""
    offset: Any
    """Its first element in the buffer."""
    length: int
    """Its elements."""
    dtype: np.dtype
    space: str
    queue: Any = None
    """The queue it came from (``None`` for a ``TBuf`` or a raw buffer)."""
    slot: Any = 0
    """Which of the queue's buffers it is (a Python int, or recorded in a loop)."""
    events: tuple[Any, Any] = (0, 0)
    """Its queue's event ids for this buffer: (filled, free)."""

    def __getitem__(self, start: Any) -> LocalTensor:
        if is_static(start) and not 0 <= start < self.length:
            raise current_trace().error(
                f"element {start} is outside a local tensor of {self.length} elements"
            )
        length = self.length - start if is_static(start) else self.length
        return LocalTensor(self.buffer, add_offsets(self.offset, start), length, self.dtype,
                           self.space, self.queue, self.slot, self.events)  # fmt: skip

    def get_value(self, position: Any) -> Scalar:
        """The scalar unit reads element ``position`` (pipe S: sync it after a vector op)."""
        trace = current_trace()
        where = as_value(add_offsets(self.offset, position))
        return Scalar(trace.emit(GetValueOp.build(self.buffer, where)).result)

    def set_value(self, position: Any, value: Any) -> None:
        """The scalar unit writes element ``position``."""
        trace = current_trace()
        element = element_type_of(self.dtype)
        where = as_value(add_offsets(self.offset, position))
        trace.emit(SetValueOp.build(self.buffer, where, as_value(value, element)))
