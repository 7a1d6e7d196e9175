"""The tiling passes: ``linalg-tile`` and ``linalg-tile-and-fuse``.

``TilePass(tile_sizes, bind=(), reduction="sequential")`` tiles every linalg op on
tensors on its own; ``TileAndFusePass(tile_sizes, bind=())`` tiles only the *roots* (the
linalg ops whose results no other linalg op reads: what a function returns) and fuses
their producers into the tile loops. The algorithm of both:

1. Collect the ops: every linalg op (``linalg-tile``), or the roots
   (``linalg-tile-and-fuse``), in IR order.
2. Fit the tile sizes to each op: an op with fewer loops than ``tile_sizes`` uses the
   first ones (MLIR's ``tileUsingSCF`` does the same: ``tileSizes.resize(numLoops)``),
   and the report notes it; missing sizes are 0 (untiled).
3. Tile: ``tile_linalg_op``; with ``reduction="partials"``, an op whose reduction loops
   are tiled goes through ``tile_reduction_with_partials`` instead (``linalg-tile``);
   ``tile_and_fuse`` for roots (``linalg-tile-and-fuse``). An op that cannot be tiled is
   left as it is, and its reason recorded.
4. Bind: the first ``len(bind)`` tile loops of each tiled op, outermost first, to the
   hardware units in ``bind`` (``bind_loops``); a loop that carries a reduction is
   refused, with the reason in the report.
5. Record the ``TilingResult`` in ``self.report`` (a ``TilingReport``: ``print`` it) and
   count ops tiled, loops created and producers fused in ``statistics``.

The pipeline text cannot pass options yet, so ``PassManager.parse("linalg-tile")``
builds the pass with no tile sizes: it tiles nothing and reports why. Build the pass
object with its options (``TilePass([32, 32])``) to tile.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%x: tensor<6x8xf32>, %y: tensor<6x8xf32>) -> tensor<6x8xf32> {
...   %e = tensor.empty() : tensor<6x8xf32>
...   %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
...        affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
...        iterator_types = ["parallel", "parallel"]}
...       ins(%x, %y : tensor<6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<6x8xf32>) {
...   ^bb0(%a: f32, %b: f32, %out: f32):
...     %0 = arith.addf %a, %b : f32
...     linalg.yield %0 : f32
...   } -> tensor<6x8xf32>
...   return %s : tensor<6x8xf32> }''')
>>> tiling = TilePass([4, 4], bind=["gpu.block.y", "gpu.block.x"])
>>> tiling.run(m)
>>> print(tiling.report)
linalg-tile: 1 of 1 ops tiled
op                   tile sizes  tiles per loop  tiles  tile footprints
'linalg.generic' %s  [4, 4]      [2, 2]          4      ins0 %x 4x4, ins1 %y 4x4, outs0 %e 4x4
    bound: %d0 -> gpu.block.y, %d1 -> gpu.block.x
>>> sorted(tiling.statistics.items())
[('loops bound', 2), ('loops created', 2), ('ops tiled', 1)]
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.operation import Operation
from tinycomp.passes.errors import PassError
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.passes.tiling.binding import BIND_ATTRIBUTE, HARDWARE_UNITS, bind_loops
from tinycomp.passes.tiling.fuse import tile_and_fuse
from tinycomp.passes.tiling.reduction import tile_reduction_with_partials
from tinycomp.passes.tiling.report import TilingReport
from tinycomp.passes.tiling.result import TilingResult
from tinycomp.passes.tiling.tile_op import tile_linalg_op
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["TileAndFusePass", "TilePass", "tiling_roots"]

REDUCTION_STRATEGIES = ("sequential", "partials")
"""How ``TilePass`` tiles a reduction loop: one carried accumulator, or partials."""


class TilePass(Pass):
    """Tile every linalg op on tensors (see the module docstring).

    >>> TilePass([8, -1])
    Traceback (most recent call last):
    ...
    tinycomp.passes.errors.PassError: linalg-tile: expected tile sizes >= 0 (0 = not tiled), \
got [8, -1]
    """

    name = "linalg-tile"
    summary = "tile linalg ops on tensors into scf.for loops over tensor slices"

    def __init__(
        self,
        tile_sizes: Sequence[int] = (),
        bind: Sequence[str] = (),
        reduction: str = "sequential",
    ) -> None:
        super().__init__()
        self.tile_sizes = _check_sizes(self.name, tile_sizes)
        """The tile size of each loop, outermost first (0: not tiled)."""
        self.bind = _check_units(self.name, bind)
        """Hardware units for the outermost tile loops of each op, in order."""
        if reduction not in REDUCTION_STRATEGIES:
            raise PassError(
                f"{self.name}: expected reduction to be one of {REDUCTION_STRATEGIES}, "
                f"got {reduction!r}"
            )
        self.reduction = reduction
        """``"sequential"`` (carry the output through the loop) or ``"partials"``."""
        self.report = TilingReport(self.name)
        """What the last run did to every op."""

    def run(self, op: Operation) -> None:
        self.report = TilingReport(self.name)
        rewriter = PatternRewriter()
        for linalg_op in [o for o in op.walk() if isinstance(o, StructuredOp)]:  # step 1
            sizes, note = fit_tile_sizes(linalg_op, self.tile_sizes)  # step 2
            if self.reduction == "partials" and _tiles_a_reduction(linalg_op, sizes):
                result = tile_reduction_with_partials(linalg_op, sizes, rewriter)  # step 3
            else:
                result = tile_linalg_op(linalg_op, sizes, rewriter)
            _finish(self, result, note)


class TileAndFusePass(Pass):
    """Tile each root linalg op and fuse its producers (see the module docstring)."""

    name = "linalg-tile-and-fuse"
    summary = "tile the last linalg op of each chain and fuse its producers into the tiles"

    def __init__(self, tile_sizes: Sequence[int] = (), bind: Sequence[str] = ()) -> None:
        super().__init__()
        self.tile_sizes = _check_sizes(self.name, tile_sizes)
        """The tile size of each loop of a root, outermost first (0: not tiled)."""
        self.bind = _check_units(self.name, bind)
        """Hardware units for the outermost tile loops of each root, in order."""
        self.report = TilingReport(self.name)
        """What the last run did to every root (fused producers are listed under it)."""

    def run(self, op: Operation) -> None:
        self.report = TilingReport(self.name)
        rewriter = PatternRewriter()
        for root in tiling_roots(op):  # step 1
            sizes, note = fit_tile_sizes(root, self.tile_sizes)  # step 2
            result = tile_and_fuse(root, sizes, rewriter)  # step 3
            self.statistics["producers fused"] += len(result.tiled_ops[1:])
            _finish(self, result, note)


def tiling_roots(op: Operation) -> list[StructuredOp]:
    """The linalg ops nested in ``op`` whose results no other linalg op reads.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32, %e: tensor<4xf32>) -> tensor<4xf32> {
    ...   %a = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    ...   %b = linalg.fill ins(%v : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
    ...   return %b : tensor<4xf32> }''')
    >>> [root.results[0].name_hint for root in tiling_roots(m)]
    ['b']
    """
    roots = []
    for candidate in op.walk():
        if not isinstance(candidate, StructuredOp):
            continue
        users = [user for result in candidate.results for user in result.users]
        if not any(isinstance(user, StructuredOp) for user in users):
            roots.append(candidate)
    return roots


def fit_tile_sizes(op: StructuredOp, tile_sizes: tuple[int, ...]) -> tuple[tuple[int, ...], str]:
    """Step 2: ``tile_sizes`` cut to ``op``'s loop count, and a note when cut.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32, %e: tensor<4xf32>) -> tensor<4xf32> {
    ...   %a = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    ...   return %a : tensor<4xf32> }''')
    >>> sizes, note = fit_tile_sizes(m.body.first_op.entry_block.first_op, (2, 8))
    >>> sizes
    (2,)
    >>> print(note)
    tile sizes [2, 8] cut to the op's 1 loop (as MLIR's tileUsingSCF does)
    """
    try:
        loops = op.num_loops
    except (NotImplementedError, VerifyError):  # unreadable maps: the tiling says so
        return tile_sizes, ""
    if len(tile_sizes) <= loops:
        return tile_sizes, ""
    plural = "loop" if loops == 1 else "loops"
    note = f"tile sizes {list(tile_sizes)} cut to the op's {loops} {plural}"
    note += " (as MLIR's tileUsingSCF does)"
    return tile_sizes[:loops], note


def _tiles_a_reduction(op: StructuredOp, sizes: Sequence[int]) -> bool:
    """Whether ``sizes`` tile one of ``op``'s reduction loops."""
    try:
        return any(sizes[r] > 0 for r in op.reduction_dims() if r < len(sizes))
    except (NotImplementedError, VerifyError):  # unreadable maps: the tiling says so
        return False


def _finish(tiling: TilePass | TileAndFusePass, result: TilingResult, note: str) -> None:
    """Steps 4 and 5 for one op."""
    if note:
        result.notes.append(note)
    if result.tiled and tiling.bind:
        units = list(tiling.bind[: len(result.loops)])
        if len(tiling.bind) > len(result.loops):
            unused = ", ".join(tiling.bind[len(result.loops) :])
            result.notes.append(f"units {unused} unused: the op has {len(result.loops)} tile loops")
        result.notes.extend(bind_loops(result.loops, units))
        for position, (loop, unit) in enumerate(zip(result.loops, units, strict=False)):
            if loop.attributes.get(BIND_ATTRIBUTE) == StringAttr(unit):
                result.bindings[position] = unit
        tiling.statistics["loops bound"] += len(result.bindings)
    if result.tiled:
        tiling.statistics["ops tiled"] += 1
        tiling.statistics["loops created"] += len(result.loops)
    else:
        tiling.statistics["ops not tiled"] += 1
    tiling.report.add(result)


def _check_sizes(pass_name: str, tile_sizes: Sequence[int]) -> tuple[int, ...]:
    """The pass's tile sizes as a tuple; ``PassError`` for negative or non-integers."""
    sizes = tuple(tile_sizes)
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        raise PassError(f"{pass_name}: expected integer tile sizes, got {list(sizes)}")
    if any(s < 0 for s in sizes):
        raise PassError(f"{pass_name}: expected tile sizes >= 0 (0 = not tiled), got {list(sizes)}")
    return sizes


def _check_units(pass_name: str, units: Sequence[str]) -> tuple[str, ...]:
    """The pass's hardware units as a tuple; ``PassError`` for unknown or repeated ones."""
    for unit in units:
        if unit not in HARDWARE_UNITS:
            known = ", ".join(HARDWARE_UNITS)
            raise PassError(f"{pass_name}: unknown hardware unit '{unit}'; known units: {known}")
    if len(set(units)) != len(units):
        raise PassError(f"{pass_name}: expected each hardware unit once, got {list(units)}")
    return tuple(units)


register_pass(TilePass)
register_pass(TileAndFusePass)
