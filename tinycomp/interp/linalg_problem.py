"""The description of a linalg op that the engine runs, and the checks both paths share.

A ``LinalgProblem`` is everything ``linalg_engine`` needs: the indexing maps, the
iterator types, the operand values and the body. ``loop_sizes`` derives the iteration
space from the operand shapes, as MLIR does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.affine import AffineDimExpr, AffineMap
from tinycomp.interp.errors import format_index, format_shape, op_error
from tinycomp.interp.memory import MemRefValue
from tinycomp.interp.tensors import tensor_parts
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region

PARALLEL, REDUCTION = "parallel", "reduction"
"""The two iterator types."""


@dataclass
class LinalgProblem:
    """What a linalg op computes, with its operands' run-time values."""

    op: Operation
    """The op being run (for messages)."""
    indexing_maps: list[AffineMap]
    """One map per operand (inputs, then outputs), from loop indices to its element."""
    iterator_types: list[str]
    """``"parallel"`` or ``"reduction"``, one per loop dimension."""
    inputs: list[Any]
    """Input values: tensors (arrays), memrefs, or scalars (map with no results)."""
    outputs: list[Any]
    """Output values: tensors (the result starts from them) or memrefs (written)."""
    body: Region
    """The region computing the yields; its block arguments take the operands' elements
    (all of them, or only the first ones: ``linalg.map`` may omit the outputs)."""
    names: list[str]
    """A name per operand for messages (``%A``)."""


def operand_shape(value: Any) -> tuple[int, ...]:
    """The shape of an operand value (``()`` for a scalar)."""
    if isinstance(value, MemRefValue):
        return value.sizes
    if isinstance(value, (np.generic, int, float, bool)):
        return ()
    return tensor_parts(value)[0].shape


def check_maps(problem: LinalgProblem, shapes: list[tuple[int, ...]]) -> None:
    """One map per operand, each over the loops, with one result per operand dimension."""
    op, maps = problem.op, problem.indexing_maps
    if len(maps) != len(shapes):
        raise op_error(
            op, f"expected {len(shapes)} indexing maps (one per operand), got {len(maps)}"
        )
    for k, (affine_map, shape) in enumerate(zip(maps, shapes, strict=True)):
        if affine_map.num_dims != len(problem.iterator_types) or affine_map.num_symbols:
            raise op_error(
                op,
                f"indexing map #{k} {affine_map} should have {len(problem.iterator_types)} "
                "dims (one per iterator type) and no symbols",
            )
        if affine_map.num_results != len(shape):
            raise op_error(
                op,
                f"indexing map #{k} {affine_map} has {affine_map.num_results} results, but "
                f"operand {problem.names[k]} has rank {len(shape)}",
            )


def loop_sizes(op: Operation, maps: Sequence[AffineMap], shapes: Sequence[tuple]) -> list[int]:
    """The size of each loop: from the first operand dimension indexed by exactly ``d_i``.

    >>> from tinycomp.affine import parse_affine_map
    >>> from tinycomp.ir import Operation
    >>> maps = [parse_affine_map(m) for m in ["(i, j, k) -> (i, k)", "(i, j, k) -> (k, j)",
    ...                                        "(i, j, k) -> (i, j)"]]
    >>> loop_sizes(Operation.create("test.op"), maps, [(4, 8), (8, 3), (4, 3)])
    [4, 3, 8]
    """
    sizes: list[int | None] = [None] * (maps[0].num_dims if maps else 0)
    for affine_map, shape in zip(maps, shapes, strict=True):
        for expr, extent in zip(affine_map.results, shape, strict=True):
            if isinstance(expr, AffineDimExpr) and sizes[expr.position] is None:
                sizes[expr.position] = int(extent)
    missing = [f"d{i}" for i, size in enumerate(sizes) if size is None]
    if missing:
        raise op_error(
            op,
            f"cannot infer the size of loop {', '.join(missing)}: no operand dimension is "
            "indexed by it alone",
        )
    return sizes  # type: ignore[return-value]


def check_in_bounds(
    problem: LinalgProblem, k: int, index: Sequence[Any], shape: Sequence[int], grid: tuple
) -> None:
    """Raise when an evaluated index (ints or arrays) falls outside operand ``k``."""
    for axis, (values, extent) in enumerate(zip(index, shape, strict=True)):
        values = np.asarray(values)
        bad = (values < 0) | (values >= extent)
        if values.size and np.any(bad):
            grids = [np.broadcast_to(np.asarray(v), grid) if grid else np.asarray(v) for v in index]
            first = tuple(np.argwhere(np.broadcast_to(bad, grid) if grid else bad)[0])
            element = [int(g[first]) for g in grids]
            raise op_error(
                problem.op,
                f"indexing map #{k} ({problem.indexing_maps[k]}) reads {problem.names[k]}"
                f"{format_index(element)}, out of bounds for shape {format_shape(shape)} "
                f"(dimension {axis})",
            )


def check_yields(problem: LinalgProblem, yields: list[Any]) -> None:
    """One yielded value per output, of the output's element dtype."""
    if len(yields) != len(problem.outputs):
        raise op_error(
            problem.op, f"expected {len(problem.outputs)} yielded values, got {len(yields)}"
        )
    for j, value in enumerate(yields):
        expected = element_dtype(problem.outputs[j])
        if np.asarray(value).dtype != expected:
            raise op_error(
                problem.op,
                f"yield #{j} has numpy {np.asarray(value).dtype}, expected {expected} "
                f"(the element type of {problem.names[len(problem.inputs) + j]})",
            )


def element_dtype(value: Any) -> np.dtype:
    """The element dtype of a tensor or memref operand."""
    if isinstance(value, MemRefValue):
        return value.dtype
    return tensor_parts(value)[0].dtype


__all__ = [
    "PARALLEL",
    "REDUCTION",
    "LinalgProblem",
    "check_in_bounds",
    "check_maps",
    "check_yields",
    "element_dtype",
    "loop_sizes",
    "operand_shape",
]
