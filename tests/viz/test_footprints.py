"""tile_footprints: golden text twins, and the touched set against brute force on random maps."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.affine import AffineMap, const, dim, expr_range
from tinycomp.viz.footprints import tile_footprints
from tinycomp.viz.indexing_maps import IndexingMapError, indexing_problem


def test_golden_matmul_tile_and_point():
    problem = indexing_problem("matmul")
    assert tile_footprints(problem, (4, 0, 3), (4, 4, 3)).text == (
        "footprint of the tile m 4:8, n 0:4, k 3:6\n"
        "  A  (m, n, k) -> (m, k)  A[4:8, 3:6]  (12 elements)\n"
        "  B  (m, n, k) -> (k, n)  B[3:6, 0:4]  (12 elements)\n"
        "  C  (m, n, k) -> (m, n)  C[4:8, 0:4]  (16 elements)"
    )
    assert tile_footprints(problem, (1, 2, 3), (1, 1, 1)).text == (
        "footprint of the point m=1, n=2, k=3\n"
        "  A  (m, n, k) -> (m, k)  A[1, 3]  (1 element)\n"
        "  B  (m, n, k) -> (k, n)  B[3, 2]  (1 element)\n"
        "  C  (m, n, k) -> (m, n)  C[1, 2]  (1 element)"
    )


def test_golden_conv_tile_has_a_halo():
    problem = indexing_problem("conv2d_nhwc")
    found = tile_footprints(problem, (1, 2, 2, 0, 0, 0, 0), (1, 2, 2, 4, 3, 3, 3))
    assert found.text.splitlines()[1:] == [
        "  input   (n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)  "
        "input[1, 2:6, 2:6, 0:3]  (48 elements)",
        "  filter  (n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)            "
        "filter[0:3, 0:3, 0:3, 0:4]  (108 elements)",
        "  output  (n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)            "
        "output[1, 2:4, 2:4, 0:4]  (16 elements)",
    ]


def test_a_strided_map_touches_part_of_its_box():
    problem = indexing_problem({"x": AffineMap(1, 0, (dim(0) * 2,))}, [5])
    (x,) = tile_footprints(problem, (1,), (3,)).operands
    assert x.box == ((2, 7),)
    assert np.flatnonzero(x.touched).tolist() == [2, 4, 6]
    assert "x[2:7]  (3 elements of the 5 in the box)" in tile_footprints(problem, (1,), (3,)).text


def test_tiles_outside_the_loops_are_rejected():
    problem = indexing_problem("transpose")
    with pytest.raises(IndexingMapError, match="loop j to stay in 0..7, got the range 6..9"):
        tile_footprints(problem, (0, 6), (2, 4))
    with pytest.raises(IndexingMapError, match="one offset and one size per loop"):
        tile_footprints(problem, (0,), (2,))


# -- random maps against brute force --------------------------------------------------------
@st.composite
def results(draw, num_dims: int):
    """A non-negative affine expression: constant + sum(c * d), maybe divided or reduced."""
    expr = const(draw(st.integers(0, 3)))
    for position in draw(st.lists(st.integers(0, num_dims - 1), min_size=1, max_size=3)):
        expr = expr + dim(position) * draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["plain", "plain", "floordiv", "mod"]))
    if kind == "floordiv":
        expr = expr // draw(st.integers(1, 3))
    elif kind == "mod":
        expr = expr % draw(st.integers(2, 5))
    return expr


@st.composite
def problems_and_tiles(draw):
    num_dims = draw(st.integers(1, 3))
    maps = {}
    for number in range(draw(st.integers(1, 3))):
        rank = draw(st.integers(0, 3))
        maps[f"t{number}"] = AffineMap(num_dims, 0, [draw(results(num_dims)) for _ in range(rank)])
    loop_sizes = [draw(st.integers(1, 5)) for _ in range(num_dims)]
    offsets = [draw(st.integers(0, size - 1)) for size in loop_sizes]
    sizes = [
        draw(st.integers(1, size - offset))
        for size, offset in zip(loop_sizes, offsets, strict=True)
    ]
    return indexing_problem(maps, loop_sizes), tuple(offsets), tuple(sizes)


@settings(max_examples=80, deadline=None)
@given(problems_and_tiles())
def test_touched_elements_and_boxes_agree_with_brute_force(case):
    problem, offsets, sizes = case
    points = list(
        itertools.product(*(range(o, o + s) for o, s in zip(offsets, sizes, strict=True)))
    )
    found = tile_footprints(problem, offsets, sizes)
    for footprint in found.operands:
        indexing_map = problem.maps[footprint.name]
        reached = {indexing_map.evaluate(point) for point in points}  # one point at a time
        touched = {tuple(int(i) for i in index) for index in np.argwhere(footprint.touched)}
        if indexing_map.num_results == 0:
            touched = {()} if footprint.touched.item() else set()
        assert touched == reached
        assert footprint.count == len(reached)
        # The box holds every touched element ...
        for index in reached:
            assert all(lo <= i < hi for i, (lo, hi) in zip(index, footprint.box, strict=True))
        # ... and is tight along each dimension where tile_footprint says it is exact.
        box = [(o, o + s) for o, s in zip(offsets, sizes, strict=True)]
        for axis, result in enumerate(indexing_map.results):
            along = [index[axis] for index in reached]
            if expr_range(result, box).exact:
                assert footprint.box[axis] == (min(along), max(along) + 1)
        if indexing_map.is_projected_permutation() and len(points) > 0:
            assert footprint.count == footprint.box_size  # a permutation fills its box
