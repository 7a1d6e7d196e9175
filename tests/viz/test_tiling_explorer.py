"""tiling_explorer: sliders over the real tiling passes, nothing printed."""

import numpy as np
import pytest

import tinycomp
from tinycomp.viz import Explorer
from tinycomp.viz.tiling_explorer import tiling_explorer


@pytest.fixture(scope="module")
def matmul():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((6, 4), np.float32), rng.standard_normal((4, 8), np.float32)
    return tinycomp.compile(lambda a, b: a @ b, a, b, stop_after="fused").ir("fused")


def test_defaults_tile_parallel_loops_by_half(matmul):
    explorer = tiling_explorer(matmul)
    assert isinstance(explorer, Explorer)
    assert explorer.values == {"tile_d0": 3, "tile_d1": 4, "tile_d2": 0, "tile": 0, "bind": True}
    assert (
        explorer.label == "4 tiles (2x2x1); a full tile touches 160 bytes; tile 0: d0 0:3, d1 0:4"
    )
    assert explorer.text.startswith('explorer "tiling": tile_d0=3, tile_d1=4, tile_d2=0')


def test_the_tile_slider_follows_the_grid(matmul, capsys):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0))
    explorer.set(tile=5)
    assert "tile 5: d0 4:6, d1 4:8" in explorer.label
    explorer.set(tile_d0=6)  # one tile along d0: the tile number is clamped
    assert explorer.values["tile"] == 1 and explorer.controls["tile"].max == 1
    explorer.set(tile_d0=4, tile=3)
    assert "(partial: 2 of 4)" in explorer.picture.text
    assert capsys.readouterr().out == ""  # nothing printed from the callbacks


def test_binding_follows_the_checkbox_and_refuses_reductions(matmul):
    explorer = tiling_explorer(matmul, tile_sizes=(2, 4, 0))
    assert "# 3 tiles, bound to gpu.block.y" in explorer.picture.text
    explorer.set(bind=False)
    assert "bound to" not in explorer.picture.text
    explorer.set(bind=True, tile_d0=0, tile_d1=0, tile_d2=2)
    text = explorer.picture.text
    assert "sequential: carries a reduction" in text
    assert "# loop %d2 not bound to gpu.block.y: it carries a reduction" in text
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
