"""Chapter 06: tiling, tile-and-fuse, binding to parallel units (reference answers).

Tiling cuts a linalg op's loops into tiles. One tile runs the same op on a *slice* of
every operand; an ``scf.for`` nest walks over the tiles and carries the results through
``iter_args``. Four tasks, each checked by plugging your code into the real pipeline:

1. ``tile_ranges`` and ``tile_slices``: where one tile lies along each loop, and the
   slice it takes of each operand (section 2 of the chapter). Your slices are compared
   with what ``tile_linalg_op`` extracts, and the op is run tile by tile on them in the
   interpreter.
2. ``split_reduction_ir``: a reduction whose tile loop may run on several cores at once
   (section 4). Your MLIR text runs in the interpreter against numpy, and its loop is
   bound to the AI cores of an NPU with ``bind_loops``.
3. ``footprint_bytes`` and ``choose_tile_sizes``: the bytes one tile keeps in fast
   memory, and the tile sizes with the most reuse under a memory budget (section 1).
4. ``fewest_tiles``: an open problem under a budget: every operand's slice must fit a
   buffer of its own, with as few tiles as possible. Your tiles are compiled with
   ``tinycomp.compile`` and run against numpy.

The library's tiling (``tinycomp.passes.tiling``, ``tinycomp.viz.tile_view``) computes
these things too; the grader does not let your code call it while it answers. Fill in
each TODO, then run ``tinycomp grade ch06``; the notebook's last cell runs your code in
the pipeline.
"""

from __future__ import annotations

# The building blocks the tasks may need ("noqa: F401" keeps the linter quiet about the
# names your code does not use yet).
import itertools  # noqa: F401
import math
from collections.abc import Sequence
from fractions import Fraction  # noqa: F401

from tinycomp.affine import AffineMap  # noqa: F401
from tinycomp.ir import Operation, parse
from tinycomp.ir.type_helpers import bitwidth, element_type  # noqa: F401
from tinycomp.ir.types import ShapedType  # noqa: F401

__all__ = [
    "COMBINERS",
    "candidate_tile_sizes",
    "choose_tile_sizes",
    "example_matmul",
    "f32_literal",
    "fewest_tiles",
    "footprint_bytes",
    "sequential_tiled_reduction_ir",
    "split_reduction_ir",
    "tile_iterations",
    "tile_ranges",
    "tile_slices",
]

Window = tuple[tuple[int, ...], tuple[int, ...]]
"""The ``([offsets], [sizes])`` of one operand slice (strides are always 1)."""


def example_matmul(
    m: int = 10, n: int = 16, k: int = 8, inputs: str = "f32", output: str = "f32"
) -> Operation:
    """The ``linalg.matmul`` of an ``m x k`` by ``k x n`` product, for the examples (a
    worked helper): loops ``(m, n, k)``, operands ``%a``, ``%b`` and ``%c``.

    >>> print(example_matmul().operands[0].type)
    tensor<10x8xf32>
    """
    a, b, c = f"tensor<{m}x{k}x{inputs}>", f"tensor<{k}x{n}x{inputs}>", f"tensor<{m}x{n}x{output}>"
    module = parse(
        f"""func.func @f(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %mm = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %mm : {c}
}}"""
    )
    return module.body.first_op.entry_block.first_op


# -- Task 06.1 ------------------------------------------------------------------------------
def tile_ranges(
    loop_sizes: Sequence[int], tile_sizes: Sequence[int], tile: Sequence[int]
) -> list[tuple[int, int]]:
    """Where tile ``tile`` lies along each loop: one ``(offset, size)`` per loop.

    Inputs: ``loop_sizes`` (``N``, the iterations of each loop), ``tile_sizes`` (``T``,
    one per loop; 0 means the loop is not tiled) and ``tile``, the tile's coordinates in
    the grid of tiles (one per loop, counting from 0).

    Output: for each loop, the iterations ``offset <= i < offset + size`` this tile runs.

    Invariants: the tiles along one loop, in order, run every iteration ``0..N-1``
    exactly once; each has ``T`` iterations except that none runs past ``N`` (the
    partial last tile the tiled IR's ``affine.min`` computes, chapter 06 section 3); a
    loop that is not tiled, or cut by ``T >= N``, is one tile of all ``N`` iterations.

    >>> tile_ranges([10, 16, 8], [4, 8, 0], [2, 1, 0])   # m: the last, partial tile
    [(8, 2), (8, 8), (0, 8)]
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
    in operand order (``ins`` then ``outs``): what ``tile_linalg_op`` cuts out with
    ``tensor.extract_slice`` (chapter 06, sections 2 and 3).

    Inputs: ``op``, a linalg op with static shapes (``op.indexing_maps()``,
    ``op.static_loop_sizes()``, ``op.operands[i].type.shape``) whose maps can be tiled:
    every map result is a constant plus loops with coefficients ``>= 0`` (``m``,
    ``oh * 2 + kh``, ``d0 + 1``, ``0``); ``tile_sizes`` and ``tile`` as for
    ``tile_ranges``.

    Output: per operand, a pair of int tuples with one entry per operand dimension; a
    scalar operand (``linalg.fill``'s value) has the slice ``((), ())``.

    The contract the slices must keep, as the tiled IR uses them:

    * the tiled op is the *same* op with the *same* indexing maps, run on the slices,
      its loops counting from 0 inside the tile. So for every iteration of the tile,
      reading the slice at ``map(local)`` must give the element the untiled op reads at
      ``map(tile offset + local)``; and the slice stays inside the operand;
    * a dimension that no *tiled* loop indexes is taken whole: offset 0, the operand's
      whole size (a constant result such as the ``0`` of ``(d0, d1) -> (d0, 0)``, or a
      loop left untiled);
    * otherwise the slice ends at the last element the tile reads there: no larger.

    (Section 2's convolution and stencil show the two cases where the slice is not
    simply the tile: a strided input needs more rows than the tile has, and ``d0 + 1``
    shifts where the tile reads, not where its slice starts.)

    Building blocks: ``indexing_map.results`` (one expression per operand dimension),
    ``expr.evaluate(point)`` (its value at one iteration), ``expr.used_dims()`` (the loops
    it reads), chapter 02.

    >>> tile_slices(example_matmul(), [4, 8, 0], [2, 1, 0])   # %a, %b, %c
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
    """MLIR text of ``combine(init, x[0], ..., x[n-1])`` whose tile loop may run its
    tiles on different cores at once: split-K (chapter 06, sections 4 and 6).

    Inputs: ``n >= 1``, ``tile >= 1``, ``combiner`` one of ``COMBINERS``.

    Output: a module with ``func.func @main(%x: tensor<{n}xf32>, %init: tensor<f32>) ->
    tensor<f32>`` (the signature of ``sequential_tiled_reduction_ir``, where to start)
    that keeps these invariants:

    * one ``scf.for`` walks over ``x`` in tiles of ``tile`` and carries one value, a
      ``tensor<Txf32>`` of partial results with ``T = ceil(n / tile)``: one per tile;
    * after the loop, partial ``t`` is the combination of tile ``t``'s chunk of ``x``
      alone: no tile depends on ``%init`` or on another tile, so the chunks may be
      combined in any order of tiles;
    * each iteration writes only its own partial, so the library's ``why_not_bindable``
      accepts the loop and ``bind_loops(loop, ["npu.aicore"])`` binds it;
    * ``@main`` returns ``combine(init, partial_0, ..., partial_{T-1})``;
    * when ``tile`` divides ``n`` every chunk of ``x`` has a static type (as MLIR's
      canonical form has); otherwise the last chunk is partial;
    * it parses and verifies, and ``mlir-opt-22`` accepts and lowers it.

    Constants: ``f32_literal`` writes them as MLIR does (infinities as bit patterns).

    >>> import numpy as np
    >>> from tinycomp.interp import interpret
    >>> module = parse(split_reduction_ir(10, 4))
    >>> float(interpret(module, np.arange(10, dtype=np.float32), np.array(0.5, np.float32)))
    45.5
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

    >>> tile_iterations(example_matmul(), [4, 32, 0])   # 4 * 16 * 8
    512
    """
    return math.prod(_full_tile(op, tile_sizes))


def _full_tile(op: Operation, tile_sizes: Sequence[int]) -> list[int]:
    """Each loop's iterations in a full tile."""
    loop_sizes = op.static_loop_sizes()
    return [n if t == 0 else min(t, n) for n, t in zip(loop_sizes, tile_sizes, strict=True)]


def footprint_bytes(op: Operation, tile_sizes: Sequence[int]) -> int:
    """The bytes one full tile of ``op`` touches: what must sit in fast memory at once
    while it runs (chapter 06, section 1; footprints of a tile: chapter 02).

    Inputs: ``op`` a linalg op with static shapes, ``tile_sizes`` one per loop (0: not
    tiled). The *full* tile is the first one, each loop's tile size cut to the loop.

    Output: the sum over the tensor operands (``ins`` and ``outs``: the output tile is
    accumulated in place, so it is held too) of the elements of the box that operand's
    indexing map reaches from the full tile, times the bytes of one element (rounded up
    to whole bytes). Scalar operands take no fast memory. Building blocks:
    ``AffineMap.tile_footprint(offsets, sizes)`` (chapter 02), ``bitwidth`` and
    ``element_type``.

    >>> footprint_bytes(example_matmul(inputs="f16"), [4, 8, 0])   # 4x8x2 + 8x8x2 + 4x8x4
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
    """Tile sizes with the most reuse whose tile fits in ``budget_bytes`` (chapter 06,
    section 1: a GPU block's shared memory, an NPU core's buffer).

    Inputs: ``op`` a linalg op with static shapes, the budget in bytes, and how many
    hardware units need a tile each.

    Output: one size per loop, each from ``candidate_tile_sizes`` of that loop, such that

    * the tile fits: ``footprint_bytes(op, sizes) <= budget_bytes``;
    * every unit gets a tile: the tiles along the *parallel* loops number at least
      ``min_parallel_tiles`` (the tiles of a reduction loop run one after the other, on
      one unit);
    * no other choice that meets both does more work per byte: reuse is
      ``tile_iterations(op, sizes) / footprint_bytes(op, sizes)``, compared exactly
      (``Fraction``); when several choices tie, any of them is right.

    ``ValueError``, saying the budget, when no choice fits.

    >>> square = example_matmul(64, 64, 64)
    >>> sizes = choose_tile_sizes(square, 16 * 1024, min_parallel_tiles=4)
    >>> sizes, footprint_bytes(square, sizes)
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


# -- Task 06.4 ------------------------------------------------------------------------------
def fewest_tiles(op: Operation, buffer_bytes: int = 48 * 1024) -> tuple[int, ...]:
    """Tile sizes with which every operand's slice fits a buffer of ``buffer_bytes`` of
    its own, in as few tiles as possible (chapter 06, section 1, and the Task 06.4
    paragraph at the end of the chapter).

    Some units have one buffer per operand rather than one shared memory: an NPU's cube
    unit reads its two inputs from two buffers and accumulates into a third. Each trip
    through the tile loop nest loads a slice into each buffer, so fewer tiles means fewer
    trips and fewer loads.

    Inputs: ``op`` a linalg op with static shapes; ``buffer_bytes`` per operand.

    Output: one tile size per loop (any integer from 0 to the loop's size; 0 is "not
    tiled"), such that

    * for every tensor operand on its own, the box its indexing map reaches from a full
      tile, times the bytes of one element, is at most ``buffer_bytes``;
    * the number of tiles, the product over *all* loops of ``ceil(N / T)`` (1 for a loop
      that is not tiled), is the smallest any choice meeting the first rule can have.
      Several choices may reach it: any of them is right.

    ``ValueError``, saying the buffer size, when not even a tile of one iteration fits.

    >>> fewest_tiles(example_matmul(), buffer_bytes=256)   # 2 x 2 x 1 = 4 tiles
    (5, 8, 8)
    """
    loop_sizes = op.static_loop_sizes()
    # A loop cut into c tiles needs tiles of at least ceil(N / c); the smallest such size
    # has the smallest slices, so only those sizes need trying, one per possible count.
    counts = [sorted({-(-n // t) for t in range(1, n + 1)}) for n in loop_sizes]
    best: tuple[int, tuple[int, ...]] | None = None
    for choice in itertools.product(*counts):
        tiles = math.prod(choice)
        if best is not None and tiles >= best[0]:
            continue
        sizes = tuple(-(-n // c) for n, c in zip(loop_sizes, choice, strict=True))
        if all(size <= buffer_bytes for size in _operand_bytes(op, sizes)):
            best = (tiles, sizes)
    if best is None:
        raise ValueError(
            f"no tile of {op.name} fits buffers of {buffer_bytes} bytes, one per operand"
        )
    return best[1]


def _operand_bytes(op: Operation, tile_sizes: Sequence[int]) -> list[int]:
    """The bytes of each tensor operand's full-tile box."""
    full = _full_tile(op, tile_sizes)
    found = []
    for operand, indexing_map in zip(op.operands, op.indexing_maps(), strict=True):
        if isinstance(operand.type, ShapedType):
            box = indexing_map.tile_footprint([0] * len(full), full)
            element_bytes = math.ceil(bitwidth(element_type(operand.type)) / 8)
            found.append(math.prod(box.sizes) * element_bytes)
    return found
