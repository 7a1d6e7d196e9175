"""Checking the arguments of a native call against the tinycomp signature.

The compiled code trusts its arguments: a float64 array where the code reads float32,
or a transposed array where it assumes row-major strides, would compute garbage or
read past the end. So before the first call with a given kind of array, each argument
is checked against its parameter's type, and every mistake is named:

1. a memref parameter takes a numpy array of the element's dtype (``bfloat16`` from
   ``ml_dtypes`` for ``bf16``), of the right rank and the static sizes of the type;
2. where the memref type fixes the strides (an identity layout is row-major), the array
   must have them: an input that does not is copied to a C-contiguous array (the call
   then passes the copy); an out-param must be given C-contiguous and writable;
3. a scalar parameter takes a Python or numpy number that fits its type (an integer
   may be given signed or unsigned: ``255`` and ``-1`` are the same ``i8``).

Checks 1 and 2 depend only on the array's shape, dtype and strides, so the call plan
(``call_plan.py``) runs them once per such signature; check 3 depends on the value and
runs on every call.

>>> import numpy as np
>>> from tinycomp.ir import parse_type
>>> t = parse_type("memref<2x3xf32>")
>>> check_memref_argument("argument #0 of @f", np.zeros((2, 3), np.float32), t, False)
False
>>> check_memref_argument("argument #0 of @f", np.zeros((3, 2), np.float32).T, t, False)
True
>>> check_memref_argument("argument #0 of @f", np.zeros((2, 3)), t, False)
Traceback (most recent call last):
...
tinycomp.codegen.errors.CodegenError: argument #0 of @f: expected dtype float32, got float64
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tinycomp.codegen.errors import CodegenError
from tinycomp.ir.type_helpers import strides_and_offset, to_numpy_dtype
from tinycomp.ir.types import DYNAMIC, FloatType, IndexType, IntegerType, MemRefType, Type

__all__ = ["check_memref_argument", "check_scalar", "layout", "layout_fits"]


def check_memref_argument(what: str, value: Any, t: MemRefType, is_output: bool) -> bool:
    """Checks 1 and 2 for ``value`` passed as a parameter of type ``t`` (``what`` names
    it in messages); returns whether the call must pass a C-contiguous copy instead."""
    if not isinstance(value, np.ndarray):
        raise CodegenError(f"{what}: expected a numpy array, got {type(value).__name__}")
    dtype = to_numpy_dtype(t.element_type)
    if value.dtype != dtype:
        raise CodegenError(f"{what}: expected dtype {dtype}, got {value.dtype}")
    if value.ndim != t.rank:
        raise CodegenError(f"{what}: expected {t.rank} dimensions, got shape {value.shape}")
    for dim, (want, got) in enumerate(zip(t.shape, value.shape, strict=True)):
        if want is not DYNAMIC and want != got:
            raise CodegenError(
                f"{what}: expected size {want} in dimension {dim}, got shape {value.shape}"
            )
    if is_output and not value.flags.writeable:
        raise CodegenError(f"{what}: expected a writable array for an out-param")
    if layout_fits(value, t):
        return False
    if is_output or not layout_fits(np.ascontiguousarray(value), t):
        strides, _ = strides_and_offset(t)
        raise CodegenError(
            f"{what}: the compiled code assumes element strides {list(strides)}; got an "
            f"array with byte strides {value.strides} (pass a C-contiguous array)"
        )
    return True


def check_scalar(what: str, value: Any, t: Type) -> Any:
    """Check 3: ``value`` as the number passed for a scalar parameter of type ``t``.

    >>> from tinycomp.ir import i8
    >>> check_scalar("argument #1 of @f", 255, i8)
    -1
    >>> check_scalar("argument #1 of @f", 300, i8)
    Traceback (most recent call last):
    ...
    tinycomp.codegen.errors.CodegenError: argument #1 of @f: 300 does not fit in i8
    """
    if isinstance(t, (IntegerType, IndexType)):
        if not isinstance(value, (int, np.integer, bool, np.bool_)):
            raise CodegenError(f"{what}: expected an integer, got {type(value).__name__}")
        width = 64 if isinstance(t, IndexType) else t.width
        low, high = (0, 1) if width == 1 else (-(2 ** (width - 1)), 2**width - 1)
        if not low <= int(value) <= high:
            raise CodegenError(f"{what}: {int(value)} does not fit in {t}")
        if width > 1 and int(value) >= 2 ** (width - 1):
            return int(value) - 2**width  # the same bits, as the signed value numpy stores
        return int(value)
    if isinstance(t, FloatType):
        if not isinstance(value, (int, float, np.integer, np.floating)) and not (
            np.ndim(value) == 0 and np.asarray(value).dtype.kind == "V"
        ):
            raise CodegenError(f"{what}: expected a number, got {type(value).__name__}")
        return value
    raise CodegenError(f"{what}: arguments of type {t} are not supported by the CPU caller")


@functools.cache
def layout(t: MemRefType) -> tuple[tuple, int | None]:
    """``strides_and_offset(t)``, computed once per memref type.

    >>> from tinycomp.ir import parse_type
    >>> layout(parse_type("memref<2x3xf32>"))
    ((3, 1), 0)
    """
    strides, offset = strides_and_offset(t)
    return tuple(strides), offset


def layout_fits(array: np.ndarray, t: MemRefType) -> bool:
    """Whether ``array``'s strides and alignment are what the memref type promises.

    >>> import numpy as np
    >>> from tinycomp.ir import parse_type
    >>> layout_fits(np.zeros((2, 3), np.float32)[:, :2], parse_type("memref<2x2xf32>"))
    False
    """
    if not array.flags.aligned:
        return False
    itemsize = array.dtype.itemsize
    if any(stride % itemsize for stride in array.strides):
        return False
    strides, _ = layout(t)
    for size, want, got in zip(array.shape, strides, array.strides, strict=True):
        if want is not DYNAMIC and size > 1 and want != got // itemsize:
            return False
    return True
