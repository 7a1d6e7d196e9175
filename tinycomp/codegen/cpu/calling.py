"""Calling JIT-compiled code on numpy arrays: checks, then the packed interface.

A ``CpuFunction`` is one function of a JIT-compiled module. Calling it, step by step:

1. Check the arguments against the tinycomp signature: one per parameter; a memref
   parameter takes a numpy array of the element's dtype (``bfloat16`` from
   ``ml_dtypes`` for ``bf16``), of the right rank and the static sizes of the type; a
   scalar parameter takes a Python or numpy number that fits.
2. Describe each array as the memref ABI wants it (``llvm/descriptor.py``): its data
   pointer (twice: allocated and aligned), offset 0, its shape, and its strides in
   *elements* (numpy counts bytes). Where the memref type fixes the strides (an
   identity layout is row-major), the compiled code uses those constants and ignores
   the ones passed, so the array must have them: an input that does not is copied to
   a C-contiguous array first; an output must be given C-contiguous and writable.
3. Write every LLVM parameter into an 8-byte slot, make the array of pointers to the
   slots (plus one slot per result) and call ``@_mlir_<name>`` (``packed.py``).
4. Read the results back from their slots, in the result's dtype.

``run`` is the caller of a bufferized function (like ``run_bufferized`` for the
interpreter): it allocates the out-params marked ``{bufferize.result}`` and returns
them. Float out-params start as NaN, so an element the code never writes shows up
in any comparison instead of passing as a leftover zero (the interpreter goes further
and tracks initialisation; native code cannot).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.codegen.errors import CodegenError
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import strides_and_offset, to_numpy_dtype
from tinycomp.ir.types import DYNAMIC, FloatType, IndexType, IntegerType, MemRefType, Type
from tinycomp.passes.bufferize.function_boundary import out_param_positions

__all__ = ["CpuFunction"]

_PACKED_CALL = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class CpuFunction:
    """A native function of a ``CpuModule``, callable on numpy arrays (see above).

    >>> import numpy as np
    >>> from tinycomp.codegen.cpu import jit
    >>> module = jit('''func.func @first(%x: memref<3xi32>) -> i32 {
    ...   %c0 = arith.constant 0 : index
    ...   %v = memref.load %x[%c0] : memref<3xi32>
    ...   return %v : i32
    ... }''', opt_level=0)
    >>> function = module["first"]
    >>> function, int(function(np.array([7, 8, 9], np.int32)))
    (<CpuFunction @first(memref<3xi32>) -> (i32)>, 7)
    """

    def __init__(self, func_op: Operation, address: int, engine: Any = None):
        self.name: str = func_op.attributes["sym_name"].value
        """The function's name (without ``@``)."""
        function_type = func_op.attributes["function_type"].type
        self.parameter_types: tuple[Type, ...] = tuple(function_type.inputs)
        """The tinycomp types of the parameters."""
        self.result_types: tuple[Type, ...] = tuple(function_type.results)
        """The tinycomp types of the (scalar) results."""
        self.parameter_names: list[str] = [
            argument.name_hint or f"arg{i}" for i, argument in enumerate(func_op.arguments)
        ]
        """The tinycomp names of the parameters, for messages."""
        self.out_params: list[int] = out_param_positions(func_op)
        """Positions of the parameters marked ``{bufferize.result}``."""
        self._descriptions = [
            f"argument #{position} (%{name}: {t}) of @{self.name}"
            for position, (name, t) in enumerate(
                zip(self.parameter_names, self.parameter_types, strict=True)
            )
        ]  # for messages, printed once: calls are hot
        self._call = _PACKED_CALL(address)
        self._engine = engine  # the code lives as long as its execution engine: keep it

    def __repr__(self) -> str:
        params = ", ".join(str(t) for t in self.parameter_types)
        results = ", ".join(str(t) for t in self.result_types)
        return f"<CpuFunction @{self.name}({params}) -> ({results})>"

    # -- calls -------------------------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        """Call with one argument per parameter (out-params included); returns the
        scalar result, a tuple of several, or ``None``."""
        if len(args) != len(self.parameter_types):
            raise CodegenError(
                f"@{self.name} takes {len(self.parameter_types)} arguments "
                f"({', '.join(map(str, self.parameter_types))}), got {len(args)}"
            )
        slots: list[tuple[str | np.dtype, Any]] = []  # ("ptr" | "i64" | a dtype, value)
        keep_alive = []
        for position, (value, t) in enumerate(zip(args, self.parameter_types, strict=True)):
            if isinstance(t, MemRefType):
                array = self._memref_argument(position, value, t)
                keep_alive.append(array)
                slots += _descriptor_slots(array, t)
            else:
                slots.append((self._scalar_dtype(position, t), self._scalar(position, value, t)))
        self._check_out_params_are_distinct(args)
        result_dtypes = [to_numpy_dtype(t) for t in self.result_types]
        storage = np.zeros(len(slots) + len(result_dtypes), dtype=np.uint64)
        raw = storage.view(np.uint8).reshape(-1, 8)
        words = storage.view(np.int64)
        for index, (kind, value) in enumerate(slots):  # step 3
            if isinstance(kind, str):
                words[index] = value
            else:
                item = np.array([value], dtype=kind).view(np.uint8)
                raw[index, : item.size] = item
        pointers = storage.ctypes.data + 8 * np.arange(storage.size, dtype=np.uint64)
        self._call(pointers.ctypes.data)
        results = []
        for index, dtype in enumerate(result_dtypes):  # step 4
            row = raw[len(slots) + index, : dtype.itemsize].copy()
            results.append(row.view(dtype)[0])
        del keep_alive
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def run(self, *inputs: Any, output_shapes: Sequence[Sequence[int]] | None = None) -> Any:
        """Call a bufferized function: allocate its out-params (NaN-filled for floats),
        pass ``inputs`` for the other parameters, return the out-params (after any
        scalar results), one array or a tuple.

        Out-params are the parameters marked ``{bufferize.result}``, else the trailing
        ones beyond ``inputs``; ``output_shapes`` gives their shapes where the types
        have dynamic sizes.
        """
        count = len(self.parameter_types)
        outs = self.out_params or list(range(len(inputs), count))
        if len(inputs) + len(outs) != count:
            raise CodegenError(
                f"@{self.name} takes {count - len(outs)} arguments besides its "
                f"{len(outs)} out-params, got {len(inputs)}"
            )
        shapes = list(output_shapes) if output_shapes is not None else [None] * len(outs)
        if len(shapes) != len(outs):
            raise CodegenError(f"expected {len(outs)} output shapes, got {len(shapes)}")
        given = iter(inputs)
        args, out_arrays = [], []
        for position, t in enumerate(self.parameter_types):
            if position in outs:
                array = _allocate_output(self, position, t, shapes[outs.index(position)])
                args.append(array)
                out_arrays.append(array)
            else:
                args.append(next(given))
        result = self(*args)
        values = [] if result is None else list(result) if isinstance(result, tuple) else [result]
        values += out_arrays
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    # -- step 1 and 2: checking arguments ------------------------------------------------------
    def _check_out_params_are_distinct(self, args: Sequence[Any]) -> None:
        """The code assumes (``noalias``) that an out-param shares memory with no other
        argument: bufferization gave it a buffer of its own."""
        for out in self.out_params:
            for position, other in enumerate(args):
                if position == out or not isinstance(other, np.ndarray):
                    continue
                if np.may_share_memory(args[out], other):
                    raise CodegenError(
                        f"{self._describe(out)}: an out-param must not share memory with "
                        f"argument #{position} (the compiled code assumes its own buffer)"
                    )

    def _describe(self, position: int) -> str:
        return self._descriptions[position]

    def _memref_argument(self, position: int, value: Any, t: MemRefType) -> np.ndarray:
        what = self._describe(position)
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
        if position in self.out_params and not value.flags.writeable:
            raise CodegenError(f"{what}: expected a writable array for an out-param")
        if _layout_fits(value, t):
            return value
        is_output = position in self.out_params
        copy = np.ascontiguousarray(value)
        if is_output or not _layout_fits(copy, t):
            strides, _ = strides_and_offset(t)
            raise CodegenError(
                f"{what}: the compiled code assumes element strides {list(strides)}; got an "
                f"array with byte strides {value.strides} (pass a C-contiguous array)"
            )
        return copy

    def _scalar_dtype(self, position: int, t: Type) -> np.dtype:
        return to_numpy_dtype(t)

    def _scalar(self, position: int, value: Any, t: Type) -> Any:
        what = self._describe(position)
        if isinstance(t, (IntegerType, IndexType)):
            if not isinstance(value, (int, np.integer, bool, np.bool_)):
                raise CodegenError(f"{what}: expected an integer, got {type(value).__name__}")
            width = 64 if isinstance(t, IndexType) else t.width
            low, high = (0, 1) if width == 1 else (-(2 ** (width - 1)), 2**width - 1)
            if not low <= int(value) <= high:
                raise CodegenError(f"{what}: {int(value)} does not fit in {t}")
            return int(value)
        if isinstance(t, FloatType):
            if not isinstance(value, (int, float, np.integer, np.floating)) and not (
                np.ndim(value) == 0 and np.asarray(value).dtype.kind == "V"
            ):
                raise CodegenError(f"{what}: expected a number, got {type(value).__name__}")
            return value
        raise CodegenError(f"{what}: arguments of type {t} are not supported by the CPU caller")


@functools.cache
def _layout(t: MemRefType) -> tuple[tuple, int | None]:
    """``strides_and_offset(t)``, computed once per memref type (calls are hot)."""
    strides, offset = strides_and_offset(t)
    return tuple(strides), offset


def _layout_fits(array: np.ndarray, t: MemRefType) -> bool:
    """Whether ``array``'s strides and alignment are what the memref type promises."""
    if not array.flags.aligned:
        return False
    itemsize = array.dtype.itemsize
    if any(stride % itemsize for stride in array.strides):
        return False
    strides, _ = _layout(t)
    for size, want, got in zip(array.shape, strides, array.strides, strict=True):
        if want is not DYNAMIC and size > 1 and want != got // itemsize:
            return False
    return True


def _descriptor_slots(array: np.ndarray, t: MemRefType) -> list[tuple[str, int]]:
    """Step 2: the descriptor fields of ``array`` (whose layout fits ``t``)."""
    itemsize = array.dtype.itemsize
    _, static_offset = _layout(t)
    offset = static_offset if static_offset is not DYNAMIC else 0
    base = array.ctypes.data - offset * itemsize
    sizes = [("i64", int(size)) for size in array.shape]
    strides = [("i64", int(stride // itemsize)) for stride in array.strides]
    return [("ptr", base), ("ptr", base), ("i64", offset), *sizes, *strides]


def _allocate_output(function: CpuFunction, position: int, t: Type, shape) -> np.ndarray:
    """A fresh out-param for ``run``: NaN for floats, zeros otherwise."""
    what = function._describe(position)
    if not isinstance(t, MemRefType):
        raise CodegenError(f"{what}: expected a memref out-param")
    if shape is None:
        if DYNAMIC in t.shape:
            raise CodegenError(f"{what}: pass its shape in output_shapes (the type is dynamic)")
        shape = t.shape
    shape = tuple(int(size) for size in shape)
    if len(shape) != t.rank or any(
        want is not DYNAMIC and want != got for want, got in zip(t.shape, shape, strict=True)
    ):
        raise CodegenError(f"{what}: got the output shape {shape}")
    dtype = to_numpy_dtype(t.element_type)
    fill = np.nan if dtype.kind == "f" or isinstance(t.element_type, FloatType) else 0
    return np.full(shape, fill, dtype=dtype)
