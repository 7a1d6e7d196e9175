"""footprint_picture and indexing_map_explorer: pictures, labels and sliders."""

import xml.etree.ElementTree as ET

import pytest

from tinycomp.viz import Explorer
from tinycomp.viz.indexing_explorer import (
    footprint_picture,
    indexing_map_explorer,
    tile_grid,
    tile_of,
)
from tinycomp.viz.indexing_maps import EXAMPLES, IndexingMapError, indexing_problem


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_draws_a_deterministic_svg(name):
    first, second = footprint_picture(name), footprint_picture(name)
    assert first.svg == second.svg and first.text == second.text
    assert {"image/svg+xml", "text/plain"} <= set(first._repr_mimebundle_())
    ET.fromstring(first.svg)
    assert first.text.startswith("footprint of the tile ")


def test_point_and_tile_pictures_have_golden_twins():
    assert footprint_picture("transpose", point=(1, 5)).text == (
        "footprint of the point i=1, j=5\n"
        "  in   (i, j) -> (i, j)  in[1, 5]  (1 element)\n"
        "  out  (i, j) -> (j, i)  out[5, 1]  (1 element)"
    )
    assert footprint_picture("reduction", tile_sizes=(4, 10), tile=1).text == (
        "footprint of the tile i 4:6, j 0:10\n"
        "  in   (i, j) -> (i, j)  in[4:6, 0:10]  (20 elements)\n"
        "  out  (i, j) -> (i)     out[4:6]  (2 elements)"
    )


def test_tiles_are_numbered_row_major_with_partial_last_tiles():
    problem = indexing_problem("matmul")  # loops 8 x 8 x 6
    assert tile_grid(problem, (3, 8, 4)) == (3, 1, 2)
    assert tile_of(problem, (3, 8, 4), 0) == ((0, 0, 0), (3, 8, 4))
    assert tile_of(problem, (3, 8, 4), 1) == ((0, 0, 4), (3, 8, 2))
    assert tile_of(problem, (3, 8, 4), 5) == ((6, 0, 4), (2, 8, 2))
    with pytest.raises(IndexingMapError, match="tile number from 0 to 5, got 6"):
        tile_of(problem, (3, 8, 4), 6)
    with pytest.raises(IndexingMapError, match="3 positive tile sizes"):
        tile_grid(problem, (0, 8, 4))


def test_the_picture_says_where_a_slice_of_a_4d_operand_is_taken():
    picture = footprint_picture("conv2d_nhwc", point=(1, 2, 3, 1, 0, 2, 1))
    assert "input[1, 2, 5, 1]  (1 element)" in picture.text
    # Glyphs are drawn as paths, so look for the title in the SVG's comments/ids instead:
    # matplotlib keeps each text as a <g id="text_N"> group with the string in a comment.
    assert "at n=1, c=1" in picture.svg


def test_point_explorer_moves_with_set():
    explorer = indexing_map_explorer("matmul")
    assert isinstance(explorer, Explorer)
    assert explorer.values == {"m": 0, "n": 0, "k": 0}
    explorer.set(m=3, k=5)
    assert explorer.label == "point m=3, n=0, k=5"
    assert explorer.text.splitlines() == [
        'explorer "indexing maps": m=3, n=0, k=5',
        "label: point m=3, n=0, k=5",
        "footprint of the point m=3, n=0, k=5",
        "  A  (m, n, k) -> (m, k)  A[3, 5]  (1 element)",
        "  B  (m, n, k) -> (k, n)  B[5, 0]  (1 element)",
        "  C  (m, n, k) -> (m, n)  C[3, 0]  (1 element)",
    ]
    with pytest.raises(ValueError, match="from 0 to 7"):
        explorer.set(m=8)


def test_tile_explorer_keeps_the_tile_slider_in_the_grid():
    explorer = indexing_map_explorer("matmul", mode="tile")
    assert explorer.values == {"tile_m": 4, "tile_n": 4, "tile_k": 3, "tile": 0}
    explorer.set(tile=7)
    assert explorer.label == "tile 7 in 0..7 (a 2x2x2 grid): m 4:8, n 4:8, k 3:6"
    explorer.set(tile_m=8)  # the grid shrinks to 1x2x2: the tile slider follows
    assert explorer.controls["tile"].max == 3
    assert explorer.values["tile"] == 3
    assert explorer.label == "tile 3 in 0..3 (a 1x2x2 grid): m 0:8, n 4:8, k 3:6"
    explorer.set(tile_m=1, tile=20)  # sizes first, then a tile of the new grid
    assert explorer.label == "tile 20 in 0..31 (a 8x2x2 grid): m 5:6, n 0:4, k 0:3"
    assert "A[5, 0:3]  (3 elements)" in explorer.text
    explorer.controls["tile_k"].value = 6  # dragging a slider in the browser
    assert explorer.label.startswith("tile 15 in 0..15 (a 8x2x1 grid)")


def test_explorer_of_a_dict_of_maps_and_bad_mode():
    from tinycomp.affine import parse_affine_map

    maps = {"x": parse_affine_map("(d0, d1) -> (d0 * 2 + d1)")}
    explorer = indexing_map_explorer(maps, [4, 2], loop_names=["i", "r"], mode="tile")
    explorer.set(tile_i=2, tile_r=2, tile=1)
    assert (
        explorer.picture.text.splitlines()[1] == "  x  (i, r) -> (i * 2 + r)  x[4:8]  (4 elements)"
    )
    with pytest.raises(ValueError, match="expected mode to be one of"):
        indexing_map_explorer("matmul", mode="window")
