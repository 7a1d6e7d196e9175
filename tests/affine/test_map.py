"""Affine maps: evaluation, composition laws, permutations, sub-maps, builders."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.affine import AffineMap, const, dim, parse_affine_map, sym

from .strategies import affine_maps, exprs, points

MATMUL_LHS = parse_affine_map("(d0, d1, d2) -> (d0, d2)")
MATMUL_RHS = parse_affine_map("(d0, d1, d2) -> (d2, d1)")
MATMUL_OUT = parse_affine_map("(d0, d1, d2) -> (d0, d1)")


def test_prints_inner_text_without_the_wrapper():
    assert str(AffineMap(2, 1, (dim(0) + sym(0), dim(1)))) == "(d0, d1)[s0] -> (d0 + s0, d1)"
    assert str(AffineMap(0, 1, (sym(0),))) == "()[s0] -> (s0)"
    assert str(AffineMap(1, 0, ())) == "(d0) -> ()"


def test_constructor_checks_the_space():
    with pytest.raises(ValueError, match="expected dims d0..d0, got d1"):
        AffineMap(1, 0, (dim(1),))
    with pytest.raises(ValueError, match="expected symbols s0..s-1, got s0"):
        AffineMap(1, 0, (sym(0),))
    assert AffineMap(1, 0, [dim(0), 3]).results == (dim(0), const(3))


def test_evaluate_checks_the_point():
    assert MATMUL_RHS.evaluate([1, 2, 3]) == (3, 2)
    with pytest.raises(ValueError, match="expected 3 dims and 0 symbols, got 2 and 0"):
        MATMUL_RHS.evaluate([1, 2])


@st.composite
def composable_maps(draw, count):
    """``count`` maps m0, m1, ... such that m0.compose(m1).compose(m2)... is defined."""
    maps = [draw(affine_maps(max_dims=3, semi_affine=False))]
    for _ in range(count - 1):
        inner_dims = draw(st.integers(0, 3))
        inner_symbols = draw(st.integers(0, 2))
        results = draw(
            st.lists(
                exprs(inner_dims, inner_symbols, semi_affine=False),
                min_size=maps[-1].num_dims,
                max_size=maps[-1].num_dims,
            )
        )
        maps.append(AffineMap(inner_dims, inner_symbols, tuple(results)))
    return maps


@settings(max_examples=400)
@given(composable_maps(2), st.data())
def test_compose_law(maps, data):
    a, b = maps
    x = data.draw(points(b.num_dims))
    a_symbols = data.draw(points(a.num_symbols))
    b_symbols = data.draw(points(b.num_symbols))
    composed = a.compose(b)
    assert composed.num_dims == b.num_dims
    assert composed.num_symbols == a.num_symbols + b.num_symbols  # a's symbols first
    expected = a.evaluate(b.evaluate(x, b_symbols), a_symbols)
    assert composed.evaluate(x, a_symbols + b_symbols) == expected


@settings(max_examples=300)
@given(composable_maps(3), st.data())
def test_compose_is_associative(maps, data):
    a, b, c = maps
    left = a.compose(b).compose(c)
    right = a.compose(b.compose(c))
    x = data.draw(points(c.num_dims))
    symbols = data.draw(points(a.num_symbols + b.num_symbols + c.num_symbols))
    assert left.num_symbols == right.num_symbols
    assert left.evaluate(x, symbols) == right.evaluate(x, symbols)


@settings(max_examples=300)
@given(affine_maps(semi_affine=False), st.data())
def test_identity_laws(m, data):
    x = data.draw(points(m.num_dims))
    symbols = data.draw(points(m.num_symbols))
    assert m.compose(AffineMap.identity(m.num_dims)).evaluate(x, symbols) == m.evaluate(x, symbols)
    left = AffineMap.identity(m.num_results).compose(m)
    assert left.evaluate(x, symbols) == m.evaluate(x, symbols)
    assert left == m.simplify()


def test_compose_of_the_matmul_maps_with_a_transpose():
    swap_ij = AffineMap.from_permutation([1, 0, 2])  # (i, j, k) -> (j, i, k)
    assert str(MATMUL_LHS.compose(swap_ij)) == "(d0, d1, d2) -> (d1, d2)"
    with pytest.raises(ValueError, match="expected a map with 3 results to compose with, got 2"):
        MATMUL_LHS.compose(MATMUL_OUT)


@given(st.permutations(range(5)).flatmap(lambda p: st.just(list(p))))
def test_permutation_inverse(permutation):
    p = AffineMap.from_permutation(permutation)
    q = p.inverse_permutation()
    assert p.is_permutation() and q.is_permutation()
    assert p.compose(q).is_identity()
    assert q.compose(p).is_identity()
    assert p.permutation_vector() == tuple(permutation)


def test_permutation_queries():
    assert MATMUL_LHS.is_projected_permutation() and not MATMUL_LHS.is_permutation()
    assert MATMUL_RHS.permutation_vector() == (2, 1) == MATMUL_RHS.get_permutation()
    broadcast = parse_affine_map("(d0, d1) -> (0, d1)")
    assert not broadcast.is_projected_permutation()
    assert broadcast.is_projected_permutation(allow_zero_in_results=True)
    assert not parse_affine_map("(d0, d1) -> (d0, d0)").is_projected_permutation()
    assert not parse_affine_map("(d0)[s0] -> (d0)").is_projected_permutation()
    with pytest.raises(
        ValueError, match=r"expected a permutation, got \(d0, d1, d2\) -> \(d0, d2\)"
    ):
        MATMUL_LHS.inverse_permutation()
    with pytest.raises(ValueError, match="expected a projected permutation"):
        parse_affine_map("(d0) -> (d0 + 1)").permutation_vector()
    with pytest.raises(ValueError, match=r"expected a permutation of 0..2, got \[0, 0, 2\]"):
        AffineMap.from_permutation([0, 0, 2])


def test_identity_queries():
    assert AffineMap.identity(3).is_identity()
    assert parse_affine_map("(d0, d1)[s0] -> (d0, d1)").is_identity()
    assert not parse_affine_map("(d0, d1) -> (d0)").is_identity()
    assert not AffineMap.from_permutation([1, 0]).is_identity()


def test_builders():
    assert str(AffineMap.minor_identity(4, 2)) == "(d0, d1, d2, d3) -> (d2, d3)"
    assert str(AffineMap.constant_map(5)) == "() -> (5)"
    assert str(AffineMap.constant_map([0, 1], num_dims=1)) == "(d0) -> (0, 1)"
    assert str(AffineMap.identity(0)) == "() -> ()"
    with pytest.raises(ValueError, match="expected at most 2 results, got 3"):
        AffineMap.minor_identity(2, 3)


def test_sub_map_and_drop_results():
    m = parse_affine_map("(d0, d1)[s0] -> (d0, d1 + s0, d0 * 2)")
    assert str(m.sub_map([2, 0])) == "(d0, d1)[s0] -> (d0 * 2, d0)"
    assert str(m.drop_results([1])) == "(d0, d1)[s0] -> (d0, d0 * 2)"
    assert m.num_inputs == 3 and m.num_results == 3
    with pytest.raises(ValueError, match=r"expected a result position in \[0, 3\), got 3"):
        m.sub_map([3])
    with pytest.raises(ValueError, match=r"expected a result position in \[0, 3\), got -1"):
        m.drop_results([-1])


def test_dims_used():
    m = parse_affine_map("(d0, d1, d2, d3) -> (d3, d0 + d3)")
    assert m.used_dims() == (0, 3)
    assert m.is_function_of_dim(3) and not m.is_function_of_dim(1)


def test_replace_dims_and_symbols():
    m = parse_affine_map("(d0, d1)[s0] -> (d0 + s0, d1 * 2)")
    replaced = m.replace_dims_and_symbols([dim(1), dim(0)], [const(4)], 2, 0)
    assert str(replaced) == "(d0, d1) -> (d1 + 4, d0 * 2)"
    with pytest.raises(ValueError, match="expected dims d0..d0, got d1"):
        m.replace_dims_and_symbols([dim(0), dim(1)], [const(0)], 1, 0)


def test_maps_are_frozen_hashable_values():
    assert parse_affine_map("(d0) -> (d0 + 1)") == AffineMap(1, 0, (dim(0) + 1,))
    assert len({MATMUL_LHS, parse_affine_map("(d0, d1, d2) -> (d0, d2)")}) == 1
    with pytest.raises(AttributeError):
        MATMUL_LHS.num_dims = 4  # type: ignore[misc]
