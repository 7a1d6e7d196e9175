"""tile_layout_picture: a tile coloured by warp, each cell labelled with its thread."""

from tinycomp.frontend.tile.layout import BlockedLayout, default_layout
from tinycomp.viz.palette import swatches
from tinycomp.viz.tile_layout import tile_layout_picture


def test_text_twin_is_the_table():
    layout = BlockedLayout((2,), (32,), (2,), (0,))
    picture = tile_layout_picture(layout, (256,))
    lines = picture.text.splitlines()
    assert lines[0] == "tile 256 over 2 warps (64 threads), 4 registers per thread"
    assert lines[1] == str(layout)
    cells = lines[2].split()
    assert cells[:4] == ["0", "0", "1", "1"]
    assert cells[128:130] == ["0", "0"]  # the layout repeats past 128 elements


def test_replicas_are_said():
    picture = tile_layout_picture(default_layout((16,), 4), (16,))
    assert picture.text.splitlines()[-1] == "each element is held by 8 threads; the first is shown"


def test_each_warp_has_its_own_colour_and_the_drawing_is_deterministic():
    layout = BlockedLayout((1, 1), (4, 8), (2, 2), (1, 0))
    picture = tile_layout_picture(layout, (8, 16))
    colours = [swatch.color.lower() for swatch in swatches(4)]
    assert all(colour in picture.svg.lower() for colour in colours)
    assert swatches(5)[4].color.lower() not in picture.svg.lower()
    assert picture.svg == tile_layout_picture(layout, (8, 16)).svg
