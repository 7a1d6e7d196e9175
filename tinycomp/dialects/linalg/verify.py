"""The checks every linalg op must pass, whatever defines its maps (MLIR's
``verifyStructuredOpInterface``), one function per step:

1. ``ins``/``outs``: ``operandSegmentSizes`` (where the op has one) splits all operands;
   every output is a ranked tensor or a memref; tensors and memrefs do not mix (an op
   works on values or on buffers; scalars may join either).
2. Results: one per tensor output, of the same type (none for memref outputs).
3. Indexing maps: one per operand, without symbols, each with one dimension per loop
   and one result per dimension of its operand.
4. Loop sizes: every loop is a plain dimension of some map (so its trip count can be
   read from a shape); every operand dimension indexed by exactly one loop agrees with
   that loop's size; one indexed by an expression (``d1 + d4`` in a convolution) is
   large enough for the largest index it receives.
5. Payload: one block, one argument per operand with its element type, ending with a
   ``linalg.yield`` of the outputs' element types.

Messages name the operand and the loop: ``'linalg.matmul' at line 3: loop k has size 8
from operand #0 dimension 1, but operand #1 dimension 0 is 4``.
"""

from __future__ import annotations

from collections.abc import Iterator

from tinycomp.affine import AffineDimExpr, AffineExpr, AffineMap
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.syntax import SEGMENT_SIZES
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import DYNAMIC, MemRefType, RankedTensorType, Shape, i32


def verify_structured_op(op: StructuredOp) -> None:
    """Run the five steps of the module docstring on ``op``; raise ``VerifyError``."""
    verify_operand_segments(op)
    verify_results(op)
    verify_indexing_maps(op)
    verify_loop_sizes(op)
    verify_payload(op)


def verify_operand_segments(op: StructuredOp) -> None:
    """Step 1."""
    if SEGMENT_SIZES in op.inherent_attributes:
        sizes = op.attributes.get(SEGMENT_SIZES)
        if not (
            isinstance(sizes, DenseArrayAttr)
            and sizes.element_type == i32
            and len(sizes.values) == 2
            and min(sizes.values) >= 0
            and sum(sizes.values) == len(op.operands)
        ):
            raise op.error(
                f"expected '{SEGMENT_SIZES}' to be array<i32: #ins, #outs> adding up to "
                f"{len(op.operands)} operands, got {sizes}"
            )
    if op.num_outputs < 1:
        raise op.error("expected at least one output operand ('outs'), got none")
    for position, value in enumerate(op.outputs):
        if not isinstance(value.type, (RankedTensorType, MemRefType)):
            raise op.error(
                f"expected output #{position} to be a ranked tensor or a memref, got {value.type}"
            )
    tensors = [v.type for v in op.operands if isinstance(v.type, RankedTensorType)]
    buffers = [v.type for v in op.operands if isinstance(v.type, MemRefType)]
    if tensors and buffers:
        raise op.error(
            "expected pure tensor or buffer semantics (operands all tensors or all memrefs, "
            f"besides scalars), got {tensors[0]} and {buffers[0]}"
        )


def verify_results(op: StructuredOp) -> None:
    """Step 2."""
    expected = [v.type for v in op.outputs if isinstance(v.type, RankedTensorType)]
    actual = list(op.result_types)
    if actual != expected:
        raise op.error(
            f"expected result types ({', '.join(map(str, expected))}) to match the tensor "
            f"outputs, got ({', '.join(map(str, actual))})"
        )


def verify_indexing_maps(op: StructuredOp) -> None:
    """Step 3."""
    maps = op.indexing_maps()
    if len(maps) != len(op.operands):
        raise op.error(
            f"expected one indexing map per operand ({len(op.operands)}), got {len(maps)}"
        )
    num_loops = op.num_loops
    for position, (indexing_map, operand_shape) in enumerate(
        zip(maps, op.operand_shapes(), strict=True)
    ):
        if indexing_map.num_symbols:
            raise op.error(
                f"expected indexing map #{position} to have no symbols, got {indexing_map}"
            )
        if indexing_map.num_dims != num_loops:
            raise op.error(
                f"expected indexing map #{position} to have {num_loops} dimensions (one per "
                f"loop), got {indexing_map.num_dims}"
            )
        if indexing_map.num_results != len(operand_shape):
            raise op.error(
                f"expected indexing map #{position} to have {len(operand_shape)} results (the "
                f"rank of operand #{position}, {op.operands[position].type}), "
                f"got {indexing_map.num_results}"
            )


def verify_loop_sizes(op: StructuredOp) -> None:
    """Step 4."""
    shapes = op.operand_shapes()
    maps = op.indexing_maps()
    op.loop_dim_sources()  # raises when some loop is no operand's plain dimension
    sizes: list[int | None] = [DYNAMIC] * op.num_loops
    sources: list[tuple[int, int]] = [(0, 0)] * op.num_loops
    for position, dim, result, extent in _indexed_dimensions(maps, shapes):
        if not isinstance(result, AffineDimExpr) or extent is DYNAMIC:
            continue
        loop = result.position
        if sizes[loop] is DYNAMIC:
            sizes[loop], sources[loop] = extent, (position, dim)
        elif sizes[loop] != extent:
            source_operand, source_dim = sources[loop]
            raise op.error(
                f"loop {op.loop_name(loop)} has size {sizes[loop]} from operand "
                f"#{source_operand} dimension {source_dim}, but operand #{position} "
                f"dimension {dim} is {extent}"
            )
    box = [(0, 1 if size is DYNAMIC else size) for size in sizes]
    for position, dim, result, extent in _indexed_dimensions(maps, shapes):
        if isinstance(result, AffineDimExpr) or extent is DYNAMIC:
            continue
        if any(sizes[loop] is DYNAMIC or sizes[loop] == 0 for loop in result.used_dims()):
            continue
        (low, high), *_ = maps[position].sub_map([dim]).footprint(box)
        if low < 0 or high > extent:
            raise op.error(
                f"expected operand #{position} dimension {dim} (indexed by {result}) to "
                f"have at least {high} elements, got {extent}"
            )


def _indexed_dimensions(
    maps: list[AffineMap], shapes: list[Shape]
) -> Iterator[tuple[int, int, AffineExpr, int | None]]:
    """``(operand, dimension, map result, size)`` for every dimension of every operand."""
    for position, (indexing_map, operand_shape) in enumerate(zip(maps, shapes, strict=True)):
        for dim, (result, extent) in enumerate(
            zip(indexing_map.results, operand_shape, strict=True)
        ):
            yield position, dim, result, extent


def verify_payload(op: StructuredOp) -> None:
    """Step 5."""
    from tinycomp.dialects.linalg.generic import YieldOp

    region = op.payload_region
    if len(region.blocks) != 1:
        raise op.error(f"expected a payload region with one block, got {len(region.blocks)}")
    block = region.blocks[0]
    expected = [element_type(v.type) for v in op.operands]
    actual = [a.type for a in block.arguments]
    if len(actual) != len(expected):
        raise op.error(
            f"expected {len(expected)} payload block arguments (one per operand), got {len(actual)}"
        )
    for position, (want, got) in enumerate(zip(expected, actual, strict=True)):
        if want != got:
            raise op.error(
                f"expected payload argument #{position} to have type {want} (the element "
                f"type of operand #{position}), got {got}"
            )
    terminator = block.last_op
    if not isinstance(terminator, YieldOp):
        found = terminator.name if terminator is not None else "an empty block"
        raise op.error(f"expected the payload to end with 'linalg.yield', got {found}")
    yielded = [v.type for v in terminator.operands]
    wanted = [element_type(v.type) for v in op.outputs]
    if yielded != wanted:
        raise op.error(
            f"expected 'linalg.yield' of ({', '.join(map(str, wanted))}) (the output element "
            f"types), got ({', '.join(map(str, yielded))})"
        )


__all__ = [
    "verify_indexing_maps", "verify_loop_sizes", "verify_operand_segments", "verify_payload",
    "verify_results", "verify_structured_op",
]  # fmt: skip
