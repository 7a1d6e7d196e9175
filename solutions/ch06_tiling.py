"""Chapter 06: tiling, tile-and-fuse, binding to parallel units (reference answers).

Tiling cuts a linalg op's loops into tiles. One tile runs the same op on a *slice* of
every operand, the box that operand's indexing map reaches from the tile; an
``scf.for`` nest walks over the tiles and carries the results through ``iter_args``.
The library's tiling is ``tinycomp.passes.tiling`` (``tile_linalg_op``,
``tile_reduction_with_partials``, ``tile_and_fuse``, ``bind_loops``). Three tasks, each
plugging into it:

1. ``tile_ranges`` and ``tile_slices``: where one tile lies along each loop (partial
   tiles included), and the slice it takes of each operand: the offsets and sizes
   ``tile_linalg_op`` writes into its ``tensor.extract_slice`` ops.
2. ``split_reduction_ir``: a 1-D reduction tiled so that its tile loop may run in
   parallel: one partial result per tile, combined after the loop. The library's
   tilings of a reduction leave a loop that must stay sequential; yours can be bound
   to the AI cores of an NPU (``bind_loops(loop, ["npu.aicore"])``). The worked
   ``sequential_tiled_reduction_ir`` shows the IR you start from.
3. ``footprint_bytes`` and ``choose_tile_sizes``: the bytes one tile keeps in fast memory,
   and the tile sizes with the most reuse that fit a memory budget (a GPU block's shared
   memory, an NPU core's L1) and give every hardware unit a tile.

Run your code in the pipeline (see the notebook's last cells): your slices against
``tile_linalg_op``'s, your IR in the interpreter and bound with ``bind_loops``, your
tile sizes in ``tinycomp.compile(..., options=CompileOptions(tile_sizes=...))``. Fill in
each TODO in ``exercises/ch06_tiling.py``, then run ``tinycomp grade ch06``.
"""

from __future__ import annotations

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
import itertools  # noqa: F401
import math
from collections.abc import Sequence
from fractions import Fraction  # noqa: F401

from tinycomp.affine import AffineMap  # noqa: F401
from tinycomp.ir import Operation
from tinycomp.ir.type_helpers import bitwidth, element_type  # noqa: F401
from tinycomp.ir.types import ShapedType  # noqa: F401

__all__ = [
    "COMBINERS",
    "candidate_tile_sizes",
    "choose_tile_sizes",
    "f32_literal",
    "footprint_bytes",
    "sequential_tiled_reduction_ir",
    "split_reduction_ir",
    "tile_iterations",
    "tile_ranges",
    "tile_slices",
]

Window = tuple[tuple[int, ...], tuple[int, ...]]
"""The ``([offsets], [sizes])`` of one operand slice (strides are always 1)."""


# -- Task 06.1 ------------------------------------------------------------------------------
def tile_ranges(
    loop_sizes: Sequence[int], tile_sizes: Sequence[int], tile: Sequence[int]
) -> list[tuple[int, int]]:
    """Where tile ``tile`` lies along each loop: ``(offset, size)`` per loop.

    ``tile`` gives the tile's position along each loop (its *coordinates* in the grid of
    tiles). A loop of ``N`` iterations cut by ``T > 0`` has ``ceil(N / T)`` tiles; tile
    ``c`` starts at ``c * T`` and has ``T`` iterations, except the last one, which has
    only ``N - c * T`` when ``T`` does not divide ``N`` (a *partial* tile: the
    ``affine.min`` of the tiled IR). A tile larger than the loop is one tile of ``N``.
    A loop with ``T = 0`` is not tiled: its only "tile" (coordinate 0) is the whole loop.

    >>> tile_ranges([10, 16, 8], [4, 8, 0], [2, 1, 0])   # m: the last, partial tile
    [(8, 2), (8, 8), (0, 8)]
    >>> tile_ranges([3], [8], [0])
    [(0, 3)]
    """
    ranges = []
    for n, t, c in zip(loop_sizes, tile_sizes, tile, strict=True):
        if t == 0:
            ranges.append((0, n))
        else:
            ranges.append((c * t, min(t, n - c * t)))
    return ranges


def tile_slices(op: Operation, tile_sizes: Sequence[int], tile: Sequence[int]) -> list[Window]:
    """The slice ``(offsets, sizes)`` that tile ``tile`` of ``op`` takes of every operand,
    in operand order (``ins`` then ``outs``): what ``tile_linalg_op`` extracts.

    ``op`` is a linalg op with static shapes (``op.indexing_maps()``,
    ``op.static_loop_sizes()``, ``op.operands[i].type.shape``); ``tile_sizes`` has one
    size per loop (0: not tiled). Get each loop's ``(offset, size)`` from
    ``tile_ranges``. Then, for each result ``e`` of an operand's map (one dimension of
    the operand; ``e`` is ``c + a_0 * d0 + a_1 * d1 + ...`` with ``a_k >= 0``):

    * if ``e`` uses no *tiled* loop (``d2`` when only ``d0`` is tiled, or a constant
      such as the ``0`` of ``(d0, d1) -> (d0, 0)``), the slice takes the whole
      dimension: offset 0, size = the operand's size in that dimension;
    * otherwise the tiled op reads the slice with the *same* map, at ``e(local)`` where
      ``local_k = d_k - offset_k`` counts inside the tile. So the slice starts at
      ``e(offsets) - e(0, ..., 0)`` (``e`` at the tile's first iteration, without its
      constant ``c``) and must reach ``e(sizes - 1)``: its size is
      ``e(sizes - 1) + 1``. For ``d0`` that is ``[offset_0] [size_0]``; for a stride-2
      convolution's ``oh * 2 + kh`` with 2 rows ``oh`` from 4 and 3 taps it is
      ``[8] [2 * 1 + 2 + 1 = 5]``; for a stencil's ``d0 + 1`` it is one larger than the
      tile and starts at the tile, not one after it.

    ``AffineExpr.evaluate(point)`` and ``expr.used_dims()`` do the arithmetic. A scalar
    operand (``linalg.fill``'s value) has an empty map: its slice is ``((), ())``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>,
    ...                           %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
    ...   %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
    ...                       outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
    ...   return %mm : tensor<10x16xf32> }''')
    >>> matmul = m.body.first_op.entry_block.first_op
    >>> tile_slices(matmul, [4, 8, 0], [2, 1, 0])
    [((8, 0), (2, 8)), ((0, 8), (8, 8)), ((8, 8), (2, 8))]
    """
    loop_sizes = op.static_loop_sizes()
    ranges = tile_ranges(loop_sizes, tile_sizes, tile)
    offsets = [offset for offset, _ in ranges]
    lasts = [size - 1 for _, size in ranges]
    zeros = [0] * len(ranges)
    tiled = [t > 0 for t in tile_sizes]
    slices = []
    for operand, indexing_map in zip(op.operands, op.indexing_maps(), strict=True):
        shape = operand.type.shape if isinstance(operand.type, ShapedType) else ()
        slice_offsets, slice_sizes = [], []
        for position, expr in enumerate(indexing_map.results):
            if not any(tiled[d] for d in expr.used_dims()):
                slice_offsets.append(0)
                slice_sizes.append(shape[position])
                continue
            constant = expr.evaluate(zeros)
            slice_offsets.append(expr.evaluate(offsets) - constant)
            slice_sizes.append(expr.evaluate(lasts) + 1)
        slices.append((tuple(slice_offsets), tuple(slice_sizes)))
    return slices


# -- Task 06.2 ------------------------------------------------------------------------------
COMBINERS = ("arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf")
"""The combiners ``split_reduction_ir`` is asked for."""


def f32_literal(value: float) -> str:
    """An f32 constant as MLIR writes it (a worked helper): ``0.000000e+00``, and the
    infinities as their bit patterns, which MLIR's float syntax has no words for.

    >>> f32_literal(0.0), f32_literal(1.0), f32_literal(-math.inf), f32_literal(math.inf)
    ('0.000000e+00', '1.000000e+00', '0xFF800000', '0x7F800000')
    """
    if math.isinf(value):
        return "0xFF800000" if value < 0 else "0x7F800000"
    return f"{value:.6e}"


def sequential_tiled_reduction_ir(n: int, tile: int, combiner: str = "arith.addf") -> str:
    """A worked example: ``combine(init, x[0], ..., x[n-1])`` tiled by ``tile`` as
    ``tile_linalg_op`` tiles it (canonicalized): one accumulator, carried through the
    tile loop. Every tile reads it, combines its chunk into it and writes it back, so
    each iteration needs the previous one's result, and the loop must stay sequential
    (``why_not_bindable`` says: it carries a reduction).

    >>> import numpy as np
    >>> from tinycomp.interp import interpret
    >>> from tinycomp.ir import parse
    >>> module = parse(sequential_tiled_reduction_ir(10, 4))
    >>> x = np.arange(10, dtype=np.float32)
    >>> float(interpret(module, x, np.array(0.5, np.float32)))
    45.5
    """
    chunk_size, size_line = _tile_size(n, tile)
    chunk = "tensor<?xf32>" if size_line else f"tensor<{min(tile, n)}xf32>"
    return f"""func.func @main(%x: tensor<{n}xf32>, %init: tensor<f32>) -> tensor<f32> {{
  %c0 = arith.constant 0 : index
  %cn = arith.constant {n} : index
  %ct = arith.constant {tile} : index
  %result = scf.for %i = %c0 to %cn step %ct iter_args(%acc = %init) -> (tensor<f32>) {{
{size_line}    %chunk = tensor.extract_slice %x[%i] [{chunk_size}] [1] : tensor<{n}xf32> to {chunk}
    %reduced = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>,
                                                affine_map<(d0) -> ()>],
                                iterator_types = ["reduction"]}}
        ins(%chunk : {chunk}) outs(%acc : tensor<f32>) {{
    ^bb0(%in: f32, %out: f32):
      %combined = {combiner} %in, %out : f32
      linalg.yield %combined : f32
    }} -> tensor<f32>
    scf.yield %reduced : tensor<f32>
  }}
  return %result : tensor<f32>
}}
"""


def _tile_size(n: int, tile: int) -> tuple[str, str]:
    """The size of the current chunk and the line that computes it: the tile size when
    every tile is full, the whole of ``x`` for one tile, else an ``affine.min``."""
    if n % tile == 0 or tile >= n:
        return str(min(tile, n)), ""
    line = f"    %size = affine.min affine_map<(d0) -> (-d0 + {n}, {tile})>(%i)\n"
    return "%size", line


def split_reduction_ir(n: int, tile: int, combiner: str = "arith.addf") -> str:
    """MLIR text of ``combine(init, x[0], ..., x[n-1])`` with a *parallel* tile loop:
    one partial result per tile (what GPUs call split-K and MLIR's
    ``tileReductionUsingForall`` builds), combined after the loop.

    The function is ``func.func @main(%x: tensor<{n}xf32>, %init: tensor<f32>) ->
    tensor<f32>``; ``combiner`` is one of ``COMBINERS``. Start from
    ``sequential_tiled_reduction_ir`` and change it so that:

    1. the loop carries a tensor of partials, ``tensor<{tiles}xf32>`` with
       ``tiles = ceil(n / tile)`` (one slot per tile), made with ``tensor.empty`` and
       filled (``linalg.fill``) with the *identity* of the combiner: the value ``v``
       with ``combine(x, v) == x`` (0 for ``addf``, 1 for ``mulf``, ``-inf`` for
       ``maximumf``, ``+inf`` for ``minimumf``; ``f32_literal`` writes them);
    2. tile ``t`` (the iteration with ``%i = t * tile``) reduces its chunk of ``x`` into
       slot ``t`` only: extract the 1-element slice at offset ``t`` (``affine.apply
       affine_map<(d0) -> (d0 floordiv {tile})>(%i)``), reduce into it with the map
       ``(d0) -> (0)``, insert it back at the same offset. The last chunk is partial when
       ``tile`` does not divide ``n`` (keep the ``affine.min``); when it does divide,
       keep every chunk's type static, as MLIR does;
    3. after the loop, one ``linalg.generic`` (``["reduction"]``, maps ``(d0) -> (d0)``
       and ``(d0) -> ()``) combines the partials into ``%init``.

    Each iteration now writes its own slot (the ``tensor.insert_slice`` offset moves
    with the loop), so ``why_not_bindable`` accepts the loop and ``bind_loops`` can give
    each tile its own core.

    >>> import numpy as np
    >>> from tinycomp.interp import interpret
    >>> from tinycomp.ir import parse
    >>> from tinycomp.passes.tiling.binding import why_not_bindable
    >>> module = parse(split_reduction_ir(10, 4))
    >>> x = np.arange(10, dtype=np.float32)
    >>> float(interpret(module, x, np.array(0.5, np.float32)))
    45.5
    >>> loop = next(op for op in module.walk() if op.name == "scf.for")
    >>> print(why_not_bindable(loop))
    None
    """
    identities = {
        "arith.addf": 0.0,
        "arith.mulf": 1.0,
        "arith.maximumf": -math.inf,
        "arith.minimumf": math.inf,
    }
    tiles = -(-n // tile)
    chunk_size, size_line = _tile_size(n, tile)
    chunk = "tensor<?xf32>" if size_line else f"tensor<{min(tile, n)}xf32>"
    partials = f"tensor<{tiles}xf32>"
    return f"""func.func @main(%x: tensor<{n}xf32>, %init: tensor<f32>) -> tensor<f32> {{
  %c0 = arith.constant 0 : index
  %cn = arith.constant {n} : index
  %ct = arith.constant {tile} : index
  %identity = arith.constant {f32_literal(identities[combiner])} : f32
  %empty = tensor.empty() : {partials}
  %start = linalg.fill ins(%identity : f32) outs(%empty : {partials}) -> {partials}
  %partials = scf.for %i = %c0 to %cn step %ct iter_args(%acc = %start) -> ({partials}) {{
{size_line}    %t = affine.apply affine_map<(d0) -> (d0 floordiv {tile})>(%i)
    %chunk = tensor.extract_slice %x[%i] [{chunk_size}] [1] : tensor<{n}xf32> to {chunk}
    %slot = tensor.extract_slice %acc[%t] [1] [1] : {partials} to tensor<1xf32>
    %reduced = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>,
                                                affine_map<(d0) -> (0)>],
                                iterator_types = ["reduction"]}}
        ins(%chunk : {chunk}) outs(%slot : tensor<1xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %combined = {combiner} %in, %out : f32
      linalg.yield %combined : f32
    }} -> tensor<1xf32>
    %updated = tensor.insert_slice %reduced into %acc[%t] [1] [1] : tensor<1xf32> into {partials}
    scf.yield %updated : {partials}
  }}
  %result = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                            iterator_types = ["reduction"]}}
      ins(%partials : {partials}) outs(%init : tensor<f32>) {{
  ^bb0(%in: f32, %out: f32):
    %combined = {combiner} %in, %out : f32
    linalg.yield %combined : f32
  }} -> tensor<f32>
  return %result : tensor<f32>
}}
"""


# -- Task 06.3 ------------------------------------------------------------------------------
def candidate_tile_sizes(n: int) -> list[int]:
    """The tile sizes tried for a loop of ``n`` iterations (a worked helper): the powers
    of two below ``n``, then ``n`` itself (the whole loop: one tile).

    >>> candidate_tile_sizes(6), candidate_tile_sizes(8), candidate_tile_sizes(1)
    ([1, 2, 4, 6], [1, 2, 4, 8], [1])
    """
    sizes = []
    power = 1
    while power < n:
        sizes.append(power)
        power *= 2
    return [*sizes, n]


def tile_iterations(op: Operation, tile_sizes: Sequence[int]) -> int:
    """The iterations of one full tile (a worked helper): the product of the tile sizes,
    each cut to its loop (0, or a size larger than the loop, means the whole loop).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>,
    ...                           %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
    ...   %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
    ...                       outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
    ...   return %mm : tensor<10x16xf32> }''')
    >>> tile_iterations(m.body.first_op.entry_block.first_op, [4, 32, 0])   # 4 * 16 * 8
    512
    """
    return math.prod(_full_tile(op, tile_sizes))


def _full_tile(op: Operation, tile_sizes: Sequence[int]) -> list[int]:
    """Each loop's iterations in a full tile."""
    loop_sizes = op.static_loop_sizes()
    return [n if t == 0 else min(t, n) for n, t in zip(loop_sizes, tile_sizes, strict=True)]


def footprint_bytes(op: Operation, tile_sizes: Sequence[int]) -> int:
    """The bytes one full tile of ``op`` touches: what must fit in fast memory at once.

    For every tensor operand (skip scalars, such as ``linalg.fill``'s value), the
    footprint of the first tile through its indexing map, ``indexing_map.tile_footprint(
    [0, ...], full)`` with ``full`` each loop's iterations in a full tile (the tile size
    cut to the loop; the whole loop for 0), times the bytes of one element,
    ``ceil(bitwidth(element_type(type)) / 8)``. Add them up; every operand counts, the
    output too (its tile is accumulated in place).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: tensor<10x8xf16>, %b: tensor<8x16xf16>,
    ...                           %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
    ...   %mm = linalg.matmul ins(%a, %b : tensor<10x8xf16>, tensor<8x16xf16>)
    ...                       outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
    ...   return %mm : tensor<10x16xf32> }''')
    >>> footprint_bytes(m.body.first_op.entry_block.first_op, [4, 8, 0])  # 4x8x2 + 8x8x2 + 4x8x4
    320
    """
    full = _full_tile(op, tile_sizes)
    total = 0
    for operand, indexing_map in zip(op.operands, op.indexing_maps(), strict=True):
        if not isinstance(operand.type, ShapedType):
            continue
        box = indexing_map.tile_footprint([0] * len(full), full)
        element_bytes = math.ceil(bitwidth(element_type(operand.type)) / 8)
        total += math.prod(box.sizes) * element_bytes
    return total


def choose_tile_sizes(
    op: Operation, budget_bytes: int, min_parallel_tiles: int = 1
) -> tuple[int, ...]:
    """The tile sizes with the most reuse whose tile fits in ``budget_bytes``.

    Search every combination of ``candidate_tile_sizes`` (one per loop, from
    ``op.static_loop_sizes()``; ``itertools.product``) and keep those that:

    * fit: ``footprint_bytes(op, sizes) <= budget_bytes`` (shared memory, L1, UB);
    * give every hardware unit a tile: the number of tiles along the *parallel* loops,
      the product of ``ceil(N / T)`` over them, is at least ``min_parallel_tiles``
      (reduction loops do not count: their tiles run one after the other).

    Among those return the one with the largest reuse, ``tile_iterations(op, sizes) /
    footprint_bytes(op, sizes)``: work done per byte brought into fast memory (compare
    with ``fractions.Fraction``, exactly; any of several equally good answers is
    right). Raise ``ValueError`` saying the budget when no combination qualifies.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
    ...                           %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
    ...   %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
    ...                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    ...   return %mm : tensor<64x64xf32> }''')
    >>> matmul = m.body.first_op.entry_block.first_op
    >>> sizes = choose_tile_sizes(matmul, budget_bytes=16 * 1024, min_parallel_tiles=4)
    >>> sizes, footprint_bytes(matmul, sizes)
    ((32, 32, 32), 12288)
    """
    loop_sizes = op.static_loop_sizes()
    parallel = [kind == "parallel" for kind in op.iterator_types()]
    best: tuple[int, ...] | None = None
    best_reuse = Fraction(-1)
    for sizes in itertools.product(*(candidate_tile_sizes(n) for n in loop_sizes)):
        tiles = math.prod(
            -(-n // t) for n, t, p in zip(loop_sizes, sizes, parallel, strict=True) if p
        )
        if tiles < min_parallel_tiles:
            continue
        footprint = footprint_bytes(op, sizes)
        if footprint > budget_bytes:
            continue
        reuse = Fraction(tile_iterations(op, sizes), footprint)
        if reuse > best_reuse:
            best, best_reuse = tuple(sizes), reuse
    if best is None:
        raise ValueError(
            f"no tile of {op.name} fits in {budget_bytes} bytes with at least "
            f"{min_parallel_tiles} parallel tiles"
        )
    return best
