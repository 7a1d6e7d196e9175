"""Footprints: sound ranges always; exact (and dense) when the analysis says so."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.affine import AffineMap, dim, expr_range, parse_affine_map

from .strategies import affine_maps, boxes, exprs, points


def _all_points(box):
    return itertools.product(*(range(lo, hi) for lo, hi in box))


def _reached(expr, box, symbols=()):
    return {expr.evaluate(list(point), symbols) for point in _all_points(box)}


@settings(max_examples=600)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(exprs(n, 0, max_leaves=10), boxes(n))))
def test_range_is_sound_and_its_claims_hold(expr_and_box):
    expr, box = expr_and_box
    found = expr_range(expr, box)
    reached = _reached(expr, box)
    assert found.lo <= min(reached) and max(reached) < found.hi  # sound
    if found.exact:
        assert {found.lo, found.hi - 1} <= reached
    if found.dense:
        assert reached == set(range(found.lo, found.hi))


@settings(max_examples=300)
@given(affine_maps(max_dims=3, max_symbols=2), st.data())
def test_map_footprint_is_sound_with_symbols(m, data):
    box = data.draw(boxes(m.num_dims))
    symbols = data.draw(points(m.num_symbols, bound=6).filter(lambda values: all(values)))
    symbols = [abs(value) for value in symbols]  # symbolic divisors are positive
    ranges = m.footprint(box, symbols)
    for point in _all_points(box):
        for value, (lo, hi) in zip(m.evaluate(list(point), symbols), ranges, strict=True):
            assert lo <= value < hi


@st.composite
def projected_permutations(draw):
    num_dims = draw(st.integers(1, 4))
    chosen = draw(st.permutations(range(num_dims)))
    count = draw(st.integers(0, num_dims))
    return AffineMap(num_dims, 0, tuple(dim(p) for p in chosen[:count]))


@given(projected_permutations(), st.data())
def test_projected_permutation_footprint_is_the_box(m, data):
    box = data.draw(boxes(m.num_dims))
    assert m.footprint(box) == tuple(box[p] for p in m.permutation_vector())


@settings(max_examples=300)
@given(
    st.integers(1, 3).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 6), min_size=n, max_size=n),
            st.integers(-10, 10),
            boxes(n),
        )
    )
)
def test_sums_with_non_negative_coefficients_are_exact(case):
    coefficients, constant, box = case
    expr = sum((dim(i) * k for i, k in enumerate(coefficients)), start=dim(0) * 0) + constant
    found = expr_range(expr, box)
    reached = _reached(expr, box)
    assert found.exact
    assert (found.lo, found.hi) == (min(reached), max(reached) + 1)


@pytest.mark.parametrize(
    ("text", "box", "expected"),
    [
        ("(d0, d1) -> (d0 * 4 + d1)", [(2, 4), (0, 4)], ((8, 16),)),  # a tile of rows
        ("(d0, d1) -> (d0 * 2 + d1)", [(0, 4), (0, 3)], ((0, 9),)),  # conv: oh*2 + kh
        ("(d0, d1) -> (d0 - d1)", [(0, 4), (0, 3)], ((-2, 4),)),
        ("(d0) -> (d0 floordiv 4)", [(5, 13)], ((1, 4),)),
        ("(d0) -> (d0 ceildiv 4)", [(5, 13)], ((2, 4),)),
        ("(d0) -> (d0 mod 4)", [(5, 7)], ((1, 3),)),
        ("(d0) -> (d0 mod 4)", [(3, 6)], ((0, 4),)),
        ("(d0) -> (d0 mod 4)", [(0, 100)], ((0, 4),)),
        ("(d0, d1) -> (0, d1)", [(0, 4), (3, 5)], ((0, 1), (3, 5))),
    ],
)
def test_footprint_examples(text, box, expected):
    assert parse_affine_map(text).footprint(box) == expected


def test_exactness_is_reported():
    assert expr_range(dim(0) * 2, [(0, 4)]).dense is False  # 0, 2, 4, 6
    assert expr_range(dim(0) + dim(1) * 4, [(0, 4), (0, 3)]).dense is True
    shared = expr_range(dim(0) - dim(0) // 2, [(0, 8)])  # d0 twice: only a bound
    assert shared.exact is False and (shared.lo, shared.hi) == (-3, 8)


def test_tile_footprint_of_matmul_and_conv():
    a = parse_affine_map("(d0, d1, d2) -> (d0, d2)")
    b = parse_affine_map("(d0, d1, d2) -> (d2, d1)")
    tile = dict(offsets=[64, 32, 0], sizes=[32, 16, 128])
    assert a.tile_footprint(**tile) == ((64, 0), (32, 128))
    assert b.tile_footprint(**tile).sizes == (128, 16)
    conv_input = parse_affine_map(
        "(n, oh, ow, f, kh, kw, c)[s] -> (n, oh * s + kh, ow * s + kw, c)"
    )
    slice_ = conv_input.tile_footprint([0, 4, 8, 0, 0, 0, 0], [1, 4, 4, 16, 3, 3, 8], symbols=[2])
    assert slice_.offsets == (0, 8, 16, 0)
    assert slice_.sizes == (1, 9, 9, 8)  # (4 - 1) * 2 + 3 rows, the halo included


def test_footprint_errors():
    m = parse_affine_map("(d0)[s0] -> (d0 + s0)")
    with pytest.raises(ValueError, match="expected 1 ranges and 1 symbols, got 1 and 0"):
        m.footprint([(0, 4)])
    with pytest.raises(ValueError, match=r"expected a non-empty range for d0, got \[4, 4\)"):
        m.footprint([(4, 4)], [0])
    with pytest.raises(ValueError, match="expected as many sizes as offsets, got 1 and 2"):
        m.tile_footprint([0, 0], [1])
