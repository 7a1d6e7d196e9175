"""``interpret``: run a function of a module on numpy arrays and get numpy arrays back.

Arguments, checked against the function's signature (each error names the argument):

* scalar types: a Python ``bool`` (``i1``), ``int`` (integers, ``index``) or ``float``
  (rounded to the type once), or a numpy scalar of exactly the type's dtype;
* tensors and vectors: a numpy array of exactly the element dtype and the static
  dimensions. Tensors are values: the interpreter copies the array and never
  changes the caller's;
* memrefs: a numpy array as above, which the function reads and **writes in place**:
  stores are visible in the caller's array afterwards. Any numpy layout with
  non-negative strides is accepted where the memref type's layout allows it
  (an identity layout needs a C-contiguous array).

Results: a numpy scalar or array for one result, a tuple for several, ``None`` for
none. Tensor and memref results are new arrays (copies); returning a tensor or memref
with elements never written is an error.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @main(%x: memref<3xf32>, %s: f32) {
...   %c0 = arith.constant 0 : index
...   %v = memref.load %x[%c0] : memref<3xf32>
...   %w = arith.mulf %v, %s : f32
...   memref.store %w, %x[%c0] : memref<3xf32>
...   return
... }''')
>>> x = np.array([2.0, 5.0, 7.0], np.float32)
>>> interpret(m, x, 10.0) is None, x
(True, array([20.,  5.,  7.], dtype=float32))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.conformance import mismatch
from tinycomp.interp.errors import InterpreterError, format_index, format_shape
from tinycomp.interp.interpreter import Interpreter
from tinycomp.interp.memory import Buffer, MemRefValue, row_major_strides
from tinycomp.interp.numerics import dtype_of, int_range, int_width, round_float, wrap_int
from tinycomp.interp.tensors import PartialTensor, first_uninitialized, make_tensor
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import parse
from tinycomp.ir.types import (
    DYNAMIC,
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    RankedTensorType,
    Type,
    VectorType,
)
from tinycomp.ir.verifier import verify as verify_ir


def interpret(
    module: Operation | str,
    *arguments: Any,
    entry: str = "main",
    verify: bool = True,
    vectorize_linalg: bool = True,
) -> Any:
    """Run ``func.func @entry`` of ``module`` (an op, or MLIR text) on ``arguments``.

    ``verify`` checks the module first (a ``VerifyError`` for broken IR);
    ``vectorize_linalg=False`` runs linalg ops point by point (see ``linalg_engine``).

    >>> total = interpret("func.func @main(%a: f16, %b: f16) -> f16 {"
    ...                   " %c = arith.addf %a, %b : f16  return %c : f16 }", 2048.0, 1.0)
    >>> float(total), total.dtype   # 2049 is not an f16: rounded to even
    (2048.0, dtype('float16'))
    """
    if isinstance(module, str):
        module = parse(module, verify=False)  # verified below, when asked
    if verify:
        verify_ir(module)
    interpreter = Interpreter(module, vectorize_linalg=vectorize_linalg)
    func = interpreter.symbols.get(entry)
    if func is None or func.name != "func.func":
        functions = sorted(n for n, op in interpreter.symbols.items() if op.name == "func.func")
        raise InterpreterError(f"no function @{entry} in the module (it has: {functions})")
    function_type = func.attributes["function_type"].type
    if len(arguments) != len(function_type.inputs):
        raise InterpreterError(
            f"@{entry} takes {len(function_type.inputs)} arguments "
            f"({', '.join(map(str, function_type.inputs))}), got {len(arguments)}"
        )
    names = _argument_names(func, len(arguments))
    values = [
        to_runtime_value(value, arg_type, f"argument {name} of @{entry}")
        for value, arg_type, name in zip(arguments, function_type.inputs, names, strict=True)
    ]
    _share_aliased_buffers(arguments, values, names)
    results = interpreter.call(entry, values)
    converted = tuple(
        to_numpy_result(value, f"result #{index} of @{entry}")
        for index, value in enumerate(results)
    )
    if not converted:
        return None
    return converted[0] if len(converted) == 1 else converted


def _share_aliased_buffers(arrays: tuple, values: list[Any], names: list[str]) -> None:
    """Memref arguments that are the same array share one ``Buffer``, so the interpreter
    sees that a store through one is a store through the other; other overlaps are
    refused (the interpreter could not keep them consistent)."""
    seen: list[tuple[np.ndarray, MemRefValue, str]] = []
    for array, value, name in zip(arrays, values, names, strict=True):
        if not isinstance(value, MemRefValue):
            continue
        for other_array, other_value, other_name in seen:
            if not np.shares_memory(array, other_array):
                continue
            same_view = (
                array.__array_interface__["data"] == other_array.__array_interface__["data"]
                and array.strides == other_array.strides
                and array.shape == other_array.shape
            )
            if not same_view:
                raise InterpreterError(
                    f"memref arguments {other_name} and {name} overlap in memory without "
                    "being the same array; pass copies"
                )
            value.buffer = other_value.buffer
        seen.append((array, value, name))


def _argument_names(func: Operation, count: int) -> list[str]:
    blocks = func.regions[0].blocks if func.regions else ()
    if not blocks:
        return [f"#{i}" for i in range(count)]
    return [f"%{a.name_hint}" if a.name_hint else f"#{a.index}" for a in blocks[0].arguments]


# -- Python -> interpreter -----------------------------------------------------------------------
def to_runtime_value(value: Any, t: Type, what: str) -> Any:
    """Check a Python/numpy argument against type ``t`` and convert it."""
    if isinstance(t, (IntegerType, IndexType, FloatType)):
        return _scalar(value, t, what)
    if isinstance(t, (RankedTensorType, VectorType, MemRefType)):
        if not isinstance(value, np.ndarray):
            raise InterpreterError(
                f"{what}: expected a numpy array for {t}, got {type(value).__name__}"
            )
        if value.dtype != dtype_of(t):
            raise InterpreterError(
                f"{what}: expected a numpy array of {dtype_of(t)} for {t}, got {value.dtype}"
            )
        _check_shape(value.shape, t, what)
        if isinstance(t, MemRefType):
            memref = memref_from_array(value, f"the caller's array ({what})")
            problem = mismatch(memref, t)
            if problem is not None:
                raise InterpreterError(f"{what}: {problem} (pass np.ascontiguousarray(...))")
            return memref
        return make_tensor(np.array(value))  # a private copy: tensors are values
    raise InterpreterError(f"{what}: the interpreter cannot take arguments of type {t}")


def _check_shape(shape: tuple[int, ...], t: Any, what: str) -> None:
    if len(shape) != len(t.shape):
        raise InterpreterError(f"{what}: expected rank {len(t.shape)} for {t}, got shape {shape}")
    for axis, (got, want) in enumerate(zip(shape, t.shape, strict=True)):
        if want is not DYNAMIC and got != want:
            raise InterpreterError(
                f"{what}: expected {want} in dimension {axis} for {t}, got shape "
                f"{format_shape(shape)}"
            )


def _scalar(value: Any, t: Type, what: str) -> Any:
    dtype = dtype_of(t)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        if value.dtype != dtype:
            raise InterpreterError(
                f"{what}: expected a {t} (numpy {dtype}), got numpy {value.dtype}"
            )
        return value
    if isinstance(t, IntegerType) and t.width == 1:
        if not isinstance(value, bool):
            raise InterpreterError(f"{what}: expected a bool for i1, got {type(value).__name__}")
        return np.bool_(value)
    if isinstance(t, FloatType) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return round_float(np.float64(value), dtype)
    if isinstance(value, int) and not isinstance(value, bool):
        width = int_width(t)
        low, high = int_range(width, True)[0], int_range(width, False)[1]
        if not low <= value <= high:
            raise InterpreterError(f"{what}: {value} does not fit in {t}")
        bits = np.array(value, dtype=np.uint64 if value >= 2**63 else np.int64)
        return wrap_int(bits, width, dtype)
    raise InterpreterError(f"{what}: expected a number for {t}, got {type(value).__name__}")


def memref_from_array(array: np.ndarray, origin: str) -> MemRefValue:
    """A memref viewing the caller's ``array`` (no copy: stores change the array).

    >>> m = memref_from_array(np.zeros((4, 6), np.float32)[:, 1:5], "a slice")
    >>> m.sizes, m.strides, m.offset
    ((4, 4), (6, 1), 0)
    """
    if not array.flags.writeable:
        raise InterpreterError(f"{origin}: a memref argument must be a writable array")
    itemsize = array.itemsize
    if any(stride % itemsize or stride < 0 for stride in array.strides):
        raise InterpreterError(
            f"{origin}: expected non-negative strides that are multiples of the element size, "
            f"got {array.strides} (pass a copy)"
        )
    if array.flags.c_contiguous:
        data = array.reshape(-1)
        strides = row_major_strides(array.shape)
    else:
        strides = tuple(stride // itemsize for stride in array.strides)
        extent = (
            0
            if array.size == 0
            else 1 + sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True))
        )
        data = np.lib.stride_tricks.as_strided(array, shape=(extent,), strides=(itemsize,))
    buffer = Buffer(data, np.ones(len(data), dtype=bool), origin, owned=False)
    return MemRefValue(buffer, 0, tuple(array.shape), strides)


# -- interpreter -> Python ------------------------------------------------------------------------
def to_numpy_result(value: Any, what: str) -> Any:
    """A returned value for the caller: numpy scalars as they are, arrays copied."""
    if isinstance(value, PartialTensor):
        where = format_index(first_uninitialized(value.initialized))
        raise InterpreterError(f"{what} is a tensor whose element {where} was never written")
    if isinstance(value, MemRefValue):
        if value.buffer.freed_by is not None:
            raise InterpreterError(f"{what} is a memref freed by {value.buffer.freed_by}")
        positions = value.linear_indices()
        data, initialized = value.buffer.data[positions], value.buffer.initialized[positions]
        if not initialized.all():
            where = format_index(first_uninitialized(initialized))
            raise InterpreterError(f"{what} is a memref whose element {where} was never written")
        return np.array(data)
    if isinstance(value, np.ndarray):
        return np.array(value)
    return value


__all__ = ["interpret", "memref_from_array", "to_numpy_result", "to_runtime_value"]
