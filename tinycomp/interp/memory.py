"""Memory: buffers and the memref views onto them.

A ``memref<4x8xf32, strided<[s0, s1], offset: o>>`` is a *view*: element ``(i, j)``
lives at position ``o + i * s0 + j * s1`` of an underlying buffer. The interpreter
models exactly that:

* ``Buffer``: a flat numpy array (the memory), plus an ``initialized`` flag per element,
  where it came from (``origin``), and whether it was freed;
* ``MemRefValue``: a buffer + offset + sizes + strides. ``memref.subview``,
  ``reinterpret_cast``, ``collapse_shape``... make new views of the *same* buffer, so a
  store through one view is seen through every other, as on a real machine.

The checks an oracle should make live here: an index out of bounds, a read of memory
that was never written (``memref.alloc`` gives garbage), and any use after
``memref.dealloc``. Each raises ``InterpreterError`` naming the op, the memref and the
index.

>>> import numpy as np
>>> from tinycomp.ir import Operation
>>> op = Operation.create("test.op")
>>> m = allocate(np.dtype(np.float32), (2, 3), origin="memref.alloc")
>>> store(op, m, (1, 2), np.float32(5.0), "%m")
>>> float(load(op, m, (1, 2), "%m"))
5.0
>>> load(op, m, (0, 0), "%m")
Traceback (most recent call last):
...
tinycomp.interp.errors.InterpreterError: 'test.op': reads %m[0, 0], which was never \
written (the memory of memref.alloc is uninitialised)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.interp.errors import format_index, format_shape, op_error
from tinycomp.ir.operation import Operation


@dataclass(eq=False)
class Buffer:
    """One allocation: flat data, an initialised flag per element, and its history."""

    data: np.ndarray
    """The memory, a 1-D numpy array (a view of the caller's array for arguments)."""
    initialized: np.ndarray
    """``initialized[k]`` is True once element ``k`` was written (or came from outside)."""
    origin: str
    """Where the memory came from, for messages: ``memref.alloc at line 4``."""
    owned: bool = True
    """True when the program allocated it (so it may ``memref.dealloc`` it)."""
    read_only: bool = False
    """True for ``memref.global ... constant``: stores are an error."""
    freed_by: str | None = None
    """After ``memref.dealloc`` (or the end of an ``alloca``'s function): by what."""


@dataclass(eq=False)
class MemRefValue:
    """A strided view of a ``Buffer``: what a memref SSA value holds at run time.

    >>> m = allocate(np.dtype(np.float32), (4, 8), "memref.alloc")
    >>> column = m.view(offset=2, sizes=(4,), strides=(8,))   # m[:, 2]
    >>> column.linear_indices()
    array([ 2, 10, 18, 26])
    """

    buffer: Buffer
    """The memory viewed."""
    offset: int
    """Position of element ``(0, ..., 0)`` in ``buffer.data``."""
    sizes: tuple[int, ...]
    """The shape of the view."""
    strides: tuple[int, ...]
    """Distance in ``buffer.data`` between neighbours along each dimension."""

    @property
    def dtype(self) -> np.dtype:
        """The element dtype."""
        return self.buffer.data.dtype

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.sizes)

    def linear_index(self, index: Sequence[int]) -> int:
        """Position of element ``index`` in the buffer (no checks)."""
        return self.offset + sum(int(i) * s for i, s in zip(index, self.strides, strict=True))

    def linear_indices(self) -> np.ndarray:
        """Positions of all elements, as an int64 array shaped like the view."""
        positions = np.asarray(self.offset, dtype=np.int64)
        for axis, (size, stride) in enumerate(zip(self.sizes, self.strides, strict=True)):
            shape = [1] * self.rank
            shape[axis] = size
            positions = positions + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
        return np.broadcast_to(positions, self.sizes)

    def extent(self) -> tuple[int, int] | None:
        """The lowest and highest buffer position the view reaches (``None`` if empty)."""
        if any(size == 0 for size in self.sizes):
            return None
        low = high = self.offset
        for size, stride in zip(self.sizes, self.strides, strict=True):
            reach = (size - 1) * stride
            low, high = low + min(reach, 0), high + max(reach, 0)
        return low, high

    def view(self, offset: int, sizes: Sequence[int], strides: Sequence[int]) -> MemRefValue:
        """Another view of the same buffer (the caller checks it; see ``make_view``)."""
        return MemRefValue(self.buffer, int(offset), tuple(sizes), tuple(strides))

    def describe(self) -> str:
        """``4x8xf32 view of memref.alloc at line 3``."""
        return f"{format_shape(self.sizes)}x{self.dtype} view of {self.buffer.origin}"


# -- creating memory ----------------------------------------------------------------------
def allocate(
    dtype: np.dtype,
    sizes: Sequence[int],
    origin: str,
    strides: Sequence[int] | None = None,
    offset: int = 0,
) -> MemRefValue:
    """Fresh, uninitialised memory for a row-major (or given ``strides``/``offset``) view.

    The garbage is NaN for floats (a visible hint if it ever leaks) and 0 otherwise.
    """
    sizes = tuple(int(s) for s in sizes)
    strides = row_major_strides(sizes) if strides is None else tuple(int(s) for s in strides)
    if any(stride < 0 for stride in strides):
        raise ValueError(f"expected strides >= 0 for new memory, got {list(strides)}")
    empty = any(size == 0 for size in sizes)
    extent = 0 if empty else 1 + sum((size - 1) * s for size, s in zip(sizes, strides, strict=True))
    length = offset + extent
    garbage = np.nan if dtype.kind == "f" or str(dtype) == "bfloat16" else 0
    data = np.full(length, garbage, dtype=dtype)
    buffer = Buffer(data, np.zeros(length, dtype=bool), origin)
    return MemRefValue(buffer, int(offset), sizes, strides)


def row_major_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Strides of a contiguous row-major array.

    >>> row_major_strides((4, 8, 2))
    (16, 2, 1)
    """
    strides, running = [], 1
    for size in reversed(sizes):
        strides.append(running)
        running *= max(int(size), 1)
    return tuple(reversed(strides))


# -- checked access ------------------------------------------------------------------------
def check_live(op: Operation, memref: MemRefValue, what: str) -> None:
    """Raise unless the buffer behind ``memref`` is still allocated."""
    if memref.buffer.freed_by is not None:
        raise op_error(
            op,
            f"uses {what} after it was freed (use after free): the memory of "
            f"{memref.buffer.origin} was released by {memref.buffer.freed_by}",
        )


def check_index(op: Operation, memref: MemRefValue, index: Sequence[int], what: str) -> None:
    """Raise unless ``index`` has one in-bounds entry per dimension."""
    if len(index) != memref.rank:
        raise op_error(op, f"expected {memref.rank} indices for {what}, got {len(index)}")
    for axis, (i, size) in enumerate(zip(index, memref.sizes, strict=True)):
        if not 0 <= int(i) < size:
            raise op_error(
                op,
                f"index {format_index(index)} is out of bounds for {what} "
                f"(shape {format_shape(memref.sizes)}): expected 0 <= index < {size} in "
                f"dimension {axis}, got {int(i)}",
            )


def load(op: Operation, memref: MemRefValue, index: Sequence[int], what: str) -> Any:
    """Read one element, checking liveness, bounds and initialisation."""
    check_live(op, memref, what)
    check_index(op, memref, index, what)
    position = memref.linear_index(index)
    if not memref.buffer.initialized[position]:
        raise op_error(
            op,
            f"reads {what}{format_index(index)}, which was never written (the memory of "
            f"{memref.buffer.origin} is uninitialised)",
        )
    return memref.buffer.data[position]


def store(op: Operation, memref: MemRefValue, index: Sequence[int], value: Any, what: str) -> None:
    """Write one element, checking liveness, bounds and writability."""
    check_live(op, memref, what)
    check_index(op, memref, index, what)
    check_writable(op, memref, what)
    position = memref.linear_index(index)
    memref.buffer.data[position] = value
    memref.buffer.initialized[position] = True


def check_writable(op: Operation, memref: MemRefValue, what: str) -> None:
    """Raise when ``memref`` views constant memory."""
    if memref.buffer.read_only:
        raise op_error(op, f"writes to {what}, which is constant ({memref.buffer.origin})")


def read_all(op: Operation, memref: MemRefValue, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Copies of all elements and of their initialised flags, shaped like the view."""
    check_live(op, memref, what)
    positions = memref.linear_indices()
    return memref.buffer.data[positions], memref.buffer.initialized[positions]


def write_all(
    op: Operation, memref: MemRefValue, values: Any, what: str, mask: np.ndarray | None = None
) -> None:
    """Store ``values`` (broadcast to the view's shape) into every element; ``mask``
    says which of them count as initialised (default: all)."""
    check_live(op, memref, what)
    check_writable(op, memref, what)
    positions = memref.linear_indices()
    memref.buffer.data[positions] = np.broadcast_to(np.asarray(values), memref.sizes)
    memref.buffer.initialized[positions] = True if mask is None else mask


def make_view(
    op: Operation,
    source: MemRefValue,
    offset: int,
    sizes: Sequence[int],
    strides: Sequence[int],
    what: str,
) -> MemRefValue:
    """A new view of ``source``'s buffer, checked to stay inside the buffer (MLIR's
    runtime verification checks the same for subview and reinterpret_cast)."""
    check_live(op, source, what)
    for size in sizes:
        if int(size) < 0:
            raise op_error(op, f"expected sizes >= 0 for a view of {what}, got {list(sizes)}")
    view = source.view(offset, [int(s) for s in sizes], [int(s) for s in strides])
    reach = view.extent()
    length = len(source.buffer.data)
    if reach is not None and (reach[0] < 0 or reach[1] >= length):
        raise op_error(
            op,
            f"the view (offset {view.offset}, sizes {list(view.sizes)}, strides "
            f"{list(view.strides)}) of {what} reaches positions {reach[0]}..{reach[1]}, "
            f"outside the {length} elements of {source.buffer.origin}",
        )
    return view


__all__ = [
    "Buffer",
    "MemRefValue",
    "allocate",
    "check_index",
    "check_live",
    "check_writable",
    "load",
    "make_view",
    "read_all",
    "row_major_strides",
    "store",
    "write_all",
]
