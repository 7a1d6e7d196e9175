"""Rules for tensor: building, slicing and reading immutable tensor values.

Tensors are values: ``tensor.insert``/``insert_slice`` return a *new* tensor (a copy
with the change) and leave their destination operand as it was. ``tensor.empty`` makes
a tensor with no element initialised (a ``PartialTensor``): reading one of them before
an insert wrote it is an error naming the op and the element.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''
... func.func @main(%t: tensor<4x4xf32>) -> tensor<2x2xf32> {
...   %s = tensor.extract_slice %t[1, 0] [2, 2] [2, 3] : tensor<4x4xf32> to tensor<2x2xf32>
...   return %s : tensor<2x2xf32>
... }''')
>>> Interpreter(m).call("main", [np.arange(16, dtype=np.float32).reshape(4, 4)])[0]
array([[ 4.,  7.],
       [12., 15.]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.control import Exit
from tinycomp.interp.errors import describe_value, format_index, format_shape, op_error
from tinycomp.interp.numerics import dtype_of
from tinycomp.interp.rules.common import int_attr, mixed_values, segments
from tinycomp.interp.rules.memref import reassociation
from tinycomp.interp.slicing import dropped_unit_dims, slice_index_arrays
from tinycomp.interp.tensors import (
    empty_tensor,
    make_tensor,
    tensor_parts,
    writable_copy,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC


def _name(op: Operation, position: int = 0) -> str:
    return describe_value(op.operand(position))


def result_shape(op: Operation, dynamic_sizes: list[Any]) -> tuple[int, ...]:
    """The result type's shape, with each ``?`` taken from ``dynamic_sizes`` in order."""
    sizes, taken = [], iter(dynamic_sizes)
    for size in op.results[0].type.shape:
        sizes.append(int(next(taken)) if size is DYNAMIC else size)
    return tuple(sizes)


def _check_element_index(op: Operation, shape: tuple[int, ...], index: list[int], what: str):
    if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape, strict=True)):
        raise op_error(
            op,
            f"index {format_index(index)} is out of bounds for {what} (shape "
            f"{format_shape(shape)})",
        )


def run_empty(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.empty(%dynamic_sizes)``: a tensor with no element initialised."""
    return [empty_tensor(result_shape(op, operands), dtype_of(op.results[0].type))]


def run_extract(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.extract %t[%i, %j]``: one element (it must have been written)."""
    tensor, *index = operands
    data, initialized = tensor_parts(tensor)
    position = [int(i) for i in index]
    _check_element_index(op, data.shape, position, _name(op))
    if initialized is not None and not initialized[tuple(position)]:
        raise op_error(op, f"reads {_name(op)}{format_index(position)}, which was never written")
    return [data[tuple(position)]]


def run_insert(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.insert %v into %t[%i, %j]``: a copy of ``%t`` with one element changed."""
    value, tensor, *index = operands
    data, initialized = writable_copy(tensor)
    position = tuple(int(i) for i in index)
    _check_element_index(op, data.shape, list(position), _name(op, 1))
    data[position], initialized[position] = value, True
    return [make_tensor(data, initialized)]


def _slice(op: Operation, groups: list[list[Any]], shape: tuple[int, ...], what: str):
    """Offsets/sizes/strides (mixed static and dynamic) to index arrays."""
    dynamic_offsets, dynamic_sizes, dynamic_strides = groups
    offsets = mixed_values(op, "static_offsets", dynamic_offsets)
    sizes = mixed_values(op, "static_sizes", dynamic_sizes)
    strides = mixed_values(op, "static_strides", dynamic_strides)
    return sizes, np.ix_(*slice_index_arrays(op, shape, offsets, sizes, strides, what))


def run_extract_slice(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.extract_slice %t[offsets] [sizes] [strides]``: a new, smaller tensor."""
    (source,), *groups = segments(op, operands, 4)
    data, initialized = tensor_parts(source)
    sizes, where = _slice(op, groups, data.shape, _name(op))
    dropped = dropped_unit_dims(op, sizes, op.results[0].type.shape)
    shape = [size for axis, size in enumerate(sizes) if axis not in dropped]
    mask = None if initialized is None else initialized[where].reshape(shape)
    return [make_tensor(data[where].reshape(shape), mask)]


def insert_slice(op: Operation, source: Any, dest: Any, groups: list[list[Any]]) -> Any:
    """``dest`` with ``source`` written into the slice (shared with parallel_insert_slice)."""
    data, initialized = writable_copy(dest)
    sizes, where = _slice(op, groups, data.shape, _name(op, 1))
    source_data, source_mask = tensor_parts(source)
    data[where] = source_data.reshape(sizes)
    initialized[where] = True if source_mask is None else source_mask.reshape(sizes)
    return make_tensor(data, initialized)


def run_insert_slice(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.insert_slice %s into %t[offsets] [sizes] [strides]``: a copy of ``%t``."""
    (source,), (dest,), *groups = segments(op, operands, 5)
    return [insert_slice(op, source, dest, groups)]


def run_parallel_insert_slice(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Inside ``scf.forall.in_parallel``: write the tile into the shared output (the
    destination block argument of the ``scf.forall``)."""
    (source,), (dest,), *groups = segments(op, operands, 5)
    interp.write(op.operand(1), insert_slice(op, source, dest, groups))
    return []


def run_dim(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.dim %t, %i``."""
    tensor, axis = operands
    shape = tensor_parts(tensor)[0].shape
    if not 0 <= int(axis) < len(shape):
        raise op_error(op, f"expected a dimension in 0..{len(shape) - 1}, got {int(axis)}")
    return [np.int64(shape[int(axis)])]


def run_rank(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.rank %t``."""
    return [np.int64(tensor_parts(operands[0])[0].ndim)]


def run_cast(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.cast``: the same value under a more or less static type (checked)."""
    return [operands[0]]


def _reshape(tensor: Any, shape: list[int]) -> Any:
    data, initialized = tensor_parts(tensor)
    mask = None if initialized is None else np.array(initialized.reshape(shape))
    return make_tensor(np.array(data.reshape(shape)), mask)


def run_collapse_shape(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.collapse_shape``: merge groups of dimensions (row-major)."""
    shape = tensor_parts(operands[0])[0].shape
    sizes = [int(np.prod([shape[axis] for axis in group])) for group in reassociation(op)]
    return [_reshape(operands[0], sizes)]


def run_expand_shape(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.expand_shape``: split dimensions into groups (row-major)."""
    source, *dynamic = operands
    return [_reshape(source, mixed_values(op, "static_output_shape", dynamic))]


def run_from_elements(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.from_elements %a, %b, ...``: the elements in row-major order."""
    shape = result_shape(op, [])
    data = np.array(operands, dtype=dtype_of(op.results[0].type)).reshape(shape)
    return [make_tensor(data)]


def run_splat(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.splat %v``: every element ``%v``."""
    value, *dynamic_sizes = operands
    shape = result_shape(op, dynamic_sizes)
    return [make_tensor(np.full(shape, value, dtype=dtype_of(op.results[0].type)))]


def _generate(op: Operation, interp: Any, data: np.ndarray, written: np.ndarray) -> None:
    """Fill every element of ``data`` not yet ``written`` with what the op's region
    yields for its indices (the region runs once if it ignores its indices)."""
    region = op.regions[0]
    missing = np.argwhere(~written)
    if len(missing) == 0:
        return
    if not any(argument.has_uses for argument in region.entry_block.arguments):
        (data[~written],) = interp.run_region(region, [np.int64(0)] * data.ndim)
        return
    for position in missing:
        index = tuple(int(i) for i in position)
        (data[index],) = interp.run_region(region, [np.int64(i) for i in index])


def run_generate(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.generate``: the region yields each element from its indices."""
    shape = result_shape(op, operands)
    data = np.empty(shape, dtype=dtype_of(op.results[0].type))
    _generate(op, interp, data, np.zeros(shape, bool))
    return [make_tensor(data)]


def run_pad(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.pad %t low[...] high[...]``: the region yields the padding values."""
    (source,), dynamic_low, dynamic_high = segments(op, operands, 3)
    low = mixed_values(op, "static_low", dynamic_low)
    high = mixed_values(op, "static_high", dynamic_high)
    source_data, source_mask = tensor_parts(source)
    if min(low + high, default=0) < 0:
        raise op_error(op, f"expected padding >= 0, got low {low} high {high}")
    shape = tuple(lo + n + hi for lo, n, hi in zip(low, source_data.shape, high, strict=True))
    inner = tuple(slice(lo, lo + n) for lo, n in zip(low, source_data.shape, strict=True))
    data = np.empty(shape, dtype=source_data.dtype)
    written = np.zeros(shape, bool)
    data[inner] = source_data
    written[inner] = True
    _generate(op, interp, data, written)
    mask = None
    if source_mask is not None:
        mask = np.ones(shape, bool)
        mask[inner] = source_mask
    return [make_tensor(data, mask)]


def run_concat(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tensor.concat dim(d) %a, %b``: join along dimension ``d``."""
    axis = int_attr(op, "dim")
    parts = [tensor_parts(t) for t in operands]
    data = np.concatenate([d for d, _ in parts], axis=axis)
    masks = [np.ones(d.shape, bool) if m is None else m for d, m in parts]
    return [make_tensor(data, np.concatenate(masks, axis=axis))]


def run_yield(op: Operation, operands: list[Any], interp: Any) -> Exit:
    """``tensor.yield``: the value of the element being generated or padded."""
    return Exit(operands)


RULES = {
    "tensor.empty": run_empty,
    "tensor.extract": run_extract,
    "tensor.insert": run_insert,
    "tensor.extract_slice": run_extract_slice,
    "tensor.insert_slice": run_insert_slice,
    "tensor.parallel_insert_slice": run_parallel_insert_slice,
    "tensor.dim": run_dim,
    "tensor.rank": run_rank,
    "tensor.cast": run_cast,
    "tensor.collapse_shape": run_collapse_shape,
    "tensor.expand_shape": run_expand_shape,
    "tensor.from_elements": run_from_elements,
    "tensor.splat": run_splat,
    "tensor.generate": run_generate,
    "tensor.pad": run_pad,
    "tensor.concat": run_concat,
    "tensor.yield": run_yield,
}
"""Every tensor op the interpreter runs."""

__all__ = ["RULES", "insert_slice", "result_shape"]
