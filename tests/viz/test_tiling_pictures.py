"""tile_view and tiling_picture: one tile's slices, against the tiling library."""

import itertools
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir import parse
from tinycomp.passes.tiling import tile_linalg_op
from tinycomp.viz.tiling_pictures import PARTIAL, tile_view, tiling_picture

MATMUL = """func.func @main(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>,
                     %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
                      outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %mm : tensor<10x16xf32>
}"""

CONV = """func.func @main(%x: tensor<1x9x11x3xf32>, %w: tensor<3x3x3x4xf16>,
                     %init: tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32> {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x11x3xf32>, tensor<3x3x3x4xf16>)
      outs(%init : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>
  return %y : tensor<1x4x5x4xf32>
}"""

ROW_SUM = """func.func @main(%x: tensor<6x10xf32>, %s: tensor<6x1xf32>) -> tensor<6x1xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x10xf32>) outs(%s : tensor<6x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<6x1xf32>
  return %r : tensor<6x1xf32>
}"""


def the_op(text: str) -> StructuredOp:
    return [op for op in parse(text).walk() if isinstance(op, StructuredOp)][-1]


def test_matmul_partial_tile_golden_text():
    view = tile_view(the_op(MATMUL), [4, 8, 0], tile=(2, 1, 0))
    assert view.number == 5 and view.is_partial and view.total_tiles == 6
    assert view.text == (
        "tiling %mm = linalg.matmul by [4, 8, 0]\n"
        "  loops (m, n, k) = (10, 16, 8): parallel, parallel, reduction\n"
        "  tiles per loop [3, 2, 1] = 6 tiles; a full tile touches 512 bytes\n"
        "tile 5 = (2, 1, 0): m 8:10 (partial: 2 of 4), n 8:16, k 0:8 (not tiled)\n"
        "  operand  map                  slice [offsets] [sizes]  full tile  bytes\n"
        "  %a       (m, n, k) -> (m, k)  [8, 0] [2, 8]            4x8          128\n"
        "  %b       (m, n, k) -> (k, n)  [0, 8] [8, 8]            8x8          256\n"
        "  %c       (m, n, k) -> (m, n)  [8, 8] [2, 8]            4x8          128"
    )


def test_strided_conv_slice_and_mixed_element_sizes():
    view = tile_view(the_op(CONV), [0, 3, 2, 0, 0, 0, 0], tile=3)
    x, w, init = view.operands
    # oh 3:4 (a partial tile of 1 row), ow 0:2: input rows 6..8, columns 0..4.
    assert (x.offsets, x.sizes) == ((0, 6, 0, 0), (1, 3, 5, 3))
    assert x.full_tile == (1, 7, 5, 3)  # oh * 2 + kh over 3 rows and 3 taps: 2 * 2 + 2 + 1
    assert (w.element_bytes, w.full_tile_bytes) == (2, 3 * 3 * 3 * 4 * 2)
    assert init.boundaries == (None, 3, 2, None)
    assert (x.plane, w.plane) == ((1, 2), (0, 1))  # the (h, w) planes of a convolution


@pytest.mark.parametrize(
    "text, sizes",
    [(MATMUL, (4, 8, 3)), (CONV, (0, 3, 2, 3, 2, 0, 2)), (ROW_SUM, (4, 3)), (MATMUL, (16, 0, 5))],
)
def test_counts_and_footprints_are_the_library_tilings(text, sizes):
    view = tile_view(the_op(text), sizes)
    result = tile_linalg_op(the_op(text), sizes)
    assert result.tiled
    assert view.tile_counts == result.tile_counts and view.total_tiles == result.total_tiles
    assert [o.full_tile for o in view.operands] == list(result.footprints.values())


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_output_slices_of_all_tiles_cover_the_output_once(data):
    op = the_op(MATMUL if data.draw(st.booleans()) else ROW_SUM)
    sizes = [data.draw(st.integers(0, n + 3)) for n in op.static_loop_sizes()]
    view = tile_view(op, sizes)
    covered = np.zeros(view.operands[-1].shape, dtype=int)
    for tile in itertools.product(*(range(c) for c in view.tile_counts)):
        current = tile_view(op, sizes, tile)
        for operand in current.operands:
            for offset, size, extent in zip(
                operand.offsets, operand.sizes, operand.shape, strict=True
            ):
                assert 0 <= offset and 0 < size and offset + size <= extent
        out = current.operands[-1]
        covered[tuple(slice(o, o + s) for o, s in zip(out.offsets, out.sizes, strict=True))] += 1
    reductions = [
        c for c, kind in zip(view.tile_counts, view.iterator_types, strict=True)
        if kind == "reduction"
    ]  # fmt: skip
    assert (covered == int(np.prod(reductions))).all()  # each reduction tile revisits it


def test_picture_is_deterministic_and_marks_partial_tiles():
    op = the_op(MATMUL)
    full, again = tiling_picture(op, [4, 8, 0], tile=0), tiling_picture(op, [4, 8, 0], tile=0)
    assert full.svg == again.svg and full.text == again.text
    assert {"image/svg+xml", "text/plain"} <= set(full._repr_mimebundle_())
    ET.fromstring(full.svg)
    partial = tiling_picture(op, [4, 8, 0], tile=5)
    assert PARTIAL.lower() in partial.svg.lower() and PARTIAL.lower() not in full.svg.lower()


def grid_frames(svg: str) -> list[str]:
    return re.findall(r'<g id="axes_\d+">\s*<g id="patch_\d+">\s*<path d="([^"]*)"', svg)


def test_the_layout_depends_on_the_shapes_only():
    op = the_op(MATMUL)
    first = tiling_picture(op, [4, 8, 0], tile=0)
    for sizes, tile in [([2, 4, 0], 9), ([0, 0, 3], 2), ([10, 16, 8], 0)]:
        other = tiling_picture(op, sizes, tile=tile)
        assert grid_frames(other.svg) == grid_frames(first.svg) and len(grid_frames(first.svg)) == 3
        assert re.search(r"<svg[^>]*>", other.svg)[0] == re.search(r"<svg[^>]*>", first.svg)[0]


def test_the_previous_slices_are_outlined_dotted():
    op = the_op(MATMUL)
    before = tile_view(op, [4, 8, 0], tile=0)
    moved = tiling_picture(op, [4, 8, 0], tile=5, previous=before)
    still = tiling_picture(op, [4, 8, 0], tile=0, previous=before)
    assert moved.text == tiling_picture(op, [4, 8, 0], tile=5).text  # the twin is the tile's
    assert "dotted" in moved.svg and "dotted" not in tiling_picture(op, [4, 8, 0], tile=5).svg
    assert still.svg.count("stroke-dasharray") < moved.svg.count("stroke-dasharray")


def test_bad_requests_are_clear_errors():
    op = the_op(MATMUL)
    with pytest.raises(ValueError, match="tile number from 0 to 5, got 6"):
        tile_view(op, [4, 8, 0], tile=6)
    with pytest.raises(ValueError, match=r"within the tiles per loop \[3, 2, 1\]"):
        tile_view(op, [4, 8, 0], tile=(3, 0, 0))
    with pytest.raises(TypeError, match="expected a linalg op"):
        tile_view(parse(MATMUL).body.first_op, [4])
    dynamic = the_op(MATMUL.replace("tensor<10x8xf32>", "tensor<?x8xf32>"))
    with pytest.raises(ValueError, match="expected static shapes"):
        tile_view(dynamic, [4])
    floor = the_op(ROW_SUM.replace("(d0, d1) -> (d0, d1)>,", "(d0, d1) -> (d0 floordiv 2, d1)>,"))
    with pytest.raises(ValueError, match="operand #0 has no slice per tile"):
        tile_view(floor, [4, 0])
