"""Rules for memref: allocation, loads and stores, and views of the same memory.

``memref.alloc`` gives uninitialised memory (loads before stores are errors);
``memref.alloca`` too, released when its function returns; ``memref.dealloc`` frees,
after which any use is an error. View ops (``subview``, ``reinterpret_cast``,
``collapse_shape``, ``expand_shape``, ``transpose``, ``cast``) make a new
``MemRefValue`` on the same ``Buffer`` (see ``memory.py``).

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''
... func.func @main() -> f32 {
...   %c0 = arith.constant 0 : index
...   %buffer = memref.alloc() : memref<4xf32>
...   %x = memref.load %buffer[%c0] : memref<4xf32>
...   return %x : f32
... }''')
>>> Interpreter(m).call("main", [])
Traceback (most recent call last):
...
tinycomp.interp.errors.InterpreterError: 'memref.load' at line 5: reads %buffer[0], \
which was never written (the memory of memref.alloc at line 4 is uninitialised)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.errors import describe_value, op_error
from tinycomp.interp.memory import (
    MemRefValue,
    allocate,
    check_live,
    load,
    make_view,
    read_all,
    store,
    write_all,
)
from tinycomp.interp.numerics import dtype_of
from tinycomp.interp.rules.common import attr, mixed_values, segments
from tinycomp.interp.slicing import check_slice, dropped_unit_dims
from tinycomp.ir.attributes import ArrayAttr, SymbolRefAttr, TypeAttr, UnitAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType


def _name(op: Operation, position: int = 0) -> str:
    return describe_value(op.operand(position))


def _origin(op: Operation) -> str:
    return f"{op.name}{describe_location(op.location)}"


# -- allocation ----------------------------------------------------------------------------
def run_alloc(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.alloc(%dynamic_sizes)``: fresh, uninitialised memory."""
    return [_allocate(op, operands)]


def run_alloca(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.alloca``: like alloc, but released when the function returns."""
    memref = _allocate(op, operands)
    interp.frames[-1].stack_buffers.append(memref.buffer)
    return [memref]


def _allocate(op: Operation, operands: list[Any]) -> MemRefValue:
    memref_type = op.results[0].type
    has_segments = "operandSegmentSizes" in op.attributes
    dynamic_sizes = segments(op, operands, 2)[0] if has_segments else operands
    sizes, taken = [], iter(dynamic_sizes)
    for size in memref_type.shape:
        sizes.append(int(next(taken)) if size is DYNAMIC else size)
    strides, offset = None, 0
    layout = memref_type.layout
    if layout is not None and hasattr(layout, "strides"):
        if DYNAMIC in layout.strides or layout.offset is DYNAMIC:
            raise op_error(op, f"expected a static layout to allocate, got {memref_type}")
        strides, offset = layout.strides, layout.offset
    return allocate(dtype_of(memref_type), sizes, _origin(op), strides, offset)


def run_dealloc(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.dealloc %m``: free; freeing twice or freeing the caller's memory is an error."""
    (memref,) = operands
    buffer = memref.buffer
    if buffer.freed_by is not None:
        raise op_error(op, f"frees {_name(op)} twice (already freed by {buffer.freed_by})")
    if not buffer.owned:
        raise op_error(
            op, f"frees {_name(op)}, which the program did not allocate ({buffer.origin})"
        )
    buffer.freed_by = _origin(op)
    return []


# -- element access -------------------------------------------------------------------------
def run_load(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.load %m[%i, %j]``."""
    memref, *index = operands
    return [load(op, memref, [int(i) for i in index], _name(op))]


def run_store(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.store %v, %m[%i, %j]``."""
    value, memref, *index = operands
    store(op, memref, [int(i) for i in index], value, _name(op, 1))
    return []


def run_copy(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.copy %src, %dst``: element by element. A copy of a window onto itself
    does nothing (MLIR folds it away); windows that partly overlap are an error (MLIR
    copies with ``memcpy``, whose result is then undefined)."""
    source, target = operands
    if source.sizes != target.sizes:
        raise op_error(op, f"expected equal shapes, got {source.sizes} and {target.sizes}")
    if source.buffer is target.buffer:
        if np.array_equal(source.linear_indices(), target.linear_indices()):
            return []
        common = np.intersect1d(source.linear_indices(), target.linear_indices())
        if common.size:
            raise op_error(op, f"the source {_name(op)} and target {_name(op, 1)} overlap")
    values, initialized = read_all(op, source, _name(op))
    write_all(op, target, values, _name(op, 1), mask=initialized)
    return []


# -- views -----------------------------------------------------------------------------------
def run_subview(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.subview %m[offsets] [sizes] [strides]``: a strided window (possibly
    dropping unit dimensions)."""
    (source,), dynamic_offsets, dynamic_sizes, dynamic_strides = segments(op, operands, 4)
    offsets = mixed_values(op, "static_offsets", dynamic_offsets)
    sizes = mixed_values(op, "static_sizes", dynamic_sizes)
    steps = mixed_values(op, "static_strides", dynamic_strides)
    check_slice(op, source.sizes, offsets, sizes, steps, _name(op))
    offset = source.offset + sum(o * s for o, s in zip(offsets, source.strides, strict=True))
    strides = [step * s for step, s in zip(steps, source.strides, strict=True)]
    dropped = dropped_unit_dims(op, sizes, op.results[0].type.shape)
    kept = [axis for axis in range(len(sizes)) if axis not in dropped]
    view_sizes = [sizes[axis] for axis in kept]
    view_strides = [strides[axis] for axis in kept]
    return [make_view(op, source, offset, view_sizes, view_strides, _name(op))]


def run_reinterpret_cast(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.reinterpret_cast %m to offset: [o], sizes: [...], strides: [...]``: any
    view of the same buffer (the offset counts from the buffer's start)."""
    (source,), dynamic_offsets, dynamic_sizes, dynamic_strides = segments(op, operands, 4)
    (offset,) = mixed_values(op, "static_offsets", dynamic_offsets)
    sizes = mixed_values(op, "static_sizes", dynamic_sizes)
    strides = mixed_values(op, "static_strides", dynamic_strides)
    return [make_view(op, source, offset, sizes, strides, _name(op))]


def reassociation(op: Operation) -> list[list[int]]:
    """``reassociation = [[0, 1], [2]]``: which dimensions are grouped."""
    groups = attr(op, "reassociation")
    if not isinstance(groups, ArrayAttr):
        raise op_error(op, f"expected 'reassociation' to be a list of lists, got {groups}")
    return [[int(element.value) for element in group] for group in groups]


def run_collapse_shape(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.collapse_shape``: merge groups of dimensions; each group must be
    contiguous in memory (``stride[i] == stride[i+1] * size[i+1]``)."""
    (source,) = operands
    sizes, strides = [], []
    for group in reassociation(op):
        group_sizes = [source.sizes[axis] for axis in group]
        for outer, inner in zip(group, group[1:], strict=False):
            contiguous = source.strides[outer] == source.strides[inner] * source.sizes[inner]
            if not contiguous and source.sizes[inner] != 1 and source.sizes[outer] != 1:
                raise op_error(
                    op,
                    f"cannot collapse dimensions {group} of {_name(op)}: strides "
                    f"{list(source.strides)} are not contiguous for sizes {list(source.sizes)}",
                )
        sizes.append(int(np.prod(group_sizes)))
        strides.append(source.strides[group[-1]] if group else 1)
    return [make_view(op, source, source.offset, sizes, strides, _name(op))]


def run_expand_shape(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.expand_shape``: split each dimension into a group of dimensions."""
    source, *dynamic = operands
    output_shape = mixed_values(op, "static_output_shape", dynamic)
    sizes, strides = [], []
    for axis, group in enumerate(reassociation(op)):
        group_sizes = [output_shape[d] for d in group]
        if int(np.prod(group_sizes)) != source.sizes[axis]:
            raise op_error(
                op, f"expected dimensions {group_sizes} to multiply to {source.sizes[axis]}"
            )
        stride = source.strides[axis]
        group_strides = []
        for size in reversed(group_sizes):  # innermost keeps the source stride
            group_strides.append(stride)
            stride *= size
        sizes += group_sizes
        strides += list(reversed(group_strides))
    return [make_view(op, source, source.offset, sizes, strides, _name(op))]


def run_transpose(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.transpose %m (i, j) -> (j, i)``: permute sizes and strides."""
    (source,) = operands
    order = attr(op, "permutation").map.permutation_vector()
    sizes = [source.sizes[axis] for axis in order]
    strides = [source.strides[axis] for axis in order]
    return [make_view(op, source, source.offset, sizes, strides, _name(op))]


def run_cast(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.cast``: the same view under a more or less static type (checked)."""
    check_live(op, operands[0], _name(op))
    return [operands[0]]


def run_extract_strided_metadata(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.extract_strided_metadata``: base buffer (rank 0), offset, sizes, strides."""
    (source,) = operands
    base = source.view(0, (), ())
    return [
        base,
        np.int64(source.offset),
        *map(np.int64, source.sizes),
        *map(np.int64, source.strides),
    ]


def run_dim(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.dim %m, %i``: the size of dimension ``%i``."""
    memref, axis = operands
    if not 0 <= int(axis) < memref.rank:
        raise op_error(op, f"expected a dimension in 0..{memref.rank - 1}, got {int(axis)}")
    return [np.int64(memref.sizes[int(axis)])]


def run_rank(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.rank %m``."""
    return [np.int64(operands[0].rank)]


# -- globals ------------------------------------------------------------------------------------
def run_get_global(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.get_global @name``: the global's memory, created on first use from its
    ``initial_value`` (uninitialised without one; read-only when ``constant``)."""
    symbol = attr(op, "name")
    name = symbol.root if isinstance(symbol, SymbolRefAttr) else str(symbol)
    if name not in interp.globals:
        interp.globals[name] = _create_global(op, name, interp)
    return [interp.globals[name]]


def _create_global(op: Operation, name: str, interp: Any) -> MemRefValue:
    definition = interp.symbols.get(name)
    if definition is None or definition.name != "memref.global":
        raise op_error(op, f"no memref.global @{name} in the module")
    type_attr = definition.attributes.get("type")
    if not isinstance(type_attr, TypeAttr) or not isinstance(type_attr.type, MemRefType):
        raise op_error(op, f"expected @{name} to have a memref 'type', got {type_attr}")
    memref_type = type_attr.type
    memory = allocate(dtype_of(memref_type), memref_type.shape, f"memref.global @{name}")
    initial = definition.attributes.get("initial_value")
    if isinstance(initial, DenseElementsAttr):
        write_all(op, memory, initial.values, f"@{name}")
    elif initial is not None and not isinstance(initial, UnitAttr):
        raise op_error(op, f"expected a dense initial value for @{name}, got {initial}")
    memory.buffer.owned = False
    memory.buffer.read_only = "constant" in definition.attributes
    return memory


def run_global(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``memref.global``: a declaration; nothing to run (see ``get_global``)."""
    return []


RULES = {
    "memref.alloc": run_alloc,
    "memref.alloca": run_alloca,
    "memref.dealloc": run_dealloc,
    "memref.load": run_load,
    "memref.store": run_store,
    "memref.copy": run_copy,
    "memref.subview": run_subview,
    "memref.reinterpret_cast": run_reinterpret_cast,
    "memref.collapse_shape": run_collapse_shape,
    "memref.expand_shape": run_expand_shape,
    "memref.transpose": run_transpose,
    "memref.cast": run_cast,
    "memref.extract_strided_metadata": run_extract_strided_metadata,
    "memref.dim": run_dim,
    "memref.rank": run_rank,
    "memref.get_global": run_get_global,
    "memref.global": run_global,
}
"""Every memref op the interpreter runs."""

__all__ = ["RULES", "reassociation"]
