"""Tiling (chapter 06): cut linalg ops into tiles through their indexing maps.

A linalg op on tensors says *what* to compute over an iteration space; tiling decides
*in which pieces*. Each piece (a tile) is the same op applied to slices of its operands,
and an ``scf.for`` nest walks over the tiles, carrying the results through ``iter_args``.
The indexing maps do the work: a tile of the loops maps, through each operand's map, to
the slice of that operand it touches. This is MLIR's TilingInterface and
``scf::tileUsingSCF``, in the same IR shapes. The files, one idea each:

==================  ==================================================================
``slices.py``       the slice of an operand a tile touches, from its indexing map
``index_values.py`` offsets and sizes: ``int`` when known, ``affine.apply`` otherwise
``loop_nest.py``    the ``scf.for`` nest with ``iter_args`` and ``affine.min`` partial tiles
``legality.py``     what can be tiled, and the reason when not; tile size checks
``tile_op.py``      ``tile_linalg_op``: tile one op (MLIR's ``tileUsingSCF``)
``reduction.py``    ``tile_reduction_with_partials`` (MLIR's ``tileReductionUsingScf``)
``fuse.py``         ``tile_and_fuse``: pull producers into the tile loop
``binding.py``      ``HARDWARE_UNITS``, ``bind_loops``: tile loops -> blocks, cores
``result.py``       ``TilingResult``: what one tiling did
``report.py``       ``TilingReport``: every op's outcome as a table
``passes.py``       ``TilePass`` (``linalg-tile``), ``TileAndFusePass`` (``linalg-tile-and-fuse``)
==================  ==================================================================

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
...   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
...        iterator_types = ["parallel"]} ins(%x : tensor<6xf32>) outs(%y : tensor<6xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %0 = math.exp %in : f32
...     linalg.yield %0 : f32
...   } -> tensor<6xf32>
...   return %r : tensor<6xf32> }''')
>>> result = tile_linalg_op(m.body.first_op.entry_block.first_op, [4])
>>> print(m)  # doctest: +NORMALIZE_WHITESPACE
#map = affine_map<(d0) -> (-d0 + 6, 4)>
#map1 = affine_map<(d0) -> (d0)>
module {
  func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
    %c0 = arith.constant 0 : index
    %c6 = arith.constant 6 : index
    %c4 = arith.constant 4 : index
    %r = scf.for %d0 = %c0 to %c6 step %c4 iter_args(%arg0 = %y) -> (tensor<6xf32>) {
      %0 = affine.min #map(%d0)
      %extracted_slice = tensor.extract_slice %x[%d0] [%0] [1] : tensor<6xf32> to tensor<?xf32>
      %extracted_slice_0 = tensor.extract_slice %arg0[%d0] [%0] [1]
          : tensor<6xf32> to tensor<?xf32>
      %r_1 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]}
          ins(%extracted_slice : tensor<?xf32>) outs(%extracted_slice_0 : tensor<?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %1 = math.exp %in : f32
        linalg.yield %1 : f32
      } -> tensor<?xf32>
      %inserted_slice = tensor.insert_slice %r_1 into %arg0[%d0] [%0] [1]
          : tensor<?xf32> into tensor<6xf32>
      scf.yield %inserted_slice : tensor<6xf32>
    }
    return %r : tensor<6xf32>
  }
}
"""

from tinycomp.passes.tiling.binding import BIND_ATTRIBUTE, HARDWARE_UNITS, bind_loops
from tinycomp.passes.tiling.fuse import tile_and_fuse
from tinycomp.passes.tiling.legality import why_not_tilable
from tinycomp.passes.tiling.passes import TileAndFusePass, TilePass
from tinycomp.passes.tiling.reduction import REDUCTION_IDENTITIES, tile_reduction_with_partials
from tinycomp.passes.tiling.report import TilingReport
from tinycomp.passes.tiling.result import TilingResult
from tinycomp.passes.tiling.tile_op import tile_linalg_op

__all__ = [
    "BIND_ATTRIBUTE",
    "HARDWARE_UNITS",
    "REDUCTION_IDENTITIES",
    "TileAndFusePass",
    "TilePass",
    "TilingReport",
    "TilingResult",
    "bind_loops",
    "tile_and_fuse",
    "tile_linalg_op",
    "tile_reduction_with_partials",
    "why_not_tilable",
]
