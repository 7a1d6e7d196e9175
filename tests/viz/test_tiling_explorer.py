"""tiling_explorer: sliders over the real tiling passes, nothing printed."""

import re

import ipywidgets
import numpy as np
import pytest

import tinycomp
from tinycomp.viz import Explorer
from tinycomp.viz.tiling_explorer import CHANGED_STYLE, tiling_explorer

MNK = ("m", "n", "k")


@pytest.fixture(scope="module")
def matmul():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((6, 4), np.float32), rng.standard_normal((4, 8), np.float32)
    return tinycomp.compile(lambda a, b: a @ b, a, b, stop_after="fused").ir("fused")


def nest_widget(explorer: Explorer) -> ipywidgets.HTML:
    (found,) = [w for w in explorer.widget.children if "tinycomp-loop-nest" in w._dom_classes]
    return found


def grid_frames(svg: str) -> list[str]:
    """The outline of every operand's grid: where each axes sits in the drawing."""
    return re.findall(r'<g id="axes_\d+">\s*<g id="patch_\d+">\s*<path d="([^"]*)"', svg)


def test_defaults_tile_parallel_loops_by_half(matmul):
    explorer = tiling_explorer(matmul)
    assert isinstance(explorer, Explorer)
    assert explorer.values == {"tile_d0": 3, "tile_d1": 4, "tile_d2": 0, "tile": 0, "bind": True}
    assert (
        explorer.label == "4 tiles (2x2x1); a full tile touches 160 bytes; tile 0: d0 0:3, d1 0:4"
    )
    assert explorer.text.startswith('explorer "tiling": tile_d0=3, tile_d1=4, tile_d2=0')


def test_loops_carry_the_names_of_the_prose(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0), loop_names=MNK)
    assert list(explorer.values) == ["tile_m", "tile_n", "tile_k", "tile", "bind"]
    assert [explorer.controls[f"tile_{n}"].description for n in MNK] == [
        "tile m",
        "tile n",
        "tile k",
    ]
    text = explorer.picture.text
    assert "for %m = 0 to 6 step 2" in text and "for %n = 0 to 8 step 4" in text
    assert "loops (m, n, k) = (6, 8, 4)" in text and "%d0" not in text
    with pytest.raises(ValueError, match="expected 3 different loop names"):
        tiling_explorer(matmul, loop_names=("m", "m", "k"))


def test_the_tile_slider_follows_the_grid(matmul, capsys):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0), loop_names=MNK)
    explorer.set(tile=5)
    assert "tile 5: m 4:6, n 4:8" in explorer.label
    explorer.set(tile_m=6)  # one tile along m: the tile number is clamped
    assert explorer.values["tile"] == 1 and explorer.controls["tile"].max == 1
    explorer.set(tile_m=4, tile=3)
    assert "(partial: 2 of 4)" in explorer.picture.text
    assert capsys.readouterr().out == ""  # nothing printed from the callbacks


def test_a_change_is_named_and_marked(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0), loop_names=MNK)
    assert "changed" not in explorer.label and CHANGED_STYLE not in nest_widget(explorer).value
    explorer.set(tile_m=3)
    assert explorer.label.endswith("(changed: tile m 2 -> 3)")
    html = nest_widget(explorer).value
    marked = re.findall(rf'<span style="{CHANGED_STYLE}">(.*?)</span>', html)
    assert any("step 3" in line for line in marked)  # the m loop's new step
    assert not any("%b[0, %n]" in line for line in marked)  # %b's slice did not change
    assert ":" in explorer.picture.svg  # the old slices, dotted (linestyle ':')
    explorer.set(bind=False)
    assert explorer.label.endswith("(changed: bind off)")


def test_the_grids_keep_their_place(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0), loop_names=MNK)
    frames = grid_frames(explorer.picture.svg)
    assert len(frames) == 3
    for change in [{"tile_m": 3}, {"tile_k": 2}, {"tile": 1}, {"tile_m": 0, "tile_n": 0}]:
        explorer.set(**change)
        assert grid_frames(explorer.picture.svg) == frames, change


def test_the_loop_nest_is_text_not_drawing(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0), loop_names=MNK)
    html = nest_widget(explorer).value
    assert html.startswith("<pre") and "font-size: 13px" in html and "white-space: pre" in html
    assert "for %m = 0 to 6 step 2 carrying %arg0 = %0:" in html
    assert "carrying" not in explorer.picture.svg  # the picture holds only the grids
    children = explorer.widget.children
    assert children.index(nest_widget(explorer)) == len(children) - 2  # above the picture


def test_binding_follows_the_checkbox_and_refuses_reductions(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0), loop_names=MNK)
    assert "# 3 tiles, bound to gpu.block.y" in explorer.picture.text
    explorer.set(bind=False)
    assert "bound to" not in explorer.picture.text
    explorer.set(bind=True, tile_m=0, tile_n=0, tile_k=2)
    text = explorer.picture.text
    assert "sequential: carries a reduction" in text
    assert "# loop %k not bound to gpu.block.y: it carries a reduction" in text
    assert "not fused: it initializes the result of a tiled reduction loop" in text


def test_all_zero_sizes_show_the_untiled_op(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(0, 0, 0))
    assert explorer.label.endswith("tile 0: the whole op")
    assert "every tile size is 0: nothing to tile" in explorer.picture.text


def test_bad_programs_and_sizes(matmul):
    with pytest.raises(ValueError, match="expected 3 tile sizes"):
        tiling_explorer(matmul, tile_sizes=(2, 2))
    with pytest.raises(ValueError, match="a linalg op to tile"):
        tiling_explorer("func.func @f() { return }")
