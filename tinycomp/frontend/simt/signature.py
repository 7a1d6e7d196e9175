"""The IR types of a kernel's launch arguments, and the signature a compiled kernel is
cached under.

=========================================  ===========================
launch argument                            kernel parameter type
=========================================  ===========================
numpy array of float32/float16/bfloat16/    ``memref<?x...xT>`` (one ``?`` per axis,
int32/int64/bool, C-contiguous              row-major, global memory)
Python ``int`` / ``float`` / ``bool``      ``i32`` / ``f32`` / ``i1``
numpy scalar (``np.float32(2.0)``...)      its own dtype's type
=========================================  ===========================

Two launches with the same signature (each array's dtype and rank, each scalar's type)
share one compiled kernel.

>>> import numpy as np
>>> [str(t) for t in argument_types("k", ["x", "n"], (np.zeros((2, 3), np.float32), 5))]
['memref<?x?xf32>', 'i32']
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

from tinycomp.frontend.simt.errors import KernelArgumentError
from tinycomp.ir.types import DYNAMIC, MemRefType, Type, bf16, f16, f32, i1, i32, i64

__all__ = ["ELEMENT_TYPES", "argument_types", "element_type_of", "signature_key"]

ELEMENT_TYPES: dict[np.dtype, Type] = {
    np.dtype(np.float32): f32,
    np.dtype(np.float16): f16,
    np.dtype(ml_dtypes.bfloat16): bf16,
    np.dtype(np.int32): i32,
    np.dtype(np.int64): i64,
    np.dtype(np.bool_): i1,
}
"""The dtypes a kernel's arrays and scalars may have, and their IR types."""
SUPPORTED = "float32, float16, bfloat16, int32, int64, bool"
I32_RANGE = (-(2**31), 2**31 - 1)


def element_type_of(dtype: object) -> Type | None:
    """The IR type of a dtype (``np.float32``, ``gpu.bfloat16``, ``"int32"``), or ``None``.

    >>> element_type_of(np.float16), element_type_of("float64")
    (FloatType(name='f16'), None)
    """
    try:
        return ELEMENT_TYPES.get(np.dtype(dtype))
    except TypeError:
        return None


def _argument_type(kernel: str, parameter: str, value: object) -> Type:
    where = f"kernel {kernel!r}, argument '{parameter}'"
    if isinstance(value, np.ndarray):
        element = ELEMENT_TYPES.get(value.dtype)
        if element is None:
            raise KernelArgumentError(
                f"{where}: expected an array of {SUPPORTED}, got an array of {value.dtype}",
                kernel,
            )
        if value.ndim == 0:
            raise KernelArgumentError(f"{where}: expected an array of rank >= 1, got a 0-d array")
        if not value.flags.c_contiguous:
            raise KernelArgumentError(
                f"{where}: expected a C-contiguous (row-major) array, got strides "
                f"{value.strides}; pass np.ascontiguousarray(...)",
                kernel,
            )
        return MemRefType((DYNAMIC,) * value.ndim, element)
    if isinstance(value, (bool, np.bool_)):
        return i1
    if isinstance(value, np.generic):
        element = ELEMENT_TYPES.get(value.dtype)
        if element is None:
            raise KernelArgumentError(
                f"{where}: expected a scalar of {SUPPORTED}, got a {value.dtype} scalar", kernel
            )
        return element
    if isinstance(value, int):
        if not I32_RANGE[0] <= value <= I32_RANGE[1]:
            raise KernelArgumentError(
                f"{where}: a Python int is passed as i32, got {value}; pass np.int64({value})",
                kernel,
            )
        return i32
    if isinstance(value, float):
        return f32
    raise KernelArgumentError(
        f"{where}: expected a numpy array or a scalar (int, float, bool or a numpy scalar of "
        f"{SUPPORTED}), got {type(value).__name__}",
        kernel,
    )


def argument_types(kernel: str, parameters: Sequence[str], args: Sequence[object]) -> list[Type]:
    """The kernel parameter type of each launch argument, or a ``KernelArgumentError``
    naming the kernel and the parameter.

    >>> try:
    ...     argument_types("k", ["x"], [[1.0, 2.0]])
    ... except KernelArgumentError as error:
    ...     print(str(error)[:46])
    kernel 'k', argument 'x': expected a numpy arr
    """
    if len(args) != len(parameters):
        raise KernelArgumentError(
            f"kernel {kernel!r} takes {len(parameters)} arguments ({', '.join(parameters)}), "
            f"got {len(args)}",
            kernel,
        )
    return [_argument_type(kernel, p, a) for p, a in zip(parameters, args, strict=True)]


def signature_key(types: Sequence[Type]) -> tuple[str, ...]:
    """The cache key of a list of parameter types (their text).

    >>> signature_key([f32, MemRefType((DYNAMIC,), i32)])
    ('f32', 'memref<?xi32>')
    """
    return tuple(str(t) for t in types)
