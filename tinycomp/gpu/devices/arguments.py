"""A kernel's arguments as the parameter list its LLVM lowering declares.

``codegen/gpu/device_function.py`` passes every ``gpu.func`` argument as MLIR's
``-convert-gpu-to-nvvm`` does: a scalar as one parameter, a memref as its descriptor's
fields unpacked (two pointers into global memory, the offset, the sizes, the strides, all
``i64`` but the pointers). A launcher on a real GPU passes exactly that list:

1. Check the arguments against the kernel's signature as the simulator does
   (``bind_arguments``: ranks, dtypes, static dimensions, scalar ranges).
2. For each argument, in order: an array becomes ``allocated``, ``aligned`` (both the
   device pointer of its copy), ``offset`` 0, its sizes and its strides in elements; a
   scalar becomes one value of its C type (``f32`` a ``c_float``, ``index`` a ``c_int64``,
   ``f16``/``bf16`` their 16 bits).
3. ``with_pointers`` fills the pointers in once the arrays are on the device; ``kernarg``
   lays the values out in one buffer, each at its natural alignment (AMDGPU's kernel
   argument segment).

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> func = parse('''gpu.module @m {
...   gpu.func @k(%x: memref<?xf32>, %s: f32) kernel { gpu.return }
... }''').body.ops[0].body.ops[0]
>>> params = kernel_parameters(func, [np.zeros(8, np.float32), 2.0])
>>> [(p.name, p.ctype.__name__, p.value) for p in params]  # doctest: +NORMALIZE_WHITESPACE
[('x.allocated', 'c_void_p', None), ('x.aligned', 'c_void_p', None),
 ('x.offset', 'c_long', 0), ('x.size0', 'c_long', 8), ('x.stride0', 'c_long', 1),
 ('s', 'c_float', 2.0)]
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tinycomp.codegen.llvm.descriptor import descriptor_part_names
from tinycomp.interp.numerics import dtype_of
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FloatType, IndexType, IntegerType, MemRefType, Type
from tinycomp.targets.gpu_sim.arguments import bind_arguments

__all__ = ["KernelParameter", "kernarg", "kernel_parameters", "scalar_ctype", "with_pointers"]

_INTEGERS = {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32,
             64: ctypes.c_int64}  # fmt: skip
_FLOATS = {"f32": ctypes.c_float, "f64": ctypes.c_double, "f16": ctypes.c_uint16,
           "bf16": ctypes.c_uint16}  # fmt: skip


@dataclass(frozen=True)
class KernelParameter:
    """One parameter of the lowered kernel: its name, C type and value."""

    name: str
    ctype: type
    value: int | float | None
    """The value; ``None`` for a pointer not yet filled in (``with_pointers``)."""
    array: int | None = None
    """The argument position of the array a pointer points into, else ``None``."""

    @property
    def size(self) -> int:
        """Bytes the parameter takes.

        >>> KernelParameter("n", ctypes.c_int32, 4).size
        4
        """
        return ctypes.sizeof(self.ctype)

    def c_value(self) -> Any:
        """The value as a ctypes object (what a launch passes the address of).

        >>> KernelParameter("s", ctypes.c_float, 2.5).c_value().value
        2.5
        """
        if self.value is None:
            raise ValueError(f"parameter {self.name}: the device pointer is not filled in yet")
        return self.ctype(self.value)


def scalar_ctype(t: Type) -> type:
    """Step 2: the C type a scalar of type ``t`` is passed as.

    >>> from tinycomp.ir import f32, index
    >>> scalar_ctype(f32).__name__, scalar_ctype(index).__name__
    ('c_float', 'c_long')
    """
    if isinstance(t, IndexType):
        return ctypes.c_int64
    if isinstance(t, IntegerType) and t.width in _INTEGERS:
        return _INTEGERS[t.width]
    if isinstance(t, FloatType) and str(t) in _FLOATS:
        return _FLOATS[str(t)]
    raise TypeError(f"kernel parameter: expected index, i1/i8/i16/i32/i64 or a float, got {t}")


def _scalar_value(t: Type, given: Any) -> int | float:
    if isinstance(t, FloatType) and str(t) in ("f16", "bf16"):
        if str(t) == "f16":
            return int(np.float16(given).view(np.uint16))
        return int(np.float32(given).view(np.uint32)) >> 16
    value = np.asarray(given, dtype=dtype_of(t)).item()
    return bool(value) if isinstance(t, IntegerType) and t.width == 1 else value


def kernel_parameters(func: Operation, args: Sequence[Any]) -> list[KernelParameter]:
    """Steps 1-2: the lowered parameter list of ``func`` for ``args``, pointers unfilled."""
    bind_arguments(func, list(args), func.sym_name)  # step 1: the simulator's checks
    params: list[KernelParameter] = []
    for position, (argument, given) in enumerate(zip(func.arguments, args, strict=True)):
        base = argument.name_hint or f"arg{position}"
        t = argument.type
        if isinstance(t, MemRefType):
            array = np.asarray(given)
            itemsize = array.itemsize
            fields = descriptor_part_names(t.rank)
            values: list[int | None] = [None, None, 0, *array.shape]
            values += [stride // itemsize for stride in array.strides]
            for field_name, value in zip(fields, values, strict=True):
                pointer = value is None
                params.append(
                    KernelParameter(
                        f"{base}.{field_name}",
                        ctypes.c_void_p if pointer else ctypes.c_int64,
                        value,
                        position if pointer else None,
                    )
                )
        else:
            params.append(KernelParameter(base, scalar_ctype(t), _scalar_value(t, given)))
    return params


def with_pointers(
    params: Sequence[KernelParameter], pointers: Mapping[int, int]
) -> list[KernelParameter]:
    """Step 3: ``params`` with each array's device pointer (argument position -> address).

    >>> p = [KernelParameter("x.aligned", ctypes.c_void_p, None, 0)]
    >>> with_pointers(p, {0: 4096})[0].value
    4096
    """
    return [replace(p, value=pointers[p.array]) if p.array is not None else p for p in params]


def kernarg(params: Sequence[KernelParameter]) -> tuple[bytes, list[int]]:
    """Step 3: the parameters in one buffer, each at its natural alignment, and the offsets.

    >>> data, offsets = kernarg([KernelParameter("n", ctypes.c_int32, 3),
    ...                          KernelParameter("m", ctypes.c_int64, 5)])
    >>> offsets, len(data)
    ([0, 8], 16)
    """
    buffer = bytearray()
    offsets = []
    for p in params:
        align = ctypes.alignment(p.ctype)
        buffer += bytes(-len(buffer) % align)
        offsets.append(len(buffer))
        buffer += bytes(p.c_value())
    buffer += bytes(-len(buffer) % 8)
    return bytes(buffer), offsets
