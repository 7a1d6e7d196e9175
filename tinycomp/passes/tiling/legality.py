"""What can be tiled, and the reason when something cannot.

Tiling must never change what a program computes. When the rewrite would not be
provably right, tinycomp leaves the op as it is and says why, in words a student can
act on; the tiling passes collect these reasons in their report. There are two kinds of
"no":

* **The op cannot be tiled** (``why_not_tilable``, the IR stays unchanged):

  1. it is not a linalg op, so it has no indexing maps to derive slices from;
  2. it works on buffers (memrefs): it writes memory in place, and slicing a buffer
     (``memref.subview``) is a different transformation (tile before bufferizing);
  3. its payload has side effects (an op that is not pure), which re-running per tile
     could reorder;
  4. it has no loops;
  5. an output's indexing map is not a projected permutation (``(d0, d1) -> (d1)`` or
     ``(d0, d1) -> (d0, 0)`` are; ``(d0, d1) -> (d0 + d1)`` is not): two tiles could
     write the same element, and insert_slice would keep only the last one;
  6. an operand result that uses a tiled loop is not a positive affine sum
     (``slice_problem`` in ``slices.py``), so it has no slice per tile.

* **The tile sizes are bad input** (``check_tile_sizes`` raises ``PassError``): a
  negative or non-integer size, or more sizes than the op has loops. As in MLIR's
  ``tileUsingSCF``, fewer sizes than loops leave the remaining loops untiled, and 0
  means "do not tile this loop".

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) {
...   linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
...   return }''')
>>> matmul = m.body.first_op.entry_block.first_op
>>> why_not_tilable(matmul)
'works on buffers (memrefs): it writes memory in place; tile on tensors, before bufferization'
>>> check_tile_sizes(matmul, [2])
(2, 0, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import IndexOp, YieldOp
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType
from tinycomp.passes.errors import PassError
from tinycomp.passes.tiling.slices import slice_problem

__all__ = [
    "check_tile_sizes", "describe_op", "tiling_decision", "why_not_sliceable", "why_not_tilable",
]  # fmt: skip


def describe_op(op: Operation) -> str:
    """``'linalg.matmul' %matmul``: how reports and errors name an op.

    >>> from tinycomp.ir import Operation, f32
    >>> describe_op(Operation.create("test.op", result_types=[f32]))
    "'test.op'"
    """
    hints = [r.name_hint for r in op.results if r.name_hint]
    return f"'{op.name}' %{hints[0]}" if hints else f"'{op.name}'"


def why_not_tilable(op: Operation) -> str | None:
    """Why ``op`` cannot be tiled at all (reasons 1-5 above), or ``None``.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%a: f32) -> f32 { %b = arith.addf %a, %a : f32  return %b : f32 }")
    >>> why_not_tilable(m.body.first_op.entry_block.first_op)
    "'arith.addf' is not a linalg op: it has no indexing maps to slice operands with"
    """
    if not isinstance(op, StructuredOp):
        return f"'{op.name}' is not a linalg op: it has no indexing maps to slice operands with"
    try:
        maps = op.indexing_maps()
        op.iterator_types()
    except (NotImplementedError, VerifyError) as error:
        return f"its indexing maps cannot be read: {error}"
    if any(isinstance(v.type, MemRefType) for v in op.operands):
        return (
            "works on buffers (memrefs): it writes memory in place; "
            "tile on tensors, before bufferization"
        )
    for payload_op in op.body.ops:
        if not (payload_op.is_pure or isinstance(payload_op, (YieldOp, IndexOp))):
            return f"its payload op '{payload_op.name}' has side effects"
    if op.num_loops == 0:
        return "it has no loops to tile"
    for number, output_map in enumerate(maps[op.num_inputs :]):
        if not output_map.is_projected_permutation(allow_zero_in_results=True):
            return (
                f"output #{number} map {output_map} is not a projected permutation: "
                "two tiles could write the same element"
            )
    try:
        op.loop_dim_sources()
    except VerifyError as error:
        return f"its loop sizes are not known: {error}"
    return None


def why_not_sliceable(op: StructuredOp, tile_sizes: Sequence[int]) -> str | None:
    """Why some operand has no slice per tile for these ``tile_sizes`` (reason 6), or
    ``None``. Call it after ``why_not_tilable`` returned ``None``."""
    tiled = [size > 0 for size in tile_sizes]
    for position, indexing_map in enumerate(op.indexing_maps()):
        for expr in indexing_map.results:
            problem = slice_problem(expr, tiled)
            if problem is not None:
                return f"operand #{position} map {indexing_map}: {problem}"
    return None


def check_tile_sizes(op: StructuredOp, tile_sizes: Sequence[int]) -> tuple[int, ...]:
    """The tile sizes, one per loop (missing ones are 0: untiled); raises ``PassError``
    naming ``op`` for a negative or non-integer size or too many sizes."""
    where = describe_op(op)
    for position, size in enumerate(tile_sizes):
        if isinstance(size, bool) or not isinstance(size, int):
            raise PassError(
                f"tiling {where}: expected an integer tile size for loop {position}, got {size!r}"
            )
        if size < 0:
            raise PassError(
                f"tiling {where}: expected tile sizes >= 0 (0 = not tiled), got {size} "
                f"for loop {op.loop_name(position)}"
            )
    loops = op.num_loops
    if len(tile_sizes) > loops:
        raise PassError(
            f"tiling {where}: expected at most {loops} tile sizes (one per loop "
            f"{', '.join(op.loop_name(i) for i in range(loops))}), got {len(tile_sizes)}: "
            f"{list(tile_sizes)}"
        )
    return tuple(tile_sizes) + (0,) * (loops - len(tile_sizes))


def tiling_decision(op: Operation, tile_sizes: Sequence[int]) -> tuple[tuple[int, ...], str | None]:
    """The checked tile sizes (one per loop) and why ``op`` is left untiled (``None``
    when it can be tiled). Bad tile sizes raise ``PassError`` (see ``check_tile_sizes``);
    all sizes 0 is not an error, just nothing to do.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
    ...   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 floordiv 2)>,
    ...        affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ...       ins(%x : tensor<8xf32>) outs(%y : tensor<8xf32>) {
    ...   ^bb0(%in: f32, %out: f32):
    ...     linalg.yield %in : f32
    ...   } -> tensor<8xf32>
    ...   return %r : tensor<8xf32> }''')
    >>> generic = m.body.first_op.entry_block.first_op
    >>> tiling_decision(generic, [0])
    ((0,), 'every tile size is 0: nothing to tile')
    >>> print(tiling_decision(generic, [4])[1])  # doctest: +NORMALIZE_WHITESPACE
    operand #0 map (d0) -> (d0 floordiv 2): 'd0 floordiv 2' uses tiled loop d0 but is not a
    sum of loops with positive coefficients
    """
    reason = why_not_tilable(op)
    if not isinstance(op, StructuredOp) or (reason is not None and _loops_unreadable(op)):
        return tuple(tile_sizes), reason
    sizes = check_tile_sizes(op, tile_sizes)
    if reason is None:
        reason = why_not_sliceable(op, sizes)
    if reason is None and not any(sizes):
        reason = "every tile size is 0: nothing to tile"
    return sizes, reason


def _loops_unreadable(op: StructuredOp) -> bool:
    """True when the op's iterator types cannot be read (so its loops are unknown)."""
    try:
        op.iterator_types()
    except (NotImplementedError, VerifyError):
        return True
    return False
