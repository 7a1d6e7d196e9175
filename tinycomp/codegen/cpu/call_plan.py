"""A call plan: how to pass one signature of arguments, worked out once.

Calling native code from Python costs Python time on every call, and for a small
kernel that time is most of the call. Almost all of it depends only on *what kind* of
arrays are passed, not on their contents: the checks of ``argument_checks.py``, the
memref descriptor's sizes, strides and offset, the slots of the packed call and the
array of pointers to them. A ``CallPlan`` does that work once per *signature* (the
shape, dtype and strides of every memref argument) and keeps it; a call with the same
signature then only has to:

1. read each array's data pointer and write it into its descriptor (twice: allocated
   and aligned, as MLIR's descriptor has both);
2. check what can change between calls with the same signature: a pointer must be
   aligned (else the plan steps aside, ``MISALIGNED``), an out-param must be writable
   and must not overlap another argument, and each scalar must fit its type;
3. call ``@_mlir_<name>`` with the prepared array of pointers (``packed.py``) and read
   the scalar results from their slots.

The slots live in a ctypes array kept per thread (a call releases the interpreter lock
while the native code runs, so two threads must not share them).

An array's data pointer is a field of numpy's C struct for the array; numpy's Python
ways to read it (``array.ctypes.data``, ``__array_interface__``) build a new object
each time and cost more than a microsecond. On CPython, where ``id(array)`` is the
struct's address, the plan reads the field directly, at the offset found once by
looking for known arrays' pointers in their structs; elsewhere, or where no offset is
found, it asks ``array.ctypes.data``. The signature includes each argument's type, so
the field is only ever read from numpy arrays.

>>> import numpy as np
>>> array = np.arange(4, dtype=np.float32)[1:]
>>> data_pointer(array) == array.ctypes.data
True
"""

from __future__ import annotations

import ctypes
import platform
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.codegen.cpu.argument_checks import check_scalar, layout
from tinycomp.codegen.errors import CodegenError
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import DYNAMIC, MemRefType, Type

__all__ = ["MISALIGNED", "CallPlan", "MemRefSlot", "data_pointer"]

_SLOT_BYTES = 8

MISALIGNED = object()
"""What ``CallPlan.call`` returns, without calling, when an array's data pointer is not
a multiple of its element size: the caller then checks that call from scratch."""


def _find_data_offset() -> int | None:
    """The offset of the data pointer in numpy's array struct, if it is found at the
    same place in several arrays (views included). Only on CPython, where ``id(x)`` is
    the address of ``x``'s struct."""
    if platform.python_implementation() != "CPython":
        return None
    probes = [np.arange(7, dtype=np.float64)[2:], np.zeros((3, 4), np.int8), np.ones(5)]
    for offset in range(_SLOT_BYTES, 8 * _SLOT_BYTES, _SLOT_BYTES):
        read = [ctypes.c_void_p.from_address(id(p) + offset).value for p in probes]
        if all(value == probe.ctypes.data for value, probe in zip(read, probes, strict=True)):
            return offset
    return None


_DATA_OFFSET = _find_data_offset()
_READ_POINTER = ctypes.c_void_p.from_address


def data_pointer(array: np.ndarray) -> int:
    """The address of ``array``'s first element (``array.ctypes.data``, read fast)."""
    if _DATA_OFFSET is None:
        return array.ctypes.data
    return _READ_POINTER(id(array) + _DATA_OFFSET).value or 0


@dataclass(frozen=True)
class MemRefSlot:
    """Where one memref argument goes, and what a call must do with it."""

    position: int
    """The parameter's position."""
    slot: int
    """The index of its descriptor's first slot (the allocated pointer)."""
    itemsize: int
    """Bytes per element (a pointer must be a multiple of it)."""
    offset_bytes: int
    """The layout's static offset in bytes: the descriptor's base is the data pointer
    minus it."""
    copy: bool
    """Whether the call passes a C-contiguous copy (the strides do not fit the type)."""
    is_output: bool
    """Whether the parameter is an out-param."""
    span: tuple[int, int]
    """The bytes the array covers, from its data pointer: ``[start, stop)``."""


class CallPlan:
    """The packed call for one signature (see the module docstring). Build it with
    arrays that passed ``check_memref_argument``; ``copies`` says which to copy.

    The packed call reads parameter ``i`` through pointer ``i``, and each pointer may
    point anywhere: the slots are laid out so that the allocated pointers of all memrefs
    come first, then their aligned pointers (the same values), and two slice
    assignments per call write them all.
    """

    def __init__(
        self,
        parameter_types: Sequence[Type],
        result_types: Sequence[Type],
        args: Sequence[Any],
        copies: dict[int, bool],
        out_params: Sequence[int],
        describe: Callable[[int], str],
    ) -> None:
        self.describe = describe
        """Names argument ``position`` in messages."""
        self.memrefs: list[MemRefSlot] = []
        """The memref arguments, in order."""
        self.scalars: list[tuple[int, int, Type]] = []
        """``(position, slot, type)`` of each scalar argument (``slot``: its parameter
        number in the packed call)."""
        self.template: list[int] = []
        """The value of every packed parameter that does not change between calls:
        offsets, sizes and strides (0 where pointers and scalars go)."""
        allocated_slots: list[int] = []
        aligned_slots: list[int] = []
        for position, (value, t) in enumerate(zip(args, parameter_types, strict=True)):
            if not isinstance(t, MemRefType):
                self.scalars.append((position, len(self.template), t))
                self.template.append(0)
                continue
            passed = np.ascontiguousarray(value) if copies[position] else value
            itemsize = passed.dtype.itemsize
            _, static_offset = layout(t)
            offset = static_offset if static_offset is not DYNAMIC else 0
            memref = MemRefSlot(
                position,
                len(self.template),
                itemsize,
                offset * itemsize,
                copies[position],
                position in out_params,
                _span(value),
            )
            self.memrefs.append(memref)
            allocated_slots.append(memref.slot)
            aligned_slots.append(memref.slot + 1)
            strides = [stride // itemsize for stride in passed.strides]
            self.template += [0, 0, offset, *passed.shape, *strides]
        self.scalar_dtypes = [to_numpy_dtype(t) for _, _, t in self.scalars]
        self.result_dtypes = [to_numpy_dtype(t) for t in result_types]
        pointer_slots = {*allocated_slots, *aligned_slots}
        others = [slot for slot in range(len(self.template)) if slot not in pointer_slots]
        self.cells = [*allocated_slots, *aligned_slots, *others]
        """The packed parameter held by each storage cell, pointers first (results
        follow, in order)."""
        self.positions = [m.position for m in self.memrefs]
        self.offsets = [m.offset_bytes for m in self.memrefs]
        self.has_offsets = any(self.offsets)
        self.alignment_checks = [  # a copy is aligned: only the arrays passed as they are
            (index, m.itemsize) for index, m in enumerate(self.memrefs) if not m.copy
        ]
        self.has_copies = any(m.copy for m in self.memrefs)
        self.output_positions = [m.position for m in self.memrefs if m.is_output]
        self.overlaps = [  # (index of an out-param, index of another memref, their spans)
            (index, other_index, memref.span, other.span)
            for index, memref in enumerate(self.memrefs)
            if memref.is_output and memref.span[0] != memref.span[1]
            for other_index, other in enumerate(self.memrefs)
            if other_index != index and other.span[0] != other.span[1]
        ]
        self._local = threading.local()

    def call(self, function: Callable[[int], None], args: Sequence[Any]) -> Any:
        """Steps 1-3 for ``args`` (of this plan's signature), calling ``function`` (the
        packed entry point) with the address of the pointer array. Calls are hot: the
        loops below read plain lists prepared by ``__init__``."""
        buffers = self._buffers()
        if _DATA_OFFSET is None:  # step 1
            pointers = [args[position].ctypes.data for position in self.positions]
        else:  # data_pointer, inlined: calls are hot
            pointers = [
                _READ_POINTER(id(args[p]) + _DATA_OFFSET).value or 0 for p in self.positions
            ]
        for index, itemsize in self.alignment_checks:
            if pointers[index] % itemsize:
                return MISALIGNED  # the checks decide: refuse it, or copy it and pass that
        passed, keep_alive = pointers, None
        if self.has_copies:
            keep_alive = self._copies(args)
            passed = [data_pointer(array) for array in keep_alive]
        if self.has_offsets:
            passed = [p - o for p, o in zip(passed, self.offsets, strict=True)]
        count = len(passed)
        buffers.storage[0:count] = passed  # the allocated pointers, then the aligned ones
        buffers.storage[count : 2 * count] = passed
        for position in self.output_positions:  # step 2
            if not args[position].flags.writeable:
                raise CodegenError(
                    f"{self.describe(position)}: expected a writable array for an out-param"
                )
        for out, other, (start, stop), (other_start, other_stop) in self.overlaps:
            if pointers[out] + start < pointers[other] + other_stop and (
                pointers[other] + other_start < pointers[out] + stop
            ):
                raise CodegenError(
                    f"{self.describe(self.positions[out])}: an out-param must not share "
                    f"memory with argument #{self.positions[other]} (the compiled code "
                    "assumes its own buffer)"
                )
        for (position, _, t), view in zip(self.scalars, buffers.scalar_views, strict=True):
            view[0] = check_scalar(self.describe(position), args[position], t)
        function(buffers.address)  # step 3
        del keep_alive
        if not self.result_dtypes:
            return None
        results = [view[0] for view in buffers.result_views]
        return results[0] if len(results) == 1 else tuple(results)

    def _copies(self, args: Sequence[Any]) -> list[np.ndarray]:
        """The arrays passed: a C-contiguous copy where the plan says so."""
        return [
            np.ascontiguousarray(args[m.position]) if m.copy else args[m.position]
            for m in self.memrefs
        ]

    def _buffers(self) -> _Buffers:
        try:
            return self._local.buffers
        except AttributeError:
            self._local.buffers = _Buffers(self)
            return self._local.buffers


class _Buffers:
    """One thread's slots of a plan: the storage cells (``plan.cells``, then one per
    result), the pointer array and typed views of the scalar and result cells."""

    def __init__(self, plan: CallPlan) -> None:
        parameters = len(plan.template)
        count = parameters + len(plan.result_dtypes)
        values = [plan.template[slot] % 2**64 for slot in plan.cells]
        self.storage = (ctypes.c_uint64 * count)(*values)
        base = ctypes.addressof(self.storage)
        cell_of = {slot: cell for cell, slot in enumerate(plan.cells)}
        cell_of.update({slot: slot for slot in range(parameters, count)})  # the results
        self.pointers = (ctypes.c_void_p * count)(*[base + 8 * cell_of[i] for i in range(count)])
        self.address = ctypes.addressof(self.pointers)
        self.scalar_views = [
            np.frombuffer(self.storage, dtype=dtype, count=1, offset=_SLOT_BYTES * cell_of[slot])
            for (_, slot, _), dtype in zip(plan.scalars, plan.scalar_dtypes, strict=True)
        ]
        self.result_views = [
            np.frombuffer(self.storage, dtype=dtype, count=1, offset=_SLOT_BYTES * slot)
            for slot, dtype in enumerate(plan.result_dtypes, start=parameters)
        ]


def _span(array: np.ndarray) -> tuple[int, int]:
    """The bytes ``array`` covers relative to its data pointer, ``[start, stop)``
    (empty for an array without elements)."""
    if array.size == 0:
        return (0, 0)
    start = sum(min(0, (n - 1) * s) for n, s in zip(array.shape, array.strides, strict=True))
    stop = sum(max(0, (n - 1) * s) for n, s in zip(array.shape, array.strides, strict=True))
    return (start, stop + array.dtype.itemsize)
