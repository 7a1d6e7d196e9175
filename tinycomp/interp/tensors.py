"""Tensor values: immutable numpy arrays, and tensors with elements never written.

A tensor is a *value*, like an ``f32``: ``tensor.insert`` returns a new tensor and leaves
its operand alone. The interpreter holds a tensor as a numpy array marked read-only, so
an accidental in-place write is an error, not a silent change of some other value.

``tensor.empty`` makes a tensor whose contents are unspecified: reading an element
before something wrote it is a bug in the IR. Such a tensor is a ``PartialTensor``
(data + an ``initialized`` mask) until every element has been written; then it becomes
a plain array again. Ops that only move tensors around (``insert_slice``, ``scf.yield``,
the ``outs`` of a ``linalg`` op...) accept it; an op that reads elements raises
``InterpreterError`` naming the first element that was never written.

>>> import numpy as np
>>> t = make_tensor(np.zeros(3, np.float32), np.array([True, False, True]))
>>> type(t).__name__, first_uninitialized(t.initialized)
('PartialTensor', (1,))
>>> type(make_tensor(np.zeros(3, np.float32), np.ones(3, bool))).__name__
'ndarray'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(eq=False)
class PartialTensor:
    """A tensor some of whose elements were never written (see the module docstring)."""

    data: np.ndarray
    """The elements (those not initialised hold garbage), read-only."""
    initialized: np.ndarray
    """``initialized[i]`` is True once element ``i`` was written; same shape, read-only."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor's shape."""
        return self.data.shape

    @property
    def dtype(self) -> np.dtype:
        """The element dtype."""
        return self.data.dtype


def is_tensor_value(value: Any) -> bool:
    """True for what the interpreter holds for a tensor or vector (array or partial)."""
    return isinstance(value, (np.ndarray, PartialTensor))


def tensor_parts(value: np.ndarray | PartialTensor) -> tuple[np.ndarray, np.ndarray | None]:
    """``(data, initialized)``; ``initialized`` is ``None`` when every element is."""
    if isinstance(value, PartialTensor):
        return value.data, value.initialized
    return value, None


def make_tensor(data: np.ndarray, initialized: np.ndarray | None = None) -> Any:
    """A tensor value owning ``data`` (which the caller must not touch afterwards):
    a read-only array, or a ``PartialTensor`` while some element is uninitialised."""
    data.flags.writeable = False
    if initialized is None or bool(np.all(initialized)):
        return data
    initialized.flags.writeable = False
    return PartialTensor(data, initialized)


def empty_tensor(shape: tuple[int, ...], dtype: np.dtype) -> PartialTensor:
    """What ``tensor.empty`` gives: garbage (NaN for floats) and no element initialised.

    >>> bool(empty_tensor((2,), np.dtype(np.int32)).initialized.any())
    False
    """
    garbage = np.nan if dtype.kind == "f" or str(dtype) == "bfloat16" else 0
    data = np.full(shape, garbage, dtype=dtype)
    mask = np.zeros(shape, dtype=bool)
    if data.size == 0:
        return make_tensor(data)
    return make_tensor(data, mask)


def first_uninitialized(initialized: np.ndarray) -> tuple[int, ...]:
    """The index of the first element (row-major) whose flag is False."""
    missing = np.argwhere(~np.asarray(initialized))
    return tuple(int(i) for i in missing[0])


def writable_copy(value: np.ndarray | PartialTensor) -> tuple[np.ndarray, np.ndarray]:
    """Fresh, writable copies of the data and the mask (all True for a plain array):
    how ``tensor.insert`` and friends start building their new value."""
    data, mask = tensor_parts(value)
    new_mask = np.ones(data.shape, dtype=bool) if mask is None else np.array(mask)
    return np.array(data), new_mask


__all__ = [
    "PartialTensor",
    "empty_tensor",
    "first_uninitialized",
    "is_tensor_value",
    "make_tensor",
    "tensor_parts",
    "writable_copy",
]
